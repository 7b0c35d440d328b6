use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sess_core::{Leaf, read};

use super::transcript;
use crate::{Block, Role, ToolStatus, Transcript};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../fixtures/pi-family/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap()
}

fn load(bytes: &[u8]) -> Transcript {
    let outcome = read(bytes);
    assert!(outcome.issues.is_empty(), "{:?}", outcome.issues);
    transcript(&outcome.file, Leaf::Last)
}

/// A session file from message JSON values, chained in order.
fn session(messages: &[Value]) -> Vec<u8> {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/p"}"#,
    );
    text.push('\n');
    for (i, message) in messages.iter().enumerate() {
        let parent = if i == 0 { Value::Null } else { json!(format!("e{}", i - 1)) };
        let line = json!({"type": "message", "id": format!("e{i}"), "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z", "message": message});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text.into_bytes()
}

/// `role: block-kind block-kind …` per message, for a compact overview.
fn shape(transcript: &Transcript) -> Vec<String> {
    transcript
        .messages
        .iter()
        .map(|m| {
            let kinds: Vec<_> = m.blocks.iter().map(Block::kind).collect();
            format!("{}: {}", m.role.as_str(), kinds.join(" "))
        })
        .collect()
}

#[test]
fn pi_mono_fixture_shows_the_leaf_context() {
    let transcript = load(&fixture("pi-mono-0.73.1-main.jsonl"));
    assert_eq!(transcript.id, "01a22b45-5c27-7725-b56f-8270ebb2b80e");
    assert_eq!(transcript.title.as_deref(), Some("Demo session name"));
    assert_eq!(
        shape(&transcript),
        ["system: summary", "user: text", "assistant: text", "system: context", "user: text", "assistant: text"]
    );
    assert_eq!(transcript.messages[0].blocks[0], Block::Summary { text: "Summary of earlier conversation.".into() });
    assert_eq!(transcript.messages[1].blocks[0], Block::text("third question"));
    assert_eq!(
        transcript.messages[3].blocks[0],
        Block::Context { title: "my-extension".into(), text: "Injected context".into() }
    );
    assert_eq!(transcript.messages[5].blocks[0], Block::text("post-compaction answer"));
    assert!(transcript.messages[1].timestamp.as_deref().is_some_and(|t| t.ends_with('Z')));
}

#[test]
fn oh_my_pi_fixture_takes_the_title_line() {
    let transcript = load(&fixture("oh-my-pi-18.2.3-bun.jsonl"));
    assert_eq!(transcript.id, "01a22b46-5ef8-7000-9e30-b866ca7c6997");
    assert_eq!(transcript.messages.first().map(|m| m.role), Some(Role::System));
    assert_eq!(transcript.messages.last().map(|m| m.role), Some(Role::Assistant));
}

// The title slot names the session (the header of `renamed.jsonl` has no
// title), in the transcript and in what the catalog keeps.
#[test]
fn oh_my_pi_titles_come_from_the_title_slot() {
    let fixed = "Fix the parser: \"last line\" été";
    for (name, title) in [
        ("auto-title.jsonl", "Parser drops last line"),
        ("renamed.jsonl", fixed),
        ("createBranchedSession.jsonl", fixed),
        ("forkFrom.jsonl", fixed),
        ("no-slot-renamed.jsonl", "Renamed without a slot"),
    ] {
        let bytes = fixture(&format!("oh-my-pi-18.2.3-titles/{name}"));
        assert_eq!(load(&bytes).title.as_deref(), Some(title), "{name}");
        let indexed = super::index::whole(std::path::Path::new(name), &bytes).unwrap();
        assert_eq!((indexed.title.as_deref(), indexed.title_explicit), (Some(title), true), "{name}");
        assert_eq!(indexed.listed.and_then(|l| l.title).as_deref(), Some(title), "{name}");
    }
    assert_eq!(load(&fixture("oh-my-pi-18.2.3-bun.jsonl")).title, None, "an empty slot");
}

#[test]
fn tool_results_complete_their_calls_and_the_turn_stays_one_message() {
    let transcript = load(&session(&[
        json!({"role": "user", "content": "list files", "timestamp": 1_767_225_600_000_i64}),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "use ls"},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}},
            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "nope"}}
        ], "stopReason": "toolUse", "timestamp": 1_767_225_601_000_i64}),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
               "content": [{"type": "text", "text": "a.rs\nb.rs"}], "isError": false, "timestamp": 1_767_225_602_000_i64}),
        json!({"role": "toolResult", "toolCallId": "c2", "toolName": "read",
               "content": [{"type": "text", "text": "ENOENT"}], "isError": true, "timestamp": 1_767_225_603_000_i64}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "two files"}], "stopReason": "stop"}),
        json!({"role": "user", "content": [{"type": "text", "text": "thanks"}]}),
    ]));
    assert_eq!(shape(&transcript), ["user: text", "assistant: thinking tool_call tool_call text", "user: text"]);
    let Block::ToolCall(ls) = &transcript.messages[1].blocks[1] else { panic!() };
    assert_eq!(
        (ls.name.as_str(), ls.status, ls.result.as_deref()),
        ("bash", ToolStatus::Succeeded, Some("a.rs\nb.rs"))
    );
    assert_eq!(ls.input, json!({"command": "ls"}));
    assert_eq!(ls.started_at.as_deref(), Some("2026-01-01T00:00:01.000Z"));
    assert_eq!(ls.ended_at.as_deref(), Some("2026-01-01T00:00:02.000Z"));
    let Block::ToolCall(read) = &transcript.messages[1].blocks[2] else { panic!() };
    assert_eq!((read.status, read.result.as_deref()), (ToolStatus::Failed, Some("ENOENT")));
}

#[test]
fn a_call_without_a_result_is_pending_and_an_error_stop_is_an_error_block() {
    let transcript = load(&session(&[
        json!({"role": "user", "content": "go"}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}],
               "stopReason": "toolUse"}),
        json!({"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "overloaded"}),
    ]));
    assert_eq!(shape(&transcript), ["user: text", "assistant: tool_call error"]);
    let Block::ToolCall(call) = &transcript.messages[1].blocks[0] else { panic!() };
    assert_eq!(call.status, ToolStatus::Pending);
    assert_eq!(transcript.messages[1].blocks[1], Block::Error { text: "overloaded".into() });
}

#[test]
fn bash_executions_images_and_hidden_custom_messages() {
    let mut bytes = session(&[
        json!({"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image", "data": "iVBOR", "mimeType": "image/png"}]}),
        json!({"role": "bashExecution", "command": "false", "output": "", "exitCode": 1, "cancelled": false}),
    ]);
    let hidden = json!({"type": "custom_message", "id": "e2", "parentId": "e1", "timestamp": "2026-01-01T00:00:02.000Z",
        "customType": "x", "content": "secret", "display": false});
    bytes.extend_from_slice(format!("{hidden}\n").as_bytes());
    let transcript = load(&bytes);
    assert_eq!(shape(&transcript), ["user: text image", "user: tool_call"]);
    let Block::Image(image) = &transcript.messages[0].blocks[1] else { panic!() };
    assert_eq!((image.media_type.as_deref(), image.data.as_deref()), (Some("image/png"), Some("iVBOR")));
    let Block::ToolCall(call) = &transcript.messages[1].blocks[0] else { panic!() };
    assert_eq!((call.name.as_str(), call.status), ("bash", ToolStatus::Failed));
    assert_eq!(call.input, json!({"command": "false"}));
}

#[test]
fn cwd_comes_from_the_header() {
    let transcript = load(&session(&[json!({"role": "user", "content": "hi"})]));
    assert_eq!((transcript.id.as_str(), transcript.cwd.as_deref()), ("s1", Some("/work/p")));
    assert_eq!(transcript.title, None);
    assert_eq!(transcript.first_prompt(), Some("hi"));
}

#[test]
fn the_shown_count_is_the_transcripts_length_at_every_leaf() {
    let odd = session(&[
        json!({"role": "user", "content": "hi"}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash"}]}),
        json!({"role": "toolResult", "toolCallId": "c1", "content": "ok"}),
        json!({"role": "assistant", "content": "done"}),
        json!({"role": "toolResult", "toolCallId": 7, "content": "a wrong type: left out"}),
        json!({"role": "assistant", "content": "still the same turn"}),
        json!({"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0}),
        json!({"role": "bashExecution", "command": "ls", "exitCode": 1.5}),
        json!({"role": "assistant", "content": "after the command", "isError": "yes"}),
        json!({"role": "assistant", "content": "a new turn"}),
        json!({"role": "custom", "customType": "note", "content": "hidden", "display": false}),
        json!({"role": "assistant", "content": "the turn goes on past a hidden message"}),
        json!({"role": "hookMessage", "customType": "note", "content": "shown", "display": 1}),
        json!({"role": 5, "content": "no role"}),
        json!({"role": "somethingElse", "content": "x"}),
        json!({"role": "assistant", "content": "x", "stopReason": null, "timestamp": "t"}),
    ]);
    let mut files: Vec<Vec<u8>> =
        ["pi-mono-0.73.1-main.jsonl", "pi-mono-0.73.1-createBranchedSession.jsonl", "oh-my-pi-18.2.3-bun.jsonl"]
            .into_iter()
            .map(fixture)
            .collect();
    files.push(odd);
    for name in ["v1-basic.jsonl", "v2-hook-message.jsonl"] {
        files.push(std::fs::read(format!("{}/../../fixtures/legacy/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap());
    }
    for bytes in &files {
        let file = read(bytes).file;
        let ids: Vec<String> = file.entries().iter().map(|e| e.id().as_str().to_owned()).collect();
        let leaves = std::iter::once(Leaf::Last).chain(ids.iter().map(|id| Leaf::Id(id)));
        for leaf in leaves {
            let expected = transcript(&file, leaf).messages.len();
            assert_eq!(super::shown_message_count(&file, leaf), expected, "{leaf:?}");
        }
    }
}

#[test]
fn a_system_message_shows_as_context_and_an_edited_message_as_edited() {
    let mut bytes = session(&[
        json!({"role": "system", "content": "You are terse.", "timestamp": 1}),
        json!({"role": "user", "content": "a long question", "timestamp": 2}),
    ]);
    let edit = json!({"type": "context_edit", "id": "e2", "parentId": "e1", "timestamp": "2026-01-01T00:00:02.000Z",
        "targetId": "e1", "replacement": {"content": "short"}});
    bytes.extend_from_slice(format!("{edit}\n").as_bytes());
    let transcript = load(&bytes);
    assert_eq!(shape(&transcript), ["system: context", "user: text"]);
    assert_eq!(
        transcript.messages[0].blocks[0],
        Block::Context { title: "system".into(), text: "You are terse.".into() }
    );
    assert_eq!(transcript.messages[1].blocks[0], Block::text("short"));
}

/// Prime Agent's `child_usage_attributed` entries (its bookkeeping of a child
/// run's tokens, here the last entry of the file) are kept in the file, show
/// nothing, and add no call: the assistant messages' usage is the session's
/// own spend, the child's calls are in its own file.
#[test]
fn prime_agent_child_usage_attributions_show_nothing_and_count_nothing() {
    let bytes =
        fixture("../prime-agent/hand-written/prime-home/agent/sessions/019aa1b2-4c3d-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
    let outcome = read(&bytes);
    assert!(outcome.issues.is_empty(), "{:?}", outcome.issues);
    let kinds: Vec<&str> = outcome.file.entries().iter().map(sess_core::Entry::type_name).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "child_usage_attributed").count(), 2, "{kinds:?}");
    let transcript = transcript(&outcome.file, Leaf::Last);
    assert_eq!(shape(&transcript), ["user: text", "assistant: tool_call text"]);
    let Block::ToolCall(call) = &transcript.messages[1].blocks[0] else { panic!() };
    assert_eq!((call.name.as_str(), call.status), ("spawn_task", ToolStatus::Succeeded));
    let calls = super::entry_calls(outcome.file.entries());
    let tokens: Vec<(u64, u64)> = calls.iter().map(|c| (c.input, c.output)).collect();
    assert_eq!(tokens, [(100, 20), (150, 10)]);
}
