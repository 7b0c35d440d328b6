//! What one entry's messages become in the context: a stored message's
//! missing `content` filled in, and `context_edit` entries (pi 1.6) applied.
//!
//! Both read a message's own top-level keys. Messages are kept as their text,
//! so the keys are found by scanning the text ([`top_level`]), which stops at
//! the key; a message that might repeat a key is decoded whole instead, and
//! the last value wins, as in `JSON.parse`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value;

use crate::context::ContextMessage;
use crate::entry::{Entry, EntryKind};
use crate::raw::RawJson;

/// The roles whose `content` a `context_edit` replaces.
const EDITABLE_ROLES: [&str; 4] = ["user", "assistant", "toolResult", "custom"];

/// The newest edit of each target among `entries`, by target id: its
/// replacement (`null` drops the target's messages). An edit without a
/// `replacement` changes nothing.
pub(crate) fn edits<'a>(entries: impl Iterator<Item = &'a Entry>) -> HashMap<&'a str, &'a RawJson> {
    let mut edits = HashMap::new();
    for entry in entries {
        if let EntryKind::ContextEdit(edit) = entry.kind()
            && let (Some(target), Some(replacement)) = (edit.target_id.as_ref(), edit.replacement.as_ref())
        {
            edits.insert(target.as_str(), replacement);
        }
    }
    edits
}

/// Applies `replacement` to the messages one entry put in the context: `null`
/// removes them; otherwise the `content` of each message whose role is
/// editable becomes the replacement's `content` (a string as one text block
/// for an assistant message or a tool result; no `content` when the
/// replacement has none).
pub(crate) fn apply(messages: &mut Vec<ContextMessage>, replacement: &RawJson) {
    if replacement.is_null() {
        messages.clear();
        return;
    }
    let content = replacement.decode::<Value>().ok().and_then(|r| r.get("content").cloned());
    for message in messages.iter_mut() {
        match message {
            ContextMessage::Custom { content: slot, .. } => {
                *slot = content.as_ref().and_then(|c| RawJson::parse(&c.to_string()).ok());
            }
            ContextMessage::Stored(Some(stored)) => {
                if let Some(edited) = edited(stored, content.as_ref()) {
                    *stored = edited;
                }
            }
            ContextMessage::Stored(None)
            | ContextMessage::CompactionSummary(_)
            | ContextMessage::BranchSummary { .. } => {}
        }
    }
}

/// `message` with its content replaced by `content`, or `None` when its role
/// is not editable.
fn edited(message: &RawJson, content: Option<&Value>) -> Option<RawJson> {
    let Value::Object(mut object) = message.decode::<Value>().ok()? else { return None };
    let role = object.get("role").and_then(Value::as_str)?;
    if !EDITABLE_ROLES.contains(&role) {
        return None;
    }
    let as_blocks = matches!(role, "assistant" | "toolResult");
    match content {
        Some(Value::String(text)) if as_blocks => {
            object.insert("content".into(), serde_json::json!([{"type": "text", "text": text}]));
        }
        Some(content) => {
            object.insert("content".into(), content.clone());
        }
        None => {
            object.shift_remove("content");
        }
    }
    RawJson::parse(&Value::Object(object).to_string()).ok()
}

/// `message` as the context holds it: a user, assistant or tool-result
/// message whose `content` is `null` or missing gets `[]`, a `system` message
/// `""`; any other message is kept as it is.
pub(crate) fn with_content(message: &RawJson) -> RawJson {
    let text = message.as_str();
    let filler = match role(text).as_deref() {
        Some("user" | "assistant" | "toolResult") => "[]",
        Some("system") => "\"\"",
        _ => return message.clone(),
    };
    match content_of(text) {
        Content::Present => message.clone(),
        Content::Null(span) => RawJson::parse(&[&text[..span.start], filler, &text[span.end..]].concat())
            .unwrap_or_else(|_| message.clone()),
        Content::Missing => {
            let body = text.trim_end().strip_suffix('}').unwrap_or(text);
            RawJson::parse(&[body, ",\"content\":", filler, "}"].concat()).unwrap_or_else(|_| message.clone())
        }
        Content::Unsure => {
            let Ok(Value::Object(mut object)) = message.decode::<Value>() else { return message.clone() };
            if object.get("content").is_some_and(|c| !c.is_null()) {
                return message.clone();
            }
            object.insert("content".into(), serde_json::from_str(filler).unwrap_or(Value::Null));
            RawJson::parse(&Value::Object(object).to_string()).unwrap_or_else(|_| message.clone())
        }
    }
}

/// What a message's top-level `content` is.
enum Content {
    /// A value other than `null`.
    Present,
    /// `null`, at this span of the text.
    Null(Range<usize>),
    /// No such key.
    Missing,
    /// The text may repeat the key (or is not an object the scan reads):
    /// decode it to know.
    Unsure,
}

fn content_of(text: &str) -> Content {
    const KEY: &[u8] = b"\"content\"";
    let Some(found) = top_level(text, "content") else {
        // Not found by the scan: missing, unless the text is not a plain object.
        let plain = text.starts_with('{') && memchr::memmem::find(text.as_bytes(), KEY).is_none();
        return if plain { Content::Missing } else { Content::Unsure };
    };
    // The JSON string `"content"` once more after the key (escaped quotes in
    // a text are `\"`, so this finds only keys and values that are exactly
    // the word): it may be the same key again.
    if memchr::memmem::find(&text.as_bytes()[found.start..], KEY).is_some() {
        return Content::Unsure;
    }
    if text[found.clone()].starts_with("null") { Content::Null(found.start..found.start + 4) } else { Content::Present }
}

/// The message's top-level `role`, when it is a string.
pub(crate) fn role(text: &str) -> Option<Cow<'_, str>> {
    let value = &text[top_level(text, "role")?];
    if !value.starts_with('"') {
        return None;
    }
    let inner = &value[1..value.len().saturating_sub(1)];
    if inner.contains('\\') {
        serde_json::from_str::<String>(value).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// Where the value of the first top-level `key` of the JSON object `text`
/// starts; the range runs to the end of the value for a string, or of the
/// text otherwise. `None` when the object has no such key or the text is not
/// an object the scan can read.
fn top_level(text: &str, key: &str) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_ws(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_start = at;
        let key_end = string_end(bytes, at)?;
        let this_key = &text[key_start + 1..key_end - 1];
        at = skip_ws(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(bytes, at + 1);
        let matches = this_key == key
            || (this_key.contains('\\')
                && serde_json::from_str::<String>(&text[key_start..key_end]).is_ok_and(|k| k == key));
        if matches {
            let end = if bytes.get(at) == Some(&b'"') { string_end(bytes, at)? } else { text.len() };
            return Some(at..end);
        }
        at = skip_ws(bytes, value_end(bytes, at)?);
        match bytes.get(at) {
            Some(b',') => at += 1,
            _ => return None,
        }
    }
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The position after the string that opens at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', &bytes[i..])?;
        if bytes[i] == b'\\' {
            i += 2;
        } else {
            return Some(i + 1);
        }
    }
}

/// The position after the value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => Some(
            at + bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - at),
        ),
    }
}

/// `[]`, for a custom message without content.
pub(crate) fn empty_array() -> RawJson {
    RawJson::new(std::sync::Arc::new("[]".to_owned()), 0..2)
}

#[cfg(test)]
#[path = "projection_tests.rs"]
mod tests;
