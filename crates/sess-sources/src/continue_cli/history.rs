//! A session file's `history` as messages.

use serde_json::Value;
use sess_core::{IssueKind, LineIssue};

use crate::transcript::{Block, Image, Message, Role, ToolCall, ToolStatus, finish_pending};

/// What the CLI answered the model for a call that was cancelled: its
/// result when the call has no output.
const CANCELLED: &str = "Tool cancelled";

/// The messages of `history` (the array of a session file), and the items
/// that are not history items, each reported at its position (1-based).
pub(super) fn messages(history: &[Value]) -> (Vec<Message>, Vec<LineIssue>) {
    let mut out: Vec<Message> = Vec::new();
    let mut issues = Vec::new();
    // Thinking the model did before the answer it belongs to.
    let mut thinking: Vec<Block> = Vec::new();
    for (at, item) in history.iter().enumerate() {
        let Some(message) = item.get("message").filter(|m| m.is_object()) else {
            issues.push(LineIssue { line: at + 1, kind: IssueKind::NotAnObject });
            continue;
        };
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        match role {
            "user" => out.push(user(message, item)),
            "assistant" => {
                if let Some(summary) = item.get("conversationSummary").and_then(Value::as_str) {
                    out.push(Message::new(Role::System).with(Block::Summary { text: summary.to_owned() }));
                    continue;
                }
                let mut answer = Message::new(Role::Assistant);
                answer.blocks.append(&mut thinking);
                answer.blocks.extend(content(message.get("content")));
                answer.blocks.extend(tool_calls(message, item));
                out.push(answer);
            }
            "thinking" => {
                let text = crate::transcript::content_text(message.get("content").unwrap_or(&Value::Null));
                if !text.trim().is_empty() {
                    thinking.push(Block::Thinking { text });
                }
            }
            "tool" => result(&mut out, message, item),
            "system" => {
                let text = crate::transcript::content_text(message.get("content").unwrap_or(&Value::Null));
                let context = Block::Context { title: "System message".to_owned(), text };
                out.push(Message::new(Role::System).with(context));
            }
            _ => out.push(
                Message::new(Role::System)
                    .with(Block::Unknown { what: format!("history item of role {role:?}"), raw: item.clone() }),
            ),
        }
    }
    if !thinking.is_empty() {
        out.push(Message { blocks: thinking, ..Message::new(Role::Assistant) });
    }
    finish_pending(&mut out);
    (out, issues)
}

/// A prompt: its text and images, then the context attached to it.
fn user(message: &Value, item: &Value) -> Message {
    let mut prompt = Message::new(Role::User);
    prompt.blocks.extend(content(message.get("content")));
    for context in item.get("contextItems").and_then(Value::as_array).into_iter().flatten() {
        let text = context.get("content").and_then(Value::as_str).unwrap_or_default();
        let title = ["name", "description"]
            .iter()
            .find_map(|key| context.get(*key).and_then(Value::as_str).filter(|s| !s.is_empty()))
            .unwrap_or("context");
        prompt.blocks.push(Block::Context { title: title.to_owned(), text: text.to_owned() });
    }
    prompt
}

/// A message's `content`: a string, or parts of `{type: "text", text}` and
/// `{type: "imageUrl", imageUrl: {url}}`; other parts are kept unknown.
fn content(content: Option<&Value>) -> Vec<Block> {
    match content {
        Some(Value::String(text)) if !text.is_empty() => vec![Block::text(text.clone())],
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| match part.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = part.get("text").and_then(Value::as_str).unwrap_or_default();
                    (!text.is_empty()).then(|| Block::text(text))
                }
                Some("imageUrl") => {
                    let url = part.pointer("/imageUrl/url").and_then(Value::as_str).unwrap_or_default();
                    Some(Block::Image(Image::from_url(url)))
                }
                other => Some(Block::Unknown { what: format!("content part {other:?}"), raw: part.clone() }),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The calls of an assistant item: each of `message.toolCalls`, completed
/// by the item's `toolCallStates` entry with its id (its status and
/// output); a state whose call is not in `toolCalls` is a call too.
fn tool_calls(message: &Value, item: &Value) -> Vec<Block> {
    let states: Vec<&Value> = item.get("toolCallStates").and_then(Value::as_array).into_iter().flatten().collect();
    let state_of = |id: &str| states.iter().copied().find(|s| s.get("toolCallId").and_then(Value::as_str) == Some(id));
    let mut calls: Vec<ToolCall> = Vec::new();
    for call in message.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
        let mut made = called(call, id);
        if let Some(state) = state_of(id) {
            complete(&mut made, state);
        }
        calls.push(made);
    }
    for state in &states {
        let id = state.get("toolCallId").and_then(Value::as_str).unwrap_or_default();
        if calls.iter().any(|c| c.id == id) {
            continue;
        }
        let mut made = called(state.get("toolCall").unwrap_or(&Value::Null), id);
        if made.input.is_null() {
            made.input = state.get("parsedArgs").cloned().unwrap_or(Value::Null);
        }
        complete(&mut made, state);
        calls.push(made);
    }
    calls.into_iter().map(Block::ToolCall).collect()
}

/// An OpenAI-style call `{id, function: {name, arguments}}`, its arguments
/// (a JSON string) parsed; not yet completed.
fn called(call: &Value, id: &str) -> ToolCall {
    let name = call.pointer("/function/name").and_then(Value::as_str).unwrap_or_default();
    let input = match call.pointer("/function/arguments") {
        Some(Value::String(raw)) if raw.trim().is_empty() => Value::Object(serde_json::Map::new()),
        Some(Value::String(raw)) => serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone())),
        Some(other) => other.clone(),
        None => Value::Null,
    };
    ToolCall::running(id, name, input)
}

/// A call's state: `done` succeeded, `errored` and `canceled` failed (a
/// cancelled call without output with the CLI's "Tool cancelled"); the
/// others (`generating`, `generated`, `calling`) are still running.
fn complete(call: &mut ToolCall, state: &Value) {
    let output: Vec<&str> = state
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| o.get("content").and_then(Value::as_str))
        .collect();
    let result = (!output.is_empty()).then(|| output.join("\n"));
    match state.get("status").and_then(Value::as_str) {
        Some("done") => call.complete(result, false, None),
        Some("errored") => call.complete(result, true, None),
        Some("canceled") => call.complete(result.or_else(|| Some(CANCELLED.to_owned())), true, None),
        _ => {
            call.status = ToolStatus::Running;
            call.result = result;
        }
    }
}

/// A `tool` message (the shape Continue's other clients keep): the result
/// of the call with its `toolCallId`, found among the messages before; one
/// whose call is not there is kept unknown.
fn result(out: &mut Vec<Message>, message: &Value, item: &Value) {
    let id = message.get("toolCallId").and_then(Value::as_str).unwrap_or_default();
    let text = crate::transcript::content_text(message.get("content").unwrap_or(&Value::Null));
    let call = out.iter_mut().rev().flat_map(|m| m.blocks.iter_mut()).find_map(|b| match b {
        Block::ToolCall(call) if call.id == id && call.status == ToolStatus::Running => Some(call),
        _ => None,
    });
    match call {
        Some(call) => call.complete(Some(text), false, None),
        None => out.push(
            Message::new(Role::System)
                .with(Block::Unknown { what: "tool result without its call".to_owned(), raw: item.clone() }),
        ),
    }
}
