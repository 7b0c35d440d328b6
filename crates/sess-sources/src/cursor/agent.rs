//! The CLI's agent transcripts: one JSON object a line, `{"role": "user" |
//! "assistant", "message": {"content": [...]}}` in Anthropic's content shape,
//! and `{"type": "turn_ended", "status", "error"}` after each turn. No line
//! carries an id, a time, a model or tokens; a prompt's time is in its
//! `<timestamp>` tag (see `prompt.rs`).

use serde_json::Value;
use sess_core::LineIssue;

use super::prompt::prompt;
use crate::jsonl::JsonLines;
use crate::transcript::{Block, Image, Message, Role, ToolCall, ToolStatus, content_text, finish_pending};

/// A transcript read.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub(crate) messages: Vec<Message>,
    pub(crate) issues: Vec<LineIssue>,
}

/// The transcript in `bytes`; a line that does not parse is skipped and
/// reported.
pub(crate) fn parse(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    // Where the turn under way began: its calls end with it.
    let mut turn = 0;
    for line in JsonLines::new(bytes) {
        let value: Value = match line.parse_object() {
            Ok(value) => value,
            Err(issue) => {
                parsed.issues.push(issue);
                continue;
            }
        };
        let messages = &mut parsed.messages;
        if value.get("type").and_then(Value::as_str) == Some("turn_ended") {
            match turn_error(&value) {
                None => end_turn(&mut messages[turn..]),
                Some(error) => {
                    interrupt(&mut messages[turn..]);
                    messages.push(Message::new(Role::Assistant).with(Block::Error { text: error }));
                }
            }
            turn = messages.len();
            continue;
        }
        let message = value.get("message").unwrap_or(&Value::Null);
        let role = value.get("role").or_else(|| message.get("role")).and_then(Value::as_str);
        let content = message.get("content").or_else(|| value.get("content")).unwrap_or(&Value::Null);
        match role {
            Some("user") => {
                let (out, results) = user(content);
                complete(messages, &results);
                if let Some(out) = out {
                    end_turn(&mut messages[turn..]);
                    turn = messages.len();
                    messages.push(out);
                }
            }
            Some("assistant") => messages.push(assistant(content, line.number)),
            _ => messages
                .push(Message::new(Role::System).with(Block::Unknown { what: "line".into(), raw: value.clone() })),
        }
    }
    finish_pending(&mut parsed.messages);
    parsed
}

/// What a `turn_ended` line says went wrong: its `error`, or its `status`
/// when that is not `success`.
fn turn_error(line: &Value) -> Option<String> {
    let status = line.get("status").and_then(Value::as_str).unwrap_or("success");
    let error = line.get("error").and_then(Value::as_str).filter(|e| !e.trim().is_empty());
    match (status, error) {
        (_, Some(error)) => Some(error.to_owned()),
        ("success", None) => None,
        (other, None) => Some(format!("The turn ended: {other}")),
    }
}

/// Completes the calls of a turn that ended without a result: Cursor keeps
/// no tool results in these files, only that the turn went on.
fn end_turn(messages: &mut [Message]) {
    for block in messages.iter_mut().flat_map(|m| &mut m.blocks) {
        if let Block::ToolCall(call) = block
            && call.status == ToolStatus::Running
        {
            call.complete(None, false, None);
        }
    }
}

/// Marks the calls of a turn that ended in an error (an aborted request)
/// without a result as pending: cut off with their turn.
fn interrupt(messages: &mut [Message]) {
    finish_pending(messages);
}

/// A tool result of a user line: the call's id, its text, whether it failed.
type ToolResult = (String, String, bool);

/// A user line: the message it shows (`None` for one of nothing but tool
/// results), and its tool results.
fn user(content: &Value) -> (Option<Message>, Vec<ToolResult>) {
    let mut blocks = Vec::new();
    let mut results = Vec::new();
    let mut timestamp = None;
    let mut text = |text: &str, blocks: &mut Vec<Block>| {
        let prompt = prompt(text);
        timestamp = timestamp.take().or(prompt.timestamp);
        blocks.extend(prompt.blocks);
    };
    match content {
        Value::String(s) => text(s, &mut blocks),
        Value::Array(items) => {
            for item in items {
                match item.get("type").and_then(Value::as_str) {
                    Some("text") => text(item.get("text").and_then(Value::as_str).unwrap_or_default(), &mut blocks),
                    Some("tool_result") => {
                        let id = item.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
                        let failed = item.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                        let content = item.get("content").unwrap_or(&Value::Null);
                        results.push((id.to_owned(), content_text(content), failed));
                    }
                    Some("image") => blocks.push(image(item)),
                    _ => blocks.push(unknown(item)),
                }
            }
        }
        _ => {}
    }
    if blocks.is_empty() && !results.is_empty() {
        return (None, results);
    }
    (Some(Message { blocks, ..Message::new(Role::User).at(None, timestamp) }), results)
}

/// An assistant line: text, thinking and tool calls (an id made of the line
/// and the call's place where Cursor wrote none).
fn assistant(content: &Value, line: usize) -> Message {
    let mut message = Message::new(Role::Assistant);
    let items = match content {
        Value::String(text) => return message.with(Block::text(text.clone())),
        Value::Array(items) => items.as_slice(),
        _ => &[],
    };
    for (at, item) in items.iter().enumerate() {
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        message.blocks.push(match item.get("type").and_then(Value::as_str) {
            Some("text") => Block::Text { text: text("text") },
            Some("thinking") => Block::Thinking {
                text: item
                    .get("thinking")
                    .or_else(|| item.get("text"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            },
            Some("redacted_thinking") => Block::Thinking { text: "[redacted thinking]".to_owned() },
            Some("tool_use") => {
                let id =
                    item.get("id").and_then(Value::as_str).map_or_else(|| format!("{line}.{at}"), ToOwned::to_owned);
                Block::ToolCall(ToolCall::running(id, text("name"), item.get("input").cloned().unwrap_or(Value::Null)))
            }
            _ => unknown(item),
        });
    }
    message
}

/// Completes the calls `results` answer.
fn complete(messages: &mut [Message], results: &[ToolResult]) {
    for (id, text, failed) in results {
        let call = messages.iter_mut().rev().flat_map(|m| &mut m.blocks).find_map(|b| match b {
            Block::ToolCall(call) if call.id == *id => Some(call),
            _ => None,
        });
        if let Some(call) = call {
            call.complete(Some(text.clone()), *failed, None);
        }
    }
}

fn image(item: &Value) -> Block {
    let source = item.get("source").unwrap_or(&Value::Null);
    let text = |key: &str| source.get(key).and_then(Value::as_str).map(ToOwned::to_owned);
    Block::Image(Image { media_type: text("media_type"), data: text("data"), url: text("url") })
}

fn unknown(item: &Value) -> Block {
    let what = item.get("type").and_then(Value::as_str).unwrap_or("content").to_owned();
    Block::Unknown { what, raw: item.clone() }
}

/// The session id of a transcript named `name` (`<uuid>.jsonl`).
pub(crate) fn id_of(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl").filter(|id| !id.is_empty() && !id.starts_with('.'))
}
