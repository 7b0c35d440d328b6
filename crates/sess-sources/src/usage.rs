//! What one model call cost, as the agent recorded it: the tokens of each
//! kind and, where the agent stored one, the cost.
//!
//! Tokens follow one rule for every agent, whatever its provider's API
//! reports: `input` is the input read at the full price (cache reads and
//! cache writes apart), `cache_read` what was read from the prompt cache,
//! `cache_creation` what was written to it, `output` everything generated
//! (reasoning included), and `reasoning` the part of `output` spent
//! thinking, where the agent says. An agent whose API counts cached input
//! inside its input (the `OpenAI` and Gemini APIs) is converted by its source.

use std::collections::HashMap;

use serde::Serialize;

/// The usage of one model call (one response of the model).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// What identifies the response across the agent's files, where it has
    /// such an id (Claude Code: `message.id` and `requestId`): the same
    /// response copied into another session (a resumed or forked one)
    /// counts once, and within a file a later line with the same key holds
    /// the response's final usage and replaces the earlier ones. `None`:
    /// every record is a call of its own.
    pub key: Option<String>,
    /// When the call was made (ISO 8601, as written).
    pub timestamp: Option<String>,
    /// The model that answered, as the agent names it.
    pub model: Option<String>,
    /// Input tokens at the full price.
    pub input: u64,
    /// Generated tokens (reasoning included).
    pub output: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// The part of [`output`](Self::output) spent reasoning, where known.
    pub reasoning: u64,
    /// The cost in US dollars the agent recorded for the call, if it did.
    pub cost: Option<f64>,
}

impl Call {
    /// Every token the call counted: input, output, cache writes and reads.
    pub fn total_tokens(&self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }

    /// Whether the call counted no token and recorded no cost.
    pub fn is_empty(&self) -> bool {
        self.total_tokens() == 0 && self.cost.is_none_or(|c| c == 0.0)
    }
}

/// A token count from a JSON value: a non-negative integer (a float is
/// truncated, anything else is 0), as the agents' own tools read them.
pub fn tokens(value: Option<&serde_json::Value>) -> u64 {
    match value {
        Some(serde_json::Value::Number(n)) => n.as_u64().or_else(|| {
            n.as_f64().filter(|f| f.is_finite() && *f > 0.0).map(|f| {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // Checked positive and finite.
                let t = f as u64;
                t
            })
        }),
        _ => None,
    }
    .unwrap_or(0)
}

/// The calls of a file as they are read: a call whose key was seen before
/// replaces the earlier one in its place (see [`Call::key`]); calls that
/// count no token and record no cost are left out.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    calls: Vec<Call>,
    /// Where each keyed call is in `calls`.
    at: HashMap<String, usize>,
}

impl Calls {
    /// Takes `call`.
    pub(crate) fn push(&mut self, call: Call) {
        if call.is_empty() {
            return;
        }
        if let Some(&i) = call.key.as_ref().and_then(|key| self.at.get(key)) {
            self.calls[i] = call;
            return;
        }
        if let Some(key) = &call.key {
            self.at.insert(key.clone(), self.calls.len());
        }
        self.calls.push(call);
    }

    /// Takes `call`, if there is one.
    pub(crate) fn push_opt(&mut self, call: Option<Call>) {
        if let Some(call) = call {
            self.push(call);
        }
    }

    /// The calls, in the order they were first seen.
    pub(crate) fn finish(self) -> Vec<Call> {
        self.calls
    }
}

/// `output` and `reasoning` by the rule of [`Call`] (reasoning inside
/// output), for an agent whose records count thinking either inside the
/// generated tokens (`OpenAI`'s `completion_tokens`) or apart from them
/// (Gemini's `candidatesTokenCount` beside `thoughtsTokenCount`). The
/// recorded `total` says which, where it adds up: `counted_input` plus
/// `output` (inside) or plus `output` and `reasoning` (apart); otherwise
/// `apart` (the agent's own rule) decides.
pub(crate) fn with_reasoning(output: u64, reasoning: u64, counted_input: u64, total: u64, apart: bool) -> (u64, u64) {
    let inside = counted_input.saturating_add(output);
    let apart = if reasoning == 0 {
        false
    } else if total == inside.saturating_add(reasoning) {
        true
    } else if total == inside {
        false
    } else {
        apart
    };
    if apart { (output.saturating_add(reasoning), reasoning) } else { (output, reasoning.min(output)) }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn token_counts_are_lenient() {
        assert_eq!(tokens(Some(&json!(12))), 12);
        assert_eq!(tokens(Some(&json!(12.9))), 12);
        assert_eq!(tokens(Some(&json!(-3))), 0);
        assert_eq!(tokens(Some(&json!("12"))), 0);
        assert_eq!(tokens(Some(&json!(null))), 0);
        assert_eq!(tokens(None), 0);
    }

    #[test]
    fn a_later_call_with_the_same_key_replaces_the_earlier_and_empty_calls_are_left_out() {
        let call = |key: Option<&str>, output| Call { key: key.map(str::to_owned), output, ..Call::default() };
        let mut calls = Calls::default();
        calls.push(call(Some("a"), 1));
        calls.push(call(None, 2));
        calls.push(call(Some("a"), 3));
        calls.push(call(None, 0));
        calls.push(Call { cost: Some(0.5), ..Call::default() });
        let outputs: Vec<u64> = calls.finish().iter().map(|c| c.output).collect();
        assert_eq!(outputs, [3, 2, 0]);
    }

    #[test]
    fn the_total_says_whether_reasoning_is_inside_the_output() {
        // 100 in, 30 out of which 10 thinking: total 130.
        assert_eq!(with_reasoning(30, 10, 100, 130, true), (30, 10));
        // 100 in, 20 out and 10 thinking apart: total 130.
        assert_eq!(with_reasoning(20, 10, 100, 130, false), (30, 10));
        // No total that adds up: the agent's rule.
        assert_eq!(with_reasoning(20, 10, 100, 0, true), (30, 10));
        assert_eq!(with_reasoning(20, 10, 100, 0, false), (20, 10));
        // Never more reasoning than output.
        assert_eq!(with_reasoning(5, 10, 100, 0, false), (5, 5));
        assert_eq!(with_reasoning(20, 0, 100, 0, true), (20, 0));
    }
}
