//! What the replayed records look like as chat messages.
//!
//! - a `user` message is the prompt: its text (what was typed, its
//!   `displayContent`, when the CLI expanded `@file` references or a slash
//!   command into `content`), the images it carries, and the text of
//!   referenced files as context ("Referenced files"; a slash command's
//!   expansion: "Expanded /init"); its function responses complete the calls
//!   with their ids and show nothing of their own; context the CLI put there
//!   (`<session_context>`) is not shown; the CLI's own "Please continue."
//!   (sent when its next-speaker check says the model goes on, recorded with
//!   the continued turn's `displayContent`) is a system notice;
//! - a `gemini` message adds thinking (`thoughts`, else the parts marked
//!   `thought`), text and tool calls (`toolCalls`, else `functionCall` parts)
//!   to the assistant's turn: one assistant message until the next prompt or
//!   notice;
//! - an `error` message is an error in the assistant's turn; `info` and
//!   `warning` are system notices (blank ones are not shown);
//! - a compression's summary and the replay's notices are system messages.

use serde_json::Value;

use super::parts::{Part, is_context, kind, part, parts, text_field};
use super::replay::Shown;
use crate::transcript::{Block, Image, Message, Role, ToolCall, ToolStatus, finish_pending};

/// The title of the context block holding the files a prompt referenced.
const REFERENCED: &str = "Referenced files";
/// What the CLI sends on its own when its next-speaker check says the model
/// should go on (in the turn it continues, whose `displayContent` it keeps).
const CONTINUATION: &str = "Please continue.";
/// The lines the CLI puts around the files a prompt references.
const REFERENCE_MARKERS: [&str; 2] = ["--- Content from referenced files ---", "--- End of content ---"];

/// The messages of `shown`; `subagent` gives the conversation of the
/// subagent session with the id a tool call names (empty when not found).
pub(crate) fn render(shown: &[Shown], subagent: &dyn Fn(&str) -> Vec<Message>) -> Vec<Message> {
    let mut messages: Vec<Message> = Vec::new();
    for item in shown {
        match item {
            Shown::Summary { id, timestamp, text } => messages.push(
                Message::new(Role::System)
                    .at(id.clone(), timestamp.clone())
                    .with(Block::Summary { text: text.clone() }),
            ),
            Shown::Notice(text) => messages.push(Message::new(Role::System).with(Block::text(text.clone()))),
            Shown::Message(message) => add(&mut messages, message, subagent),
        }
    }
    finish_pending(&mut messages);
    messages
}

fn add(messages: &mut Vec<Message>, message: &Value, subagent: &dyn Fn(&str) -> Vec<Message>) {
    let id = text_field(message, "id").map(ToOwned::to_owned);
    let timestamp = text_field(message, "timestamp").map(ToOwned::to_owned);
    match kind(message) {
        "user" => {
            complete_calls(messages, message, timestamp.as_deref());
            if is_continuation(message) {
                let notice = Block::text(format!("The CLI asked the model to go on (“{CONTINUATION}”)"));
                messages.push(Message { role: Role::System, id, timestamp, blocks: vec![notice] });
                return;
            }
            let blocks = prompt_blocks(message);
            if !blocks.is_empty() {
                messages.push(Message { role: Role::User, id, timestamp, blocks });
            }
        }
        "gemini" => {
            let blocks = answer_blocks(message, timestamp.as_deref(), subagent);
            assistant_turn(messages, id, timestamp, blocks);
        }
        "error" => {
            let text = content_string(message);
            if !text.trim().is_empty() {
                assistant_turn(messages, id, timestamp, vec![Block::Error { text }]);
            }
        }
        "info" | "warning" => {
            let text = content_string(message);
            if !text.trim().is_empty() {
                messages.push(Message { role: Role::System, id, timestamp, blocks: vec![Block::text(text)] });
            }
        }
        other => {
            let what = format!("message of type `{other}`");
            let block = Block::Unknown { what, raw: message.clone() };
            messages.push(Message { role: Role::System, id, timestamp, blocks: vec![block] });
        }
    }
}

/// Adds `blocks` to the assistant's open turn, or opens one.
fn assistant_turn(messages: &mut Vec<Message>, id: Option<String>, timestamp: Option<String>, blocks: Vec<Block>) {
    if blocks.is_empty() {
        return;
    }
    match messages.last_mut() {
        Some(last) if last.role == Role::Assistant => last.blocks.extend(blocks),
        _ => messages.push(Message { role: Role::Assistant, id, timestamp, blocks }),
    }
}

/// The text of a message's content, its parts joined.
fn content_string(message: &Value) -> String {
    parts(message.get("content"))
        .into_iter()
        .filter_map(|p| match p {
            Part::Text(text) => Some(text),
            _ => None,
        })
        .collect()
}

/// Whether a user message is the CLI's own [`CONTINUATION`]: it sent that
/// alone, and the user typed something else (its `displayContent` is the
/// continued turn's: a prompt, or function responses). A user who types it
/// has no `displayContent` (the CLI records one only when it differs).
fn is_continuation(message: &Value) -> bool {
    let Some(typed) = message.get("displayContent") else { return false };
    let sent: Vec<&str> = parts(message.get("content"))
        .into_iter()
        .filter_map(|p| match p {
            Part::Text(text) => Some(text),
            _ => None,
        })
        .collect();
    sent == [CONTINUATION]
        && !parts(Some(typed)).iter().any(|p| matches!(p, Part::Text(text) if text.trim() == CONTINUATION))
}

fn prompt_blocks(message: &Value) -> Vec<Block> {
    let content = parts(message.get("content"));
    let typed = parts(message.get("displayContent"));
    let texts = |parts: &[Part<'_>]| -> Vec<String> {
        parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(text) if !is_context(text) => Some((*text).to_owned()),
                _ => None,
            })
            .collect()
    };
    let mut blocks = Vec::new();
    let (shown, extra) = if typed.is_empty() {
        (texts(&content), Vec::new())
    } else {
        let typed = texts(&typed);
        let extra = texts(&content).into_iter().filter(|t| !typed.contains(t)).collect();
        (typed, extra)
    };
    let text = shown.concat();
    // A slash command (`/init`) was typed: what the CLI sent is its expansion.
    let command = text.trim_start().strip_prefix('/').and_then(|rest| rest.split_whitespace().next());
    let extra = extra.concat();
    let title = match command {
        Some(command) if !REFERENCE_MARKERS.iter().any(|marker| extra.contains(marker)) => {
            format!("Expanded /{command}")
        }
        _ => REFERENCED.to_owned(),
    };
    if !text.trim().is_empty() {
        blocks.push(Block::text(text));
    }
    let mut sent = extra;
    for marker in REFERENCE_MARKERS {
        sent = sent.replace(marker, "");
    }
    if !sent.trim().is_empty() {
        blocks.push(Block::Context { title, text: sent.trim().to_owned() });
    }
    blocks.extend(content.iter().filter_map(media));
    blocks
}

/// An image, a file or a part not read here, as a block.
fn media(part: &Part<'_>) -> Option<Block> {
    let (data, url_key) = match part {
        Part::Inline(data) => (*data, "data"),
        Part::File(data) => (*data, "fileUri"),
        Part::Other(raw) => return Some(Block::Unknown { what: "part".to_owned(), raw: (*raw).clone() }),
        _ => return None,
    };
    let media_type = text_field(data, "mimeType").map(ToOwned::to_owned);
    if !media_type.as_deref().is_some_and(|t| t.starts_with("image/")) {
        let what = format!("file {}", media_type.as_deref().unwrap_or("of unknown type"));
        return Some(Block::Unknown { what, raw: data.clone() });
    }
    let value = text_field(data, url_key).map(ToOwned::to_owned);
    let (data, url) = if url_key == "data" { (value, None) } else { (None, value) };
    Some(Block::Image(Image { media_type, data, url }))
}

fn answer_blocks(message: &Value, timestamp: Option<&str>, subagent: &dyn Fn(&str) -> Vec<Message>) -> Vec<Block> {
    let content = parts(message.get("content"));
    let mut blocks: Vec<Block> = Vec::new();
    let thoughts = message.get("thoughts").and_then(Value::as_array).filter(|t| !t.is_empty());
    if let Some(thoughts) = thoughts {
        blocks.extend(thoughts.iter().filter_map(thought).map(|text| Block::Thinking { text }));
    } else {
        blocks.extend(content.iter().filter_map(|p| match p {
            Part::Thought(text) if !text.trim().is_empty() => Some(Block::Thinking { text: (*text).to_owned() }),
            _ => None,
        }));
    }
    let text: String = content
        .iter()
        .filter_map(|p| match p {
            Part::Text(text) => Some(*text),
            _ => None,
        })
        .collect();
    if !text.trim().is_empty() {
        blocks.push(Block::text(text));
    }
    match message.get("toolCalls").and_then(Value::as_array).filter(|c| !c.is_empty()) {
        Some(calls) => blocks.extend(calls.iter().map(|c| Block::ToolCall(tool_call(c, timestamp, subagent)))),
        None => blocks.extend(content.iter().filter_map(|p| match p {
            Part::Call(call) => Some(Block::ToolCall(called(call, timestamp))),
            _ => None,
        })),
    }
    blocks.extend(content.iter().filter_map(media));
    blocks
}

/// A recorded thought: `**subject** description`, as the CLI puts it back
/// together.
fn thought(thought: &Value) -> Option<String> {
    let subject = text_field(thought, "subject").unwrap_or_default().trim();
    let description = text_field(thought, "description").unwrap_or_default().trim();
    let text = if subject.is_empty() { description.to_owned() } else { format!("**{subject}** {description}") };
    (!text.trim().is_empty()).then_some(text)
}

/// A call from a `functionCall` part: running until a response completes it.
fn called(call: &Value, timestamp: Option<&str>) -> ToolCall {
    let id = text_field(call, "id").unwrap_or_default();
    let name = text_field(call, "name").unwrap_or_default();
    let mut call = ToolCall::running(id, name, call.get("args").cloned().unwrap_or(Value::Null));
    call.started_at = timestamp.map(ToOwned::to_owned);
    call
}

/// A recorded tool call: `status` `success`, `error` or `cancelled` (the
/// last two fail it), its result, and the subagent it ran (`agentId`).
fn tool_call(record: &Value, timestamp: Option<&str>, subagent: &dyn Fn(&str) -> Vec<Message>) -> ToolCall {
    let mut call = called(record, timestamp);
    let result = record.get("result").map(result_text).filter(|t| !t.is_empty());
    let result = result.or_else(|| text_field(record, "resultDisplay").map(ToOwned::to_owned));
    let ended_at = text_field(record, "timestamp").map(ToOwned::to_owned);
    match text_field(record, "status") {
        Some("success") => call.complete(result, false, ended_at),
        Some("error" | "cancelled") => call.complete(result, true, ended_at),
        _ => {}
    }
    if let Some(agent) = text_field(record, "agentId") {
        call.subagent = subagent(agent);
    }
    call
}

/// The text of a tool's result as the model got it: each function
/// response's `output` (or `error`; its JSON otherwise), and text parts.
fn result_text(result: &Value) -> String {
    let items: Vec<&Value> = match result {
        Value::String(text) => return text.clone(),
        Value::Array(items) => items.iter().collect(),
        Value::Null => return String::new(),
        other => vec![other],
    };
    let mut pieces = Vec::new();
    for item in items {
        match part(item) {
            Part::Response(response) => pieces.push(response_text(response)),
            Part::Text(text) => pieces.push(text.to_owned()),
            Part::Inline(data) | Part::File(data) => {
                pieces.push(format!("[{}]", text_field(data, "mimeType").unwrap_or("file")));
            }
            _ => {}
        }
    }
    pieces.retain(|p| !p.is_empty());
    pieces.join("\n")
}

fn response_text(response: &Value) -> String {
    match response.get("response") {
        Some(Value::Object(fields)) => match (fields.get("output"), fields.get("error")) {
            (Some(Value::String(output)), _) => output.clone(),
            (_, Some(Value::String(error))) => error.clone(),
            _ => Value::Object(fields.clone()).to_string(),
        },
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The function responses of a user message complete the latest calls with
/// their ids that are still running (an `error` in the response fails the
/// call).
fn complete_calls(messages: &mut [Message], message: &Value, timestamp: Option<&str>) {
    for part in parts(message.get("content")) {
        let Part::Response(response) = part else { continue };
        let Some(id) = text_field(response, "id") else { continue };
        let call = messages.iter_mut().rev().flat_map(|m| m.blocks.iter_mut().rev()).find_map(|b| match b {
            Block::ToolCall(call) if call.id == id && call.status == ToolStatus::Running => Some(call),
            _ => None,
        });
        if let Some(call) = call {
            let failed = response.get("response").and_then(|r| r.get("error")).is_some();
            call.complete(Some(response_text(response)), failed, timestamp.map(ToOwned::to_owned));
        }
    }
}
