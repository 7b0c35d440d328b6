//! The model calls of a Gemini CLI session file.
//!
//! The CLI gives each model response a `gemini` message and puts the
//! response's usage on it as `tokens`: `input` (the API's
//! `promptTokenCount`, which counts the cached part of the prompt too),
//! `output` (`candidatesTokenCount`), `cached` (`cachedContentTokenCount`),
//! `thoughts` (`thoughtsTokenCount`), `tool` (`toolUsePromptTokenCount`) and
//! `total` (`totalTokenCount`, all of them). A message is written again as
//! it changes (its tool calls' results, its tokens), with the same `id`:
//! the message's id is the call's key, and its last record counts. In a
//! call, `input` is the prompt less its cached part plus the tool-use
//! prompt, `cache_read` the cached part; thinking is generated apart from
//! the candidates, so `output` is both and `reasoning` the thoughts (unless
//! `total` shows the thoughts inside the candidates). Messages of every
//! record count, those a `$set` of the whole conversation holds too (their
//! ids make copies one), whether or not a rewind took them out of the
//! conversation: each call was made. The CLI records no cost.

use serde_json::Value;

use super::record::{self, Record};
use crate::usage::{Call, Calls, Counter, with_reasoning};

/// The calls of a session file's bytes, in the order their messages were
/// first written.
pub(crate) fn calls(bytes: &[u8]) -> Vec<Call> {
    let mut calls = Calls::default();
    for (_, record) in record::read(bytes).records {
        match record {
            Record::Message(message) => calls.push_opt(call_of(&message)),
            Record::Set(set) => {
                for message in set.get("messages").and_then(Value::as_array).into_iter().flatten() {
                    calls.push_opt(call_of(message));
                }
            }
            Record::Rewind(_) | Record::Meta(_) => {}
        }
    }
    calls.finish()
}

/// The call a message records: `None` for one that is not the model's or
/// holds no `tokens`.
fn call_of(message: &Value) -> Option<Call> {
    if message.get("type").and_then(Value::as_str) != Some("gemini") {
        return None;
    }
    let counts = message.get("tokens").filter(|t| t.is_object())?;
    let counter = Counter::default();
    let count = |key: &str| counter.count(key, counts.get(key));
    let (prompt, tool) = (count("input"), count("tool"));
    let cache_read = count("cached").min(prompt);
    let (output, reasoning) =
        with_reasoning(count("output"), count("thoughts"), prompt.saturating_add(tool), count("total"), true);
    let text = |key: &str| message.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Call {
        key: text("id"),
        timestamp: text("timestamp"),
        model: text("model"),
        input: prompt - cache_read + tool,
        output,
        cache_creation: 0,
        cache_read,
        reasoning,
        cost: None,
        not_counts: counter.take(),
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn bytes(lines: &[Value]) -> Vec<u8> {
        lines.iter().map(|v| v.to_string() + "\n").collect::<String>().into_bytes()
    }

    fn counts(call: &Call) -> (u64, u64, u64, u64) {
        (call.input, call.cache_read, call.output, call.reasoning)
    }

    #[test]
    fn each_response_counts_once_by_the_rules_of_the_call() {
        let lines = [
            json!({"sessionId": "s", "projectHash": "h", "startTime": "t"}),
            json!({"id": "u1", "type": "user", "content": "hi", "tokens": {"input": 5}}),
            // First written without tokens, then with them.
            json!({"id": "g1", "type": "gemini", "timestamp": "t1", "model": "gemini-2.5-pro", "content": ""}),
            json!({"id": "g1", "type": "gemini", "timestamp": "t1", "model": "gemini-2.5-pro", "content": "",
                "tokens": {"input": 1000, "output": 50, "cached": 600, "thoughts": 30, "tool": 7, "total": 1087}}),
            // Odd values: a string, a negative count, a float, more cached than input.
            json!({"id": "g2", "type": "gemini", "timestamp": "t2", "model": null,
                "tokens": {"input": 10, "output": "9", "cached": 40, "thoughts": -3, "tool": 2.5}}),
            // Thoughts inside the candidates, as the total says.
            json!({"id": "g3", "type": "gemini", "timestamp": "t3", "model": "m",
                "tokens": {"input": 100, "output": 30, "cached": 0, "thoughts": 10, "tool": 0, "total": 130}}),
            json!({"id": "g4", "type": "gemini", "tokens": null}),
            json!({"$rewindTo": "g3"}),
            // A rewritten conversation repeats a message: it counts once.
            json!({"$set": {"messages": [{"id": "g3", "type": "gemini", "timestamp": "t3", "model": "m",
                "tokens": {"input": 100, "output": 30, "cached": 0, "thoughts": 10, "tool": 0, "total": 130}}]}}),
            json!({"id": "i1", "type": "info", "content": "note"}),
        ];
        let calls = calls(&bytes(&lines));
        assert_eq!(calls.iter().map(counts).collect::<Vec<_>>(), [(407, 600, 80, 30), (2, 10, 0, 0), (100, 0, 30, 10)]);
        let keys: Vec<_> = calls.iter().map(|c| c.key.as_deref()).collect();
        assert_eq!(keys, [Some("g1"), Some("g2"), Some("g3")]);
        assert_eq!(calls[0].model.as_deref(), Some("gemini-2.5-pro"));
        assert_eq!(calls[0].timestamp.as_deref(), Some("t1"));
        assert_eq!(calls[1].model, None);
        assert!(calls.iter().all(|c| c.cost.is_none() && c.cache_creation == 0));
    }

    #[test]
    fn an_older_document_counts_its_messages() {
        let document = json!({"sessionId": "s", "projectHash": "h", "messages": [
            {"id": "g1", "type": "gemini", "tokens": {"input": 10, "output": 2, "cached": 0, "thoughts": 0, "total": 12}},
        ]});
        let calls = calls(serde_json::to_string_pretty(&document).unwrap().as_bytes());
        assert_eq!(calls.iter().map(counts).collect::<Vec<_>>(), [(10, 0, 2, 0)]);
    }
}
