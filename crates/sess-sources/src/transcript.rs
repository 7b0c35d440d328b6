//! The transcript: a session as chat messages made of blocks, whatever agent
//! wrote it.
//!
//! It is the display model of a history view (seed 003): user, assistant and
//! system messages holding text, thinking, tool calls with their status and
//! result, errors, attached context, compaction summaries and images. It
//! serializes to the JSON `sess show --json` prints.

use crate::source::SourceKind;

use serde::Serialize;
use serde_json::Value;
use sess_core::LineIssue;

/// How many messages a history view keeps by default: the newest ones.
pub const DEFAULT_MAX_MESSAGES: usize = 300;

/// A session as chat messages.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Transcript {
    /// The agent that wrote it.
    pub source: SourceKind,
    /// The session id.
    pub id: String,
    /// The title, when the session has one.
    pub title: Option<String>,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// How many older messages were left out ([`Transcript::keep_newest`]).
    pub truncated: usize,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
    /// Lines that were skipped because they do not parse.
    #[serde(skip)]
    pub issues: Vec<LineIssue>,
}

impl Transcript {
    /// An empty transcript.
    pub fn new(source: SourceKind, id: impl Into<String>) -> Self {
        Self { source, id: id.into(), title: None, cwd: None, truncated: 0, messages: Vec::new(), issues: Vec::new() }
    }

    /// Keeps the newest `max` messages and counts the dropped ones in
    /// `truncated`.
    pub fn keep_newest(&mut self, max: usize) {
        let drop = self.messages.len().saturating_sub(max);
        self.messages.drain(..drop);
        self.truncated += drop;
    }

    /// The text of the first user message, for a title when there is none.
    pub fn first_prompt(&self) -> Option<&str> {
        first_prompt(&self.messages)
    }

    /// The session `sess handoff` made this one from, as its note names it
    /// (`Codex session ID (PATH)`); `None` for a session not handed over.
    /// The note is the first text of the first user turn, or of the one after
    /// a summary the agent keeps as a user turn (the Gemini CLI).
    pub fn handed_over_from(&self) -> Option<&str> {
        let users = self.messages.iter().filter(|m| m.role == Role::User).take(2);
        users.filter_map(|m| m.blocks.iter().find(|b| matches!(b, Block::Text { .. }))).find_map(|b| match b {
            Block::Text { text } => crate::handoff::handed_over_from(text),
            _ => None,
        })
    }
}

/// The first non-blank text block of a user message in `messages` (not the
/// note a handed-over session begins with).
pub fn first_prompt(messages: &[Message]) -> Option<&str> {
    messages.iter().filter(|m| m.role == Role::User).flat_map(|m| &m.blocks).find_map(|b| match b {
        Block::Text { text } => Some(crate::handoff::without_note(text)).filter(|t| !t.trim().is_empty()),
        _ => None,
    })
}

/// Who speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person at the keyboard.
    User,
    /// The model.
    Assistant,
    /// The harness: compaction summaries, notices.
    System,
}

impl Role {
    /// `user`, `assistant` or `system`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::System => "system",
        }
    }
}

/// One chat message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// The id of the line or entry that opened the message (a Claude Code
    /// `uuid`, a pi entry id), for links into the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// When the message was opened, as written in the session (ISO 8601).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The content, in order.
    pub blocks: Vec<Block>,
}

impl Message {
    /// A message with no blocks yet.
    pub fn new(role: Role) -> Self {
        Self { role, id: None, timestamp: None, blocks: Vec::new() }
    }

    /// Sets where the message comes from.
    #[must_use]
    pub fn at(mut self, id: Option<String>, timestamp: Option<String>) -> Self {
        self.id = id;
        self.timestamp = timestamp;
        self
    }

    /// Adds a block.
    #[must_use]
    pub fn with(mut self, block: Block) -> Self {
        self.blocks.push(block);
        self
    }
}

/// A piece of a message.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Text as written.
    Text {
        /// The text.
        text: String,
    },
    /// The model's reasoning.
    Thinking {
        /// The reasoning text.
        text: String,
    },
    /// A tool call and, once it completed, its result.
    ToolCall(ToolCall),
    /// An error the harness or the API reported.
    Error {
        /// The message.
        text: String,
    },
    /// Context attached to a prompt, shown collapsed.
    Context {
        /// What it is.
        title: String,
        /// Its text.
        text: String,
    },
    /// The summary a compaction left in place of older messages.
    Summary {
        /// The summary.
        text: String,
    },
    /// An image.
    Image(Image),
    /// A part or line the reader does not understand, kept as written: shown
    /// folded, never dropped.
    Unknown {
        /// What it is, as far as the reader can tell (`input_image`,
        /// `response_item image_generation_call`).
        what: String,
        /// Its JSON.
        raw: Value,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// The block's type as serialized: `text`, `tool_call`, …
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Text { .. } => "text",
            Self::Thinking { .. } => "thinking",
            Self::ToolCall(_) => "tool_call",
            Self::Error { .. } => "error",
            Self::Context { .. } => "context",
            Self::Summary { .. } => "summary",
            Self::Image(_) => "image",
            Self::Unknown { .. } => "unknown",
        }
    }
}

/// A tool call.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The call id that pairs it with its result.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments, as JSON.
    pub input: Value,
    /// Where it stands.
    pub status: ToolStatus,
    /// The result's text, once there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// When it was called (the timestamp of the line that called it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// When its result came (the timestamp of the line with the result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// The conversation of the subagent the call started (a Claude Code
    /// `Task`), oldest first: shown folded under the call, never as the
    /// session's own messages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subagent: Vec<Message>,
    /// What the call changed in files, as unified diffs: empty until
    /// [`add_diffs`](crate::diff::add_diffs) fills it (loading a session
    /// never does), and for a call that edits no file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<crate::diff::FileDiff>,
}

impl ToolCall {
    /// A call that has not completed.
    pub fn running(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
            status: ToolStatus::Running,
            result: None,
            started_at: None,
            ended_at: None,
            subagent: Vec::new(),
            diffs: Vec::new(),
        }
    }

    /// Records the result: `Succeeded`, or `Failed` when `is_error`.
    pub fn complete(&mut self, result: Option<String>, is_error: bool, ended_at: Option<String>) {
        self.status = if is_error { ToolStatus::Failed } else { ToolStatus::Succeeded };
        self.result = result;
        self.ended_at = ended_at;
    }
}

/// Where a tool call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    /// Called; no result yet, and the session goes on.
    Running,
    /// Called, and the session ended before its result came (an interrupted
    /// turn or a crash).
    Pending,
    /// Completed.
    Succeeded,
    /// Completed with an error.
    Failed,
}

impl ToolStatus {
    /// `running`, `pending`, `succeeded` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }
}

/// An image in a message.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// `image/png`, …, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// The base64 data, when the image is inline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Where the image is, when it is not inline (a URL, a file, a blob
    /// reference).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Image {
    /// An image from a URL: a base64 data URL (`data:<type>;base64,<data>`)
    /// is split into its media type and data, anything else is kept as a URL.
    pub(crate) fn from_url(url: &str) -> Self {
        if let Some(rest) = url.strip_prefix("data:")
            && let Some((meta, data)) = rest.split_once(',')
            && let Some(media_type) = meta.strip_suffix(";base64")
        {
            let media_type = (!media_type.is_empty()).then(|| media_type.to_owned());
            return Self { media_type, data: Some(data.to_owned()), url: None };
        }
        Self { media_type: None, data: None, url: Some(url.to_owned()) }
    }
}

/// Input fields that say what a tool call does, in the order they are looked for.
const GIST_KEYS: [&str; 10] =
    ["command", "cmd", "file_path", "filePath", "path", "pattern", "url", "query", "description", "prompt"];

/// What a tool call's `input` says it does, as one line: its first field
/// among a command, a path, a pattern, a URL, a query, a description or a
/// prompt (an array of strings joined with spaces); `None` when it has none.
pub fn input_gist(input: &Value) -> Option<String> {
    let map = input.as_object()?;
    GIST_KEYS.iter().find_map(|key| match map.get(*key)? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) if parts.iter().all(Value::is_string) => {
            Some(parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "))
        }
        _ => None,
    })
}

/// `text` on one line, at most `width` characters: whitespace and control
/// characters folded into single spaces, trimmed, cut with `…` when longer
/// (for listings, titles and previews).
pub fn one_line(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut last_space = false;
    for c in text.chars() {
        let c = if c.is_whitespace() || c.is_control() { ' ' } else { c };
        if c == ' ' && (last_space || count == 0) {
            continue;
        }
        if count == width {
            out.push('…');
            return out.trim_end().to_owned();
        }
        last_space = c == ' ';
        out.push(c);
        count += 1;
    }
    out.trim_end().to_owned()
}

/// Turns every tool call still `Running` into `Pending`: at the end of a file,
/// a call without a result belongs to a turn that was cut off.
pub fn finish_pending(messages: &mut [Message]) {
    for block in messages.iter_mut().flat_map(|m| &mut m.blocks) {
        if let Block::ToolCall(call) = block
            && call.status == ToolStatus::Running
        {
            call.status = ToolStatus::Pending;
        }
    }
}

/// The text of a tool result or message `content`: a string as is, an array's
/// text parts joined by newlines (other parts named in brackets, `[image]`).
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let mut out = String::new();
            for part in parts {
                let piece = match part {
                    Value::String(text) => text.clone(),
                    Value::Object(map) => match map.get("text").and_then(Value::as_str) {
                        Some(text) => text.to_owned(),
                        None => format!("[{}]", map.get("type").and_then(Value::as_str).unwrap_or("content")),
                    },
                    other => other.to_string(),
                };
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&piece);
            }
            out
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn serializes_to_the_show_json_shape() {
        let mut call = ToolCall::running("t1", "Read", json!({"path": "a.rs"}));
        call.complete(Some("fn main() {}".into()), false, Some("2026-01-01T00:00:01.000Z".into()));
        let mut transcript = Transcript::new(crate::claude::SOURCE, "abc");
        transcript.messages.push(Message::new(Role::User).with(Block::text("hi")));
        transcript.messages.push(
            Message::new(Role::Assistant)
                .with(Block::ToolCall(call))
                .with(Block::Context { title: "Restored context".into(), text: "x".into() }),
        );
        let value = serde_json::to_value(&transcript).unwrap();
        assert_eq!(
            value,
            json!({
                "source": "claude", "id": "abc", "title": null, "cwd": null, "truncated": 0,
                "messages": [
                    {"role": "user", "blocks": [{"type": "text", "text": "hi"}]},
                    {"role": "assistant", "blocks": [
                        {"type": "tool_call", "id": "t1", "name": "Read", "input": {"path": "a.rs"},
                         "status": "succeeded", "result": "fn main() {}", "endedAt": "2026-01-01T00:00:01.000Z"},
                        {"type": "context", "title": "Restored context", "text": "x"}
                    ]}
                ]
            })
        );
    }

    #[test]
    fn keep_newest_counts_what_it_drops() {
        let mut transcript = Transcript::new(crate::pi::SOURCE, "p");
        for i in 0..5 {
            transcript.messages.push(Message::new(Role::User).with(Block::text(i.to_string())));
        }
        transcript.keep_newest(3);
        assert_eq!(transcript.truncated, 2);
        assert_eq!(transcript.messages[0].blocks, vec![Block::text("2")]);
        transcript.keep_newest(10);
        assert_eq!(transcript.truncated, 2);
    }

    #[test]
    fn running_calls_become_pending_at_the_end() {
        let mut done = ToolCall::running("a", "x", Value::Null);
        done.complete(None, true, None);
        let mut messages = vec![
            Message::new(Role::Assistant)
                .with(Block::ToolCall(ToolCall::running("b", "y", Value::Null)))
                .with(Block::ToolCall(done)),
        ];
        finish_pending(&mut messages);
        let statuses: Vec<_> = messages[0]
            .blocks
            .iter()
            .map(|b| match b {
                Block::ToolCall(c) => c.status,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(statuses, [ToolStatus::Pending, ToolStatus::Failed]);
    }

    #[test]
    fn content_text_joins_parts() {
        assert_eq!(content_text(&json!("plain")), "plain");
        assert_eq!(
            content_text(&json!([{"type": "text", "text": "a"}, {"type": "image", "source": {}}, "b"])),
            "a\n[image]\nb"
        );
        assert_eq!(content_text(&Value::Null), "");
    }
}
