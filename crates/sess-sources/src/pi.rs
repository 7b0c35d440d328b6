//! Transcripts of pi-family sessions (pi-mono, oh-my-pi, xcsh), from the
//! context path of a leaf.
//!
//! The messages are those the model would see at the leaf
//! ([`sess_core::context::build`]): a compaction's summary stands for what it
//! replaced, and abandoned branches are not shown. Each assistant message's
//! tool calls are completed by the `toolResult` messages that answer them, and
//! an assistant turn stays one message until the next user prompt, as in the
//! other sources. A `bashExecution` (a command the user ran with `!`) is a user
//! message holding one tool call.

use serde::Deserialize;
use serde_json::Value;
use sess_core::context::{self, CompactionSummary, ContextMessage};
use sess_core::{Entry, EntryIndex, EntryKind, Leaf, RawJson, SessionFile, format_iso_millis};

use crate::transcript::{Block, Image, Message, Role, ToolCall, Transcript, content_text, finish_pending};

mod blobs;
mod count;
mod edits;
mod handoff;
mod index;
mod source;
mod usage;

pub use count::shown_message_count;
pub use source::{Pi, SOURCE, info, read_session, summary_info};

/// The transcript of `file` at `leaf`.
///
/// The id and cwd come from the header; the title is the session's name
/// ([`sess_core::SessionNames::name`]: oh-my-pi's title slot, else the newest
/// `title_change`, else the header's `title`, else the last `session_info`
/// name).
pub fn transcript(file: &SessionFile, leaf: Leaf<'_>) -> Transcript {
    let entries = file.entries();
    let index = EntryIndex::new(entries);
    let context = context::build(entries, &index, leaf);
    let header = file.header();
    let mut out = Transcript::new(SOURCE, header.map_or("", |h| h.id()));
    out.cwd = header.and_then(|h| h.cwd()).map(str::to_owned);
    out.title = file.names().name().map(str::to_owned);
    let mut builder = Builder::default();
    for (message, id) in context.messages.iter().zip(&context.entry_ids) {
        builder.push(message, id.as_str());
    }
    out.messages = builder.finish();
    out
}

/// The model calls the assistant messages of `entries` recorded, every
/// branch, in file order (what the catalog keeps of a store's session).
pub fn entry_calls(entries: &[Entry]) -> Vec<crate::Call> {
    usage::calls(entries)
}

/// Every entry of `entries` that holds a message, on any branch, in file
/// order, each as its own message with the entry's id (an assistant turn is
/// not joined, a tool result is not matched to its call): what a search index
/// needs, not a transcript.
pub fn entry_messages(entries: &[Entry]) -> Vec<Message> {
    let mut builder = Builder::default();
    for entry in entries {
        let message = match entry.kind() {
            EntryKind::Compaction(compaction) => ContextMessage::CompactionSummary(CompactionSummary {
                summary: compaction.summary.clone(),
                timestamp: entry.timestamp().and_then(sess_core::parse_iso_millis),
                ..CompactionSummary::default()
            }),
            _ => match context::message_of(entry) {
                Some(message) => message,
                None => continue,
            },
        };
        builder.open = None;
        builder.push(&message, entry.id().as_str());
    }
    builder.finish()
}

/// The fields of a stored agent message that a transcript shows.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    #[serde(default)]
    role: String,
    #[serde(default)]
    content: Value,
    timestamp: Option<Value>,
    // assistant
    stop_reason: Option<String>,
    error_message: Option<String>,
    // toolResult
    tool_call_id: Option<String>,
    #[serde(default)]
    is_error: bool,
    // bashExecution
    command: Option<String>,
    output: Option<String>,
    exit_code: Option<i64>,
    #[serde(default)]
    cancelled: bool,
    // custom (hookMessage before v3)
    custom_type: Option<String>,
    display: Option<Value>,
}

#[derive(Default)]
struct Builder {
    messages: Vec<Message>,
    /// Index of the assistant message still taking blocks.
    open: Option<usize>,
}

impl Builder {
    /// Adds a message made from the entry `id`.
    fn push(&mut self, message: &ContextMessage, id: &str) {
        match message {
            ContextMessage::Stored(Some(raw)) => self.stored(raw, id),
            ContextMessage::Stored(None) => {}
            ContextMessage::CompactionSummary(CompactionSummary { summary, timestamp, .. }) => {
                let text = summary.as_ref().and_then(RawJson::as_string).unwrap_or_default();
                self.system(Block::Summary { text }, id, *timestamp);
            }
            ContextMessage::BranchSummary { summary, timestamp, .. } => {
                let text = summary.as_string().unwrap_or_default();
                self.system(Block::Summary { text }, id, *timestamp);
            }
            ContextMessage::Custom { custom_type, content, display, timestamp, .. } => {
                if display.as_ref().is_some_and(|d| !d.is_truthy()) {
                    return;
                }
                let title = custom_type.as_ref().and_then(RawJson::as_string).unwrap_or_else(|| "custom".to_owned());
                let text = content.as_ref().and_then(|c| c.decode::<Value>().ok()).map(|c| content_text(&c));
                self.system(Block::Context { title, text: text.unwrap_or_default() }, id, *timestamp);
            }
        }
    }

    fn stored(&mut self, raw: &RawJson, id: &str) {
        // A message the model saw but that is not shaped like one is left out;
        // the context verb shows it as is.
        let Ok(message) = raw.decode::<Stored>() else { return };
        let timestamp = message.timestamp.as_ref().and_then(timestamp_text);
        match message.role.as_str() {
            "user" => {
                self.open = None;
                let mut out = Message::new(Role::User).at(Some(id.to_owned()), timestamp);
                out.blocks = user_blocks(&message.content);
                self.messages.push(out);
            }
            "assistant" => self.assistant(&message, id, timestamp.as_ref()),
            "toolResult" => self.tool_result(&message, timestamp),
            "bashExecution" => {
                self.open = None;
                let mut call = ToolCall::running("", "bash", serde_json::json!({ "command": message.command }));
                call.started_at.clone_from(&timestamp);
                let failed = message.cancelled || message.exit_code.is_some_and(|code| code != 0);
                call.complete(message.output.clone(), failed, timestamp.clone());
                self.messages
                    .push(Message::new(Role::User).at(Some(id.to_owned()), timestamp).with(Block::ToolCall(call)));
            }
            "custom" | "hookMessage" => {
                if message.display.as_ref().is_some_and(|d| !crate::jsonl::is_truthy(d)) {
                    return;
                }
                let title = message.custom_type.clone().unwrap_or_else(|| "custom".to_owned());
                let text = content_text(&message.content);
                self.system(Block::Context { title, text }, id, None);
            }
            // pi 1.6 keeps the system prompt in force as a message.
            "system" => {
                self.open = None;
                let block = Block::Context { title: "system".to_owned(), text: content_text(&message.content) };
                self.messages.push(Message::new(Role::System).at(Some(id.to_owned()), timestamp).with(block));
            }
            _ => {}
        }
    }

    fn assistant(&mut self, message: &Stored, id: &str, timestamp: Option<&String>) {
        let open = *self.open.get_or_insert_with(|| {
            self.messages.push(Message::new(Role::Assistant).at(Some(id.to_owned()), timestamp.cloned()));
            self.messages.len() - 1
        });
        let blocks = &mut self.messages[open].blocks;
        for part in message.content.as_array().into_iter().flatten() {
            let text = |key: &str| part.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            match part.get("type").and_then(Value::as_str) {
                Some("text") => blocks.push(Block::Text { text: text("text") }),
                Some("thinking") => blocks.push(Block::Thinking { text: text("thinking") }),
                Some("toolCall") => {
                    let input = part.get("arguments").cloned().unwrap_or(Value::Null);
                    let mut call = ToolCall::running(text("id"), text("name"), input);
                    call.started_at = timestamp.cloned();
                    blocks.push(Block::ToolCall(call));
                }
                Some("image") => blocks.push(Block::Image(image(part))),
                _ => {}
            }
        }
        if let Some(text) = message.content.as_str() {
            blocks.push(Block::text(text));
        }
        if matches!(message.stop_reason.as_deref(), Some("error" | "aborted")) {
            let text = message.error_message.clone().unwrap_or_else(|| {
                if message.stop_reason.as_deref() == Some("aborted") { "Aborted" } else { "Error" }.to_owned()
            });
            blocks.push(Block::Error { text });
        }
    }

    fn tool_result(&mut self, message: &Stored, timestamp: Option<String>) {
        let id = message.tool_call_id.as_deref().unwrap_or_default();
        let call = self.messages.iter_mut().rev().flat_map(|m| m.blocks.iter_mut()).find_map(|b| match b {
            Block::ToolCall(call) if call.id == id && call.status == crate::ToolStatus::Running => Some(call),
            _ => None,
        });
        if let Some(call) = call {
            call.complete(Some(content_text(&message.content)), message.is_error, timestamp);
        }
    }

    fn system(&mut self, block: Block, id: &str, timestamp: Option<i64>) {
        self.open = None;
        self.messages
            .push(Message::new(Role::System).at(Some(id.to_owned()), timestamp.map(format_iso_millis)).with(block));
    }

    fn finish(mut self) -> Vec<Message> {
        finish_pending(&mut self.messages);
        self.messages
    }
}

/// A user message's `content`: a string, or text and image parts.
fn user_blocks(content: &Value) -> Vec<Block> {
    match content {
        Value::String(text) => vec![Block::text(text.clone())],
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| match part.get("type").and_then(Value::as_str) {
                Some("text") => Some(Block::text(part.get("text").and_then(Value::as_str).unwrap_or_default())),
                Some("image") => Some(Block::Image(image(part))),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// pi's image part: `{"type":"image","data","mimeType"}`; the data may be a
/// blob reference when the store could not resolve it.
fn image(part: &Value) -> Image {
    let data = part.get("data").and_then(Value::as_str);
    let (data, url) = match data {
        Some(d) if d.starts_with("blob:") => (None, Some(d.to_owned())),
        Some(d) => (Some(d.to_owned()), None),
        None => (None, None),
    };
    Image { media_type: part.get("mimeType").and_then(Value::as_str).map(str::to_owned), data, url }
}

/// A message's `timestamp`: ms since the epoch (pi) or already text.
fn timestamp_text(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(f64_to_ms)).map(format_iso_millis),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

#[allow(clippy::cast_possible_truncation)]
fn f64_to_ms(ms: f64) -> i64 {
    ms.trunc() as i64
}

#[cfg(test)]
mod tests;
