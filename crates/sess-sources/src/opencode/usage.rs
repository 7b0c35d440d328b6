//! The model calls of an OpenCode session, its subagents' included.
//!
//! Each step of an assistant message is one model request: its
//! `step-finish` part holds the step's `tokens` (`input` without the cache,
//! `output`, `reasoning`, `cache.read`, `cache.write`, `total`) and the
//! `cost` OpenCode computed from its model list, in dollars. The message
//! holds them too (`tokens` of its last step, `cost` of all of them), with
//! `modelID` and `providerID`: a message without `step-finish` parts (an
//! older build's, or one that failed before its first step ended) counts
//! as one call of its own `tokens` and `cost`. OpenCode prices `reasoning`
//! at the output rate on top of `output` (builds since the AI SDK 6 take
//! the reasoning out of the provider's output count), so `output` is both
//! and `reasoning` the part spent thinking, unless `total` shows the
//! reasoning inside `output` (older builds with `OpenAI`'s counts). A
//! compaction's summary is a message like any other; a failed request
//! that counted nothing is no call.
//!
//! The subagents a `task` call ran are sessions of their own
//! (`state.metadata.sessionId` of its tool part) that no listing shows:
//! their calls are the session's. A fork copies its parent's messages with
//! new ids but their times, so a call's key is what the copy keeps: the
//! provider and model, the message's creation and completion times, the
//! step, and its input and output; a copied call counts once.

use std::collections::HashSet;

use serde_json::Value;
use sess_core::format_iso_millis;

use super::records::{RawMessage, string};
use crate::usage::{Call, Calls, Counter, with_reasoning};

/// How deep subagents' sessions are read under their `task` calls.
const MAX_DEPTH: usize = 4;

/// The calls of a session whose messages are `messages`, and of the
/// subagents' sessions `child` reads by id.
pub(crate) fn calls(messages: &[RawMessage], child: &dyn Fn(&str) -> Option<Vec<RawMessage>>) -> Vec<Call> {
    let mut calls = Calls::default();
    let mut seen = HashSet::new();
    add(messages, child, 0, &mut seen, &mut calls);
    calls.finish()
}

fn add(
    messages: &[RawMessage],
    child: &dyn Fn(&str) -> Option<Vec<RawMessage>>,
    depth: usize,
    seen: &mut HashSet<String>,
    calls: &mut Calls,
) {
    for message in messages {
        if message.data.get("role").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let steps: Vec<&Value> = message
            .parts
            .iter()
            .map(|part| &part.data)
            .filter(|part| part.get("type").and_then(Value::as_str) == Some("step-finish"))
            .collect();
        if steps.is_empty() {
            calls.push_opt(call_of(message, &message.data, "message"));
        }
        for (step, part) in steps.iter().enumerate() {
            calls.push_opt(call_of(message, part, &step.to_string()));
        }
        for part in &message.parts {
            let Some(id) = part.data.pointer("/state/metadata").and_then(|m| string(m, "sessionId")) else { continue };
            if depth < MAX_DEPTH
                && seen.insert(id.clone())
                && let Some(messages) = child(&id)
            {
                add(&messages, child, depth + 1, seen, calls);
            }
        }
    }
}

/// The call of `counted` (a `step-finish` part, or the message itself) of
/// `message`; `None` when it has no `tokens`.
fn call_of(message: &RawMessage, counted: &Value, step: &str) -> Option<Call> {
    let counts = counted.get("tokens").filter(|t| t.is_object())?;
    let reader = Counter::default();
    let count = |pointer: &str| reader.count(pointer.trim_start_matches('/'), counts.pointer(pointer));
    let (input, cache_read, cache_creation) = (count("/input"), count("/cache/read"), count("/cache/write"));
    let counted_input = input.saturating_add(cache_read).saturating_add(cache_creation);
    let recorded_output = count("/output");
    let (output, reasoning) =
        with_reasoning(recorded_output, count("/reasoning"), counted_input, count("/total"), true);
    let data = &message.data;
    let text = |key: &str| string(data, key).unwrap_or_default();
    let time = |key: &str| data.pointer(&format!("/time/{key}")).and_then(Value::as_i64);
    let created = time("created").unwrap_or(message.created);
    let completed = time("completed").map(|t| t.to_string()).unwrap_or_default();
    let key = format!(
        "{}/{}@{created}-{completed}#{step}:{}/{}",
        text("providerID"),
        text("modelID"),
        input,
        recorded_output
    );
    Some(Call {
        key: Some(key),
        timestamp: Some(format_iso_millis(created)),
        model: string(data, "modelID"),
        input,
        output,
        cache_creation,
        cache_read,
        reasoning,
        cost: counted.get("cost").and_then(Value::as_f64).filter(|c| c.is_finite() && *c >= 0.0),
        not_counts: reader.take(),
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::super::records::RawPart;
    use super::*;

    fn message(id: &str, data: &Value, parts: &[Value]) -> RawMessage {
        let parts = parts
            .iter()
            .enumerate()
            .map(|(i, data)| RawPart { id: format!("{id}-p{i}"), data: data.clone() })
            .collect();
        let created = data.pointer("/time/created").and_then(Value::as_i64).unwrap_or(0);
        RawMessage { id: id.to_owned(), created, data: data.clone(), parts }
    }

    fn assistant(created: i64, tokens: &Value, cost: &Value) -> Value {
        json!({"role": "assistant", "modelID": "claude-sonnet-4", "providerID": "anthropic",
            "time": {"created": created, "completed": created + 5}, "tokens": tokens, "cost": cost})
    }

    fn step(tokens: &Value, cost: &Value) -> Value {
        json!({"type": "step-finish", "tokens": tokens, "cost": cost})
    }

    fn counts(call: &Call) -> (u64, u64, u64, u64, u64) {
        (call.input, call.cache_read, call.cache_creation, call.output, call.reasoning)
    }

    fn none(_: &str) -> Option<Vec<RawMessage>> {
        None
    }

    #[test]
    fn each_step_is_a_call_and_a_message_without_steps_is_one() {
        let first =
            json!({"input": 10, "output": 100, "reasoning": 40, "cache": {"read": 1000, "write": 50}, "total": 1200});
        let second = json!({"input": 5, "output": 20, "reasoning": 0, "cache": {"read": 1100, "write": 0}});
        let messages = [
            message("m0", &json!({"role": "user", "tokens": first.clone()}), &[]),
            // Two steps: the message's own tokens are its last step's.
            message(
                "m1",
                &assistant(1_000, &second, &json!(0.3)),
                &[json!({"type": "step-start"}), step(&first, &json!(0.2)), step(&second, &json!(0.1))],
            ),
            // No steps; the total shows the reasoning inside the output.
            message(
                "m2",
                &assistant(2_000, &json!({"input": 7, "output": 30, "reasoning": 10, "total": 37}), &json!(0.05)),
                &[],
            ),
            // Odd values: a string, a negative count and cost, a float.
            message(
                "m3",
                &assistant(
                    3_000,
                    &json!({"input": "9", "output": -1, "reasoning": 2.5, "cache": {"read": 4.9}}),
                    &json!(-2),
                ),
                &[],
            ),
            // A failed request counted nothing.
            message(
                "m4",
                &assistant(
                    4_000,
                    &json!({"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}),
                    &json!(0),
                ),
                &[],
            ),
            message("m5", &assistant(5_000, &Value::Null, &json!(0)), &[]),
        ];
        let calls = calls(&messages, &none);
        assert_eq!(
            calls.iter().map(counts).collect::<Vec<_>>(),
            [(10, 1000, 50, 140, 40), (5, 1100, 0, 20, 0), (7, 0, 0, 30, 10), (0, 4, 0, 2, 2)]
        );
        let costs: Vec<_> = calls.iter().map(|c| c.cost).collect();
        assert_eq!(costs, [Some(0.2), Some(0.1), Some(0.05), None]);
        assert_eq!(calls[0].model.as_deref(), Some("claude-sonnet-4"));
        assert_eq!(calls[0].timestamp.as_deref(), Some("1970-01-01T00:00:01.000Z"));
        assert_eq!(calls[0].key.as_deref(), Some("anthropic/claude-sonnet-4@1000-1005#0:10/100"));
        assert_eq!(calls[2].key.as_deref(), Some("anthropic/claude-sonnet-4@2000-2005#message:7/30"));
    }

    #[test]
    fn subagents_calls_are_the_sessions_and_a_forks_copies_count_once() {
        let tokens =
            json!({"input": 100, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 0}, "total": 110});
        let task = json!({"type": "tool", "tool": "task", "state": {"status": "completed", "metadata": {"sessionId": "ses_child"}}});
        let parent = [
            message("m1", &assistant(1_000, &tokens, &json!(0.01)), std::slice::from_ref(&task)),
            // A fork's copy of m1: another id, the same times and counts.
            message("m9", &assistant(1_000, &tokens, &json!(0.01)), &[]),
        ];
        let child = |id: &str| {
            (id == "ses_child")
                .then(|| vec![message("c1", &assistant(1_001, &tokens, &json!(0.02)), std::slice::from_ref(&task))])
        };
        let calls = calls(&parent, &child);
        // The child's own `task` call names itself: it is read once.
        assert_eq!(calls.len(), 2);
        assert_eq!(calls.iter().map(|c| c.cost).collect::<Vec<_>>(), [Some(0.01), Some(0.02)]);
    }
}
