//! Zed's thread JSON as a transcript: the current shape (`version`
//! `0.3.0`: messages `{"User": …}`, `{"Agent": …}`, `"Resume"`) and the older
//! one of Zed's first agent panel (messages with a `role` and `segments`).

use serde_json::Value;

use crate::transcript::{Block, Image, Message, Role, ToolCall, content_text, finish_pending};
use crate::usage::{Call, Counter};

/// A thread's messages, and the model calls its token usage records.
pub(crate) struct Thread {
    pub(crate) messages: Vec<Message>,
    pub(crate) calls: Vec<Call>,
}

/// The thread `data`.
pub(crate) fn thread(data: &Value) -> Thread {
    let messages = data.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let current = messages.iter().any(|m| m.get("User").is_some() || m.get("Agent").is_some() || m == "Resume");
    let mut out = if current || messages.is_empty() { current_messages(messages) } else { older_messages(messages) };
    finish_pending(&mut out);
    let model = data.get("model").and_then(|m| m.get("model")).and_then(Value::as_str).map(ToOwned::to_owned);
    let usages: Vec<&Value> = match data.get("request_token_usage") {
        Some(Value::Object(map)) => map.values().collect(),
        Some(Value::Array(list)) => list.iter().collect(),
        _ => Vec::new(),
    };
    let mut calls = crate::usage::Calls::default();
    for usage in usages {
        calls.push(call(usage, model.clone()));
    }
    let mut calls = calls.finish();
    if calls.is_empty()
        && let Some(usage) = data.get("cumulative_token_usage")
    {
        calls = [call(usage, model)].into_iter().filter(|c| !c.is_empty()).collect();
    }
    Thread { messages: out, calls }
}

/// A `TokenUsage`: Anthropic's counts, cache reads and writes apart from
/// the input.
fn call(usage: &Value, model: Option<String>) -> Call {
    let counter = Counter::default();
    let count = |name: &str| counter.count(name, usage.get(name));
    Call {
        model,
        input: count("input_tokens"),
        output: count("output_tokens"),
        cache_creation: count("cache_creation_input_tokens"),
        cache_read: count("cache_read_input_tokens"),
        not_counts: counter.take(),
        ..Call::default()
    }
}

fn current_messages(messages: &[Value]) -> Vec<Message> {
    let mut out = Vec::new();
    for message in messages {
        if let Some(user) = message.get("User") {
            let id = user.get("id").and_then(Value::as_str).map(ToOwned::to_owned);
            let mut blocks = Vec::new();
            for item in user.get("content").and_then(Value::as_array).into_iter().flatten() {
                blocks.push(user_content(item));
            }
            out.push(Message { blocks, ..Message::new(Role::User).at(id, None) });
        } else if let Some(agent) = message.get("Agent") {
            let results = agent.get("tool_results").unwrap_or(&Value::Null);
            let mut blocks = Vec::new();
            for item in agent.get("content").and_then(Value::as_array).into_iter().flatten() {
                blocks.push(agent_content(item, results));
            }
            out.push(Message { blocks, ..Message::new(Role::Assistant) });
        } else if message == "Resume" {
            out.push(Message::new(Role::System).with(Block::text("Resumed")));
        } else {
            out.push(Message::new(Role::System).with(Block::Unknown { what: "message".into(), raw: message.clone() }));
        }
    }
    out
}

/// `{"Text": …}`, `{"Mention": {"uri", "content"}}`, `{"Image": {"source"}}`.
fn user_content(item: &Value) -> Block {
    if let Some(text) = item.get("Text").and_then(Value::as_str) {
        return Block::text(text);
    }
    if let Some(mention) = item.get("Mention") {
        let uri = mention.get("uri").map(|u| if let Value::String(s) = u { s.clone() } else { u.to_string() });
        let text = mention.get("content").and_then(Value::as_str).unwrap_or_default();
        return Block::Context { title: uri.unwrap_or_else(|| "Mention".into()), text: text.to_owned() };
    }
    if let Some(image) = item.get("Image") {
        return image_block(image);
    }
    Block::Unknown { what: key_of(item), raw: item.clone() }
}

fn image_block(image: &Value) -> Block {
    Block::Image(Image {
        media_type: Some("image/png".to_owned()),
        data: image.get("source").and_then(Value::as_str).map(ToOwned::to_owned),
        url: None,
    })
}

/// `{"Text": …}`, `{"Thinking": {"text"}}`, `{"RedactedThinking": …}`,
/// `{"ToolUse": {"id", "name", "input"}}` with its result from `results`.
fn agent_content(item: &Value, results: &Value) -> Block {
    if let Some(text) = item.get("Text").and_then(Value::as_str) {
        return Block::text(text);
    }
    if let Some(thinking) = item.get("Thinking") {
        return Block::Thinking { text: thinking.get("text").and_then(Value::as_str).unwrap_or_default().to_owned() };
    }
    if item.get("RedactedThinking").is_some() {
        return Block::Thinking { text: "[redacted thinking]".to_owned() };
    }
    if let Some(tool) = item.get("ToolUse") {
        let id = tool.get("id").and_then(Value::as_str).unwrap_or_default();
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        let mut call = ToolCall::running(id, name, tool.get("input").cloned().unwrap_or(Value::Null));
        if let Some(result) = results.get(id) {
            complete(&mut call, result);
        }
        return Block::ToolCall(call);
    }
    Block::Unknown { what: key_of(item), raw: item.clone() }
}

/// Completes `call` with a `LanguageModelToolResult` (`is_error`, `content`:
/// text, `{"Text": …}`, or a list of them).
fn complete(call: &mut ToolCall, result: &Value) {
    let failed = result.get("is_error").and_then(Value::as_bool).unwrap_or(false);
    call.complete(Some(result_text(result.get("content").unwrap_or(&Value::Null))), failed, None);
}

fn result_text(content: &Value) -> String {
    match content {
        Value::Array(items) => items.iter().map(result_text).collect::<Vec<_>>().join("\n"),
        Value::Object(map) => match map.get("Text") {
            Some(Value::String(text)) => text.clone(),
            _ if map.contains_key("Image") => "[image]".to_owned(),
            _ => content_text(content),
        },
        other => content_text(other),
    }
}

fn key_of(item: &Value) -> String {
    item.as_object().and_then(|m| m.keys().next().cloned()).unwrap_or_else(|| "content".to_owned())
}

/// The older shape: `{"role", "segments": [{"type": "text"|"thinking"|
/// "redacted_thinking"}], "tool_uses", "tool_results", "context",
/// "is_hidden"}`.
fn older_messages(messages: &[Value]) -> Vec<Message> {
    let mut out = Vec::new();
    for message in messages {
        let role = match message.get("role").and_then(Value::as_str) {
            Some("assistant") => Role::Assistant,
            Some("system") => Role::System,
            _ => Role::User,
        };
        let id = message.get("id").map(ToString::to_string);
        let mut blocks = Vec::new();
        if let Some(context) = message.get("context").and_then(Value::as_str).filter(|c| !c.is_empty()) {
            blocks.push(Block::Context { title: "Context".to_owned(), text: context.to_owned() });
        }
        for segment in message.get("segments").and_then(Value::as_array).into_iter().flatten() {
            let text = segment.get("text").and_then(Value::as_str).unwrap_or_default().to_owned();
            blocks.push(match segment.get("type").and_then(Value::as_str) {
                Some("text") => Block::Text { text },
                Some("thinking") => Block::Thinking { text },
                Some("redacted_thinking") => Block::Thinking { text: "[redacted thinking]".to_owned() },
                _ => Block::Unknown { what: "segment".into(), raw: segment.clone() },
            });
        }
        let results = message.get("tool_results").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for tool in message.get("tool_uses").and_then(Value::as_array).into_iter().flatten() {
            let id = tool.get("id").and_then(Value::as_str).unwrap_or_default();
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let mut call = ToolCall::running(id, name, tool.get("input").cloned().unwrap_or(Value::Null));
            if let Some(result) = results.iter().find(|r| r.get("tool_use_id").and_then(Value::as_str) == Some(id)) {
                complete(&mut call, result);
            }
            blocks.push(Block::ToolCall(call));
        }
        out.push(Message { blocks, ..Message::new(role).at(id, None) });
    }
    out
}
