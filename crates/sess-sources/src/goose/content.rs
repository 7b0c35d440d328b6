//! Goose's messages (a role, a Unix time and a list of content items, as
//! both the database and the older `.jsonl` files keep them) as transcript
//! messages.

use std::collections::HashMap;

use serde_json::Value;
use sess_core::format_iso_millis;

use crate::transcript::{Block, Image, Message, Role, ToolCall, content_text, finish_pending};

/// One stored message.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawMessage {
    /// Its id, where the version of Goose kept one.
    pub(crate) id: Option<String>,
    /// `user` or `assistant`.
    pub(crate) role: String,
    /// When it was written, in ms since the Unix epoch.
    pub(crate) created_ms: Option<i64>,
    /// Its content items (`[{"type": "text", …}, …]`).
    pub(crate) content: Value,
    /// Its metadata (`{"userVisible": …, "agentVisible": …}`), or null.
    pub(crate) metadata: Value,
}

/// The transcript messages of `raw`, in order: see the module docs of
/// `goose.rs`.
pub(crate) fn messages(raw: &[RawMessage]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    // Where each call is: message and block.
    let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
    for message in raw {
        let at = message.created_ms.map(format_iso_millis);
        let items = message.content.as_array().map(Vec::as_slice).unwrap_or_default();
        if message.metadata.get("userVisible").and_then(Value::as_bool) == Some(false) {
            if let Some(hidden) = hidden(message, items, at.clone()) {
                out.push(hidden);
            }
            continue;
        }
        let role = if message.role == "assistant" { Role::Assistant } else { Role::User };
        let mut blocks = Vec::new();
        let mut notices = Vec::new();
        for item in items {
            let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
            match kind {
                "text" => {
                    let text = item.get("text").and_then(Value::as_str).unwrap_or_default();
                    if !text.is_empty() {
                        blocks.push(Block::text(text));
                    }
                }
                "thinking" => {
                    let text = item.get("thinking").and_then(Value::as_str).unwrap_or_default();
                    blocks.push(Block::Thinking { text: text.to_owned() });
                }
                "redactedThinking" => blocks.push(Block::Thinking { text: "[redacted thinking]".to_owned() }),
                "image" => blocks.push(Block::Image(Image {
                    media_type: item.get("mimeType").and_then(Value::as_str).map(ToOwned::to_owned),
                    data: item.get("data").and_then(Value::as_str).map(ToOwned::to_owned),
                    url: None,
                })),
                "toolRequest" | "frontendToolRequest" => {
                    let index = blocks.len();
                    let call = tool_call(item, at.clone());
                    calls.insert(call.id.clone(), (out.len(), index));
                    blocks.push(Block::ToolCall(call));
                }
                "toolResponse" => {
                    let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
                    let (result, failed) = tool_result(item.get("toolResult").unwrap_or(&Value::Null));
                    match calls.get(id).copied() {
                        Some((m, b)) if m < out.len() => {
                            if let Some(Block::ToolCall(call)) = out[m].blocks.get_mut(b) {
                                call.complete(Some(result), failed, at.clone());
                            }
                        }
                        Some((_, b)) => {
                            if let Some(Block::ToolCall(call)) = blocks.get_mut(b) {
                                call.complete(Some(result), failed, at.clone());
                            }
                        }
                        None => blocks.push(Block::Context { title: format!("Tool result {id}"), text: result }),
                    }
                }
                "systemNotification" => {
                    let text = item.get("msg").and_then(Value::as_str).unwrap_or_default();
                    notices.push(Block::text(text));
                }
                _ => blocks.push(Block::Unknown { what: kind.to_owned(), raw: item.clone() }),
            }
        }
        if !blocks.is_empty() {
            out.push(Message { blocks, ..Message::new(role).at(message.id.clone(), at.clone()) });
        }
        if !notices.is_empty() {
            out.push(Message { blocks: notices, ..Message::new(Role::System).at(message.id.clone(), at) });
        }
    }
    finish_pending(&mut out);
    out
}

/// A message Goose keeps for the model only (`userVisible: false`): the
/// summary a compaction wrote (from the assistant), or text Goose sent in
/// the user's place; `None` when it holds no text.
fn hidden(message: &RawMessage, items: &[Value], at: Option<String>) -> Option<Message> {
    let text: Vec<&str> = items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|item| item.get("text").and_then(Value::as_str))
        .filter(|text| !text.trim().is_empty())
        .collect();
    if text.is_empty() {
        return None;
    }
    let text = text.join("\n");
    let block = if message.role == "assistant" {
        Block::Summary { text }
    } else {
        Block::Context { title: "Added by Goose".to_owned(), text }
    };
    Some(Message::new(Role::System).at(message.id.clone(), at).with(block))
}

/// A `toolRequest`: its `toolCall` is `{"status": "success", "value": {"name",
/// "arguments"}}`, or `{"status": "error", "error": …}` when the model's
/// call could not be read (failed at once, with that error).
fn tool_call(item: &Value, at: Option<String>) -> ToolCall {
    let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
    let request = item.get("toolCall").unwrap_or(&Value::Null);
    let value = request.get("value").unwrap_or(&Value::Null);
    let name = value.get("name").and_then(Value::as_str).unwrap_or("unknown tool");
    let input = value.get("arguments").cloned().unwrap_or(Value::Null);
    let mut call = ToolCall::running(id, name, input);
    call.started_at.clone_from(&at);
    if request.get("status").and_then(Value::as_str) == Some("error") {
        let error = request.get("error").map(error_text).unwrap_or_default();
        call.complete(Some(error), true, at);
    }
    call
}

/// The text of a `toolResponse`'s `toolResult` and whether it failed:
/// `{"status": "success", "value": {"content": [...], "isError": …}}` (an
/// array of content items in older versions), or `{"status": "error",
/// "error": …}`.
fn tool_result(result: &Value) -> (String, bool) {
    if result.get("status").and_then(Value::as_str) == Some("error") {
        return (result.get("error").map(error_text).unwrap_or_default(), true);
    }
    let value = result.get("value").unwrap_or(&Value::Null);
    match value {
        Value::Array(_) => (content_text(value), false),
        Value::Object(map) => {
            let failed = map.get("isError").and_then(Value::as_bool).unwrap_or(false);
            (content_text(map.get("content").unwrap_or(&Value::Null)), failed)
        }
        other => (content_text(other), false),
    }
}

fn error_text(error: &Value) -> String {
    match error {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
