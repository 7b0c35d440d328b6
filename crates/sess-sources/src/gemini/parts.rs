//! What a message record holds: the Gemini `Part`s of its `content` (a string
//! is one text part), told apart, and the facts about a message that the
//! replay and the rendering share.

use serde_json::Value;

use crate::jsonl::is_truthy;

/// Text the CLI puts before prompts and never shows as one (its own check for
/// "not a prompt" also names these).
const CONTEXT_TAGS: [&str; 2] = ["<session_context>", "<hook_context>"];

/// The text the compression leaves in place of the history.
const SNAPSHOT_TAG: &str = "<state_snapshot>";

/// One part of a message's content.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Part<'a> {
    /// Text (a prompt, an answer, attached file contents).
    Text(&'a str),
    /// Text marked `thought`: the model's reasoning.
    Thought(&'a str),
    /// `functionCall`: `{id, name, args}`.
    Call(&'a Value),
    /// `functionResponse`: `{id, name, response}`.
    Response(&'a Value),
    /// `inlineData`: `{mimeType, data}` (base64).
    Inline(&'a Value),
    /// `fileData`: `{mimeType, fileUri}`.
    File(&'a Value),
    /// A part of a kind not read here (`executableCode`, …), as written.
    Other(&'a Value),
}

/// The parts of `content`: a string is one text part (none when empty).
pub(crate) fn parts(content: Option<&Value>) -> Vec<Part<'_>> {
    match content {
        Some(Value::String(text)) if !text.is_empty() => vec![Part::Text(text)],
        Some(Value::Array(items)) => items.iter().map(part).collect(),
        _ => Vec::new(),
    }
}

/// One item of a `content` array.
pub(crate) fn part(item: &Value) -> Part<'_> {
    if let Value::String(text) = item {
        return Part::Text(text);
    }
    if let Some(call) = item.get("functionCall").filter(|v| v.is_object()) {
        return Part::Call(call);
    }
    if let Some(response) = item.get("functionResponse").filter(|v| v.is_object()) {
        return Part::Response(response);
    }
    if let Some(data) = item.get("inlineData").filter(|v| v.is_object()) {
        return Part::Inline(data);
    }
    if let Some(data) = item.get("fileData").filter(|v| v.is_object()) {
        return Part::File(data);
    }
    match item.get("text").and_then(Value::as_str) {
        Some(text) if item.get("thought").is_some_and(is_truthy) => Part::Thought(text),
        Some(text) => Part::Text(text),
        None => Part::Other(item),
    }
}

/// A message's `type` (`user`, `gemini`, `info`, `error`, `warning`).
pub(crate) fn kind(message: &Value) -> &str {
    message.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// A string field.
pub(crate) fn text_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// Whether a text part is context the CLI put there, not something typed.
pub(crate) fn is_context(text: &str) -> bool {
    let text = text.trim_start();
    CONTEXT_TAGS.iter().any(|tag| text.starts_with(tag))
}

/// The text of a message's content that is shown as its words: text parts
/// that are not context, joined.
pub(crate) fn visible_text(message: &Value) -> String {
    parts(message.get("content"))
        .into_iter()
        .filter_map(|p| match p {
            Part::Text(text) if !is_context(text) => Some(text),
            _ => None,
        })
        .collect()
}

/// The compression's summary, when the message is one: a user message whose
/// text starts with `<state_snapshot>`.
pub(crate) fn snapshot(message: &Value) -> Option<String> {
    let text = visible_text(message);
    (kind(message) == "user" && text.trim_start().starts_with(SNAPSHOT_TAG)).then(|| text.trim().to_owned())
}

/// The ids of the tool calls a message makes: its `toolCalls`, else its
/// `functionCall` parts.
pub(crate) fn call_ids(message: &Value) -> Vec<&str> {
    if let Some(Value::Array(calls)) = message.get("toolCalls")
        && !calls.is_empty()
    {
        return calls.iter().filter_map(|c| text_field(c, "id")).collect();
    }
    parts(message.get("content"))
        .into_iter()
        .filter_map(|p| match p {
            Part::Call(call) => text_field(call, "id"),
            _ => None,
        })
        .collect()
}

/// The ids of the function responses a message carries.
pub(crate) fn response_ids(message: &Value) -> Vec<&str> {
    parts(message.get("content"))
        .into_iter()
        .filter_map(|p| match p {
            Part::Response(response) => text_field(response, "id"),
            _ => None,
        })
        .collect()
}

/// What a message says, to recognise the same message written again under a
/// new id (a compression restates the history it keeps; a resume restates
/// tool results): its type, words, calls and responses.
pub(crate) fn signature(message: &Value) -> String {
    format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        kind(message),
        visible_text(message),
        call_ids(message).join("\u{1}"),
        response_ids(message).join("\u{1}")
    )
}

/// Whether rendering the message shows anything: words, reasoning, calls,
/// media or a notice (tool results alone and context alone show nothing of
/// their own).
pub(crate) fn is_displayable(message: &Value) -> bool {
    let content = parts(message.get("content"));
    match kind(message) {
        "user" => content.iter().any(|p| match p {
            Part::Text(text) => !is_context(text) && !text.trim().is_empty(),
            Part::Response(_) => false,
            _ => true,
        }),
        "gemini" => {
            !call_ids(message).is_empty()
                || message.get("thoughts").and_then(Value::as_array).is_some_and(|t| !t.is_empty())
                || content.iter().any(|p| !matches!(p, Part::Text(t) if t.trim().is_empty()))
        }
        _ => content.iter().any(|p| !matches!(p, Part::Text(t) if t.trim().is_empty())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parts_are_told_apart() {
        let content = json!([
            {"text": "**Plan** go", "thought": true}, {"text": "hi"}, "bare",
            {"functionCall": {"id": "c", "name": "n", "args": {}}},
            {"functionResponse": {"id": "c", "name": "n", "response": {"output": "o"}}},
            {"inlineData": {"mimeType": "image/png", "data": "AA=="}},
            {"fileData": {"mimeType": "image/png", "fileUri": "gs://x"}},
            {"executableCode": {"code": "1"}}
        ]);
        let names: Vec<_> = parts(Some(&content))
            .iter()
            .map(|p| match p {
                Part::Text(_) => "text",
                Part::Thought(_) => "thought",
                Part::Call(_) => "call",
                Part::Response(_) => "response",
                Part::Inline(_) => "inline",
                Part::File(_) => "file",
                Part::Other(_) => "other",
            })
            .collect();
        assert_eq!(names, ["thought", "text", "text", "call", "response", "inline", "file", "other"]);
        assert!(parts(Some(&json!(""))).is_empty());
    }

    #[test]
    fn context_results_and_empty_answers_show_nothing() {
        let context = json!({"type": "user", "content": [{"text": "<session_context>\nx\n</session_context>"}]});
        let results = json!({"type": "user", "content": [{"functionResponse": {"id": "c", "response": {}}}]});
        let empty = json!({"type": "gemini", "content": "", "thoughts": []});
        let thinking = json!({"type": "gemini", "content": "", "thoughts": [{"subject": "s", "description": "d"}]});
        let calls = json!({"type": "gemini", "content": [{"functionCall": {"id": "c", "name": "n"}}]});
        let blank_info = json!({"type": "info", "content": ""});
        assert!(!is_displayable(&context) && !is_displayable(&results) && !is_displayable(&empty));
        assert!(!is_displayable(&blank_info));
        assert!(is_displayable(&thinking) && is_displayable(&calls));
        assert_eq!(call_ids(&calls), ["c"]);
        assert_eq!(response_ids(&results), ["c"]);
    }

    #[test]
    fn a_message_restated_as_parts_has_the_same_signature() {
        let recorded = json!({"id": "a", "type": "gemini", "content": "", "toolCalls": [{"id": "c", "name": "ls"}]});
        let restated = json!({"id": "b", "type": "gemini", "content": [{"functionCall": {"id": "c", "name": "ls"}}]});
        assert_eq!(signature(&recorded), signature(&restated));
        let answer = json!({"id": "x", "type": "gemini", "content": "Hi"});
        let as_parts =
            json!({"id": "y", "type": "gemini", "content": [{"text": "**T** t", "thought": true}, {"text": "Hi"}]});
        assert_eq!(signature(&answer), signature(&as_parts));
        assert_ne!(signature(&answer), signature(&json!({"type": "user", "content": "Hi"})));
        let summary = json!({"type": "user", "content": [{"text": "<state_snapshot>\ns\n</state_snapshot>"}]});
        assert_eq!(snapshot(&summary).as_deref(), Some("<state_snapshot>\ns\n</state_snapshot>"));
        assert_eq!(snapshot(&json!({"type": "gemini", "content": "<state_snapshot>"})), None);
    }
}
