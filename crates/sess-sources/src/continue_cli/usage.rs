//! The model calls a session file records.
//!
//! The session's `usage` adds up every request the CLI made for the session
//! over all its runs (a compaction's request and messages a compaction
//! dropped included; a fork's counts only its own requests): it is the
//! session's one call. A file without it (an older CLI's) gives one call per
//! assistant item's `message.usage`.

use serde_json::Value;

use crate::usage::{Call, Calls, Counter};

/// The calls of a session file whose document is `session`, dated `at` (the
/// CLI records no time per request).
pub(super) fn calls(session: &Value, at: Option<&str>) -> Vec<Call> {
    let model = last_model(session);
    let mut calls = Calls::default();
    if let Some(usage) = session.get("usage").filter(|u| u.is_object()) {
        calls.push(session_call(usage, model, at));
        return calls.finish();
    }
    for item in session.get("history").and_then(Value::as_array).into_iter().flatten() {
        if let Some(usage) = item.pointer("/message/usage").filter(|u| u.is_object()) {
            calls.push(message_call(usage, at));
        }
    }
    calls.finish()
}

/// The model of the session's last answer that names one.
fn last_model(session: &Value) -> Option<String> {
    let history = session.get("history").and_then(Value::as_array)?;
    history.iter().rev().find_map(|item| item.pointer("/message/usage/model").and_then(Value::as_str)).map(Into::into)
}

/// The session's `usage`: `promptTokens` (cache reads and writes inside, as
/// `OpenAI` counts them), `completionTokens`, `promptTokensDetails` and
/// `totalCost` in US dollars.
fn session_call(usage: &Value, model: Option<String>, at: Option<&str>) -> Call {
    let counter = Counter::default();
    let prompt = counter.count("promptTokens", usage.get("promptTokens"));
    let cache_read = counter.count("cachedTokens", usage.pointer("/promptTokensDetails/cachedTokens"));
    let cache_creation = counter.count("cacheWriteTokens", usage.pointer("/promptTokensDetails/cacheWriteTokens"));
    let output = counter.count("completionTokens", usage.get("completionTokens"));
    Call {
        key: None,
        timestamp: at.map(ToOwned::to_owned),
        model,
        input: prompt.saturating_sub(cache_read).saturating_sub(cache_creation),
        output,
        cache_creation,
        cache_read,
        reasoning: 0,
        cost: usage.get("totalCost").and_then(Value::as_f64),
        not_counts: counter.take(),
    }
}

/// An assistant item's `message.usage`: `prompt_tokens`,
/// `completion_tokens`, `model` and `cost_cents` (whole cents).
fn message_call(usage: &Value, at: Option<&str>) -> Call {
    let counter = Counter::default();
    let input = counter.count("prompt_tokens", usage.get("prompt_tokens"));
    let output = counter.count("completion_tokens", usage.get("completion_tokens"));
    Call {
        key: None,
        timestamp: at.map(ToOwned::to_owned),
        model: usage.get("model").and_then(Value::as_str).map(ToOwned::to_owned),
        input,
        output,
        cost: usage.get("cost_cents").and_then(Value::as_f64).map(|cents| cents / 100.0),
        not_counts: counter.take(),
        ..Call::default()
    }
}
