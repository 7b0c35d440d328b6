//! Crush's messages and their parts as transcript messages.

use std::collections::HashMap;

use serde_json::Value;
use sess_core::format_iso_millis;

use super::db::MessageRow;
use crate::transcript::{Block, Image, Message, Role, ToolCall, finish_pending};

/// The transcript messages of `rows`; `subagent` gives the messages of the
/// session a call ran (Crush names a subagent's session by the id of the
/// `agent` call that started it), when there is one.
pub(crate) fn messages(rows: &[MessageRow], subagent: &dyn Fn(&str) -> Option<Vec<Message>>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
    for row in rows {
        let at = row.created_ms.map(format_iso_millis);
        let open = |role| Message::new(role).at(Some(row.id.clone()), at.clone());
        if row.summary {
            let text = texts(&row.parts);
            if !text.is_empty() {
                out.push(open(Role::System).with(Block::Summary { text }));
            }
            continue;
        }
        match row.role.as_str() {
            "tool" => {
                for part in &row.parts {
                    if kind(part) != "tool_result" {
                        continue;
                    }
                    let data = data(part);
                    let id = string(data, "tool_call_id");
                    let content = string(data, "content").to_owned();
                    let failed = data.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                    match calls.get(id).copied() {
                        Some((m, b)) => {
                            if let Some(Block::ToolCall(call)) = out[m].blocks.get_mut(b) {
                                call.complete(Some(content), failed, at.clone());
                            }
                        }
                        None => out.push(open(Role::System).with(Block::Context {
                            title: format!("Result of {}", string(data, "name")),
                            text: content,
                        })),
                    }
                }
            }
            role => {
                let role = match role {
                    "assistant" => Role::Assistant,
                    "system" => Role::System,
                    _ => Role::User,
                };
                let mut message = open(role);
                for part in &row.parts {
                    let data = data(part);
                    match kind(part) {
                        "text" => {
                            let text = string(data, "text");
                            if !text.is_empty() {
                                message.blocks.push(Block::text(text));
                            }
                        }
                        "reasoning" => {
                            let text = string(data, "thinking");
                            if !text.is_empty() {
                                message.blocks.push(Block::Thinking { text: text.to_owned() });
                            }
                        }
                        "tool_call" => {
                            let call = tool_call(data, at.clone(), subagent);
                            calls.insert(call.id.clone(), (out.len(), message.blocks.len()));
                            message.blocks.push(Block::ToolCall(call));
                        }
                        "image_url" => message.blocks.push(Block::Image(Image {
                            media_type: None,
                            data: None,
                            url: Some(string(data, "url").to_owned()),
                        })),
                        "binary" => message.blocks.push(binary(data)),
                        "finish" => {
                            if let Some(block) = finish(data) {
                                message.blocks.push(block);
                            }
                        }
                        other => message.blocks.push(Block::Unknown { what: other.to_owned(), raw: part.clone() }),
                    }
                }
                if !message.blocks.is_empty() {
                    out.push(message);
                }
            }
        }
    }
    finish_pending(&mut out);
    out
}

fn kind(part: &Value) -> &str {
    part.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn data(part: &Value) -> &Value {
    part.get("data").unwrap_or(&Value::Null)
}

fn string<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The text parts of `parts`, joined.
fn texts(parts: &[Value]) -> String {
    let texts: Vec<&str> =
        parts.iter().filter(|p| kind(p) == "text").map(|p| string(data(p), "text")).filter(|t| !t.is_empty()).collect();
    texts.join("\n")
}

/// A `tool_call` part: `id`, `name`, and `input` (the arguments as JSON
/// text; kept as text when it does not parse). A call whose id is a
/// session's carries that subagent's messages.
fn tool_call(data: &Value, at: Option<String>, subagent: &dyn Fn(&str) -> Option<Vec<Message>>) -> ToolCall {
    let input = match data.get("input") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone())),
        Some(other) => other.clone(),
        None => Value::Null,
    };
    let id = string(data, "id");
    let mut call = ToolCall::running(id, string(data, "name"), input);
    call.started_at = at;
    if !id.is_empty()
        && let Some(messages) = subagent(id)
    {
        call.subagent = messages;
    }
    call
}

/// A `binary` part (an attached file: `path`, `mime_type`, base64 `data`):
/// an image when it is one, else context naming the file.
fn binary(data: &Value) -> Block {
    let mime = string(data, "mime_type");
    if mime.starts_with("image/") {
        return Block::Image(Image {
            media_type: Some(mime.to_owned()),
            data: data.get("data").and_then(Value::as_str).map(ToOwned::to_owned),
            url: None,
        });
    }
    Block::Context { title: "Attached file".to_owned(), text: string(data, "path").to_owned() }
}

/// A `finish` part: an error block when the turn ended in an error (its
/// `message`, and `details`), was canceled, or was refused permission;
/// nothing for a turn that ended as it should.
fn finish(data: &Value) -> Option<Block> {
    let text = match string(data, "reason") {
        "error" => {
            let (message, details) = (string(data, "message"), string(data, "details"));
            match (message.is_empty(), details.is_empty()) {
                (false, false) => format!("{message}: {details}"),
                (false, true) => message.to_owned(),
                (true, false) => details.to_owned(),
                (true, true) => "Error".to_owned(),
            }
        }
        "canceled" => "Canceled".to_owned(),
        "permission_denied" => "Permission denied".to_owned(),
        _ => return None,
    };
    Some(Block::Error { text })
}
