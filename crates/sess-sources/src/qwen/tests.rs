//! Tests of the whole reader on small hand-made files.

use std::path::Path;

use serde_json::{Value, json};
use sess_core::IssueKind;

use super::*;
use crate::source::Source;
use crate::transcript::{Block, Role, ToolStatus};

/// A record of session `s` with this uuid, parent, type and fields.
fn record(uuid: &str, parent: Option<&str>, kind: &str, fields: &Value) -> String {
    let mut value = json!({
        "uuid": uuid, "parentUuid": parent, "sessionId": "s", "timestamp": format!("2026-01-01T00:00:0{}.000Z", uuid.len() % 10),
        "type": kind, "cwd": "/p",
    });
    value.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    value.to_string()
}

fn user(uuid: &str, parent: Option<&str>, text: &str) -> String {
    record(uuid, parent, "user", &json!({"message": {"role": "user", "parts": [{"text": text}]}}))
}

fn call(uuid: &str, parent: &str, id: Option<&str>, name: &str) -> String {
    let mut call = json!({"name": name, "args": {"command": "ls"}});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    record(uuid, Some(parent), "assistant", &json!({"message": {"role": "model", "parts": [{"functionCall": call}]}}))
}

fn result(uuid: &str, parent: &str, id: Option<&str>, name: &str, status: &str) -> String {
    let mut response = json!({"name": name, "response": {"output": "out"}});
    if let Some(id) = id {
        response["id"] = json!(id);
    }
    let fields = json!({
        "message": {"role": "user", "parts": [{"functionResponse": response}]},
        "toolCallResult": {"callId": id, "status": status},
    });
    record(uuid, Some(parent), "tool_result", &fields)
}

fn telemetry(uuid: &str, parent: &str, event: &Value) -> String {
    record(uuid, Some(parent), "system", &json!({"subtype": "ui_telemetry", "systemPayload": {"uiEvent": event}}))
}

fn kinds(messages: &[crate::Message]) -> Vec<(Role, Vec<&'static str>)> {
    messages.iter().map(|m| (m.role, m.blocks.iter().map(Block::kind).collect())).collect()
}

#[test]
fn an_api_error_shows_unless_a_retry_was_answered() {
    let error = |p: &str| json!({"event.name": "qwen-code.api_error", "error_message": "503 busy", "prompt_id": p});
    let answered = json!({"event.name": "qwen-code.api_response", "prompt_id": "p1"});
    let text = [
        user("u1", None, "one"),
        telemetry("e1", "u1", &error("p1")),
        telemetry("r1", "e1", &answered),
        record("a1", Some("r1"), "assistant", &json!({"message": {"role": "model", "parts": [{"text": "done"}]}})),
        user("u2", Some("a1"), "two"),
        telemetry("e2", "u2", &error("p2")),
    ]
    .join("\n");
    let transcript = parse(text.as_bytes(), "s");
    assert_eq!(
        kinds(&transcript.messages),
        [
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["text"]),
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["error"])
        ]
    );
    assert_eq!(transcript.messages[3].blocks[0], Block::Error { text: "503 busy".into() });
}

#[test]
fn results_complete_calls_by_id_or_by_name() {
    let text = [
        user("u1", None, "go"),
        call("a1", "u1", Some("c1"), "run_shell_command"),
        call("a2", "a1", None, "read_file"),
        result("r2", "a2", None, "read_file", "error"),
        result("r1", "r2", Some("c1"), "run_shell_command", "success"),
        call("a3", "r1", Some("c3"), "glob"),
    ]
    .join("\n");
    let transcript = parse(text.as_bytes(), "s");
    assert_eq!(transcript.messages.len(), 2);
    let calls: Vec<(String, ToolStatus, Option<String>)> = transcript.messages[1]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::ToolCall(c) => Some((c.id.clone(), c.status, c.result.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("c1".into(), ToolStatus::Succeeded, Some("out".into())),
            ("a2#0".into(), ToolStatus::Failed, Some("out".into())),
            // No result by the end of the file: its turn was cut.
            ("c3".into(), ToolStatus::Pending, None),
        ]
    );
}

#[test]
fn a_result_without_its_call_is_kept_or_is_late_in_a_tail() {
    let text = result("r1", "a0", Some("c0"), "glob", "success");
    let whole = parse::parse(text.as_bytes(), "s", false);
    assert_eq!(kinds(&whole.transcript.messages), [(Role::Assistant, vec!["tool_call"])]);
    let tail = parse::parse(text.as_bytes(), "s", true);
    assert!(tail.transcript.messages.is_empty());
    assert_eq!(tail.late.len(), 1);
    assert_eq!(tail.late[0].text, "out");
    let added = Qwen.index_added("s", text.as_bytes(), 4).unwrap();
    assert_eq!(added.late_results, tail.late);
}

#[test]
fn notices_prompts_and_records_not_understood() {
    let text = [
        user("u1", None, "one"),
        record(
            "n1",
            Some("u1"),
            "user",
            &json!({"subtype": "notification", "message": {"parts": [{"text": "<task-notification>…"}]}, "systemPayload": {"displayText": "Task done"}}),
        ),
        record(
            "m1",
            Some("n1"),
            "user",
            &json!({"subtype": "mid_turn_user_message", "message": {"parts": [{"text": "also this"}]}, "systemPayload": {"displayText": "also this"}}),
        ),
        record("x1", Some("m1"), "hologram", &json!({})),
        record("s1", Some("x1"), "system", &json!({"subtype": "slash_command", "systemPayload": {"phase": "invocation", "rawCommand": "/about"}})),
        record("s2", Some("s1"), "system", &json!({"subtype": "slash_command", "systemPayload": {"phase": "result", "rawCommand": "/about"}})),
        record("t1", Some("s2"), "system", &json!({"subtype": "custom_title", "systemPayload": {"customTitle": "Named"}})),
        "{\"uuid\":\"cut\",\"parentUuid\":\"t1\"".to_owned(),
    ]
    .join("\n");
    let transcript = parse(text.as_bytes(), "s");
    assert_eq!(
        kinds(&transcript.messages),
        [
            (Role::User, vec!["text"]),
            (Role::System, vec!["text"]),
            (Role::User, vec!["text"]),
            (Role::System, vec!["unknown"]),
            (Role::System, vec!["text"]),
        ]
    );
    assert_eq!(transcript.messages[1].blocks[0], Block::text("Task done"));
    assert_eq!(transcript.messages[4].blocks[0], Block::text("/about"));
    assert_eq!(transcript.title.as_deref(), Some("Named"));
    assert_eq!(transcript.cwd.as_deref(), Some("/p"));
    assert_eq!(transcript.issues.len(), 1);
    assert_eq!(transcript.issues[0].kind, IssueKind::TruncatedLastLine);
}

#[test]
fn fragments_merge_and_verify_reports_real_damage() {
    let fragment = |text: &str| {
        record("a1", Some("u1"), "assistant", &json!({"message": {"role": "model", "parts": [{"text": text}]}}))
    };
    let text = [user("u1", None, "one"), fragment("first half"), fragment("second half")].join("\n");
    let transcript = parse(text.as_bytes(), "s");
    assert_eq!(kinds(&transcript.messages), [(Role::User, vec!["text"]), (Role::Assistant, vec!["text", "text"])]);
    assert!(verify(text.as_bytes()).findings.is_empty());
    assert_eq!(verify(text.as_bytes()).entries, 2);

    let other = user("u2", Some("ghost"), "two").replace("\"sessionId\":\"s\"", "\"sessionId\":\"t\"");
    let damaged = [user("u1", None, "one"), user("u1", Some("x"), "again"), other].join("\n");
    let codes: Vec<&str> = verify(damaged.as_bytes()).findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, ["duplicate-id", "dangling-parent", "mixed-sessions"]);
}

#[test]
fn a_fork_is_indexed_without_the_history_it_copied() {
    let copied = |line: String| {
        let mut value: Value = serde_json::from_str(&line).unwrap();
        value["forkedFrom"] = json!({"sessionId": "parent", "messageUuid": value["uuid"]});
        value.to_string()
    };
    let reply = record("a1", Some("u1"), "assistant", &json!({"message": {"parts": [{"text": "hi"}]}}));
    let text = [copied(user("u1", None, "one")), copied(reply), user("u2", Some("a1"), "two")].join("\n");
    let parsed = parse::parse(text.as_bytes(), "s", false);
    assert_eq!(parsed.inherited, 2);
    assert_eq!(parsed.parent_session.as_deref(), Some("parent"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("00000000-0000-0000-0000-000000000000.jsonl");
    let indexed = Qwen.index(&path, text.as_bytes()).unwrap();
    assert_eq!(indexed.message_count, 3);
    assert_eq!(kinds(&indexed.messages), [(Role::User, vec!["text"])]);
    assert!(!indexed.title_explicit);
}

#[test]
fn detection_tells_qwen_code_from_claude_code() {
    let qwen = user("u1", None, "hi");
    assert_eq!(crate::detect(Path::new("x.jsonl"), qwen.as_bytes()), Some(SOURCE));
    // A Claude Code line has the same fields, in another order.
    let claude = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/p","sessionId":"s","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1"}"#;
    assert_eq!(crate::detect(Path::new("x.jsonl"), claude.as_bytes()), Some(crate::claude::SOURCE));
    // A first line cut by the head is judged by its leading keys.
    let long = user("u1", None, &"log line ".repeat(3000));
    let head = &long.as_bytes()[..crate::DETECT_BYTES];
    assert_eq!(crate::detect(Path::new("x.jsonl"), head), Some(SOURCE));
}
