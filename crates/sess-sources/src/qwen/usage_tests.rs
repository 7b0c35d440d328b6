//! The calls of Qwen Code sessions and subagents on inline records.

#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

fn lines(values: &[Value]) -> Vec<u8> {
    values.iter().map(|v| v.to_string() + "\n").collect::<String>().into_bytes()
}

fn event(uuid: &str, event: &Value) -> Value {
    let mut event = event.clone();
    event["event.name"] = json!("qwen-code.api_response");
    json!({"uuid": uuid, "timestamp": "r", "type": "system", "subtype": "ui_telemetry", "systemPayload": {"uiEvent": event}})
}

fn assistant(uuid: &str, model: Option<&str>, usage: impl Into<Value>) -> Value {
    let usage: Value = usage.into();
    json!({"uuid": uuid, "timestamp": format!("at-{uuid}"), "type": "assistant", "model": model,
        "message": {"role": "model", "parts": [{"text": "ok"}]}, "usageMetadata": usage})
}

fn counts(call: &Call) -> (u64, u64, u64, u64) {
    (call.input, call.cache_read, call.output, call.reasoning)
}

#[test]
fn the_telemetry_events_are_the_calls_and_a_record_counts_without_one() {
    let bytes = lines(&[
        event(
            "t1",
            &json!({"event.timestamp": "e1", "model": "qwen3-coder", "input_token_count": 1000,
            "output_token_count": 50, "cached_content_token_count": 400, "thoughts_token_count": 10, "total_token_count": 1050}),
        ),
        // The same response's record: counted by its event.
        assistant(
            "a1",
            Some("qwen3-coder"),
            json!({"promptTokenCount": 1000, "candidatesTokenCount": 50,
            "cachedContentTokenCount": 400, "thoughtsTokenCount": 10, "totalTokenCount": 1050}),
        ),
        // A compression's request has only its event.
        event("t2", &json!({"model": "qwen3-coder", "input_token_count": 500, "output_token_count": 20})),
        // A record without an event (an older build); its total counts the thoughts apart.
        assistant(
            "a2",
            Some("qwen-max"),
            json!({"promptTokenCount": 300, "candidatesTokenCount": 30,
            "thoughtsTokenCount": 5, "totalTokenCount": 335}),
        ),
        json!({"uuid": "t3", "type": "system", "subtype": "ui_telemetry", "systemPayload": {"uiEvent": {
            "event.name": "qwen-code.api_error", "input_token_count": 9}}}),
        // Odd values: a string, a negative count, a float, more cached than prompt.
        event(
            "t4",
            &json!({"model": null, "input_token_count": 7, "output_token_count": "5",
            "cached_content_token_count": 9, "thoughts_token_count": 2.7, "total_token_count": -1}),
        ),
        json!({"uuid": "u1", "type": "user", "usageMetadata": {"promptTokenCount": 4}}),
        // A subagent's request, with its model.
        event(
            "t5",
            &json!({"model": "qwen-turbo", "input_token_count": 80, "output_token_count": 8, "subagent_id": "x"}),
        ),
        // A fork's copy of a record: one call.
        event(
            "t1",
            &json!({"event.timestamp": "e1", "model": "qwen3-coder", "input_token_count": 1000,
            "output_token_count": 50, "cached_content_token_count": 400, "thoughts_token_count": 10, "total_token_count": 1050}),
        ),
    ]);
    let calls = calls(&bytes);
    assert_eq!(
        calls.iter().map(counts).collect::<Vec<_>>(),
        [(600, 400, 50, 10), (500, 0, 20, 0), (300, 0, 35, 5), (0, 7, 0, 0), (80, 0, 8, 0)]
    );
    let keys: Vec<_> = calls.iter().map(|c| c.key.as_deref().unwrap()).collect();
    assert_eq!(keys, ["t1", "t2", "a2", "t4", "t5"]);
    let models: Vec<_> = calls.iter().map(|c| c.model.as_deref()).collect();
    assert_eq!(models, [Some("qwen3-coder"), Some("qwen3-coder"), Some("qwen-max"), None, Some("qwen-turbo")]);
    let times: Vec<_> = calls.iter().map(|c| c.timestamp.as_deref()).collect();
    assert_eq!(times, [Some("e1"), Some("r"), Some("at-a2"), Some("r"), Some("r")]);
    assert!(calls.iter().all(|c| c.cost.is_none() && c.cache_creation == 0));
}

#[test]
fn a_subagents_calls_count_from_its_transcript_only_without_their_events() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("projects/-w");
    let subagents = project.join("subagents/s1");
    std::fs::create_dir_all(&subagents).unwrap();
    std::fs::create_dir_all(project.join("chats")).unwrap();
    let agent = |uuid: &str, prompt: u64| {
        let mut record = assistant(uuid, None, json!({"promptTokenCount": prompt, "candidatesTokenCount": 10}));
        record["agentId"] = json!("general-x");
        record
    };
    let transcript = lines(&[agent("r1", 100), agent("r2", 200)]);
    let path = subagents.join("agent-general-x.jsonl");
    std::fs::write(&path, &transcript).unwrap();
    // No session file: both count.
    assert_eq!(subagent_calls(&path, &transcript).len(), 2);
    std::fs::write(
        project.join("chats/s1.jsonl"),
        lines(&[
            event(
                "e1",
                &json!({"model": "q", "input_token_count": 100, "output_token_count": 10, "subagent_id": "general-x"}),
            ),
            // Another subagent's event with the other record's counts.
            event(
                "e2",
                &json!({"model": "q", "input_token_count": 200, "output_token_count": 10, "subagent_id": "general-y"}),
            ),
        ]),
    )
    .unwrap();
    let calls = subagent_calls(&path, &transcript);
    assert_eq!(calls.iter().map(|c| c.key.as_deref()).collect::<Vec<_>>(), [Some("r2")]);
    assert_eq!(counts(&calls[0]), (200, 0, 10, 0));
}
