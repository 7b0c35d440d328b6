//! Reading Copilot events into transcripts, and finding and listing sessions
//! in a Copilot home. The golden test over the real CLI's sessions is
//! `tests/copilot_real.rs`.

#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.
#![allow(clippy::needless_pass_by_value)] // The helpers take `json!` values as written.

use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sess_core::{IssueKind, LineIssue};

use super::*;
use crate::transcript::{Block, Message, Role, ToolStatus};

const ID: &str = "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8";

/// An event line, numbered `n` for its id and time.
fn event(n: u32, kind: &str, data: Value) -> String {
    json!({"type": kind, "data": data, "id": format!("e{n}"), "timestamp": format!("2026-12-01T08:00:{n:02}.000Z"), "parentId": null})
        .to_string()
}

/// [`event`] of a subagent.
fn agent_event(n: u32, kind: &str, data: Value) -> String {
    let mut line: Value = serde_json::from_str(&event(n, kind, data)).unwrap();
    line["agentId"] = json!("agent-1");
    line.to_string()
}

fn start(n: u32, cwd: &str) -> String {
    event(
        n,
        "session.start",
        json!({"sessionId": ID, "startTime": "2026-12-01T07:59:59.000Z", "context": {"cwd": cwd}}),
    )
}

fn prompt(n: u32, text: &str) -> String {
    event(
        n,
        "user.message",
        json!({"content": text, "transformedContent": format!("<current_datetime>x</current_datetime>\n\n{text}")}),
    )
}

fn answer(n: u32, text: &str, calls: Value) -> String {
    event(n, "assistant.message", json!({"content": text, "toolRequests": calls}))
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"toolCallId": id, "name": name, "arguments": arguments, "type": "function"})
}

fn done(n: u32, id: &str, data: Value) -> String {
    let mut data = data;
    data["toolCallId"] = json!(id);
    event(n, "tool.execution_complete", data)
}

fn transcript(lines: &[String]) -> Transcript {
    parse::read(format!("{}\n", lines.join("\n")).as_bytes()).transcript
}

fn texts(message: &Message) -> Vec<(&'static str, String)> {
    message
        .blocks
        .iter()
        .map(|b| match b {
            Block::Text { text } | Block::Thinking { text } | Block::Error { text } | Block::Summary { text } => {
                (b.kind(), text.clone())
            }
            Block::ToolCall(call) => (b.kind(), call.id.clone()),
            Block::Image(image) => (b.kind(), image.media_type.clone().unwrap_or_default()),
            Block::Context { title, .. } => (b.kind(), title.clone()),
            Block::Unknown { what, .. } => (b.kind(), what.clone()),
        })
        .collect()
}

fn calls(messages: &[Message]) -> Vec<&crate::ToolCall> {
    messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect()
}

#[test]
fn an_exchange_is_one_assistant_message() {
    let t = transcript(&[
        start(1, "/w"),
        prompt(2, "Check it."),
        event(3, "system.message", json!({"role": "system", "content": "You are Copilot."})),
        event(
            4,
            "assistant.message",
            json!({"content": "", "reasoningText": "Look first.", "toolRequests": [call("c1", "bash", json!({"command": "ls"}))]}),
        ),
        event(5, "tool.execution_start", json!({"toolCallId": "c1", "toolName": "bash"})),
        done(6, "c1", json!({"success": true, "result": {"content": "a.txt"}, "shellExecution": {"exitCode": 0}})),
        answer(7, "There is a.txt.", json!([])),
        prompt(8, "Thanks."),
        answer(9, "You are welcome.", json!([])),
    ]);
    assert!(t.issues.is_empty(), "{:?}", t.issues);
    let roles: Vec<Role> = t.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User, Role::Assistant]);
    assert_eq!(texts(&t.messages[0]), [("text", "Check it.".to_owned())]);
    assert_eq!(
        texts(&t.messages[1]),
        [
            ("thinking", "Look first.".to_owned()),
            ("tool_call", "c1".to_owned()),
            ("text", "There is a.txt.".to_owned())
        ]
    );
    assert_eq!(
        (t.messages[1].id.as_deref(), t.messages[1].timestamp.as_deref()),
        (Some("e4"), Some("2026-12-01T08:00:04.000Z"))
    );
    let call = calls(&t.messages)[0];
    assert_eq!((call.name.as_str(), &call.input), ("bash", &json!({"command": "ls"})));
    assert_eq!((call.status, call.result.as_deref()), (ToolStatus::Succeeded, Some("a.txt")));
    assert_eq!(call.started_at.as_deref(), Some("2026-12-01T08:00:04.000Z"));
    assert_eq!(call.ended_at.as_deref(), Some("2026-12-01T08:00:06.000Z"));
}

#[test]
fn tool_calls_fail_on_errors_and_non_zero_exit_codes() {
    let t = transcript(&[
        prompt(1, "Go."),
        answer(
            2,
            "",
            json!([
                call("ok", "view", json!({"path": "/w/a"})),
                call("exit", "bash", json!({"command": "false"})),
                call("err", "view", json!({"path": "/w/b"})),
                {"toolCallId": "patch", "name": "apply_patch", "arguments": "*** Begin Patch\n", "type": "custom"},
                call("open", "bash", json!({"command": "sleep 9"})),
            ]),
        ),
        done(3, "ok", json!({"success": true, "result": {"content": "1. a"}})),
        done(
            4,
            "exit",
            json!({"success": true, "result": {"content": "<exit code 1>"}, "shellExecution": {"exitCode": 1}}),
        ),
        done(5, "err", json!({"success": false, "error": {"message": "Path does not exist", "code": "failure"}})),
        done(6, "patch", json!({"success": false, "error": {"message": "Failed to apply patch"}})),
        done(7, "nowhere", json!({"success": true, "result": {"content": "dropped"}})),
    ]);
    let got: Vec<_> = calls(&t.messages).iter().map(|c| (c.id.as_str(), c.status, c.result.clone())).collect();
    assert_eq!(
        got,
        [
            ("ok", ToolStatus::Succeeded, Some("1. a".to_owned())),
            ("exit", ToolStatus::Failed, Some("<exit code 1>".to_owned())),
            ("err", ToolStatus::Failed, Some("Path does not exist".to_owned())),
            ("patch", ToolStatus::Failed, Some("Failed to apply patch".to_owned())),
            // The file ends while it runs.
            ("open", ToolStatus::Pending, None),
        ]
    );
    assert_eq!(calls(&t.messages)[3].input, json!("*** Begin Patch\n"));
}

/// Issue 26, item 10: a command the user ran with `!` (`tool.user_requested`,
/// then its `tool.execution_complete` with `isUserRequested`) vanished from
/// the transcript. It is a user message holding that one call, completed by
/// its result. (The events' shape is the one of the CLI 1.0.102's
/// `session-events.schema.json`; `local_shell` is its shell escape's tool.)
#[test]
fn a_command_the_user_ran_is_a_user_message_holding_its_call() {
    let shell = json!({"toolCallId": "u1", "toolName": "local_shell", "arguments": {"command": "ls src"}});
    let t = transcript(&[
        start(0, "/w"),
        prompt(1, "hi"),
        answer(2, "hello", json!([])),
        event(3, "tool.user_requested", shell.clone()),
        event(4, "tool.execution_start", shell),
        done(5, "u1", json!({"success": true, "isUserRequested": true, "result": {"content": "main.rs"}})),
        prompt(6, "next"),
    ]);
    let roles: Vec<Role> = t.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User, Role::User]);
    let ran = &t.messages[2];
    assert_eq!((ran.id.as_deref(), ran.timestamp.as_deref()), (Some("e3"), Some("2026-12-01T08:00:03.000Z")));
    let [Block::ToolCall(call)] = ran.blocks.as_slice() else { panic!("{:?}", ran.blocks) };
    assert_eq!((call.name.as_str(), &call.input), ("local_shell", &json!({"command": "ls src"})));
    assert_eq!((call.status, call.result.as_deref()), (ToolStatus::Succeeded, Some("main.rs")));
    assert_eq!(call.started_at.as_deref(), Some("2026-12-01T08:00:03.000Z"));
    assert_eq!(call.ended_at.as_deref(), Some("2026-12-01T08:00:05.000Z"));
}

#[test]
fn calls_running_when_a_process_ends_are_pending() {
    let t = transcript(&[
        prompt(1, "Go."),
        answer(2, "", json!([call("c1", "bash", json!({"command": "sleep 9"}))])),
        event(3, "session.shutdown", json!({"shutdownType": "routine"})),
        event(4, "session.resume", json!({"context": {"cwd": "/w"}})),
        prompt(5, "Again."),
        answer(6, "", json!([call("c2", "bash", json!({"command": "sleep 9"}))])),
        event(7, "abort", json!({"reason": "user_initiated"})),
    ]);
    let statuses: Vec<_> = calls(&t.messages).iter().map(|c| c.status).collect();
    assert_eq!(statuses, [ToolStatus::Pending, ToolStatus::Pending]);
    let last = t.messages.last().unwrap();
    assert_eq!((last.role, texts(last)), (Role::System, vec![("text", "Turn aborted (user_initiated)".to_owned())]));
}

#[test]
fn errors_compactions_and_attachments() {
    let t = transcript(&[
        event(
            1,
            "session.binary_asset",
            json!({"assetId": "sha256:aa", "type": "image", "mimeType": "image/png", "data": "iVBO"}),
        ),
        event(
            2,
            "user.message",
            json!({"content": "What is this?", "attachments": [
                {"type": "file", "path": "/w/dot.png", "displayName": "dot.png", "assetId": "sha256:aa", "mimeType": "image/png"},
                {"type": "file", "path": "/w/big.jpg", "displayName": "big.jpg", "mimeType": "image/jpeg"},
                {"type": "file", "path": "/w/notes.md", "displayName": "notes.md", "mimeType": "text/markdown"}
            ]}),
        ),
        answer(3, "A dot.", json!([])),
        event(4, "session.compaction_start", json!({"trigger": "manual"})),
        event(
            5,
            "session.compaction_complete",
            json!({"success": true, "outcome": "applied", "summaryContent": "Asked about a dot."}),
        ),
        event(
            6,
            "session.compaction_complete",
            json!({"success": false, "outcome": "failed", "error": "Authentication required"}),
        ),
        prompt(7, "More?"),
        event(
            8,
            "session.error",
            json!({"errorType": "query", "message": "400 The model is down.", "statusCode": 400}),
        ),
    ]);
    let shapes: Vec<_> = t.messages.iter().map(|m| (m.role, texts(m))).collect();
    assert_eq!(
        shapes,
        [
            (
                Role::User,
                vec![
                    ("text", "What is this?".to_owned()),
                    ("image", "image/png".to_owned()),
                    ("image", "image/jpeg".to_owned()),
                    ("context", "Attached notes.md".to_owned()),
                ]
            ),
            (Role::Assistant, vec![("text", "A dot.".to_owned())]),
            (Role::System, vec![("summary", "Asked about a dot.".to_owned())]),
            (Role::System, vec![("error", "Compaction failed: Authentication required".to_owned())]),
            (Role::User, vec![("text", "More?".to_owned())]),
            (Role::Assistant, vec![("error", "400 The model is down.".to_owned())]),
        ]
    );
    let Block::Image(inline) = &t.messages[0].blocks[1] else { panic!() };
    assert_eq!((inline.data.as_deref(), inline.url.as_deref()), (Some("iVBO"), None));
    let Block::Image(by_path) = &t.messages[0].blocks[2] else { panic!() };
    assert_eq!((by_path.data.as_deref(), by_path.url.as_deref()), (None, Some("/w/big.jpg")));
}

#[test]
fn subagents_are_folded_under_their_call() {
    let t = transcript(&[
        prompt(1, "Ask a helper."),
        answer(2, "", json!([call("task1", "task", json!({"prompt": "List files."}))])),
        agent_event(3, "subagent.started", json!({"toolCallId": "task1", "agentName": "explore"})),
        agent_event(4, "user.message", json!({"content": "List files.", "source": "agent-x"})),
        agent_event(
            5,
            "assistant.message",
            json!({"content": "", "toolRequests": [call("ls1", "bash", json!({"command": "ls"}))], "parentToolCallId": "task1"}),
        ),
        agent_event(
            6,
            "tool.execution_complete",
            json!({"toolCallId": "ls1", "success": true, "result": {"content": "a"}, "parentToolCallId": "task1"}),
        ),
        agent_event(
            7,
            "assistant.message",
            json!({"content": "There is a.", "toolRequests": [], "parentToolCallId": "task1"}),
        ),
        done(8, "task1", json!({"success": true, "result": {"content": "There is a."}})),
        agent_event(9, "subagent.completed", json!({"toolCallId": "task1"})),
        answer(10, "The helper found a.", json!([])),
    ]);
    let roles: Vec<Role> = t.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    let task = calls(&t.messages)[0];
    assert_eq!((task.status, task.result.as_deref()), (ToolStatus::Succeeded, Some("There is a.")));
    let sub: Vec<_> = task.subagent.iter().map(|m| (m.role, texts(m))).collect();
    assert_eq!(
        sub,
        [
            (Role::User, vec![("text", "List files.".to_owned())]),
            (Role::Assistant, vec![("tool_call", "ls1".to_owned()), ("text", "There is a.".to_owned())]),
        ]
    );
    assert_eq!(calls(&task.subagent)[0].status, ToolStatus::Succeeded);
}

#[test]
fn lines_that_are_not_events_are_skipped_and_reported() {
    let bytes = format!(
        "{}\nnot json\n[1]\n{}\n{}\n{}\n{}",
        start(1, "/w"),
        json!({"type": "user.message", "data": {"content": "no id"}}),
        json!({"id": "x", "data": {}}),
        prompt(2, "Hello."),
        &prompt(3, "Cut")[..20],
    );
    let read = parse::read(bytes.as_bytes());
    let kinds: Vec<_> = read.transcript.issues.iter().map(|i| (i.line, std::mem::discriminant(&i.kind))).collect();
    let expected = [
        (2, IssueKind::InvalidJson(String::new())),
        (3, IssueKind::NotAnObject),
        (4, IssueKind::MissingId),
        (5, IssueKind::InvalidJson(String::new())),
        (7, IssueKind::TruncatedLastLine),
    ];
    assert_eq!(kinds, expected.iter().map(|(l, k)| (*l, std::mem::discriminant(k))).collect::<Vec<_>>());
    assert_eq!(read.transcript.messages.len(), 1);
    assert_eq!((read.cwd.as_deref(), read.session_id.as_deref()), (Some("/w"), Some(ID)));
    assert_eq!(read.created.as_deref(), Some("2026-12-01T07:59:59.000Z"));
    let checked = verify(bytes.as_bytes());
    assert_eq!((checked.entries, checked.findings.len()), (2, 5));
    assert_eq!(read.transcript.issues[4], LineIssue { line: 7, kind: IssueKind::TruncatedLastLine });
}

/// A Copilot home with a session folder, a flat session file of an older
/// release, a folder without events, and a FIFO where events should be.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("session-state");
    let session = state.join(ID);
    fs::create_dir_all(&session).unwrap();
    let events = [start(1, "/w/alpha"), prompt(2, "Say hi."), answer(3, "Hi!", json!([]))];
    fs::write(session.join("events.jsonl"), format!("{}\n", events.join("\n"))).unwrap();
    fs::write(session.join("workspace.yaml"), format!("id: {ID}\ncwd: /w/alpha\nname: Greetings\nuser_named: true\n"))
        .unwrap();
    let flat = [start(1, "/w/beta"), prompt(2, "Old format.")];
    fs::write(state.join("0ld-flat.jsonl"), format!("{}\n", flat.join("\n"))).unwrap();
    fs::create_dir_all(state.join("empty")).unwrap();
    fs::create_dir_all(state.join(".session-operation-locks")).unwrap();
    let fifo = state.join("fifo");
    fs::create_dir_all(&fifo).unwrap();
    let status = std::process::Command::new("mkfifo").arg(fifo.join("events.jsonl")).status().unwrap();
    assert!(status.success());
    dir
}

#[test]
fn finds_and_lists_sessions() {
    let home = home();
    let found = find_session_files(home.path());
    let ids: Vec<&str> = found.files.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8", "0ld-flat"]);
    assert_eq!(found.skipped.len(), 1);
    assert!(found.skipped[0].0.ends_with("fifo/events.jsonl"));

    let all = list(home.path(), Scope::All);
    assert_eq!(all.problems.len(), 1);
    let info = &all.sessions[0];
    assert_eq!(
        (info.id.as_str(), info.title.as_deref(), info.cwd.as_deref()),
        (ID, Some("Greetings"), Some("/w/alpha"))
    );
    assert_eq!((info.message_count, info.first_message.as_deref()), (2, Some("Say hi.")));
    assert_eq!(info.created.as_deref(), Some("2026-12-01T07:59:59.000Z"));
    // No `workspace.yaml`: the first prompt titles it.
    let flat = &all.sessions[1];
    assert_eq!(
        (flat.id.as_str(), flat.title.as_deref(), flat.cwd.as_deref()),
        ("0ld-flat", Some("Old format."), Some("/w/beta"))
    );

    let beta = list(home.path(), Scope::Project(Path::new("/w/beta")));
    assert_eq!(beta.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["0ld-flat"]);
    assert!(list(home.path(), Scope::Project(Path::new("/w"))).sessions.is_empty());
    assert!(list(&home.path().join("nowhere"), Scope::All).sessions.is_empty());
}

#[test]
fn the_source_finds_its_home_and_its_files() {
    let home = home();
    let source = SOURCE.source();
    let env = crate::Env::new("/home/u", [("COPILOT_HOME".to_owned(), home.path().as_os_str().to_owned())]);
    assert_eq!(source.roots(&env), [home.path().to_owned()]);
    assert_eq!(source.find(&env).files.len(), 2);
    assert_eq!(source.roots(&crate::Env::new("/home/u", [])), [Path::new("/home/u/.copilot").to_owned()]);

    let path = home.path().join("session-state").join(ID).join("events.jsonl");
    let head = fs::read(&path).unwrap();
    assert_eq!(crate::detect(&path, &head), Some(SOURCE));
    assert_eq!(crate::detect(Path::new("x.jsonl"), b"{\"type\":\"user.message\",\"data\":{}}\n"), None);
    let loaded = source.load(&path).unwrap();
    assert_eq!((loaded.id.as_str(), loaded.title.as_deref(), loaded.messages.len()), (ID, Some("Greetings"), 2));
    let indexed = source.index(&path, &head).unwrap();
    assert_eq!((indexed.title.as_deref(), indexed.title_explicit, indexed.message_count), (Some("Greetings"), true, 2));
    assert!(source.index(Path::new("x.jsonl"), b"{\"type\":\"session\"}\n").is_err());
}
