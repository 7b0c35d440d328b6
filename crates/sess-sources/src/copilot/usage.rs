//! The model calls of a Copilot CLI session.
//!
//! Copilot writes a `session.usage_record` event after each model request,
//! the session's and its subagents' alike: its `data.usage` holds `model`,
//! `inputTokens` (the whole prompt: the cache reads and writes in it),
//! `cacheReadTokens`, `cacheWriteTokens`, `outputTokens` (reasoning
//! included), `reasoningTokens` where the provider says, and the
//! request's `apiCallId`; its `cost` is in Copilot's premium requests, not
//! in dollars, and is not read. A compaction's request has no record of its
//! own: `session.compaction_complete` holds its usage as
//! `compactionTokensUsed`, counted the same way. Older builds wrote no
//! usage records, only an `outputTokens` on each `assistant.message`: such
//! a message counts as a call of its output when no usage record has its
//! `apiCallId`. A call's key is its event's `id`.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Value;

use crate::jsonl::JsonLines;
use crate::lenient::string;
use crate::usage::{Call, Calls, Counter};

/// An event that may hold a call.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type", default, deserialize_with = "string")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "string")]
    id: Option<String>,
    #[serde(default, deserialize_with = "string")]
    timestamp: Option<String>,
    #[serde(default)]
    data: Value,
}

/// The calls of an `events.jsonl`'s bytes, in file order.
pub(super) fn calls(bytes: &[u8]) -> Vec<Call> {
    let mut recorded = HashSet::new();
    let mut found = Vec::new();
    for raw in JsonLines::new(bytes) {
        let text = raw.text.as_bytes();
        let kinds: [&[u8]; 3] = [b"session.usage_record", b"session.compaction_complete", b"outputTokens"];
        if kinds.iter().all(|kind| memchr::memmem::find(text, kind).is_none()) {
            continue;
        }
        let Ok(event) = raw.parse_object_mended::<Event>() else { continue };
        let data = &event.data;
        let (usage, own) = match event.kind.as_deref() {
            Some("session.usage_record") => (data.get("usage"), true),
            Some("session.compaction_complete") => (data.get("compactionTokensUsed"), true),
            Some("assistant.message") => (Some(data), false),
            _ => continue,
        };
        let Some(usage) = usage.filter(|u| u.is_object()) else { continue };
        let api_call = usage.get("apiCallId").and_then(Value::as_str).map(str::to_owned);
        if own {
            recorded.extend(api_call.clone());
        } else if usage.get("outputTokens").is_none() {
            continue;
        }
        found.push((own, api_call, call_of(&event, usage)));
    }
    let mut calls = Calls::default();
    for (own, api_call, call) in found {
        if own || api_call.is_none_or(|id| !recorded.contains(&id)) {
            calls.push(call);
        }
    }
    calls.finish()
}

/// The call of `usage`, written by `event`.
fn call_of(event: &Event, usage: &Value) -> Call {
    let counter = Counter::default();
    let count = |key: &str| counter.count(key, usage.get(key));
    let prompt = count("inputTokens");
    let cache_read = count("cacheReadTokens").min(prompt);
    let cache_creation = count("cacheWriteTokens").min(prompt - cache_read);
    let output = count("outputTokens");
    Call {
        key: event.id.clone(),
        timestamp: event.timestamp.clone(),
        model: usage.get("model").and_then(Value::as_str).map(str::to_owned),
        input: prompt - cache_read - cache_creation,
        output,
        cache_creation,
        cache_read,
        reasoning: count("reasoningTokens").min(output),
        cost: None,
        not_counts: counter.take(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn lines(values: &[Value]) -> Vec<u8> {
        values.iter().map(|v| v.to_string() + "\n").collect::<String>().into_bytes()
    }

    fn event(id: &str, kind: &str, data: &Value) -> Value {
        json!({"type": kind, "id": id, "timestamp": format!("at-{id}"), "parentId": null, "data": data})
    }

    fn counts(call: &Call) -> (u64, u64, u64, u64, u64) {
        (call.input, call.cache_read, call.cache_creation, call.output, call.reasoning)
    }

    #[test]
    fn usage_records_and_compactions_are_the_calls() {
        let bytes = lines(&[
            event(
                "e1",
                "session.usage_record",
                &json!({"usage": {"model": "claude-sonnet-4.5", "inputTokens": 35925,
                "outputTokens": 370, "cacheReadTokens": 35067, "cacheWriteTokens": 857, "cost": 1, "apiCallId": "c1"}}),
            ),
            event(
                "e2",
                "assistant.message",
                &json!({"model": "claude-sonnet-4.5", "content": "hi", "apiCallId": "c1"}),
            ),
            // A subagent's request; reasoning inside the output.
            json!({"type": "session.usage_record", "id": "e3", "timestamp": "t3", "agentId": "a1", "data": {"usage": {
                "model": "gpt-5", "inputTokens": 1000, "outputTokens": 200, "reasoningTokens": 150, "apiCallId": "c2"}}}),
            event(
                "e4",
                "session.compaction_complete",
                &json!({"success": true, "compactionTokensUsed": {
                "model": "gpt-4o", "inputTokens": 600, "outputTokens": 20, "cacheReadTokens": 100}}),
            ),
            // Odd values: a string, a negative count, a float; more cache than input.
            event(
                "e5",
                "session.usage_record",
                &json!({"usage": {"model": null, "inputTokens": 10.8,
                "outputTokens": "5", "cacheReadTokens": 50, "cacheWriteTokens": -2, "reasoningTokens": 9}}),
            ),
            event("e6", "session.usage_record", &json!({"usage": null})),
            event("e7", "session.compaction_complete", &json!({"success": false})),
            event("e8", "user.message", &json!({"content": "outputTokens"})),
        ]);
        let calls = calls(&bytes);
        assert_eq!(
            calls.iter().map(counts).collect::<Vec<_>>(),
            [(1, 35067, 857, 370, 0), (1000, 0, 0, 200, 150), (500, 100, 0, 20, 0), (0, 10, 0, 0, 0)]
        );
        let keys: Vec<_> = calls.iter().map(|c| c.key.as_deref().unwrap()).collect();
        assert_eq!(keys, ["e1", "e3", "e4", "e5"]);
        let models: Vec<_> = calls.iter().map(|c| c.model.as_deref()).collect();
        assert_eq!(models, [Some("claude-sonnet-4.5"), Some("gpt-5"), Some("gpt-4o"), None]);
        assert_eq!(calls[1].timestamp.as_deref(), Some("t3"));
        assert!(calls.iter().all(|c| c.cost.is_none()));
    }

    #[test]
    fn an_older_builds_messages_count_their_output() {
        let bytes = lines(&[
            event("m1", "assistant.message", &json!({"model": "gpt-4.1", "content": "a", "outputTokens": 42})),
            event("m2", "assistant.message", &json!({"model": "gpt-4.1", "content": "b"})),
            // A message whose request has a usage record counts there.
            event("m3", "assistant.message", &json!({"model": "gpt-4.1", "outputTokens": 7, "apiCallId": "c9"})),
            event(
                "r3",
                "session.usage_record",
                &json!({"usage": {"model": "gpt-4.1", "inputTokens": 70, "outputTokens": 7, "apiCallId": "c9"}}),
            ),
        ]);
        let calls = calls(&bytes);
        assert_eq!(calls.iter().map(counts).collect::<Vec<_>>(), [(0, 0, 0, 42, 0), (70, 0, 0, 7, 0)]);
        assert_eq!(calls[0].model.as_deref(), Some("gpt-4.1"));
    }
}
