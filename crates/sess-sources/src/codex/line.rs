//! The shapes of rollout lines, as far as a transcript needs them.
//!
//! Every line is `{"timestamp", "type", "payload"}`. Every field is read
//! leniently ([`crate::lenient`]): a value of an unexpected type (a `null`
//! string) reads as absent, so it costs that field, not the line. Unknown line
//! types and event types deserialize to an `Other` variant (harness state the
//! reader skips); a response item of an unknown type or a message part that is
//! not text or an image with a URL is kept whole, for an `unknown` block.
//! Fields a transcript does not use are ignored.

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::lenient::{elements, from_str, object, or_default, or_none, string, string_or_empty, truthy};

/// One line, with its payload still raw.
#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    /// RFC 3339, when the line has one.
    #[serde(default, deserialize_with = "string")]
    pub(crate) timestamp: Option<String>,
    /// The line's place in the thread's history (Codex 0.171 and later):
    /// 0 for the first line of a thread, continuing across the rollouts of a
    /// fork.
    #[serde(default, deserialize_with = "or_none")]
    pub(crate) ordinal: Option<u64>,
    /// What the payload is.
    #[serde(rename = "type", default, deserialize_with = "line_kind")]
    pub(crate) kind: LineKind,
    /// The payload, parsed once the kind is known.
    #[serde(borrow, default)]
    pub(crate) payload: Option<&'a RawValue>,
    /// Facts about the line beside its payload (Codex 0.171 and later).
    #[serde(default, deserialize_with = "object")]
    pub(crate) metadata: Option<LineMetadata>,
}

/// A line's `type`: anything but a known string is [`LineKind::Other`].
fn line_kind<'de, D: Deserializer<'de>>(deserializer: D) -> Result<LineKind, D::Error> {
    from_str(deserializer, |kind| match kind {
        "session_meta" => LineKind::SessionMeta,
        "response_item" => LineKind::ResponseItem,
        "event_msg" => LineKind::EventMsg,
        "compacted" => LineKind::Compacted,
        _ => LineKind::Other,
    })
}

/// The `metadata` of a line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct LineMetadata {
    /// The item is what the model answered to a compaction request: the
    /// summary that the `compacted` line then carries.
    #[serde(default, deserialize_with = "truthy")]
    pub(crate) compaction_output: bool,
}

/// The `type` of a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// The thread's header.
    SessionMeta,
    /// What the model saw or said.
    ResponseItem,
    /// A harness event.
    EventMsg,
    /// A compaction.
    Compacted,
    /// `turn_context`, `world_state`, … and lines without a type.
    #[default]
    Other,
}

impl LineKind {
    /// The `type` as written: `session_meta`, `response_item`, …
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::SessionMeta => "session_meta",
            Self::ResponseItem => "response_item",
            Self::EventMsg => "event_msg",
            Self::Compacted => "compacted",
            Self::Other => "line",
        }
    }
}

/// `session_meta`.
#[derive(Deserialize)]
pub(crate) struct SessionMeta {
    /// The thread id.
    #[serde(default, deserialize_with = "string")]
    pub(crate) id: Option<String>,
    /// The thread id in older builds.
    #[serde(default, deserialize_with = "string")]
    pub(crate) session_id: Option<String>,
    /// When the thread started.
    #[serde(default, deserialize_with = "string")]
    pub(crate) timestamp: Option<String>,
    /// The directory Codex worked in.
    #[serde(default, deserialize_with = "string")]
    pub(crate) cwd: Option<String>,
    /// The thread this one was forked from.
    #[serde(default, deserialize_with = "string")]
    pub(crate) forked_from_id: Option<String>,
    /// Where the history this rollout continues is (a fork by reference).
    #[serde(default, deserialize_with = "or_none")]
    pub(crate) history_base: Option<HistoryBase>,
}

/// `session_meta.history_base`: the history a rollout continues is the
/// lines of another rollout before this point, which it does not copy.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub(crate) struct HistoryBase {
    /// The rollout the history is in: the UUID in its file name.
    pub(crate) thread_id: String,
    /// Its lines with a lower `ordinal` are the history.
    #[serde(default, deserialize_with = "or_none")]
    pub(crate) end_ordinal_exclusive: Option<u64>,
    /// Its bytes before this offset (of the decompressed file) are the history.
    #[serde(default, deserialize_with = "or_none")]
    pub(crate) end_byte_offset: Option<u64>,
}

/// `response_item`.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ResponseItem {
    /// A chat message.
    Message {
        /// Who speaks.
        #[serde(default, deserialize_with = "or_default")]
        role: MessageRole,
        /// The parts.
        #[serde(default, deserialize_with = "parts")]
        content: Vec<ContentItem>,
    },
    /// The model's reasoning.
    Reasoning {
        /// Summary parts (`summary_text`).
        #[serde(default, deserialize_with = "elements")]
        summary: Vec<TextPart>,
        /// Raw reasoning parts (`reasoning_text`), rarely present.
        #[serde(default, deserialize_with = "elements")]
        content: Vec<TextPart>,
    },
    /// A function tool call.
    FunctionCall {
        /// The tool.
        #[serde(default, deserialize_with = "string_or_empty")]
        name: String,
        /// The arguments: a JSON string, in principle.
        #[serde(default)]
        arguments: Value,
        /// Pairs it with its output.
        #[serde(default, deserialize_with = "string")]
        call_id: Option<String>,
    },
    /// The output of a function tool call.
    FunctionCallOutput {
        /// The call.
        #[serde(default, deserialize_with = "string")]
        call_id: Option<String>,
        /// A string (often JSON text), content parts, or `{content, success}`.
        #[serde(default)]
        output: Value,
    },
    /// A freeform tool call (`apply_patch`).
    CustomToolCall {
        /// The tool.
        #[serde(default, deserialize_with = "string_or_empty")]
        name: String,
        /// The raw input.
        #[serde(default)]
        input: Value,
        /// Pairs it with its output.
        #[serde(default, deserialize_with = "string")]
        call_id: Option<String>,
    },
    /// The output of a freeform tool call.
    CustomToolCallOutput {
        /// The call.
        #[serde(default, deserialize_with = "string")]
        call_id: Option<String>,
        /// As for a function call.
        #[serde(default)]
        output: Value,
    },
    /// A shell command run by the Responses API's local shell tool.
    LocalShellCall {
        /// Pairs it with its output (a `function_call_output`).
        #[serde(default, deserialize_with = "string")]
        call_id: Option<String>,
        /// The item id (Chat Completions).
        #[serde(default, deserialize_with = "string")]
        id: Option<String>,
        /// `{type: "exec", command: [...], ...}`.
        #[serde(default)]
        action: Value,
    },
    /// A web search run by the API; it has no output item.
    WebSearchCall {
        /// `completed`, `failed`, `in_progress`, …
        #[serde(default, deserialize_with = "string")]
        status: Option<String>,
        /// `{type: "search", query}`, …
        #[serde(default)]
        action: Value,
    },
    /// Harness state kept in the history, not conversation: the snapshot
    /// `/undo` returns to, and the encrypted history a compaction left (its
    /// summary is the `compacted` line).
    #[serde(alias = "compaction", alias = "compaction_summary")]
    GhostSnapshot,
    /// Anything newer: shown as an `unknown` block.
    #[serde(other)]
    Other,
}

/// The `role` of a message.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MessageRole {
    /// The person, or context Codex injects in their name.
    User,
    /// The model.
    Assistant,
    /// Harness instructions (hidden).
    Developer,
    /// System instructions (hidden).
    System,
    /// Anything newer, or no role (hidden).
    #[default]
    #[serde(other)]
    Other,
}

/// A part of a message.
#[derive(Debug, PartialEq)]
pub(crate) enum ContentItem {
    /// Text the user or the harness sent.
    InputText {
        /// The text.
        text: String,
    },
    /// Text the model wrote.
    OutputText {
        /// The text.
        text: String,
    },
    /// An image: a data URL or a URL.
    InputImage {
        /// The image.
        image_url: String,
    },
    /// A part of another type, or without the field its type needs (an
    /// image whose `image_url` is `null`), as written.
    Other(Value),
}

impl ContentItem {
    /// The part `value` is: text and images by their fields, anything else
    /// kept whole.
    fn from_value(mut value: Value) -> Self {
        let (field, make): (&str, fn(String) -> Self) = match value.get("type").and_then(Value::as_str) {
            Some("input_text") => ("text", |text| Self::InputText { text }),
            Some("output_text") => ("text", |text| Self::OutputText { text }),
            Some("input_image") => ("image_url", |image_url| Self::InputImage { image_url }),
            _ => return Self::Other(value),
        };
        if let Some(Value::String(text)) = value.get_mut(field) {
            return make(std::mem::take(text));
        }
        Self::Other(value)
    }
}

/// A message's `content`: its parts, each read by [`ContentItem::from_value`];
/// a content that is not an array is one part (absent or `null`: none).
fn parts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<ContentItem>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => items.into_iter().map(ContentItem::from_value).collect(),
        Value::Null => Vec::new(),
        other => vec![ContentItem::from_value(other)],
    })
}

/// A reasoning part: `{type, text}`.
#[derive(Deserialize)]
pub(crate) struct TextPart {
    /// The text.
    #[serde(default, deserialize_with = "string_or_empty")]
    pub(crate) text: String,
}

/// `event_msg`: only the events a transcript shows.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Event {
    /// The user's prompt, as the UI saw it.
    UserMessage {
        /// The text.
        #[serde(default, deserialize_with = "string_or_empty")]
        message: String,
        /// Pasted images, as data URLs.
        #[serde(default, deserialize_with = "elements")]
        images: Vec<String>,
        /// Attached image files, as paths.
        #[serde(default, deserialize_with = "elements")]
        local_images: Vec<String>,
    },
    /// The model's message, as the UI saw it.
    AgentMessage {
        /// The text.
        #[serde(default, deserialize_with = "string_or_empty")]
        message: String,
    },
    /// A reasoning summary part, as the UI saw it.
    AgentReasoning {
        /// The text.
        #[serde(default, deserialize_with = "string_or_empty")]
        text: String,
    },
    /// The last turns were undone.
    ThreadRolledBack {
        /// How many.
        #[serde(default, deserialize_with = "or_default")]
        num_turns: u64,
    },
    /// A turn stopped before it completed.
    TurnAborted {
        /// `interrupted`, `replaced`, …
        #[serde(default, deserialize_with = "string")]
        reason: Option<String>,
    },
    /// An error the harness reported (persisted by some builds only).
    Error {
        /// The message.
        #[serde(default, deserialize_with = "string_or_empty")]
        message: String,
    },
    /// A turn ended; with an `error` when it failed (Codex 0.171 writes a
    /// failed model request only here).
    TaskComplete {
        /// Why the turn failed.
        #[serde(default, deserialize_with = "or_none")]
        error: Option<TurnError>,
    },
    /// Token counts, task boundaries, patch results, …
    #[serde(other)]
    Other,
}

/// `task_complete.error`.
#[derive(Deserialize)]
pub(crate) struct TurnError {
    /// What went wrong.
    #[serde(default, deserialize_with = "string_or_empty")]
    pub(crate) message: String,
}

/// `compacted`.
#[derive(Deserialize)]
pub(crate) struct Compacted {
    /// The summary text; empty when the summary is only kept encrypted in
    /// `replacement_history`.
    #[serde(default, deserialize_with = "string_or_empty")]
    pub(crate) message: String,
}
