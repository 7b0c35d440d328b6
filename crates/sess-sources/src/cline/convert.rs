//! Anthropic-shaped messages as transcript messages: the extension's
//! `api_conversation_history.json` and the CLI's `<id>.messages.json` hold
//! the same blocks (`text`, `thinking`, `redacted_thinking`, `image`,
//! `tool_use`, `tool_result`), with the wrappers each puts around the
//! person's words.

use std::collections::HashMap;

use serde_json::Value;
use sess_core::format_iso_millis;

use crate::transcript::{Block, Image, Message, Role, ToolCall, content_text};

/// The messages of `records` (Anthropic messages `{role, content, ts?,
/// id?}`), each with the position of the record it comes from. `time(i)` is
/// the time of record `i` when it has no `ts` of its own. A user record
/// that holds only tool results completes the calls it answers and shows
/// no message of its own.
pub(crate) fn messages(records: &[Value], time: &dyn Fn(usize) -> Option<String>) -> Vec<(usize, Message)> {
    let mut out: Vec<(usize, Message)> = Vec::new();
    // Where each call is: (message, block) in `out`.
    let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
    for (at, record) in records.iter().enumerate() {
        let timestamp = record.get("ts").and_then(Value::as_i64).map(format_iso_millis).or_else(|| time(at));
        let id = record.get("id").and_then(Value::as_str).map(str::to_owned);
        if let Some(summary) = compaction_summary(record) {
            let message = Message::new(Role::System).at(id, timestamp).with(Block::Summary { text: summary });
            out.push((at, message));
            continue;
        }
        if let Some(message) = display_only(record, id.clone(), timestamp.clone()) {
            out.push((at, message));
            continue;
        }
        let role = match record.get("role").and_then(Value::as_str) {
            Some("assistant") => Role::Assistant,
            Some("user") => Role::User,
            Some("system") => Role::System,
            _ => {
                let raw = record.clone();
                let message = Message::new(Role::System)
                    .at(id, timestamp)
                    .with(Block::Unknown { what: "message".to_owned(), raw });
                out.push((at, message));
                continue;
            }
        };
        let mut message = Message::new(role).at(id, timestamp.clone());
        match record.get("content") {
            Some(Value::String(text)) => add_text(&mut message, text),
            Some(Value::Array(blocks)) => {
                for block in blocks {
                    add_block(&mut message, block, timestamp.as_deref(), &mut out, &mut calls);
                }
            }
            _ => {}
        }
        // A user message of tool results and the environment details the
        // agent appends to them is no message of the person's.
        let environment_only = message.role == Role::User
            && message.blocks.iter().all(|b| matches!(b, Block::Context { title, .. } if title == ENVIRONMENT));
        if message.blocks.is_empty() || environment_only {
            continue;
        }
        let index = out.len();
        for (b, block) in message.blocks.iter().enumerate() {
            if let Block::ToolCall(call) = block {
                calls.insert(call.id.clone(), (index, b));
            }
        }
        out.push((at, message));
    }
    out
}

/// The summary of a compaction, when `record` is the message the CLI puts
/// in place of the messages it compacted (`metadata.kind` is
/// `compaction_summary`).
fn compaction_summary(record: &Value) -> Option<String> {
    let metadata = record.get("metadata")?;
    if metadata.get("kind").and_then(Value::as_str) != Some("compaction_summary") {
        return None;
    }
    match metadata.get("summary").and_then(Value::as_str) {
        Some(summary) if !summary.trim().is_empty() => Some(summary.to_owned()),
        _ => Some(content_text(record.get("content").unwrap_or(&Value::Null))),
    }
}

/// A message the CLI shows but never sends to the model
/// (`metadata.displayOnly`), by its `metadata.displayRole`: an error (a
/// failed request) is an error block of the assistant's, anything else a
/// system notice.
fn display_only(record: &Value, id: Option<String>, timestamp: Option<String>) -> Option<Message> {
    let metadata = record.get("metadata")?;
    if metadata.get("displayOnly").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let text = content_text(record.get("content").unwrap_or(&Value::Null));
    let message = if metadata.get("displayRole").and_then(Value::as_str) == Some("error") {
        Message::new(Role::Assistant).with(Block::Error { text })
    } else {
        Message::new(Role::System).with(Block::text(text))
    };
    Some(message.at(id, timestamp))
}

/// Adds one content block of a record to `message`; a tool result completes
/// its call in `out` instead.
fn add_block(
    message: &mut Message,
    block: &Value,
    timestamp: Option<&str>,
    out: &mut [(usize, Message)],
    calls: &mut HashMap<String, (usize, usize)>,
) {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => {
            let text = block.get("text").and_then(Value::as_str).unwrap_or_default();
            if message.role == Role::User {
                add_text(message, text);
            } else if !text.trim().is_empty() {
                message.blocks.push(Block::text(text));
            }
        }
        Some("thinking") => {
            let text = block.get("thinking").and_then(Value::as_str).unwrap_or_default();
            if !text.trim().is_empty() {
                message.blocks.push(Block::Thinking { text: text.to_owned() });
            }
        }
        Some("image") => message.blocks.push(Block::Image(image(block))),
        Some("tool_use") => {
            let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
            let name = block.get("name").and_then(Value::as_str).unwrap_or_default();
            let input = block.get("input").cloned().unwrap_or(Value::Null);
            let mut call = ToolCall::running(id, name, input);
            call.started_at = timestamp.map(str::to_owned);
            message.blocks.push(Block::ToolCall(call));
        }
        Some("tool_result") => {
            let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
            let (text, failed) = result(block);
            let ended = timestamp.map(str::to_owned);
            if let Some(Block::ToolCall(call)) = calls.get(id).and_then(|&(m, b)| out.get_mut(m)?.1.blocks.get_mut(b)) {
                call.complete(Some(text), failed, ended);
            } else {
                // A result whose call is not in the file (compacted away):
                // shown as context where it came.
                let title = block.get("name").and_then(Value::as_str).unwrap_or("tool");
                message.blocks.push(Block::Context { title: format!("{title} result"), text });
            }
        }
        _ => message.blocks.push(Block::Unknown {
            what: block.get("type").and_then(Value::as_str).unwrap_or("block").to_owned(),
            raw: block.clone(),
        }),
    }
}

/// An image block: `source.data` (base64) and `source.media_type`, or a
/// `source.url`.
fn image(block: &Value) -> Image {
    let source = block.get("source");
    let field = |key: &str| source.and_then(|s| s.get(key)).and_then(Value::as_str).map(str::to_owned);
    Image { media_type: field("media_type"), data: field("data"), url: field("url") }
}

/// The text of a tool result and whether it failed: `is_error`, or (the
/// CLI) an item of its content with `success: false`. The CLI's items are
/// objects with the `query` they ran and its `result` (or `error`).
fn result(block: &Value) -> (String, bool) {
    let content = block.get("content").unwrap_or(&Value::Null);
    let mut failed = block.get("is_error").and_then(Value::as_bool).unwrap_or(false);
    // The CLI's editor sends its item as JSON text.
    let parsed = match content {
        Value::String(text) if text.starts_with('{') => serde_json::from_str::<Value>(text).ok().filter(is_item),
        _ => None,
    };
    let items: Vec<&Value> = match (content, &parsed) {
        (_, Some(item)) => vec![item],
        (Value::Array(items), None) => items.iter().collect(),
        (item, None) if is_item(item) => vec![item],
        _ => return (content_text(content), failed),
    };
    let mut parts: Vec<String> = Vec::new();
    for item in items {
        if item.get("success").and_then(Value::as_bool) == Some(false) {
            failed = true;
        }
        let text = match (item.get("text"), item.get("result"), item.get("error")) {
            (Some(Value::String(text)), _, _) => text.clone(),
            (_, Some(Value::String(result)), _) if !result.is_empty() => result.clone(),
            (_, _, Some(Value::String(error))) if !error.is_empty() => error.clone(),
            (_, Some(result), _) => content_text(result),
            _ => match item.get("type").and_then(Value::as_str) {
                Some(kind) => format!("[{kind}]"),
                None => item.to_string(),
            },
        };
        parts.push(text);
    }
    (parts.join("\n"), failed)
}

/// The title of the environment details' context block.
const ENVIRONMENT: &str = "Environment details";

/// Whether `value` is one of the CLI's result items: an object with its
/// `query` and whether it succeeded.
fn is_item(value: &Value) -> bool {
    value.get("success").is_some_and(Value::is_boolean) && value.get("query").is_some()
}

/// The wrappers around the person's words, each unwrapped to its contents:
/// the extension's first prompt (`<task>`), later prompts (`<feedback>`,
/// Roo Code's `<user_message>`), answers to the model's questions
/// (`<answer>`), and the CLI's `<user_input mode="…">`.
const WRAPPERS: [&str; 5] = ["task", "feedback", "user_message", "answer", "user_input"];

/// Adds a user text to `message`: the person's words as text, the
/// `<environment_details>` the agent appends as context, and the result of
/// a tool the agent reports in text (`[tool for 'x'] Result:`, from the
/// versions that called tools in XML) as context.
fn add_text(message: &mut Message, text: &str) {
    let mut rest = text;
    while let Some((before, inner, after)) = element(rest, "environment_details") {
        push_words(message, before);
        message.blocks.push(Block::Context { title: ENVIRONMENT.to_owned(), text: inner.trim().to_owned() });
        rest = after;
    }
    push_words(message, rest);
}

/// Adds `text` (no environment details in it) to `message`.
fn push_words(message: &mut Message, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if text.starts_with('[')
        && let Some(end) = text.find(']')
        && (text[end + 1..].starts_with(" Result:") || text[..=end].contains("TASK RESUMPTION"))
    {
        let title = text[1..end].to_owned();
        let body = text[end + 1..].trim_start_matches(" Result:").trim();
        message.blocks.push(Block::Context { title, text: body.to_owned() });
        return;
    }
    let mut rest = text;
    let mut words = String::new();
    while let Some((before, inner, after)) = earliest(rest) {
        join(&mut words, before);
        join(&mut words, inner);
        rest = after;
    }
    join(&mut words, rest);
    if !words.is_empty() {
        message.blocks.push(Block::text(words));
    }
}

/// The wrapper of [`WRAPPERS`] that opens first in `text`, as [`element`]
/// gives it.
fn earliest(text: &str) -> Option<(&str, &str, &str)> {
    WRAPPERS.iter().filter_map(|tag| element(text, tag)).min_by_key(|(before, _, _)| before.len())
}

/// Appends `piece` (trimmed) to `words`, a blank line between.
fn join(words: &mut String, piece: &str) {
    let piece = piece.trim();
    if piece.is_empty() {
        return;
    }
    if !words.is_empty() {
        words.push_str("\n\n");
    }
    words.push_str(piece);
}

/// The first `<tag …>…</tag>` in `text`: what is before it, its contents and
/// what is after it; `None` when there is none (or it is not closed).
pub(crate) fn element<'a>(text: &'a str, tag: &str) -> Option<(&'a str, &'a str, &'a str)> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut from = 0;
    let start = loop {
        let at = from + text[from..].find(&open)?;
        let next = text[at + open.len()..].chars().next();
        if matches!(next, Some('>' | ' ')) {
            break at;
        }
        from = at + open.len();
    };
    let inner_start = start + text[start..].find('>')? + 1;
    let inner_end = inner_start + text[inner_start..].find(&close)?;
    Some((&text[..start], &text[inner_start..inner_end], &text[inner_end + close.len()..]))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn the_wrappers_are_unwrapped_and_the_environment_is_context() {
        let mut message = Message::new(Role::User);
        add_text(
            &mut message,
            "<task>\nFix the bug\n</task>\n\n<environment_details>\n# Current Working Directory (/p) Files\n</environment_details>",
        );
        assert_eq!(
            message.blocks,
            [
                Block::text("Fix the bug"),
                Block::Context {
                    title: "Environment details".into(),
                    text: "# Current Working Directory (/p) Files".into()
                }
            ]
        );
        let mut cli = Message::new(Role::User);
        add_text(&mut cli, "<user_input mode=\"act\">Say hello</user_input>");
        assert_eq!(cli.blocks, [Block::text("Say hello")]);
        let mut result = Message::new(Role::User);
        add_text(&mut result, "[execute_command for 'ls'] Result:\nCommand executed.");
        assert_eq!(
            result.blocks,
            [Block::Context { title: "execute_command for 'ls'".into(), text: "Command executed.".into() }]
        );
        assert_eq!(element("<user_inputs>x</user_inputs>", "user_input"), None);
    }

    #[test]
    fn results_complete_their_calls() {
        let records = vec![
            json!({"role": "user", "content": "<task>go</task>", "ts": 1000}),
            json!({"role": "assistant", "ts": 2000, "content": [
                {"type": "tool_use", "id": "a", "name": "run_commands", "input": {"commands": ["ls"]}},
                {"type": "tool_use", "id": "b", "name": "read_files", "input": {}}
            ]}),
            json!({"role": "user", "ts": 3000, "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": [{"query": "ls", "result": "x", "success": true}]},
                {"type": "tool_result", "tool_use_id": "b", "content": [{"query": "f", "result": "", "error": "no such file", "success": false}]}
            ]}),
        ];
        let out = messages(&records, &|_| None);
        assert_eq!(out.len(), 2);
        let Block::ToolCall(a) = &out[1].1.blocks[0] else { panic!() };
        let Block::ToolCall(b) = &out[1].1.blocks[1] else { panic!() };
        assert_eq!((a.status, a.result.as_deref()), (crate::ToolStatus::Succeeded, Some("x")));
        assert_eq!((b.status, b.result.as_deref()), (crate::ToolStatus::Failed, Some("no such file")));
        assert_eq!(b.ended_at.as_deref(), Some("1970-01-01T00:00:03.000Z"));
    }
}
