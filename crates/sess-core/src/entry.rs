//! Session entries: one JSON object per line after the header.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::envelope::{Envelope, EnvelopeError, Field};
use crate::id::EntryId;
use crate::json_text::JsonText;
use crate::raw::{RawJson, Text};

/// One persisted event of a session.
///
/// An entry keeps the exact JSON text it was read from and the fields sess needs
/// to understand, so writing it back never loses what a newer agent wrote: unknown
/// entry types and unknown fields survive every load and rewrite unchanged.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The line: a span of a block of lines read together, or a text of its own.
    json: RawJson,
    id: EntryId,
    parent_id: Option<EntryId>,
    /// Where the timestamp's text is: in the line when it has no escapes.
    timestamp: Option<Stamp>,
    kind: EntryKind,
}

/// What an entry is, with the fields that context rebuild, the tree and the
/// listings read. Everything else stays in [`Entry::json`].
#[derive(Clone, Debug, PartialEq)]
pub enum EntryKind {
    /// `message`: an agent message (user, assistant, tool result, …).
    Message(MessageEntry),
    /// `thinking_level_change`.
    ThinkingLevelChange(ThinkingLevelChange),
    /// `model_change`, in either dialect: `{model, role?}` (xcsh, oh-my-pi) or
    /// `{provider, modelId}` (pi-mono).
    ModelChange(ModelChange),
    /// `compaction`: a summary that replaces the path before `firstKeptEntryId`
    /// (boxed: compactions are rare, and the other kinds stay small).
    Compaction(Box<Compaction>),
    /// `branch_summary`: a summary of an abandoned branch.
    BranchSummary(BranchSummary),
    /// `custom`: extension state, never part of the model context.
    Custom(CustomEntry),
    /// `custom_message`: an extension message that joins the model context.
    CustomMessage(CustomMessage),
    /// `label`: sets or clears the label of another entry.
    Label(Label),
    /// `ttsr_injection`: rules injected into the conversation.
    TtsrInjection(TtsrInjection),
    /// `session_init`: the initial prompt and tools of a subagent session.
    SessionInit(SessionInit),
    /// `mode_change`: the agent's mode (for example `plan`).
    ModeChange(ModeChange),
    /// `session_info` (pi-mono): the session's display name.
    SessionInfo(SessionInfo),
    /// `context_change` (xcsh).
    ContextChange(ContextChange),
    /// `service_tier_change` (xcsh).
    ServiceTierChange(ServiceTierChange),
    /// `mcp_tool_selection` (xcsh).
    McpToolSelection(McpToolSelection),
    /// `context_edit` (pi 1.6): replaces or drops what an earlier entry puts
    /// in the context, on the branches below it.
    ContextEdit(ContextEdit),
    /// `reset_boundary` (oh-my-pi's `/clear`): the context starts after it.
    ResetBoundary,
    /// `title_change` (oh-my-pi): a record of a new session title.
    TitleChange(TitleChange),
    /// `usage` (pi 1.6): tokens a model used outside the conversation (a cache
    /// warm-up, say); never part of the context.
    Usage,
    /// Any other type, kept as it is.
    Unknown(UnknownEntry),
}

/// Fields of a `message` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageEntry {
    /// The agent message, exactly as stored.
    pub message: Option<RawJson>,
}

/// Fields of a `thinking_level_change` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ThinkingLevelChange {
    /// The new level; `null` or absent means `"off"`.
    pub thinking_level: Option<RawJson>,
}

/// Fields of a `model_change` entry in both dialects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelChange {
    /// `"provider/modelId"` (xcsh, oh-my-pi).
    pub model: Option<String>,
    /// The model role; absent means `"default"`.
    pub role: Option<String>,
    /// pi-mono's provider.
    pub provider: Option<String>,
    /// pi-mono's model id.
    pub model_id: Option<String>,
}

impl ModelChange {
    /// The role and `"provider/modelId"` this change sets, whichever dialect wrote it.
    pub fn assignment(&self) -> Option<(&str, String)> {
        let role = self.role.as_deref().unwrap_or("default");
        if let Some(model) = self.model.as_deref().filter(|m| !m.is_empty()) {
            return Some((role, model.to_owned()));
        }
        match (&self.provider, &self.model_id) {
            (Some(provider), Some(model_id)) => Some((role, format!("{provider}/{model_id}"))),
            _ => None,
        }
    }
}

/// Fields of a `compaction` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Compaction {
    /// The summary text.
    pub summary: Option<RawJson>,
    /// xcsh's short recap.
    pub short_summary: Option<RawJson>,
    /// The first entry of the path that the compaction keeps.
    pub first_kept_entry_id: Option<EntryId>,
    /// Context size before compaction.
    pub tokens_before: Option<RawJson>,
    /// Hook data kept across the compaction (xcsh).
    pub preserve_data: Option<RawJson>,
    /// Context size after compaction (oh-my-pi).
    pub tokens_after: Option<RawJson>,
    /// How the summary was made (oh-my-pi: `"snapcompact"`, …).
    pub method: Option<RawJson>,
    /// A warning the compaction raised (oh-my-pi).
    pub warning: Option<RawJson>,
    /// The system message in force when the compaction was made (pi 1.6): it
    /// goes before the summary in the context.
    pub system_message: Option<RawJson>,
    /// The last entry a provider's own replay covers (oh-my-pi): with an empty
    /// `firstKeptEntryId`, the kept entries start after it.
    pub provider_replay_through_entry_id: Option<EntryId>,
}

/// Fields of a `session_init` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInit {
    /// The compaction thresholds of a subagent with its own (oh-my-pi 18.3):
    /// `{thresholdPercent, thresholdTokens}`.
    pub compaction_threshold: Option<RawJson>,
}

/// Fields of a `context_edit` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextEdit {
    /// The entry whose context messages are edited.
    pub target_id: Option<EntryId>,
    /// `{content}` replaces the messages' content; `null` drops them. `None`
    /// when the key is missing: the edit changes nothing.
    pub replacement: Option<RawJson>,
}

/// Fields of a `title_change` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TitleChange {
    /// The new title (a lone surrogate read as U+FFFD).
    pub title: Option<String>,
}

/// Fields of a `branch_summary` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct BranchSummary {
    /// The entry the abandoned branch left from, or `"root"`.
    pub from_id: Option<RawJson>,
    /// The summary text.
    pub summary: Option<RawJson>,
}

/// Fields of a `custom` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomEntry {
    /// The extension that wrote it.
    pub custom_type: Option<String>,
}

/// Fields of a `custom_message` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomMessage {
    /// The extension that wrote it.
    pub custom_type: Option<RawJson>,
    /// A string or an array of text and image blocks.
    pub content: Option<RawJson>,
    /// Whether the agent's UI shows it.
    pub display: Option<RawJson>,
    /// Extension data, not sent to the model.
    pub details: Option<RawJson>,
    /// Who initiated it (xcsh).
    pub attribution: Option<RawJson>,
}

/// Fields of a `label` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The labelled entry.
    pub target_id: Option<EntryId>,
    /// The label; a falsy or absent label clears it.
    pub label: Option<RawJson>,
}

impl Label {
    /// The label text this entry sets, or `None` when it clears the label.
    pub fn text(&self) -> Option<String> {
        let label = self.label.as_ref().filter(|l| l.is_truthy())?;
        Some(label.as_string().unwrap_or_else(|| label.as_str().to_owned()))
    }
}

/// Fields of a `ttsr_injection` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TtsrInjection {
    /// Names of the injected rules.
    pub injected_rules: Vec<String>,
}

/// Fields of a `mode_change` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeChange {
    /// The new mode, or `"none"`.
    pub mode: Option<RawJson>,
    /// Mode data (for example the plan file).
    pub data: Option<RawJson>,
}

/// Fields of a `session_info` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    /// The display name (a lone surrogate read as U+FFFD).
    pub name: Option<String>,
}

/// Fields of a `context_change` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextChange {
    /// The context's name.
    pub context_name: Option<RawJson>,
    /// The context's tenant.
    pub tenant: Option<RawJson>,
}

/// Fields of a `service_tier_change` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceTierChange {
    /// The new tier; `null` clears it.
    pub service_tier: Option<RawJson>,
}

/// Fields of a `mcp_tool_selection` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct McpToolSelection {
    /// The selected tool names.
    pub selected_tool_names: Option<RawJson>,
}

/// An entry of a type sess does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownEntry {
    /// The `type` as written, when it is a string.
    pub type_name: Option<String>,
}

/// Why a JSON line is not an entry.
#[derive(Debug, thiserror::Error)]
pub enum EntryError {
    /// The line is not valid JSON.
    #[error("invalid JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The line is JSON but not an object.
    #[error("not a JSON object")]
    NotAnObject,
    /// The object has no string `id`.
    #[error("entry has no string id")]
    MissingId,
}

impl From<EnvelopeError> for EntryError {
    fn from(err: EnvelopeError) -> Self {
        match err {
            EnvelopeError::Json(err) => Self::Json(err),
            EnvelopeError::NotAnObject => Self::NotAnObject,
        }
    }
}

impl Entry {
    /// Parses one entry from its JSON text.
    ///
    /// # Errors
    /// When the text is not a JSON object with a string `id`.
    pub fn parse(json: &str) -> Result<Self, EntryError> {
        let json: Text = Arc::new(json.trim_matches(is_json_whitespace).to_owned());
        let envelope = Envelope::parse(&json)?;
        Self::from_envelope(&json, 0..json.len(), &envelope)
    }

    /// The entry on `span` of `text` (a block of lines), whose envelope was
    /// parsed from `&text[span]`: it keeps a share of `text`, not a copy.
    pub(crate) fn from_envelope(text: &Text, span: Range<usize>, env: &Envelope<'_>) -> Result<Self, EntryError> {
        let id = env.string(Field::Id).ok_or(EntryError::MissingId)?;
        let raw = |field| env.get(field).map(|value| raw_json(text, value));
        let string = |field| env.string(field).map(Cow::into_owned);
        let kind = match env.string(Field::Type).as_deref() {
            Some("message") => EntryKind::Message(MessageEntry { message: raw(Field::Message) }),
            Some("thinking_level_change") => {
                EntryKind::ThinkingLevelChange(ThinkingLevelChange { thinking_level: raw(Field::ThinkingLevel) })
            }
            Some("model_change") => EntryKind::ModelChange(ModelChange {
                model: string(Field::Model),
                role: string(Field::Role),
                provider: string(Field::Provider),
                model_id: string(Field::ModelId),
            }),
            Some("compaction") => EntryKind::Compaction(Box::new(Compaction {
                summary: raw(Field::Summary),
                short_summary: raw(Field::ShortSummary),
                first_kept_entry_id: string(Field::FirstKeptEntryId).map(EntryId::new),
                tokens_before: raw(Field::TokensBefore),
                preserve_data: raw(Field::PreserveData),
                tokens_after: raw(Field::TokensAfter),
                method: raw(Field::Method),
                warning: raw(Field::Warning),
                system_message: raw(Field::SystemMessage),
                provider_replay_through_entry_id: string(Field::ProviderReplayThroughEntryId).map(EntryId::new),
            })),
            Some("branch_summary") => {
                EntryKind::BranchSummary(BranchSummary { from_id: raw(Field::FromId), summary: raw(Field::Summary) })
            }
            Some("custom") => EntryKind::Custom(CustomEntry { custom_type: string(Field::CustomType) }),
            Some("custom_message") => EntryKind::CustomMessage(CustomMessage {
                custom_type: raw(Field::CustomType),
                content: raw(Field::Content),
                display: raw(Field::Display),
                details: raw(Field::Details),
                attribution: raw(Field::Attribution),
            }),
            Some("label") => EntryKind::Label(Label {
                target_id: string(Field::TargetId).map(EntryId::new),
                label: raw(Field::Label),
            }),
            Some("ttsr_injection") => EntryKind::TtsrInjection(TtsrInjection {
                injected_rules: env
                    .get(Field::InjectedRules)
                    .and_then(|v| serde_json::from_str::<Vec<serde_json::Value>>(v.get()).ok())
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|v| match v {
                        serde_json::Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect(),
            }),
            Some("session_init") => {
                EntryKind::SessionInit(SessionInit { compaction_threshold: raw(Field::CompactionThreshold) })
            }
            Some("mode_change") => EntryKind::ModeChange(ModeChange { mode: raw(Field::Mode), data: raw(Field::Data) }),
            Some("session_info") => {
                EntryKind::SessionInfo(SessionInfo { name: env.lossy_string(Field::Name).map(Cow::into_owned) })
            }
            Some("context_change") => EntryKind::ContextChange(ContextChange {
                context_name: raw(Field::ContextName),
                tenant: raw(Field::Tenant),
            }),
            Some("service_tier_change") => {
                EntryKind::ServiceTierChange(ServiceTierChange { service_tier: raw(Field::ServiceTier) })
            }
            Some("mcp_tool_selection") => {
                EntryKind::McpToolSelection(McpToolSelection { selected_tool_names: raw(Field::SelectedToolNames) })
            }
            Some("context_edit") => EntryKind::ContextEdit(ContextEdit {
                target_id: string(Field::TargetId).map(EntryId::new),
                replacement: raw(Field::Replacement),
            }),
            Some("reset_boundary") => EntryKind::ResetBoundary,
            Some("title_change") => {
                EntryKind::TitleChange(TitleChange { title: env.lossy_string(Field::Title).map(Cow::into_owned) })
            }
            Some("usage") => EntryKind::Usage,
            other => EntryKind::Unknown(UnknownEntry { type_name: other.map(str::to_owned) }),
        };
        Ok(Self {
            json: RawJson::new(Arc::clone(text), span),
            id: EntryId::new(id),
            parent_id: env.string(Field::ParentId).filter(|p| !p.is_empty()).map(EntryId::new),
            timestamp: env.string(Field::Timestamp).map(|t| Stamp::of(text, t)),
            kind,
        })
    }

    /// A `message` entry holding `message`, with its keys in the agents' order
    /// (`type`, `id`, `parentId`, `timestamp`, `message`), as one JSON line.
    ///
    /// The message is not parsed again: a [`JsonText`] is valid JSON. An empty
    /// `parent_id` is written as given but, as on reading, means no parent.
    ///
    /// ```
    /// use serde_json::value::to_raw_value;
    /// use sess_core::{Entry, JsonText};
    ///
    /// let message = JsonText::from(to_raw_value(&serde_json::json!({"role": "user", "content": "hi"}))?);
    /// let entry = Entry::new_message("a1", None, "2026-01-01T00:00:00.000Z", &message);
    /// assert_eq!(
    ///     entry.json(),
    ///     r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#
    /// );
    /// let parsed = Entry::parse(entry.json())?;
    /// assert_eq!((parsed.id(), parsed.parent_id(), parsed.kind()), (entry.id(), entry.parent_id(), entry.kind()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new_message(id: &str, parent_id: Option<&str>, timestamp: &str, message: &JsonText) -> Self {
        let mut entries = Self::new_messages(parent_id, timestamp, &[EntryId::new(id)], &[message]);
        entries.swap_remove(0)
    }

    /// `message` entries for `messages`, as [`Entry::new_message`] makes each,
    /// chained: the first under `parent_id`, each next under the one before.
    /// They share one text block (one allocation for all of them); `ids`
    /// gives their ids, `timestamp` their time.
    ///
    /// # Panics
    /// When `ids` and `messages` differ in length.
    pub fn new_messages(
        parent_id: Option<&str>,
        timestamp: &str,
        ids: &[EntryId],
        messages: &[&JsonText],
    ) -> Vec<Self> {
        assert_eq!(ids.len(), messages.len(), "one id per message");
        let mut stamp = String::with_capacity(timestamp.len() + 2);
        push_json_string(&mut stamp, timestamp);
        let size: usize = ids.iter().zip(messages).map(|(id, m)| 2 * id.as_str().len() + m.as_str().len() + 72).sum();
        let mut block = String::with_capacity(size + stamp.len() * messages.len() + parent_id.map_or(0, str::len) * 2);
        let mut spans = Vec::with_capacity(messages.len());
        let mut parent = parent_id;
        for (id, message) in ids.iter().zip(messages) {
            let start = block.len();
            block.push_str(r#"{"type":"message","id":"#);
            push_json_string(&mut block, id.as_str());
            block.push_str(r#","parentId":"#);
            match parent {
                Some(parent) => push_json_string(&mut block, parent),
                None => block.push_str("null"),
            }
            block.push_str(r#","timestamp":"#);
            let stamp_at = block.len();
            block.push_str(&stamp);
            block.push_str(r#","message":"#);
            let message_at = block.len();
            block.push_str(message.as_str().trim_matches(is_json_whitespace));
            let message_end = block.len();
            block.push('}');
            spans.push((start..block.len(), stamp_at..stamp_at + stamp.len(), message_at..message_end));
            block.push('\n');
            parent = Some(id.as_str());
        }
        let text: Text = Arc::new(block);
        let inline = stamp.len() == timestamp.len() + 2;
        let mut parent = parent_id.filter(|p| !p.is_empty()).map(EntryId::new);
        ids.iter()
            .zip(spans)
            .map(|(id, (line, stamp_span, message))| {
                let timestamp = if inline {
                    Stamp::InLine(span32(stamp_span.start + 1..stamp_span.end - 1))
                } else {
                    Stamp::Owned(timestamp.into())
                };
                let entry = Self {
                    json: RawJson::new(Arc::clone(&text), line),
                    id: id.clone(),
                    parent_id: parent.take(),
                    timestamp: Some(timestamp),
                    kind: EntryKind::Message(MessageEntry { message: Some(RawJson::new(Arc::clone(&text), message)) }),
                };
                parent = Some(id.clone()).filter(|p| !p.as_str().is_empty());
                entry
            })
            .collect()
    }

    /// This entry with its `parentId` set to `parent` (`None`: `null`). The
    /// value is replaced where it stands, so every other byte of the line is
    /// kept; a line without the key gets it at the end.
    ///
    /// # Errors
    /// Only if the entry's own text is not an entry (never for a parsed entry).
    pub fn with_parent_id(&self, parent: Option<&EntryId>) -> Result<Self, EntryError> {
        let mut value = String::new();
        match parent {
            Some(parent) => push_json_string(&mut value, parent.as_str()),
            None => value.push_str("null"),
        }
        self.with_field(Field::ParentId, "parentId", &value)
    }

    /// This entry with its `firstKeptEntryId` set to `id`, the rest of the
    /// line kept as [`with_parent_id`](Self::with_parent_id) keeps it.
    ///
    /// # Errors
    /// Only if the entry's own text is not an entry (never for a parsed entry).
    pub fn with_first_kept_entry_id(&self, id: &EntryId) -> Result<Self, EntryError> {
        let mut value = String::new();
        push_json_string(&mut value, id.as_str());
        self.with_field(Field::FirstKeptEntryId, "firstKeptEntryId", &value)
    }

    /// The line with the (last) value of `field` replaced by the JSON `value`,
    /// or `"key":value` added before the closing brace, parsed again.
    fn with_field(&self, field: Field, key: &str, value: &str) -> Result<Self, EntryError> {
        let line = self.json();
        let old = Envelope::parse(line)?.get(field).map(|raw| {
            let start = offset_in(line, raw.get());
            start..start + raw.get().len()
        });
        if let Some(span) = old {
            return Self::parse(&[&line[..span.start], value, &line[span.end..]].concat());
        }
        let body = line.strip_suffix('}').ok_or(EntryError::NotAnObject)?.trim_end_matches(is_json_whitespace);
        let mut text = String::with_capacity(line.len() + key.len() + value.len() + 4);
        text.push_str(body);
        if !body.ends_with('{') {
            text.push(',');
        }
        push_json_string(&mut text, key);
        text.push(':');
        text.push_str(value);
        text.push('}');
        Self::parse(&text)
    }

    /// The entry's id.
    pub fn id(&self) -> &EntryId {
        &self.id
    }

    /// The parent's id; `None` for a root (a `null`, empty or missing `parentId`).
    pub fn parent_id(&self) -> Option<&EntryId> {
        self.parent_id.as_ref()
    }

    /// The ISO timestamp as written.
    pub fn timestamp(&self) -> Option<&str> {
        match self.timestamp.as_ref()? {
            Stamp::InLine(span) => self.json.base().get(span.start as usize..span.end as usize),
            Stamp::Owned(text) => Some(text),
        }
    }

    /// What the entry is.
    pub fn kind(&self) -> &EntryKind {
        &self.kind
    }

    /// The `type` string of the entry.
    pub fn type_name(&self) -> &str {
        self.kind.type_name()
    }

    /// The exact JSON text of the entry (one line, no newline).
    pub fn json(&self) -> &str {
        self.json.as_str()
    }

    /// The message of a `message` entry.
    pub fn message(&self) -> Option<&RawJson> {
        match &self.kind {
            EntryKind::Message(m) => m.message.as_ref(),
            _ => None,
        }
    }

    /// Whether this is a `message` entry whose message has `role` (`user`,
    /// `assistant`, …).
    pub fn is_message_from(&self, role: &str) -> bool {
        #[derive(serde::Deserialize)]
        struct Role {
            role: Option<serde_json::Value>,
        }
        self.message().and_then(|m| m.decode::<Role>().ok()).and_then(|r| r.role).is_some_and(|r| r == role)
    }
}

impl EntryKind {
    /// The `type` string this kind is written with.
    pub fn type_name(&self) -> &str {
        match self {
            Self::Message(_) => "message",
            Self::ThinkingLevelChange(_) => "thinking_level_change",
            Self::ModelChange(_) => "model_change",
            Self::Compaction(_) => "compaction",
            Self::BranchSummary(_) => "branch_summary",
            Self::Custom(_) => "custom",
            Self::CustomMessage(_) => "custom_message",
            Self::Label(_) => "label",
            Self::TtsrInjection(_) => "ttsr_injection",
            Self::SessionInit(_) => "session_init",
            Self::ModeChange(_) => "mode_change",
            Self::SessionInfo(_) => "session_info",
            Self::ContextChange(_) => "context_change",
            Self::ServiceTierChange(_) => "service_tier_change",
            Self::McpToolSelection(_) => "mcp_tool_selection",
            Self::ContextEdit(_) => "context_edit",
            Self::ResetBoundary => "reset_boundary",
            Self::TitleChange(_) => "title_change",
            Self::Usage => "usage",
            Self::Unknown(u) => u.type_name.as_deref().unwrap_or(""),
        }
    }
}

/// A [`RawJson`] for `value`, which is a slice of `line`.
pub(crate) fn raw_json(line: &Text, value: &RawValue) -> RawJson {
    let start = offset_in(line, value.get());
    RawJson::new(Arc::clone(line), start..start + value.get().len())
}

/// The lines of `entries`, each followed by its `\n`, as one slice of the text
/// they share, when they are consecutive lines of one block (as
/// [`Entry::new_messages`] makes them, or a reader reads them); `None`
/// otherwise. A writer can then write them without joining them first.
pub fn joined_lines(entries: &[Entry]) -> Option<&str> {
    let (base, start, _) = entries.first()?.json.parts();
    let mut next = start;
    for entry in entries {
        let (text, from, to) = entry.json.parts();
        if !Arc::ptr_eq(text, base) || from != next || base.as_bytes().get(to) != Some(&b'\n') {
            return None;
        }
        next = to + 1;
    }
    base.get(start..next)
}

/// Where an entry's timestamp text is.
#[derive(Clone, Debug)]
enum Stamp {
    /// A span of the entry's text block (the string had no escapes).
    InLine(Range<u32>),
    /// Decoded from a string with escapes.
    Owned(Box<str>),
}

impl Stamp {
    /// The timestamp `value`, read from the line on `text`: a span when it
    /// is a slice of `text`, else a copy.
    fn of(text: &Text, value: Cow<'_, str>) -> Self {
        match value {
            Cow::Borrowed(slice) => Self::InLine(span32(offset_in(text, slice)..offset_in(text, slice) + slice.len())),
            Cow::Owned(owned) => Self::Owned(owned.into_boxed_str()),
        }
    }
}

/// A span as two `u32`s: blocks of lines are far below 4 GiB.
fn span32(span: Range<usize>) -> Range<u32> {
    u32::try_from(span.start).unwrap_or(u32::MAX)..u32::try_from(span.end).unwrap_or(u32::MAX)
}

/// Appends `text` as a JSON string: as it is between quotes when nothing in
/// it needs escaping (ids and timestamps), else through `serde_json`.
pub(crate) fn push_json_string(out: &mut String, text: &str) {
    if !text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else if let Ok(json) = serde_json::to_string(text) {
        // Serializing a `str` cannot fail.
        out.push_str(&json);
    }
}

/// Byte offset of `part` inside `whole`; `part` must be a subslice of `whole`.
pub(crate) fn offset_in(whole: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize)
}

/// The whitespace `JSON.parse` allows around a value.
pub(crate) fn is_json_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_built_message_entry_reads_back_the_same() {
        let message = JsonText::from(
            serde_json::value::to_raw_value(&serde_json::json!({"role": "user", "content": "é \"q\""})).unwrap(),
        );
        for (id, parent) in [("a\"1", Some("p\\0")), ("b", None), ("c", Some(""))] {
            let built = Entry::new_message(id, parent, "2026-01-01T00:00:00.000Z", &message);
            let parsed = Entry::parse(built.json()).unwrap();
            assert_eq!(parsed.id(), built.id());
            assert_eq!(parsed.parent_id(), built.parent_id());
            assert_eq!(parsed.timestamp(), built.timestamp());
            assert_eq!(parsed.kind(), built.kind());
            assert_eq!(built.message().map(RawJson::as_str), Some(message.as_str()));
        }
    }

    #[test]
    fn built_message_entries_chain_and_read_back_the_same() {
        let one = JsonText::parse_with(r#"{"role":"user","content":"a"}"#.to_owned(), |_| {}).unwrap();
        let two = JsonText::parse_with(" {\"role\": \"assistant\", \"content\": \"b\"}\n".to_owned(), |_| {}).unwrap();
        let ids = [EntryId::new("e1"), EntryId::new("e\"2")];
        let built = Entry::new_messages(Some("p0"), "2026-01-01T00:00:00.000Z", &ids, &[&one, &two]);
        assert_eq!(built.len(), 2);
        assert_eq!(built[0].parent_id().map(EntryId::as_str), Some("p0"));
        assert_eq!(built[1].parent_id().map(EntryId::as_str), Some("e1"));
        for (entry, message) in built.iter().zip([&one, &two]) {
            let single = Entry::new_message(
                entry.id().as_str(),
                entry.parent_id().map(EntryId::as_str),
                "2026-01-01T00:00:00.000Z",
                message,
            );
            assert_eq!(entry.json(), single.json());
            let parsed = Entry::parse(entry.json()).unwrap();
            assert_eq!(parsed.timestamp(), entry.timestamp());
            assert_eq!(parsed.kind(), entry.kind());
        }
        assert!(Entry::new_messages(None, "t", &[], &[]).is_empty());
        let joined = joined_lines(&built).unwrap();
        assert_eq!(joined, format!("{}\n{}\n", built[0].json(), built[1].json()));
        assert_eq!(joined_lines(&built[1..]).unwrap(), format!("{}\n", built[1].json()));
        // Entries of different texts, or out of order, are not one slice.
        assert!(joined_lines(&[built[1].clone(), built[0].clone()]).is_none());
        let single = Entry::parse(built[0].json()).unwrap();
        assert!(joined_lines(&[single]).is_none());
        assert!(joined_lines(&[]).is_none());
    }

    #[test]
    fn keeps_unknown_fields_and_types() {
        let line = r#"{"type":"future_thing","id":"x1","parentId":null,"timestamp":"t","extra":{"a":[1,2]}}"#;
        let entry = Entry::parse(line).unwrap();
        assert_eq!(entry.json(), line);
        assert_eq!(entry.type_name(), "future_thing");
        assert_eq!(entry.parent_id(), None);
    }

    #[test]
    fn repeated_keys_take_the_last_value() {
        let entry = Entry::parse(r#"{"type":"message","id":"a","id":"b","parentId":"p"}"#).unwrap();
        assert_eq!(entry.id().as_str(), "b");
    }

    #[test]
    fn reads_both_model_change_dialects() {
        let pi = Entry::parse(r#"{"type":"model_change","id":"1","provider":"openai","modelId":"gpt-4o"}"#).unwrap();
        let xcsh = Entry::parse(r#"{"type":"model_change","id":"2","model":"a/b","role":"smol"}"#).unwrap();
        let EntryKind::ModelChange(pi) = pi.kind() else { panic!() };
        let EntryKind::ModelChange(xcsh) = xcsh.kind() else { panic!() };
        assert_eq!(pi.assignment(), Some(("default", "openai/gpt-4o".to_owned())));
        assert_eq!(xcsh.assignment(), Some(("smol", "a/b".to_owned())));
    }

    #[test]
    fn message_is_kept_verbatim() {
        let entry =
            Entry::parse(r#"{"type":"message","id":"a","message":{"role":"user","content":"hi \u00e9","n":1.50}}"#)
                .unwrap();
        assert_eq!(entry.message().unwrap().as_str(), r#"{"role":"user","content":"hi \u00e9","n":1.50}"#);
    }

    #[test]
    fn rejects_lines_that_are_not_entries() {
        assert!(matches!(Entry::parse("[1]"), Err(EntryError::NotAnObject)));
        assert!(matches!(Entry::parse("{\"type\":\"message\"}"), Err(EntryError::MissingId)));
        assert!(matches!(Entry::parse("{\"id\":\"a\"} {}"), Err(EntryError::Json(_))));
        assert!(matches!(Entry::parse("{\"id\":"), Err(EntryError::Json(_))));
    }

    #[test]
    fn a_changed_parent_or_kept_entry_keeps_the_rest_of_the_line() {
        let line = r#"{"type":"message","id":"b","parentId":"lbl" , "timestamp":"t","message":{"role":"user","content":"x \u00e9"},"z":1}"#;
        let entry = Entry::parse(line).unwrap();
        let moved = entry.with_parent_id(Some(&EntryId::new("a\"q"))).unwrap();
        assert_eq!(moved.json(), line.replace(r#""lbl""#, r#""a\"q""#));
        assert_eq!(moved.parent_id().map(EntryId::as_str), Some("a\"q"));
        assert_eq!((moved.id(), moved.timestamp(), moved.kind()), (entry.id(), entry.timestamp(), entry.kind()));
        let root = entry.with_parent_id(None).unwrap();
        assert_eq!(root.json(), line.replace(r#""lbl""#, "null"));
        assert_eq!(root.parent_id(), None);

        // A repeated key: the last one is the one readers use, and the one changed.
        let twice = Entry::parse(r#"{"id":"c","parentId":"x","parentId":"y"}"#).unwrap();
        assert_eq!(twice.with_parent_id(None).unwrap().json(), r#"{"id":"c","parentId":"x","parentId":null}"#);
        // No key: added at the end.
        let bare = Entry::parse(r#"{"type":"compaction","id":"d" }"#).unwrap();
        let kept = bare.with_first_kept_entry_id(&EntryId::new("e")).unwrap();
        assert_eq!(kept.json(), r#"{"type":"compaction","id":"d","firstKeptEntryId":"e"}"#);
        let EntryKind::Compaction(compaction) = kept.kind() else { panic!("{kept:?}") };
        assert_eq!(compaction.first_kept_entry_id.as_ref().map(EntryId::as_str), Some("e"));
    }
}
