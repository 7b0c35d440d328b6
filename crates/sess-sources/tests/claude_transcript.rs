//! The Claude Code transcript rules (seed 003 §2–§4, formats.md §1.4–§1.11),
//! one small session per rule.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sess_core::{IssueKind, LineIssue};
use sess_sources::{Block, Image, Message, Role, ToolCall, ToolStatus, Transcript, claude};

/// A session file of these lines.
fn parse(lines: &[Value]) -> Transcript {
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    claude::parse(text.as_bytes(), "s")
}

/// The timestamp of the line with this uuid.
fn ts(uuid: &str) -> String {
    format!("2026-01-01T00:00:{uuid:0>2}.000Z")
}

fn envelope(kind: &str, uuid: &str, message: Value) -> Value {
    let mut line =
        json!({"type": kind, "uuid": uuid, "timestamp": ts(uuid), "cwd": "/p", "sessionId": "s", "isSidechain": false});
    line["message"] = message;
    line
}

fn user(uuid: &str, content: Value) -> Value {
    let mut message = json!({"role": "user"});
    message["content"] = content;
    envelope("user", uuid, message)
}

fn assistant(uuid: &str, content: Value) -> Value {
    let mut message = json!({"id": "msg_1", "model": "claude-x", "role": "assistant"});
    message["content"] = content;
    envelope("assistant", uuid, message)
}

/// `line` with more fields.
fn with(mut line: Value, fields: Value) -> Value {
    let Value::Object(fields) = fields else { panic!("fields must be an object") };
    line.as_object_mut().unwrap().extend(fields);
    line
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool_use(id: &str, name: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": {"arg": id}})
}

fn tool_result(id: &str, content: Value) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": id});
    block["content"] = content;
    block
}

fn msg(role: Role, uuid: &str, blocks: Vec<Block>) -> Message {
    let mut message = Message::new(role).at(Some(uuid.into()), Some(ts(uuid)));
    message.blocks = blocks;
    message
}

fn call(id: &str, name: &str, status: ToolStatus, result: Option<&str>, started: &str, ended: Option<&str>) -> Block {
    let mut call = ToolCall::running(id, name, json!({"arg": id}));
    call.status = status;
    call.result = result.map(Into::into);
    call.started_at = Some(ts(started));
    call.ended_at = ended.map(ts);
    Block::ToolCall(call)
}

fn error(t: &str) -> Block {
    Block::Error { text: t.into() }
}

fn system(uuid: &str, t: &str) -> Message {
    msg(Role::System, uuid, vec![Block::text(t)])
}

#[test]
fn a_string_content_is_a_prompt_and_so_are_text_parts() {
    let t = parse(&[user("1", json!("plain")), user("2", json!([text("part one"), text("part two")]))]);
    assert_eq!(
        t.messages,
        [
            msg(Role::User, "1", vec![Block::text("plain")]),
            msg(Role::User, "2", vec![Block::text("part one"), Block::text("part two")]),
        ]
    );
    assert_eq!(t.cwd.as_deref(), Some("/p"));
    assert!(t.issues.is_empty());
}

#[test]
fn tool_results_complete_calls_with_status_result_and_times() {
    let t = parse(&[
        user("1", json!("go")),
        assistant("2", json!([tool_use("a", "Read"), tool_use("b", "Bash")])),
        user("3", json!([tool_result("a", json!("file body"))])),
        user(
            "4",
            json!([with(tool_result("b", json!([text("Exit code 1"), text("boom")])), json!({"is_error": true}))]),
        ),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(Role::User, "1", vec![Block::text("go")]),
            msg(
                Role::Assistant,
                "2",
                vec![
                    call("a", "Read", ToolStatus::Succeeded, Some("file body"), "2", Some("3")),
                    call("b", "Bash", ToolStatus::Failed, Some("Exit code 1\nboom"), "2", Some("4")),
                ]
            ),
        ]
    );
}

#[test]
fn is_error_false_succeeds() {
    let t = parse(&[
        assistant("1", json!([tool_use("a", "Bash")])),
        user("2", json!([with(tool_result("a", json!("ok")), json!({"is_error": false}))])),
    ]);
    assert_eq!(t.messages[0].blocks, [call("a", "Bash", ToolStatus::Succeeded, Some("ok"), "1", Some("2"))]);
}

#[test]
fn a_meta_tool_result_still_completes_its_call() {
    let t = parse(&[
        assistant("1", json!([tool_use("a", "Read")])),
        with(user("2", json!([tool_result("a", json!("done"))])), json!({"isMeta": true})),
    ]);
    assert_eq!(
        t.messages,
        [msg(Role::Assistant, "1", vec![call("a", "Read", ToolStatus::Succeeded, Some("done"), "1", Some("2"))])]
    );
}

#[test]
fn a_result_completes_a_call_of_an_earlier_message() {
    let t = parse(&[
        assistant("1", json!([tool_use("a", "Agent")])),
        user("2", json!("meanwhile")),
        user("3", json!([tool_result("a", json!("late"))])),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(Role::Assistant, "1", vec![call("a", "Agent", ToolStatus::Succeeded, Some("late"), "1", Some("3"))]),
            msg(Role::User, "2", vec![Block::text("meanwhile")]),
        ]
    );
}

#[test]
fn a_result_line_neither_makes_a_message_nor_closes_the_assistant_message() {
    let t = parse(&[
        user("1", json!("go")),
        assistant("2", json!([text("looking"), tool_use("a", "Read")])),
        user("3", json!([tool_result("a", json!("x"))])),
        assistant("4", json!([text("done")])),
    ]);
    assert_eq!(
        t.messages[1],
        msg(
            Role::Assistant,
            "2",
            vec![
                Block::text("looking"),
                call("a", "Read", ToolStatus::Succeeded, Some("x"), "2", Some("3")),
                Block::text("done")
            ]
        )
    );
    assert_eq!(t.messages.len(), 2);
}

#[test]
fn results_for_unknown_or_finished_calls_are_dropped() {
    let t = parse(&[
        assistant("1", json!([tool_use("a", "Read")])),
        user("2", json!([tool_result("a", json!("first"))])),
        user("3", json!([tool_result("a", json!("again")), tool_result("zzz", json!("stray"))])),
    ]);
    assert_eq!(
        t.messages,
        [msg(Role::Assistant, "1", vec![call("a", "Read", ToolStatus::Succeeded, Some("first"), "1", Some("2"))])]
    );
}

#[test]
fn calls_without_a_result_at_the_end_are_pending() {
    let t = parse(&[
        assistant("1", json!([tool_use("a", "Read"), tool_use("b", "Bash")])),
        user("2", json!([tool_result("a", json!("ok"))])),
    ]);
    assert_eq!(
        t.messages[0].blocks,
        [
            call("a", "Read", ToolStatus::Succeeded, Some("ok"), "1", Some("2")),
            call("b", "Bash", ToolStatus::Pending, None, "1", None),
        ]
    );
}

#[test]
fn meta_text_and_images_are_hidden() {
    let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}});
    let t = parse(&[
        with(user("1", json!("Caveat: The messages below were generated by the user")), json!({"isMeta": true})),
        with(user("2", json!([text("skill body"), image])), json!({"isMeta": true})),
        with(user("3", json!("<local-command-stdout>Set model</local-command-stdout>")), json!({"isMeta": true})),
        user("4", json!("real")),
    ]);
    assert_eq!(t.messages, [msg(Role::User, "4", vec![Block::text("real")])]);
}

#[test]
fn a_compact_summary_is_a_system_summary_that_closes_the_assistant_message() {
    let t = parse(&[
        assistant("1", json!([text("before")])),
        with(user("2", json!("This session is being continued…")), json!({"isCompactSummary": true})),
        assistant("3", json!([text("after")])),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(Role::Assistant, "1", vec![Block::text("before")]),
            msg(Role::System, "2", vec![Block::Summary { text: "This session is being continued…".into() }]),
            msg(Role::Assistant, "3", vec![Block::text("after")]),
        ]
    );
    assert_eq!(t.title, None, "a compact summary is not a prompt");
}

/// CLI 2.1.332 writes a `<system-reminder>` naming the tools used into the
/// summary (seen running the real CLI, `interop/claude-code`).
#[test]
fn a_compact_summary_is_shown_without_system_reminders() {
    let summary = "This session is being continued from a previous conversation that ran out of context. The \
                   summary below covers the earlier portion of the conversation.\n\n<system-reminder>\n\
                   <tools-used-before-summary>Bash, Read</tools-used-before-summary>\n</system-reminder>\n\
                   Summary:\nThe user ran the checks.\n\nContinue the conversation.<system-reminder>x</system-reminder>";
    let t = parse(&[
        with(user("1", json!(summary)), json!({"isCompactSummary": true, "isVisibleInTranscriptOnly": true})),
        with(user("2", json!("Summary <system-reminder> never closed")), json!({"isCompactSummary": true})),
    ]);
    let expected = "This session is being continued from a previous conversation that ran out of context. The \
                    summary below covers the earlier portion of the conversation.\n\nSummary:\nThe user ran the \
                    checks.\n\nContinue the conversation.";
    assert_eq!(
        t.messages,
        [
            msg(Role::System, "1", vec![Block::Summary { text: expected.into() }]),
            msg(Role::System, "2", vec![Block::Summary { text: "Summary <system-reminder> never closed".into() }]),
        ]
    );
}

#[test]
fn synthetic_and_error_lines_give_error_blocks() {
    let synthetic = envelope(
        "assistant",
        "1",
        json!({"id": "x", "model": "<synthetic>", "role": "assistant", "content": [text("API Error: 529")]}),
    );
    let flagged = with(assistant("2", json!([text("API Error: 500")])), json!({"isApiErrorMessage": true}));
    let with_error = with(assistant("3", json!([text("Invalid API key")])), json!({"error": "authentication_failed"}));
    let error_only = with(assistant("4", json!([])), json!({"error": "max_output_tokens"}));
    let not_an_error = with(assistant("5", json!([text("fine")])), json!({"error": null, "isApiErrorMessage": false}));
    let t = parse(&[synthetic, flagged, with_error, error_only, not_an_error]);
    assert_eq!(
        t.messages,
        [msg(
            Role::Assistant,
            "1",
            vec![
                error("API Error: 529"),
                error("API Error: 500"),
                error("Invalid API key"),
                error("max_output_tokens"),
                Block::text("fine"),
            ]
        )]
    );
}

#[test]
fn thinking_is_shown_and_redacted_thinking_is_not() {
    let t = parse(&[assistant(
        "1",
        json!([
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "thinking", "thinking": "", "signature": "sig"},
            text("answer"),
        ]),
    )]);
    assert_eq!(
        t.messages,
        [msg(Role::Assistant, "1", vec![Block::Thinking { text: "hmm".into() }, Block::text("answer")])]
    );
}

#[test]
fn lines_of_one_api_message_append_in_file_order_without_dedupe() {
    // Same message.id on every line, as the CLI writes one response.
    let t = parse(&[
        assistant("1", json!([{"type": "thinking", "thinking": "t"}])),
        assistant("2", json!([text("same")])),
        assistant("3", json!([text("same")])),
        assistant("4", json!([tool_use("a", "Read")])),
    ]);
    assert_eq!(
        t.messages,
        [msg(
            Role::Assistant,
            "1",
            vec![
                Block::Thinking { text: "t".into() },
                Block::text("same"),
                Block::text("same"),
                call("a", "Read", ToolStatus::Pending, None, "4", None),
            ]
        )]
    );
}

/// A sidechain line (a subagent's turn, as Claude Code 1.0.x wrote it) after `parent`.
fn side(line: Value, parent: Option<&str>) -> Value {
    with(line, json!({"isSidechain": true, "parentUuid": parent}))
}

#[test]
fn sidechain_lines_are_folded_under_the_task_call_with_their_prompt() {
    let task =
        |id: &str, prompt: &str| json!({"type": "tool_use", "id": id, "name": "Task", "input": {"prompt": prompt}});
    let t = parse(&[
        user("1", json!("fix it")),
        assistant("2", json!([task("ta", "look at A"), task("tb", "look at B")])),
        // B's subagent starts first; A's lines come between B's.
        side(user("3", json!("look at B")), None),
        side(user("4", json!("look at A")), None),
        side(assistant("5", json!([tool_use("g", "Grep")])), Some("3")),
        side(user("6", json!([tool_result("g", json!("found"))])), Some("5")),
        side(assistant("7", json!([text("A is fine")])), Some("4")),
        side(assistant("8", json!([text("B is broken")])), Some("6")),
        user("9", json!([tool_result("ta", json!("A is fine")), tool_result("tb", json!("B is broken"))])),
        assistant("10", json!([text("done")])),
    ]);
    let mut a = ToolCall::running("ta", "Task", json!({"prompt": "look at A"}));
    a.complete(Some("A is fine".into()), false, Some(ts("9")));
    a.started_at = Some(ts("2"));
    a.subagent = vec![
        msg(Role::User, "4", vec![Block::text("look at A")]),
        msg(Role::Assistant, "7", vec![Block::text("A is fine")]),
    ];
    let mut b = ToolCall::running("tb", "Task", json!({"prompt": "look at B"}));
    b.complete(Some("B is broken".into()), false, Some(ts("9")));
    b.started_at = Some(ts("2"));
    b.subagent = vec![
        msg(Role::User, "3", vec![Block::text("look at B")]),
        msg(
            Role::Assistant,
            "5",
            vec![call("g", "Grep", ToolStatus::Succeeded, Some("found"), "5", Some("6")), Block::text("B is broken")],
        ),
    ];
    assert_eq!(
        t.messages,
        [
            msg(Role::User, "1", vec![Block::text("fix it")]),
            msg(Role::Assistant, "2", vec![Block::ToolCall(a), Block::ToolCall(b), Block::text("done")]),
        ]
    );
    assert_eq!(t.title.as_deref(), Some("fix it"));
}

#[test]
fn a_file_of_sidechain_lines_only_is_a_subagents_own_transcript() {
    // As Claude Code 2.x writes `<session>/subagents/agent-*.jsonl`.
    let t = parse(&[
        side(user("1", json!("count the files")), None),
        side(assistant("2", json!([text("3 files")])), Some("1")),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(Role::User, "1", vec![Block::text("count the files")]),
            msg(Role::Assistant, "2", vec![Block::text("3 files")]),
        ]
    );
    assert_eq!(t.title.as_deref(), Some("count the files"));
}

#[test]
fn sidechain_lines_without_their_call_are_a_marked_system_message_never_a_prompt() {
    let t = parse(&[
        side(user("1", json!("side question")), None),
        side(assistant("2", json!([text("side answer")])), Some("1")),
        user("3", json!("my question")),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(
                Role::System,
                "1",
                vec![
                    Block::text("Subagent turns (the call that started them is not in the file):"),
                    Block::text("side question"),
                    Block::text("side answer"),
                ]
            ),
            msg(Role::User, "3", vec![Block::text("my question")]),
        ]
    );
    assert_eq!(t.title.as_deref(), Some("my question"));
}

#[test]
fn editor_context_is_split_off_a_prompt() {
    let context = "===== ATTACHED UNITY EDITOR CONTEXT =====\n[Selection] Cube\n===== END =====";
    let t = parse(&[
        user("1", json!(format!("Why is it red?\n\n{context}"))),
        user("2", json!(context)),
        user("3", json!("no ===== ATTACHED UNITY EDITOR CONTEXT ===== here without blank lines")),
    ]);
    let restored = Block::Context { title: "Restored context".into(), text: context.into() };
    assert_eq!(
        t.messages,
        [
            msg(Role::User, "1", vec![Block::text("Why is it red?"), restored.clone()]),
            msg(Role::User, "2", vec![restored]),
            msg(
                Role::User,
                "3",
                vec![Block::text("no ===== ATTACHED UNITY EDITOR CONTEXT ===== here without blank lines")]
            ),
        ]
    );
    assert_eq!(t.title.as_deref(), Some("Why is it red?"));
}

#[test]
fn user_images_are_image_blocks() {
    let t = parse(&[user(
        "1",
        json!([
            text("look"),
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
            {"type": "image", "source": {"type": "url", "url": "https://example.invalid/a.png"}},
        ]),
    )]);
    assert_eq!(
        t.messages[0].blocks,
        [
            Block::text("look"),
            Block::Image(Image { media_type: Some("image/jpeg".into()), data: Some("/9j/".into()), url: None }),
            Block::Image(Image { media_type: None, data: None, url: Some("https://example.invalid/a.png".into()) }),
        ]
    );
}

#[test]
fn assistant_images_and_string_content() {
    let t = parse(&[
        assistant(
            "1",
            json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}]),
        ),
        assistant("2", json!("plain answer")),
    ]);
    assert_eq!(
        t.messages[0].blocks,
        [
            Block::Image(Image { media_type: Some("image/png".into()), data: Some("AA".into()), url: None }),
            Block::text("plain answer"),
        ]
    );
}

#[test]
fn interrupts_and_command_echoes_are_system_messages_that_close_the_assistant_message() {
    let t = parse(&[
        assistant("1", json!([text("working")])),
        user("2", json!([text("[Request interrupted by user]")])),
        assistant("3", json!([text("more")])),
        user("4", json!("[Request interrupted by user for tool use]")),
        user(
            "5",
            json!(
                "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>"
            ),
        ),
        user(
            "6",
            json!(
                "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>"
            ),
        ),
        user("7", json!("<local-command-stdout>Set model to opus</local-command-stdout>")),
        user("8", json!("<local-command-stdout></local-command-stdout>")),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(Role::Assistant, "1", vec![Block::text("working")]),
            system("2", "[Request interrupted by user]"),
            msg(Role::Assistant, "3", vec![Block::text("more")]),
            system("4", "[Request interrupted by user for tool use]"),
            system("5", "/model opus"),
            system("6", "/init"),
            system("7", "Set model to opus"),
        ]
    );
    assert_eq!(t.title, None, "no real prompt");
}

/// CLI 2.1.332 writes the end of a background command or subagent as a user
/// line (no `isMeta`; `origin.kind: "task-notification"`, `promptSource:
/// "system"`) and answers it in a new turn (seen running the real CLI,
/// `interop/claude-code`).
#[test]
fn task_notifications_are_system_messages_with_their_summary() {
    let notification = "<task-notification>\n<task-id>bh4eu00i7</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n\
                        <output-file>/tmp/claude-0/p/s/tasks/bh4eu00i7.output</output-file>\n<status>completed</status>\n\
                        <summary>Background command \"Slow build\" completed (exit code 0)</summary>\n</task-notification>";
    let origin = json!({"origin": {"kind": "task-notification"}, "promptSource": "system"});
    let t = parse(&[
        user("1", json!("Start the build.")),
        assistant("2", json!([text("Running.")])),
        with(user("3", json!(notification)), origin.clone()),
        assistant("4", json!([text("The build finished.")])),
        with(
            user(
                "5",
                json!([text(
                    "<task-notification><task-id>a</task-id><summary>Agent \"A\" finished</summary>\
                     </task-notification>\n<task-notification><summary>Agent \"B\" finished</summary></task-notification>"
                )]),
            ),
            origin.clone(),
        ),
        with(user("6", json!("<task-notification><status>killed</status></task-notification>")), origin.clone()),
        with(user("7", json!("<task-notification>\nno tags\n</task-notification>")), origin),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(Role::User, "1", vec![Block::text("Start the build.")]),
            msg(Role::Assistant, "2", vec![Block::text("Running.")]),
            system("3", "Background command \"Slow build\" completed (exit code 0)"),
            msg(Role::Assistant, "4", vec![Block::text("The build finished.")]),
            system("5", "Agent \"A\" finished\nAgent \"B\" finished"),
            system("6", "Background task killed"),
            system("7", "<task-notification>\nno tags\n</task-notification>"),
        ]
    );
    assert_eq!(t.title.as_deref(), Some("Start the build."));
}

#[test]
fn an_interrupt_beside_a_tool_result_completes_the_call_and_shows_the_marker() {
    let t = parse(&[
        assistant("1", json!([tool_use("a", "Bash")])),
        user(
            "2",
            json!([
                with(tool_result("a", json!("The user doesn't want to proceed")), json!({"is_error": true})),
                text("[Request interrupted by user for tool use]"),
            ]),
        ),
    ]);
    assert_eq!(
        t.messages,
        [
            msg(
                Role::Assistant,
                "1",
                vec![call("a", "Bash", ToolStatus::Failed, Some("The user doesn't want to proceed"), "1", Some("2"))]
            ),
            system("2", "[Request interrupted by user for tool use]"),
        ]
    );
}

#[test]
fn other_line_types_make_no_messages() {
    let t = parse(&[
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": ts("1"), "content": "queued"}),
        envelope("system", "2", json!({"role": "user", "content": "not shown"})),
        with(
            envelope("attachment", "3", Value::Null),
            json!({"attachment": {"type": "queued_command", "prompt": "p"}}),
        ),
        with(
            envelope("progress", "4", Value::Null),
            json!({"data": {"message": {"type": "user", "message": {"content": "x"}}}}),
        ),
        json!({"type": "summary", "summary": "S", "leafUuid": "nope"}),
        json!({"type": "file-history-snapshot", "messageId": "1", "snapshot": {}}),
        json!({"type": "last-prompt", "lastPrompt": "lp"}),
        json!({"type": "something-new", "message": {"content": "x"}}),
        json!({"no": "type"}),
    ]);
    assert_eq!(t.messages, []);
    assert_eq!(t.issues, []);
    assert_eq!(t.title, None);
}

#[test]
fn unknown_blocks_show_as_text_and_server_tools_as_calls() {
    let t = parse(&[
        user("1", json!([text("read this"), {"type": "document", "source": {"type": "base64", "data": "JVBER"}}])),
        assistant(
            "2",
            json!([
                {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {"arg": "srv"}},
                {"type": "web_search_tool_result", "tool_use_id": "srv", "content": [{"type": "web_search_result", "title": "T", "text": "hit"}]},
                {"type": "fancy_new_block", "text": "with text"},
                {"type": "opaque_block"},
            ]),
        ),
    ]);
    assert_eq!(t.messages[0].blocks, [Block::text("read this"), Block::text("[document]")]);
    assert_eq!(
        t.messages[1].blocks,
        [
            call("srv", "web_search", ToolStatus::Succeeded, Some("hit"), "2", Some("2")),
            Block::text("with text"),
            Block::text("[opaque_block]"),
        ]
    );
}

#[test]
fn blank_text_is_skipped_and_makes_no_message() {
    let t = parse(&[
        assistant("1", json!([text("a"), text("\n\n")])),
        user("2", json!("  ")),
        assistant("3", json!([text("b")])),
    ]);
    assert_eq!(t.messages, [msg(Role::Assistant, "1", vec![Block::text("a"), Block::text("b")])]);
}

#[test]
fn broken_lines_are_skipped_and_reported() {
    let good = user("2", json!("hello")).to_string();
    let bytes = format!(
        "{{\"type\":\"user\",\n{good}\n[1,2]\n\n{}\n{{\"type\":\"assistant\"",
        assistant("5", json!([text("hi")]))
    );
    let t = claude::parse(bytes.as_bytes(), "s");
    assert_eq!(t.messages.len(), 2);
    assert_eq!(t.issues.len(), 3);
    assert!(matches!(t.issues[0], LineIssue { line: 1, kind: IssueKind::InvalidJson(_) }));
    assert_eq!(t.issues[1], LineIssue { line: 3, kind: IssueKind::NotAnObject });
    assert_eq!(t.issues[2], LineIssue { line: 6, kind: IssueKind::TruncatedLastLine });
}

#[test]
fn a_lone_surrogate_escape_does_not_lose_the_line() {
    let bytes = br#"{"type":"user","uuid":"1","timestamp":"t","message":{"content":"cut \ud83d here"}}"#;
    let t = claude::parse(bytes, "s");
    assert_eq!(t.issues, []);
    assert_eq!(t.messages[0].blocks, [Block::text("cut \u{fffd} here")]);
}

#[test]
fn wrongly_typed_fields_read_as_absent() {
    let t = parse(&[
        json!({"type": "user", "uuid": 7, "timestamp": false, "cwd": ["x"], "isMeta": "", "message": {"content": "kept"}}),
    ]);
    assert_eq!(t.messages, [Message::new(Role::User).with(Block::text("kept"))]);
    assert_eq!(t.cwd, None);
}

#[test]
fn the_cwd_is_the_first_one_written() {
    let first = json!({"type": "summary", "summary": "s", "leafUuid": "x"});
    let t = parse(&[
        first,
        with(user("1", json!("a")), json!({"cwd": "/first"})),
        with(user("2", json!("b")), json!({"cwd": "/second"})),
    ]);
    assert_eq!(t.cwd.as_deref(), Some("/first"));
}

mod titles {
    use pretty_assertions::assert_eq;

    use super::*;

    fn custom(title: &str) -> Value {
        json!({"type": "custom-title", "customTitle": title, "sessionId": "s"})
    }

    fn ai(title: &str) -> Value {
        json!({"type": "ai-title", "aiTitle": title, "sessionId": "s"})
    }

    fn summary(text: &str, leaf: &str) -> Value {
        json!({"type": "summary", "summary": text, "leafUuid": leaf})
    }

    fn title(lines: &[Value]) -> Option<String> {
        parse(lines).title
    }

    #[test]
    fn the_last_custom_title_wins_over_everything() {
        let lines = [
            custom("first"),
            summary("in file", "1"),
            user("1", json!("prompt")),
            ai("generated"),
            custom("second"),
            custom("  "),
        ];
        assert_eq!(title(&lines).as_deref(), Some("second"));
    }

    #[test]
    fn then_the_last_ai_title() {
        assert_eq!(
            title(&[ai("one"), summary("in file", "1"), user("1", json!("p")), ai("two")]).as_deref(),
            Some("two")
        );
    }

    #[test]
    fn then_the_last_summary_of_a_line_in_this_file() {
        let lines = [
            summary("old branch", "1"),
            summary("foreign", "not-here"),
            user("1", json!("prompt")),
            assistant("2", json!([text("a")])),
            summary("newest branch", "2"),
            summary("also foreign", "elsewhere"),
        ];
        assert_eq!(title(&lines).as_deref(), Some("newest branch"));
    }

    #[test]
    fn a_foreign_summary_is_ignored_for_the_first_prompt() {
        let lines = [summary("other session", "5b9a0c1d"), user("1", json!("  the prompt  "))];
        assert_eq!(title(&lines).as_deref(), Some("the prompt"));
    }

    #[test]
    fn the_first_prompt_skips_harness_text() {
        let lines = [
            with(user("1", json!("Caveat: generated by local commands")), json!({"isMeta": true})),
            user("2", json!("Caveat: not meta, still not a prompt")),
            user("3", json!("<command-name>/clear</command-name>")),
            user("4", json!("<bash-input>ls</bash-input>")),
            user("5", json!("[Request interrupted by user]")),
            with(user("6", json!("summary of before")), json!({"isCompactSummary": true})),
            user(
                "7",
                json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}]),
            ),
            user("8", json!("the real one")),
            user("9", json!("later")),
        ];
        assert_eq!(title(&lines).as_deref(), Some("the real one"));
    }

    #[test]
    fn no_title_without_a_prompt() {
        assert_eq!(title(&[assistant("1", json!([text("hello")]))]), None);
        assert_eq!(title(&[]), None);
    }
}
