//! A session file's `chatHistory` as messages.

use serde_json::Value;
use sess_core::{IssueKind, LineIssue, format_iso_millis};

use crate::transcript::{Block, Image, Message, Role, ToolCall, ToolStatus, finish_pending};

/// Request node types.
const REQUEST_TEXT: i64 = 0;
const TOOL_RESULT: i64 = 1;
const IMAGE: i64 = 2;
const IDE_STATE: i64 = 4;
/// The summary a compaction made of the exchanges before.
const HISTORY_SUMMARY: i64 = 10;

/// Response node types.
const RESPONSE_TEXT: i64 = 0;
const TOOL_USE: i64 = 5;
const THINKING: i64 = 8;
/// Nodes that carry nothing to show: the token usage (10, read by
/// `usage.rs`) and the end of a streamed answer (9).
const NOT_SHOWN: [i64; 2] = [9, 10];

/// The messages of `history` (the `chatHistory` array of a session file),
/// and the items that are not exchanges, each reported at its position
/// (1-based).
pub(super) fn messages(history: &[Value]) -> (Vec<Message>, Vec<LineIssue>) {
    let mut out: Vec<Message> = Vec::new();
    let mut issues = Vec::new();
    for (at, item) in history.iter().enumerate() {
        let Some(exchange) = item.get("exchange").filter(|e| e.is_object()) else {
            issues.push(LineIssue { line: at + 1, kind: IssueKind::NotAnObject });
            continue;
        };
        let finished = item.get("finishedAt").and_then(Value::as_str).map(ToOwned::to_owned);
        let request_id = exchange.get("request_id").and_then(Value::as_str).map(ToOwned::to_owned);
        if item.get("isHistorySummary").and_then(Value::as_bool) == Some(true) {
            let summary = exchange.get("request_message").and_then(Value::as_str).unwrap_or_default();
            out.push(Message::new(Role::System).with(Block::Summary { text: summary.to_owned() }));
            let answer = response(exchange);
            if !answer.is_empty() {
                out.push(Message { blocks: answer, ..Message::new(Role::Assistant) }.at(request_id, finished));
            }
            continue;
        }
        let prompt = request(&mut out, exchange);
        if !prompt.is_empty() {
            out.push(Message { blocks: prompt, ..Message::new(Role::User) });
        }
        let answer = response(exchange);
        if !answer.is_empty() {
            out.push(Message { blocks: answer, ..Message::new(Role::Assistant) }.at(request_id, finished));
        }
    }
    finish_pending(&mut out);
    (out, issues)
}

/// The cwd: the first workspace folder the IDE state of a request names.
pub(super) fn workspace(history: &[Value]) -> Option<String> {
    history
        .iter()
        .filter_map(|item| item.pointer("/exchange/request_nodes").and_then(Value::as_array))
        .flatten()
        .filter(|node| node_type(node) == Some(IDE_STATE))
        .find_map(|node| {
            let folder = node.pointer("/ide_state_node/workspace_folders/0")?;
            ["repository_root", "folder_root"]
                .iter()
                .find_map(|key| folder.get(*key).and_then(Value::as_str).filter(|s| !s.is_empty()))
                .map(ToOwned::to_owned)
        })
}

fn node_type(node: &Value) -> Option<i64> {
    node.get("type").and_then(Value::as_i64)
}

/// What the user sent: its text and images (the request's `request_message`
/// when no node holds text). Tool results complete their calls in `out`.
/// A compaction's summary (a history summary node) is a system message of
/// its own, before the prompt.
fn request(out: &mut Vec<Message>, exchange: &Value) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut has_text = false;
    for node in exchange.get("request_nodes").and_then(Value::as_array).into_iter().flatten() {
        match node_type(node) {
            Some(REQUEST_TEXT) => {
                let text = node.pointer("/text_node/content").and_then(Value::as_str).unwrap_or_default();
                if !text.trim().is_empty() {
                    has_text = true;
                    blocks.push(Block::text(text));
                }
            }
            Some(TOOL_RESULT) => {
                if let Some(stray) = result(out, node) {
                    blocks.push(stray);
                }
            }
            Some(IMAGE) => {
                let data = node.pointer("/image_node/image_data").and_then(Value::as_str);
                blocks.push(Block::Image(Image {
                    media_type: image_format(node.pointer("/image_node/format")),
                    data: data.map(ToOwned::to_owned),
                    url: None,
                }));
            }
            Some(IDE_STATE) => {}
            Some(HISTORY_SUMMARY) if node.get("history_summary_node").is_some_and(Value::is_object) => {
                let text = node.pointer("/history_summary_node/summary_text").and_then(Value::as_str);
                out.push(Message::new(Role::System).with(Block::Summary { text: text.unwrap_or_default().to_owned() }));
            }
            other => blocks.push(Block::Unknown { what: format!("request node of type {other:?}"), raw: node.clone() }),
        }
    }
    if !has_text
        && let Some(message) = exchange.get("request_message").and_then(Value::as_str).filter(|m| !m.trim().is_empty())
    {
        blocks.insert(0, Block::text(message));
    }
    blocks
}

/// An image node's `format` (1 PNG, 2 JPEG, 3 GIF, 4 WebP) as a media type.
fn image_format(format: Option<&Value>) -> Option<String> {
    let media_type = match format? {
        Value::Number(n) => match n.as_i64()? {
            1 => "image/png",
            2 => "image/jpeg",
            3 => "image/gif",
            4 => "image/webp",
            _ => return None,
        },
        Value::String(s) => return Some(s.clone()),
        _ => return None,
    };
    Some(media_type.to_owned())
}

/// A tool result node completes the running call with its `tool_use_id`,
/// dated by its start and duration; a result whose call is not there is
/// returned, kept unknown.
fn result(out: &mut [Message], node: &Value) -> Option<Block> {
    let result = node.get("tool_result_node").unwrap_or(&Value::Null);
    let id = result.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
    let text = match result.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => crate::transcript::content_text(other),
        None => String::new(),
    };
    let failed = result.get("is_error").and_then(Value::as_bool).unwrap_or(false);
    let started = result.get("start_time_ms").and_then(Value::as_i64);
    let ended = started.zip(result.get("duration_ms").and_then(Value::as_i64)).map(|(s, d)| format_iso_millis(s + d));
    let call = out.iter_mut().rev().flat_map(|m| m.blocks.iter_mut()).find_map(|b| match b {
        Block::ToolCall(call) if call.id == id && call.status == ToolStatus::Running => Some(call),
        _ => None,
    });
    match call {
        Some(call) => {
            call.started_at = started.map(format_iso_millis);
            call.complete(Some(text), failed, ended);
            None
        }
        None => Some(Block::Unknown { what: "tool result without its call".to_owned(), raw: node.clone() }),
    }
}

/// The model's answer: its thinking, text and tool calls, in order (the
/// exchange's `response_text`, when no node holds text, after the thinking).
fn response(exchange: &Value) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut has_text = false;
    for node in exchange.get("response_nodes").and_then(Value::as_array).into_iter().flatten() {
        match node_type(node) {
            Some(RESPONSE_TEXT) => {
                let text = node.get("content").and_then(Value::as_str).unwrap_or_default();
                if !text.trim().is_empty() {
                    has_text = true;
                    blocks.push(Block::text(text));
                }
            }
            Some(TOOL_USE) => {
                let tool = node.get("tool_use").unwrap_or(&Value::Null);
                let id = tool.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
                let name = tool.get("tool_name").and_then(Value::as_str).unwrap_or_default();
                let input = match tool.get("input_json") {
                    Some(Value::String(raw)) if raw.trim().is_empty() => Value::Object(serde_json::Map::new()),
                    Some(Value::String(raw)) => {
                        serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone()))
                    }
                    Some(other) => other.clone(),
                    None => Value::Null,
                };
                blocks.push(Block::ToolCall(ToolCall::running(id, name, input)));
            }
            Some(THINKING) => {
                let text = ["summary", "content"]
                    .iter()
                    .find_map(|key| node.pointer(&format!("/thinking/{key}")).and_then(Value::as_str))
                    .filter(|t| !t.trim().is_empty());
                if let Some(text) = text {
                    blocks.push(Block::Thinking { text: text.to_owned() });
                }
            }
            Some(kind) if NOT_SHOWN.contains(&kind) => {}
            other => {
                blocks.push(Block::Unknown { what: format!("response node of type {other:?}"), raw: node.clone() });
            }
        }
    }
    if !has_text
        && let Some(text) = exchange.get("response_text").and_then(Value::as_str).filter(|t| !t.trim().is_empty())
    {
        let at = blocks.iter().position(|b| !matches!(b, Block::Thinking { .. })).unwrap_or(blocks.len());
        blocks.insert(at, Block::text(text));
    }
    blocks
}
