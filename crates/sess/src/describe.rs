//! One-line descriptions of a pi-family session's entries, for people: what
//! `sess tree` and the page's branch picker show of each.

use serde_json::Value;
use sess_core::{Entry, EntryKind, RawJson};
use sess_sources::one_line;

const WIDTH: usize = 72;

/// A short description of `entry`: its kind and the start of its text.
pub fn describe(entry: &Entry) -> String {
    let text = match entry.kind() {
        EntryKind::Message(m) => describe_message(m.message.as_ref()),
        EntryKind::ThinkingLevelChange(c) => {
            format!("thinking: {}", c.thinking_level.as_ref().map_or_else(|| "off".to_owned(), text_of))
        }
        EntryKind::ModelChange(c) => match c.assignment() {
            Some(("default", model)) => format!("model: {model}"),
            Some((role, model)) => format!("model ({role}): {model}"),
            None => "model change".to_owned(),
        },
        EntryKind::Compaction(c) => format!("compaction: {}", c.summary.as_ref().map(text_of).unwrap_or_default()),
        EntryKind::BranchSummary(b) => match b.summary.as_ref().map(text_of).filter(|s| !s.is_empty()) {
            Some(summary) => format!("branch summary: {summary}"),
            None => "branch point".to_owned(),
        },
        EntryKind::Custom(c) => format!("custom {}", c.custom_type.as_deref().unwrap_or("?")),
        EntryKind::CustomMessage(c) => format!(
            "custom message {}: {}",
            c.custom_type.as_ref().map(text_of).unwrap_or_default(),
            c.content.as_ref().map(content_text).unwrap_or_default()
        ),
        EntryKind::Label(l) => {
            let target = l.target_id.as_ref().map_or("?", |t| t.as_str());
            match l.text() {
                Some(text) => format!("label {target}: {text}"),
                None => format!("label {target} cleared"),
            }
        }
        EntryKind::TtsrInjection(t) => format!("rules: {}", t.injected_rules.join(", ")),
        EntryKind::SessionInit(_) => "session init".to_owned(),
        EntryKind::ModeChange(m) => format!("mode: {}", m.mode.as_ref().map(text_of).unwrap_or_default()),
        EntryKind::SessionInfo(i) => format!("name: {}", i.name.as_deref().unwrap_or("")),
        EntryKind::ContextChange(c) => format!("context: {}", c.context_name.as_ref().map(text_of).unwrap_or_default()),
        EntryKind::ServiceTierChange(t) => {
            format!("service tier: {}", t.service_tier.as_ref().map(text_of).unwrap_or_default())
        }
        EntryKind::McpToolSelection(m) => {
            let count =
                m.selected_tool_names.as_ref().and_then(|n| n.decode::<Vec<Value>>().ok()).map_or(0, |n| n.len());
            format!("MCP tools: {count} selected")
        }
        EntryKind::ContextEdit(e) => {
            let target = e.target_id.as_ref().map_or("?", |t| t.as_str());
            match e.replacement.as_ref() {
                Some(r) if r.is_null() => format!("context edit {target}: dropped"),
                Some(r) => format!(
                    "context edit {target}: {}",
                    r.decode::<Value>().ok().and_then(|v| v.get("content").map(content_value_text)).unwrap_or_default()
                ),
                None => format!("context edit {target}"),
            }
        }
        EntryKind::ResetBoundary => "context cleared".to_owned(),
        EntryKind::TitleChange(t) => format!("title: {}", t.title.as_deref().unwrap_or("")),
        EntryKind::Usage => "usage".to_owned(),
        EntryKind::Unknown(u) => u.type_name.clone().unwrap_or_else(|| "(no type)".to_owned()),
    };
    one_line(&text, WIDTH)
}

fn describe_message(message: Option<&RawJson>) -> String {
    let Some(message) = message.and_then(|m| m.decode::<Value>().ok()) else {
        return "message (empty)".to_owned();
    };
    let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
    let content = message.get("content").map(content_value_text).unwrap_or_default();
    match role {
        "toolResult" => {
            let tool = message.get("toolName").and_then(Value::as_str).unwrap_or("tool");
            format!("{tool} result: {content}")
        }
        "bashExecution" => {
            let command = message.get("command").and_then(Value::as_str).unwrap_or("");
            format!("bash: {command}")
        }
        _ => format!("{role}: {content}"),
    }
}

/// The text of a `content` value: a string, or the text and tool-call blocks of an array.
fn content_value_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let parts: Vec<String> = blocks
                .iter()
                .filter_map(|block| match block.get("type").and_then(Value::as_str) {
                    Some("text") => block.get("text").and_then(Value::as_str).map(str::to_owned),
                    Some("toolCall") => {
                        Some(format!("→ {}", block.get("name").and_then(Value::as_str).unwrap_or("tool")))
                    }
                    Some("image") => Some("[image]".to_owned()),
                    _ => None,
                })
                .collect();
            parts.join(" ")
        }
        _ => String::new(),
    }
}

fn content_text(raw: &RawJson) -> String {
    raw.decode::<Value>().map(|v| content_value_text(&v)).unwrap_or_default()
}

/// A string value as its text; anything else as its JSON.
fn text_of(raw: &RawJson) -> String {
    raw.as_string().unwrap_or_else(|| raw.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_messages() {
        let entry = Entry::parse(
            r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"text","text":"Sure."},{"type":"toolCall","name":"read"}]}}"#,
        )
        .unwrap();
        assert_eq!(describe(&entry), "assistant: Sure. → read");
    }
}
