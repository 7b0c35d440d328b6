//! The shapes of rollout lines, as far as a transcript needs them.
//!
//! Every line is `{"timestamp", "type", "payload"}`. Unknown line types,
//! payload types, roles and content parts deserialize to an `Other` variant and
//! are skipped by the reader; fields a transcript does not use are ignored.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// One line, with its payload still raw.
#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    /// RFC 3339, when the line has one.
    #[serde(default)]
    pub(crate) timestamp: Option<String>,
    /// The line's place in the thread's history (Codex 0.171 and later):
    /// 0 for the first line of a thread, continuing across the rollouts of a
    /// fork.
    #[serde(default)]
    pub(crate) ordinal: Option<u64>,
    /// What the payload is.
    #[serde(rename = "type", default)]
    pub(crate) kind: LineKind,
    /// The payload, parsed once the kind is known.
    #[serde(borrow, default)]
    pub(crate) payload: Option<&'a RawValue>,
    /// Facts about the line beside its payload (Codex 0.171 and later).
    #[serde(default)]
    pub(crate) metadata: Option<LineMetadata>,
}

/// The `metadata` of a line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct LineMetadata {
    /// The item is what the model answered to a compaction request: the
    /// summary that the `compacted` line then carries.
    #[serde(default)]
    pub(crate) compaction_output: bool,
}

/// The `type` of a line.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
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
    #[serde(other)]
    Other,
}

/// `session_meta`.
#[derive(Deserialize)]
pub(crate) struct SessionMeta {
    /// The thread id.
    #[serde(default)]
    pub(crate) id: Option<String>,
    /// The thread id in older builds.
    #[serde(default)]
    pub(crate) session_id: Option<String>,
    /// When the thread started.
    #[serde(default)]
    pub(crate) timestamp: Option<String>,
    /// The directory Codex worked in.
    #[serde(default)]
    pub(crate) cwd: Option<String>,
    /// The thread this one was forked from.
    #[serde(default)]
    pub(crate) forked_from_id: Option<String>,
    /// Where the history this rollout continues is (a fork by reference).
    #[serde(default)]
    pub(crate) history_base: Option<HistoryBase>,
}

/// `session_meta.history_base`: the history a rollout continues is the
/// lines of another rollout before this point, which it does not copy.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub(crate) struct HistoryBase {
    /// The rollout the history is in: the UUID in its file name.
    pub(crate) thread_id: String,
    /// Its lines with a lower `ordinal` are the history.
    #[serde(default)]
    pub(crate) end_ordinal_exclusive: Option<u64>,
    /// Its bytes before this offset (of the decompressed file) are the history.
    #[serde(default)]
    pub(crate) end_byte_offset: Option<u64>,
}

/// `response_item`.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ResponseItem {
    /// A chat message.
    Message {
        /// Who speaks.
        role: MessageRole,
        /// The parts.
        #[serde(default)]
        content: Vec<ContentItem>,
    },
    /// The model's reasoning.
    Reasoning {
        /// Summary parts (`summary_text`).
        #[serde(default)]
        summary: Vec<TextPart>,
        /// Raw reasoning parts (`reasoning_text`), rarely present.
        #[serde(default)]
        content: Option<Vec<TextPart>>,
    },
    /// A function tool call.
    FunctionCall {
        /// The tool.
        name: String,
        /// The arguments: a JSON string, in principle.
        #[serde(default)]
        arguments: Value,
        /// Pairs it with its output.
        call_id: String,
    },
    /// The output of a function tool call.
    FunctionCallOutput {
        /// The call.
        call_id: String,
        /// A string (often JSON text), content parts, or `{content, success}`.
        #[serde(default)]
        output: Value,
    },
    /// A freeform tool call (`apply_patch`).
    CustomToolCall {
        /// The tool.
        name: String,
        /// The raw input.
        #[serde(default)]
        input: Value,
        /// Pairs it with its output.
        call_id: String,
    },
    /// The output of a freeform tool call.
    CustomToolCallOutput {
        /// The call.
        call_id: String,
        /// As for a function call.
        #[serde(default)]
        output: Value,
    },
    /// A shell command run by the Responses API's local shell tool.
    LocalShellCall {
        /// Pairs it with its output (a `function_call_output`).
        #[serde(default)]
        call_id: Option<String>,
        /// The item id (Chat Completions).
        #[serde(default)]
        id: Option<String>,
        /// `{type: "exec", command: [...], ...}`.
        #[serde(default)]
        action: Value,
    },
    /// A web search run by the API; it has no output item.
    WebSearchCall {
        /// `completed`, `failed`, `in_progress`, …
        #[serde(default)]
        status: Option<String>,
        /// `{type: "search", query}`, …
        #[serde(default)]
        action: Value,
    },
    /// Reasoning summaries, image generation, compaction items, …
    #[serde(other)]
    Other,
}

/// The `role` of a message.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
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
    /// Anything newer (hidden).
    #[serde(other)]
    Other,
}

/// A part of a message.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
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
    /// Anything newer.
    #[serde(other)]
    Other,
}

/// A reasoning part: `{type, text}`.
#[derive(Deserialize)]
pub(crate) struct TextPart {
    /// The text.
    #[serde(default)]
    pub(crate) text: String,
}

/// `event_msg`: only the events a transcript shows.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Event {
    /// The user's prompt, as the UI saw it.
    UserMessage {
        /// The text.
        #[serde(default)]
        message: String,
        /// Pasted images, as data URLs.
        #[serde(default)]
        images: Option<Vec<String>>,
        /// Attached image files, as paths.
        #[serde(default)]
        local_images: Option<Vec<Value>>,
    },
    /// The model's message, as the UI saw it.
    AgentMessage {
        /// The text.
        #[serde(default)]
        message: String,
    },
    /// A reasoning summary part, as the UI saw it.
    AgentReasoning {
        /// The text.
        #[serde(default)]
        text: String,
    },
    /// The last turns were undone.
    ThreadRolledBack {
        /// How many.
        #[serde(default)]
        num_turns: u64,
    },
    /// A turn stopped before it completed.
    TurnAborted {
        /// `interrupted`, `replaced`, …
        #[serde(default)]
        reason: Option<String>,
    },
    /// An error the harness reported (persisted by some builds only).
    Error {
        /// The message.
        #[serde(default)]
        message: String,
    },
    /// A turn ended; with an `error` when it failed (Codex 0.171 writes a
    /// failed model request only here).
    TaskComplete {
        /// Why the turn failed.
        #[serde(default)]
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
    #[serde(default)]
    pub(crate) message: String,
}

/// `compacted`.
#[derive(Deserialize)]
pub(crate) struct Compacted {
    /// The summary text; empty when the summary is only kept encrypted in
    /// `replacement_history`.
    #[serde(default)]
    pub(crate) message: String,
}
