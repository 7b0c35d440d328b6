//! One small rollout per mapping rule of the `codex` module docs.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sess_core::IssueKind;

use super::*;
use crate::transcript::ToolStatus;

/// A rollout of `payloads`, each `(type, payload)`, stamped one second apart.
fn jsonl(lines: &[(&str, Value)]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, (kind, payload))| {
            let timestamp = format!("2026-08-20T10:00:{i:02}.000Z");
            json!({"timestamp": timestamp, "type": kind, "payload": payload}).to_string() + "\n"
        })
        .collect()
}

fn parse(lines: &[(&str, Value)]) -> Transcript {
    read(jsonl(lines).as_bytes()).transcript
}

fn meta(id: &str) -> (&'static str, Value) {
    (
        "session_meta",
        json!({"id": id, "timestamp": "2026-08-20T09:59:59.000Z", "cwd": "/w", "originator": "codex_cli_rs"}),
    )
}

fn message(role: &str, part: &str, text: &str) -> (&'static str, Value) {
    ("response_item", json!({"type": "message", "role": role, "content": [{"type": part, "text": text}]}))
}

fn user(text: &str) -> (&'static str, Value) {
    message("user", "input_text", text)
}

fn assistant(text: &str) -> (&'static str, Value) {
    message("assistant", "output_text", text)
}

fn event(payload: Value) -> (&'static str, Value) {
    ("event_msg", payload)
}

fn user_event(text: &str) -> (&'static str, Value) {
    event(json!({"type": "user_message", "message": text, "images": [], "local_images": [], "text_elements": []}))
}

fn agent_event(text: &str) -> (&'static str, Value) {
    event(json!({"type": "agent_message", "message": text}))
}

fn reasoning(parts: &[&str]) -> (&'static str, Value) {
    let summary: Vec<Value> = parts.iter().map(|t| json!({"type": "summary_text", "text": t})).collect();
    ("response_item", json!({"type": "reasoning", "summary": summary, "content": null, "encrypted_content": "gAAA"}))
}

fn reasoning_event(text: &str) -> (&'static str, Value) {
    event(json!({"type": "agent_reasoning", "text": text}))
}

fn call(call_id: &str, arguments: &str) -> (&'static str, Value) {
    ("response_item", json!({"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id}))
}

fn output(call_id: &str, output: &str) -> (&'static str, Value) {
    ("response_item", json!({"type": "function_call_output", "call_id": call_id, "output": output}))
}

fn exec_output(call_id: &str, text: &str, exit_code: i64) -> (&'static str, Value) {
    let output = json!({"output": text, "metadata": {"exit_code": exit_code, "duration_seconds": 0.1}}).to_string();
    ("response_item", json!({"type": "function_call_output", "call_id": call_id, "output": output}))
}

/// The transcript in short: per message its role and one string per block.
fn shape(transcript: &Transcript) -> Vec<(Role, Vec<String>)> {
    transcript.messages.iter().map(|m| (m.role, m.blocks.iter().map(describe).collect())).collect()
}

fn describe(block: &Block) -> String {
    match block {
        Block::Text { text } => format!("text:{text}"),
        Block::Thinking { text } => format!("thinking:{text}"),
        Block::ToolCall(call) => format!("tool:{}:{}", call.name, call.status.as_str()),
        Block::Error { text } => format!("error:{text}"),
        Block::Context { title, .. } => format!("context:{title}"),
        Block::Summary { text } => format!("summary:{text}"),
        Block::Image(image) => format!("image:{}", image.media_type.as_deref().or(image.url.as_deref()).unwrap_or("?")),
        Block::Unknown { what, .. } => format!("unknown:{what}"),
    }
}

fn msg(role: Role, blocks: &[&str]) -> (Role, Vec<String>) {
    (role, blocks.iter().map(|b| (*b).to_owned()).collect())
}

fn tool(transcript: &Transcript, message: usize, block: usize) -> &ToolCall {
    match &transcript.messages[message].blocks[block] {
        Block::ToolCall(call) => call,
        other => panic!("not a tool call: {other:?}"),
    }
}

#[test]
fn session_meta_gives_id_cwd_created_and_parent_and_only_the_first_counts() {
    let text = jsonl(&[
        (
            "session_meta",
            json!({"id": "child", "forked_from_id": "parent", "cwd": "/w", "timestamp": "2026-08-22T08:30:00Z"}),
        ),
        ("session_meta", json!({"id": "parent", "cwd": "/elsewhere"})),
    ]);
    let rollout = read(text.as_bytes());
    assert_eq!((rollout.transcript.id.as_str(), rollout.transcript.cwd.as_deref()), ("child", Some("/w")));
    assert_eq!(rollout.created.as_deref(), Some("2026-08-22T08:30:00Z"));
    assert_eq!(rollout.forked_from.as_deref(), Some("parent"));
    assert_eq!(rollout.transcript.source, crate::codex::SOURCE);
    assert_eq!(rollout.transcript.title, None);
    assert_eq!(meta_cwd(text.as_bytes()).as_deref(), Some("/w"));

    // Older builds: `session_id`; no payload timestamp → the line's.
    let old = read(jsonl(&[("session_meta", json!({"session_id": "old", "cwd": "/o"}))]).as_bytes());
    assert_eq!(old.transcript.id, "old");
    assert_eq!(old.created.as_deref(), Some("2026-08-20T10:00:00.000Z"));
    assert_eq!(meta_cwd(b"{\"type\":\"response_item\",\"payload\":{}}\n"), None);
}

#[test]
fn injected_context_is_hidden() {
    let transcript = parse(&[
        meta("t"),
        message("developer", "input_text", "<permissions instructions>sandboxed</permissions instructions>"),
        message("system", "input_text", "You are Codex"),
        user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        user("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be brief</INSTRUCTIONS>"),
        user("<user_instructions>be brief</user_instructions>"),
        user_event("<environment_context>echoed</environment_context>"),
        message("critic", "input_text", "a role from the future"),
        user("The real prompt"),
    ]);
    assert_eq!(shape(&transcript), [msg(Role::User, &["text:The real prompt"])]);
}

#[test]
fn item_then_event_copies_are_kept_once() {
    let transcript = parse(&[
        meta("t"),
        user("Why?"),
        user_event("Why?"),
        reasoning(&["**Looking**", "**Checking**"]),
        reasoning_event("**Looking**"),
        reasoning_event("**Checking**"),
        assistant("Because."),
        agent_event("Because."),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:Why?"]),
            msg(Role::Assistant, &["thinking:**Looking**", "thinking:**Checking**", "text:Because."]),
        ]
    );
}

#[test]
fn event_then_item_copies_are_kept_once_with_the_items_content() {
    let transcript = parse(&[
        meta("t"),
        user_event("Look at this"),
        (
            "response_item",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Look at this"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}
            ]}),
        ),
        reasoning_event("**Seeing**"),
        agent_event("A cat."),
        reasoning(&["**Seeing**"]),
        assistant("A cat."),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:Look at this", "image:image/png"]),
            msg(Role::Assistant, &["thinking:**Seeing**", "text:A cat."]),
        ]
    );
    // The message keeps the id and time of the line that opened it.
    assert_eq!(transcript.messages[0].id.as_deref(), Some("2"));
}

#[test]
fn a_copy_without_its_partner_is_kept() {
    let transcript = parse(&[
        meta("t"),
        // Forked copies: items only.
        user("First"),
        assistant("Answer one"),
        // An interrupted turn: the event only.
        user_event("Second"),
        event(json!({"type": "turn_aborted", "reason": "interrupted"})),
        // Events only for the assistant (a build that wrote no items).
        user("Third"),
        user_event("Third"),
        agent_event("Answer three"),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:First"]),
            msg(Role::Assistant, &["text:Answer one"]),
            msg(Role::User, &["text:Second"]),
            msg(Role::System, &["text:Turn aborted (interrupted)"]),
            msg(Role::User, &["text:Third"]),
            msg(Role::Assistant, &["text:Answer three"]),
        ]
    );
}

#[test]
fn the_same_words_in_two_exchanges_are_two_messages() {
    let transcript = parse(&[
        meta("t"),
        user("continue"),
        assistant("Done."),
        // No agent_message for the first answer; the second exchange's event
        // must not pair with it.
        user("continue"),
        user_event("continue"),
        agent_event("Done."),
        // A repeated prompt whose first copy was already paired.
        user_event("continue"),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:continue"]),
            msg(Role::Assistant, &["text:Done."]),
            msg(Role::User, &["text:continue"]),
            msg(Role::Assistant, &["text:Done."]),
            msg(Role::User, &["text:continue"]),
        ]
    );
}

#[test]
fn a_prompt_typed_again_after_an_abort_is_a_new_message() {
    let transcript = parse(&[
        meta("t"),
        // The turn was aborted before the prompt's item was written.
        user_event("Also update the README"),
        event(json!({"type": "turn_aborted", "reason": "interrupted"})),
        user("Also update the README"),
        user_event("Also update the README"),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:Also update the README"]),
            msg(Role::System, &["text:Turn aborted (interrupted)"]),
            msg(Role::User, &["text:Also update the README"]),
        ]
    );
    // The new prompt is the item of line 4, paired with the event of line 5;
    // the first prompt's event did not swallow it.
    assert_eq!(transcript.messages[2].id.as_deref(), Some("4"));
}

#[test]
fn assistant_output_is_one_message_until_the_next_user_text() {
    let transcript = parse(&[
        meta("t"),
        user("Run it"),
        assistant("Running."),
        call("c1", "{\"command\": [\"ls\"]}"),
        exec_output("c1", "a b\n", 0),
        event(json!({"type": "token_count", "info": null})),
        assistant("Two files."),
        user("Thanks"),
        assistant("Welcome."),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:Run it"]),
            msg(Role::Assistant, &["text:Running.", "tool:shell:succeeded", "text:Two files."]),
            msg(Role::User, &["text:Thanks"]),
            msg(Role::Assistant, &["text:Welcome."]),
        ]
    );
}

#[test]
fn calls_pair_with_outputs_by_call_id() {
    let transcript = parse(&[
        meta("t"),
        user("Two at once"),
        call("a", "{\"command\": [\"true\"]}"),
        call("b", "{\"command\": [\"false\"]}"),
        exec_output("b", "", 1),
        exec_output("a", "ok\n", 0),
        output("nobody", "an output without a call is dropped"),
    ]);
    let a = tool(&transcript, 1, 0);
    assert_eq!((a.id.as_str(), a.status, a.result.as_deref()), ("a", ToolStatus::Succeeded, Some("ok\n")));
    assert_eq!(a.input, json!({"command": ["true"]}));
    assert_eq!(a.started_at.as_deref(), Some("2026-08-20T10:00:02.000Z"));
    assert_eq!(a.ended_at.as_deref(), Some("2026-08-20T10:00:05.000Z"));
    let b = tool(&transcript, 1, 1);
    assert_eq!(
        (b.id.as_str(), b.status, b.ended_at.as_deref()),
        ("b", ToolStatus::Failed, Some("2026-08-20T10:00:04.000Z"))
    );
    assert_eq!(transcript.messages[1].blocks.len(), 2);
}

#[test]
fn a_non_zero_exit_code_fails_the_call_and_the_result_is_the_inner_output() {
    let transcript = parse(&[
        meta("t"),
        call("c", "{\"command\": [\"pytest\"]}"),
        exec_output("c", "1 failed\n", 1),
        call("d", "{\"command\": \"ls nope\"}"),
        output("d", "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nls: nope: No such file\n"),
    ]);
    let c = tool(&transcript, 0, 0);
    assert_eq!((c.status, c.result.as_deref()), (ToolStatus::Failed, Some("1 failed\n")));
    let d = tool(&transcript, 0, 1);
    assert_eq!(d.status, ToolStatus::Failed);
    assert!(d.result.as_deref().is_some_and(|r| r.starts_with("Exit code: 2\n")));
}

#[test]
fn arguments_that_are_not_json_stay_a_string() {
    let transcript = parse(&[meta("t"), call("c", "ls -la"), output("c", "plain result")]);
    let c = tool(&transcript, 0, 0);
    assert_eq!(c.input, json!("ls -la"));
    assert_eq!((c.status, c.result.as_deref()), (ToolStatus::Succeeded, Some("plain result")));
}

#[test]
fn custom_tool_calls_take_their_raw_input() {
    let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n";
    let result = json!({"output": "Success. Updated the following files:\nM a.py\n", "metadata": {"exit_code": 0}});
    let transcript = parse(&[
        meta("t"),
        (
            "response_item",
            json!({"type": "custom_tool_call", "status": "completed", "call_id": "p", "name": "apply_patch", "input": patch}),
        ),
        event(json!({"type": "patch_apply_end", "call_id": "p", "success": true})),
        ("response_item", json!({"type": "custom_tool_call_output", "call_id": "p", "output": result.to_string()})),
    ]);
    let p = tool(&transcript, 0, 0);
    assert_eq!((p.name.as_str(), &p.input), ("apply_patch", &json!(patch)));
    assert_eq!(
        (p.status, p.result.as_deref()),
        (ToolStatus::Succeeded, Some("Success. Updated the following files:\nM a.py\n"))
    );
}

#[test]
fn calls_without_output_are_pending_at_the_end_and_after_an_abort() {
    let transcript = parse(&[
        meta("t"),
        user("one"),
        call("a", "{}"),
        event(json!({"type": "turn_aborted", "turn_id": "x", "reason": "interrupted"})),
        user("two"),
        call("b", "{}"),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:one"]),
            msg(Role::Assistant, &["tool:shell:pending"]),
            msg(Role::System, &["text:Turn aborted (interrupted)"]),
            msg(Role::User, &["text:two"]),
            msg(Role::Assistant, &["tool:shell:pending"]),
        ]
    );
    // An output that comes after the abort still completes the call.
    let late = parse(&[meta("t"), call("a", "{}"), event(json!({"type": "turn_aborted"})), output("a", "aborted")]);
    assert_eq!(tool(&late, 0, 0).status, ToolStatus::Succeeded);
    assert_eq!(shape(&late)[1], msg(Role::System, &["text:Turn aborted"]));
}

#[test]
fn compaction_is_a_summary_and_the_earlier_messages_stay() {
    let transcript = parse(&[
        meta("t"),
        user("Before"),
        assistant("Old answer"),
        ("compacted", json!({"message": "The user asked about dates.", "replacement_history": []})),
        event(json!({"type": "context_compacted"})),
        assistant("After"),
        (
            "compacted",
            json!({"message": "", "replacement_history": [{"type": "compaction", "encrypted_content": "gAAA"}]}),
        ),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:Before"]),
            msg(Role::Assistant, &["text:Old answer"]),
            msg(Role::System, &["summary:The user asked about dates."]),
            msg(Role::Assistant, &["text:After"]),
            msg(Role::System, &["summary:Context compacted"]),
        ]
    );
}

#[test]
fn the_answer_to_a_compaction_request_is_only_its_summary_without_the_preamble() {
    // As Codex 0.171 compacts a conversation before a turn: the model's
    // summary is an assistant item marked `compaction_output`, then the
    // `compacted` line carries it.
    let summary_item = json!({
        "timestamp": "2026-11-30T09:43:57.815Z", "ordinal": 3, "type": "response_item",
        "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Handoff: said one."}]},
        "metadata": {"history_sequence": 5, "client_authored": false, "compaction_output": true}
    });
    let lines = jsonl(&[meta("t"), user("first"), assistant("one")])
        + &summary_item.to_string()
        + "\n"
        + &jsonl(&[
            // With the preamble Codex 0.171 writes for the next model.
            (
                "compacted",
                json!({"message": "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\nHandoff: said one.", "replacement_history": []}),
            ),
            user("second"),
            assistant("two"),
        ]);
    assert_eq!(
        shape(&read(lines.as_bytes()).transcript),
        [
            msg(Role::User, &["text:first"]),
            msg(Role::Assistant, &["text:one"]),
            msg(Role::System, &["summary:Handoff: said one."]),
            msg(Role::User, &["text:second"]),
            msg(Role::Assistant, &["text:two"]),
        ]
    );
}

#[test]
fn a_rollback_is_a_notice_and_the_turns_stay() {
    let transcript = parse(&[
        meta("t"),
        user("Try A"),
        assistant("A done"),
        event(json!({"type": "thread_rolled_back", "num_turns": 1})),
        user("Try B"),
        event(json!({"type": "thread_rolled_back", "num_turns": 2})),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:Try A"]),
            msg(Role::Assistant, &["text:A done"]),
            msg(Role::System, &["text:Rolled back 1 turn"]),
            msg(Role::User, &["text:Try B"]),
            msg(Role::System, &["text:Rolled back 2 turns"]),
        ]
    );
}

#[test]
fn an_error_event_is_an_error_block_of_the_assistant() {
    let transcript = parse(&[
        meta("t"),
        user("Go"),
        assistant("Starting"),
        event(json!({"type": "error", "message": "stream disconnected before completion"})),
    ]);
    assert_eq!(transcript.messages[1].blocks[1], Block::Error { text: "stream disconnected before completion".into() });
}

#[test]
fn a_turn_that_failed_ends_with_its_error() {
    // As Codex 0.171 writes a model request that failed: only the task_complete says so.
    let failed = |message: &str| {
        event(
            json!({"type": "task_complete", "turn_id": "t2", "last_agent_message": null, "error": {"message": message, "codex_error_info": "other"}}),
        )
    };
    let transcript = parse(&[
        meta("t"),
        user("first"),
        assistant("one"),
        event(json!({"type": "task_complete", "turn_id": "t1", "last_agent_message": "one"})),
        user("second"),
        failed("stream disconnected before completion: The fake model is down."),
        user("third"),
        event(json!({"type": "error", "message": "said twice"})),
        failed("said twice"),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:first"]),
            msg(Role::Assistant, &["text:one"]),
            msg(Role::User, &["text:second"]),
            msg(Role::Assistant, &["error:stream disconnected before completion: The fake model is down."]),
            msg(Role::User, &["text:third"]),
            msg(Role::Assistant, &["error:said twice"]),
        ]
    );
}

#[test]
fn local_shell_and_web_search_calls_are_tool_calls() {
    let action = json!({"type": "exec", "command": ["ls"], "timeout_ms": 1000});
    let transcript = parse(&[
        meta("t"),
        (
            "response_item",
            json!({"type": "local_shell_call", "call_id": "ls1", "status": "completed", "action": action}),
        ),
        exec_output("ls1", "a\n", 0),
        (
            "response_item",
            json!({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "zstd"}}),
        ),
        ("response_item", json!({"type": "web_search_call", "status": "in_progress", "action": {"type": "search"}})),
    ]);
    let shell = tool(&transcript, 0, 0);
    assert_eq!((shell.name.as_str(), &shell.input, shell.status), ("local_shell", &action, ToolStatus::Succeeded));
    let search = tool(&transcript, 0, 1);
    assert_eq!((search.id.as_str(), search.name.as_str()), ("4", "web_search"));
    assert_eq!((search.status, search.result.as_deref()), (ToolStatus::Succeeded, None));
    assert_eq!(search.input, json!({"type": "search", "query": "zstd"}));
    assert_eq!(tool(&transcript, 0, 2).status, ToolStatus::Pending);
}

#[test]
fn images_keep_data_or_url() {
    let transcript = parse(&[
        meta("t"),
        (
            "response_item",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/4AAQ"},
                {"type": "input_image", "image_url": "https://example.com/a.png"},
                {"type": "input_text", "text": "  "},
                {"type": "input_audio", "data": "?"}
            ]}),
        ),
        event(
            json!({"type": "user_message", "message": "pasted", "images": ["data:image/png;base64,iVBO"], "local_images": ["/tmp/shot.png"]}),
        ),
    ]);
    let images: Vec<&Block> = transcript.messages.iter().flat_map(|m| &m.blocks).collect();
    let image = |media: Option<&str>, data: Option<&str>, url: Option<&str>| {
        Block::Image(Image { media_type: media.map(Into::into), data: data.map(Into::into), url: url.map(Into::into) })
    };
    assert_eq!(
        images,
        [
            &image(Some("image/jpeg"), Some("/9j/4AAQ"), None),
            &image(None, None, Some("https://example.com/a.png")),
            &Block::Unknown { what: "input_audio".into(), raw: json!({"type": "input_audio", "data": "?"}) },
            &Block::text("pasted"),
            &image(Some("image/png"), Some("iVBO"), None),
            &image(None, None, Some("/tmp/shot.png")),
        ]
    );
}

#[test]
fn the_tags_around_an_attached_image_are_not_text() {
    // As Codex 0.171 writes `codex exec PROMPT --image dot.png` (fixtures/codex/real-0.171.0).
    let transcript = parse(&[
        meta("t"),
        (
            "response_item",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "<image name=[Image #1] path=\"/w/dot.png\">"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBO", "detail": "original"},
                {"type": "input_text", "text": "</image>"},
                {"type": "input_text", "text": "What is in this picture?"}
            ]}),
        ),
        // Tags that wrap no image are the user's text.
        user("<image> is a tag"),
        message("user", "input_text", "</image>"),
    ]);
    let image = Block::Image(Image { media_type: Some("image/png".into()), data: Some("iVBO".into()), url: None });
    let blocks: Vec<&Block> = transcript.messages.iter().flat_map(|m| &m.blocks).collect();
    assert_eq!(
        blocks,
        [&image, &Block::text("What is in this picture?"), &Block::text("<image> is a tag"), &Block::text("</image>")]
    );
    assert_eq!(transcript.first_prompt(), Some("What is in this picture?"));
}

#[test]
fn reasoning_falls_back_to_raw_content_and_encrypted_reasoning_shows_nothing() {
    let transcript = parse(&[
        meta("t"),
        (
            "response_item",
            json!({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "raw thought"}]}),
        ),
        ("response_item", json!({"type": "reasoning", "summary": [], "content": null, "encrypted_content": "gAAA"})),
        event(json!({"type": "agent_reasoning_raw_content", "text": "raw thought"})),
    ]);
    assert_eq!(shape(&transcript), [msg(Role::Assistant, &["thinking:raw thought"])]);
}

#[test]
fn messages_carry_their_line_number_and_timestamp() {
    let transcript = parse(&[meta("t"), user("Hi"), user_event("Hi"), assistant("Hello")]);
    let at: Vec<_> = transcript.messages.iter().map(|m| (m.id.as_deref(), m.timestamp.as_deref())).collect();
    assert_eq!(at, [(Some("2"), Some("2026-08-20T10:00:01.000Z")), (Some("4"), Some("2026-08-20T10:00:03.000Z"))]);
}

#[test]
fn only_lines_that_are_not_json_objects_are_issues_and_odd_payloads_are_kept_as_unknown_blocks() {
    let mut text = jsonl(&[meta("t"), user("Kept")]);
    text.push_str("{not json\n");
    text.push_str("{\"timestamp\":\"x\",\"type\":\"world_state\",\"payload\":{\"anything\":1}}\n");
    text.push_str(
        "{\"timestamp\":\"x\",\"type\":\"response_item\",\"payload\":{\"type\":\"image_generation_call\"}}\n",
    );
    text.push_str("{\"timestamp\":\"x\",\"type\":\"event_msg\",\"payload\":{\"type\":\"sub_agent_activity\"}}\n");
    text.push_str(
        "{\"timestamp\":\"x\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"content\":[]}}\n",
    );
    text.push_str("{\"timestamp\":\"x\",\"type\":\"compacted\"}\n");
    text.push_str("[1,2]\n");
    text.push_str("{\"timestamp\":\"x\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_te");
    let transcript = read(text.as_bytes()).transcript;
    // Line 4 (an unknown line type) and line 6 (an unknown event) are harness
    // state; line 7 is a message without a role, which is hidden.
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:Kept"]),
            msg(Role::System, &["unknown:response_item image_generation_call"]),
            msg(Role::System, &["unknown:compacted"]),
        ]
    );
    let issues: Vec<_> = transcript.issues.iter().map(|i| (i.line, i.kind.clone())).collect();
    assert_eq!(issues.len(), 3, "{issues:?}");
    assert!(matches!(issues[0], (3, IssueKind::InvalidJson(_))), "{issues:?}");
    assert_eq!(issues[1..], [(9, IssueKind::NotAnObject), (10, IssueKind::TruncatedLastLine)]);
}

#[test]
fn a_null_or_odd_field_costs_that_field_not_the_line() {
    // As a real Codex 0.146 rollout has it (fixtures/codex/codex-0.146-null-image.jsonl).
    let image = json!({"type": "input_image", "image_url": null});
    let transcript = parse(&[
        ("session_meta", json!({"id": null, "cwd": 7, "timestamp": null})),
        (
            "response_item",
            json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "What is in it?"}, image.clone(), {"type": "output_text", "text": null}]}),
        ),
        ("response_item", json!({"type": "function_call", "name": "shell", "arguments": null, "call_id": null})),
        ("response_item", json!({"type": "reasoning", "summary": [null, {"type": "summary_text", "text": "Looking"}]})),
        event(json!({"type": "user_message", "message": null, "images": [null], "local_images": null})),
        event(json!({"type": "thread_rolled_back", "num_turns": "two"})),
        ("response_item", json!({"type": "message", "role": "assistant", "content": "plain"})),
    ]);
    assert_eq!(
        shape(&transcript),
        [
            msg(Role::User, &["text:What is in it?", "unknown:input_image", "unknown:output_text"]),
            msg(Role::Assistant, &["tool:shell:pending", "thinking:Looking"]),
            msg(Role::System, &["text:Rolled back 0 turns"]),
            msg(Role::Assistant, &["unknown:content part"]),
        ]
    );
    assert!(transcript.issues.is_empty(), "{:?}", transcript.issues);
    assert_eq!((transcript.id.as_str(), transcript.cwd.as_deref()), ("", None));
    let Block::Unknown { raw, .. } = &transcript.messages[0].blocks[1] else { panic!() };
    assert_eq!(raw, &image);
}
