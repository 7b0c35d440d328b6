//! Context rebuild: what a session sends to the model from a given leaf
//! (`buildSessionContext` of seed 000, in xcsh's output shape).

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use crate::entry::{Entry, EntryKind};
use crate::id::EntryId;
use crate::projection;
use crate::raw::RawJson;
use crate::time::parse_iso_millis;
use crate::tree::EntryIndex;

/// Where to rebuild the context from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf<'a> {
    /// The last entry of the file (the leaf after a load).
    Last,
    /// `null`: before the first entry, an empty context.
    None,
    /// The entry with this id; the last entry when no entry has it.
    Id(&'a str),
}

/// The model context at a leaf.
///
/// Serializes to xcsh's `SessionContext` shape: `messages`, `thinkingLevel`,
/// `serviceTier`?, `models`, `activeContextName`?, `activeContextTenant`?,
/// `injectedTtsrRules`, `selectedMCPToolNames`, `hasPersistedMCPToolSelection`,
/// `mode`, `modeData`?. Keys whose value is undefined in xcsh are left out.
#[derive(Clone, Debug, Default)]
pub struct SessionContext {
    /// The messages, in order.
    pub messages: Vec<ContextMessage>,
    /// The entry each message was made from, in step with `messages` (for a
    /// compaction's summary, the compaction).
    pub entry_ids: Vec<EntryId>,
    /// The last `thinking_level_change` on the path; `None` means `"off"`.
    pub thinking_level: Option<RawJson>,
    /// The last service tier on the path.
    pub service_tier: Option<RawJson>,
    /// Model per role (`"default"`, `"smol"`, …) as `"provider/modelId"`, in the
    /// order roles were first set.
    pub models: Vec<(String, String)>,
    /// From the last `context_change`.
    pub active_context_name: Option<RawJson>,
    /// From the last `context_change`.
    pub active_context_tenant: Option<RawJson>,
    /// Every injected rule on the path, first occurrence order.
    pub injected_ttsr_rules: Vec<String>,
    /// From the last `mcp_tool_selection`.
    pub selected_mcp_tool_names: Option<RawJson>,
    /// Whether the path has a `mcp_tool_selection`.
    pub has_persisted_mcp_tool_selection: bool,
    /// The last `mode_change`'s mode; `None` means `"none"`.
    pub mode: Option<RawJson>,
    /// The last `mode_change`'s data.
    pub mode_data: Option<RawJson>,
    /// The leaf the context was built from.
    pub leaf: Option<EntryId>,
    /// Set when the path's parent chain loops; the walk stopped at this entry.
    pub cycle_at: Option<EntryId>,
}

/// One message of the context.
#[derive(Clone, Debug)]
pub enum ContextMessage {
    /// A stored agent message, exactly as written (`null` if the entry had none).
    Stored(Option<RawJson>),
    /// The summary of the newest compaction on the path.
    CompactionSummary(CompactionSummary),
    /// A `branch_summary` entry with a summary.
    BranchSummary {
        /// The summary.
        summary: RawJson,
        /// Where the abandoned branch left from.
        from_id: Option<RawJson>,
        /// The entry's time in ms.
        timestamp: Option<i64>,
    },
    /// A `custom_message` entry.
    Custom {
        /// The extension that wrote it.
        custom_type: Option<RawJson>,
        /// Its content.
        content: Option<RawJson>,
        /// Whether it is shown.
        display: Option<RawJson>,
        /// Extension data.
        details: Option<RawJson>,
        /// Who initiated it.
        attribution: Option<RawJson>,
        /// The entry's time in ms.
        timestamp: Option<i64>,
    },
}

/// The summary message of a compaction, in oh-my-pi's key order.
#[derive(Clone, Debug, Default)]
pub struct CompactionSummary {
    /// The summary.
    pub summary: Option<RawJson>,
    /// xcsh's short recap.
    pub short_summary: Option<RawJson>,
    /// Context size before compaction.
    pub tokens_before: Option<RawJson>,
    /// Context size after compaction (oh-my-pi).
    pub tokens_after: Option<RawJson>,
    /// How the summary was made (oh-my-pi).
    pub method: Option<RawJson>,
    /// A provider's own replay of the compacted history: `OpenAI`'s remote
    /// compaction (`openaiResponsesHistory`) or Anthropic's
    /// (`anthropicCompaction`), from the compaction's `preserveData`.
    pub provider_payload: Option<Value>,
    /// A warning the compaction raised (oh-my-pi).
    pub warning: Option<RawJson>,
    /// For an Anthropic compaction, just before the first kept entry's time
    /// in ms: the history before it was rewritten (oh-my-pi 18.3).
    pub history_rewrite_at: Option<i64>,
    /// The compaction's time in ms, `None` when unparseable (`null`).
    pub timestamp: Option<i64>,
}

/// Rebuilds the context of `entries` at `leaf`, as seed 000 specifies:
///
/// 1. the leaf is the given entry, or the last entry when it is not found;
/// 2. walk the parents to the root (a loop is detected and cut);
/// 3. derive thinking level, models, rules, MCP selection, mode and context from
///    the path, the last change winning. An explicit `model_change` always wins
///    over the model of an assistant message, which only fills in a missing
///    `default` role;
/// 4. emit messages; with a compaction on the path, its summary first, then the
///    kept entries from `firstKeptEntryId` up to it, then everything after it.
pub fn build(entries: &[Entry], index: &EntryIndex, leaf: Leaf<'_>) -> SessionContext {
    let leaf = match leaf {
        Leaf::None => return SessionContext::default(),
        Leaf::Id(id) if !id.is_empty() => index.position(id).or(entries.len().checked_sub(1)),
        Leaf::Id(_) | Leaf::Last => entries.len().checked_sub(1),
    };
    let Some(leaf) = leaf else {
        return SessionContext::default();
    };
    let path = index.path(entries, leaf);
    let mut context = SessionContext {
        leaf: Some(entries[leaf].id().clone()),
        cycle_at: path.cycle_at.map(|p| entries[p].id().clone()),
        ..SessionContext::default()
    };
    let path: Vec<&Entry> = path.entries.iter().map(|&p| &entries[p]).collect();
    let compaction = derive_state(&mut context, &path);
    emit_messages(&mut context, &path, compaction);
    context
}

/// Step 3: the state fields, and the position of the newest compaction.
fn derive_state(context: &mut SessionContext, path: &[&Entry]) -> Option<usize> {
    let mut compaction = None;
    for (position, entry) in path.iter().enumerate() {
        match entry.kind() {
            EntryKind::ThinkingLevelChange(change) => {
                context.thinking_level = change.thinking_level.clone().filter(|l| !l.is_null());
            }
            EntryKind::ModelChange(change) => {
                if let Some((role, model)) = change.assignment() {
                    set_model(&mut context.models, role, model);
                }
            }
            EntryKind::Compaction(_) => compaction = Some(position),
            EntryKind::TtsrInjection(injection) => {
                for rule in &injection.injected_rules {
                    if !context.injected_ttsr_rules.contains(rule) {
                        context.injected_ttsr_rules.push(rule.clone());
                    }
                }
            }
            EntryKind::McpToolSelection(selection) => {
                context.selected_mcp_tool_names.clone_from(&selection.selected_tool_names);
                context.has_persisted_mcp_tool_selection = true;
            }
            EntryKind::ModeChange(change) => {
                context.mode.clone_from(&change.mode);
                context.mode_data.clone_from(&change.data);
            }
            EntryKind::ContextChange(change) => {
                context.active_context_name.clone_from(&change.context_name);
                context.active_context_tenant.clone_from(&change.tenant);
            }
            EntryKind::ServiceTierChange(change) => {
                context.service_tier = change.service_tier.clone().filter(|t| !t.is_null());
            }
            EntryKind::Message(_)
            | EntryKind::BranchSummary(_)
            | EntryKind::Custom(_)
            | EntryKind::CustomMessage(_)
            | EntryKind::Label(_)
            | EntryKind::SessionInit(_)
            | EntryKind::SessionInfo(_)
            | EntryKind::ContextEdit(_)
            | EntryKind::ResetBoundary
            | EntryKind::TitleChange(_)
            | EntryKind::Usage
            | EntryKind::Unknown(_) => {}
        }
    }
    // The newest assistant message names the default model when no change
    // did: only that one is read, from the end of the path.
    if !context.models.iter().any(|(role, _)| role == "default")
        && let Some(model) = path.iter().rev().find_map(|entry| assistant_model_of(entry))
    {
        context.models.push(("default".to_owned(), model));
    }
    compaction
}

/// Step 4: the messages, from the entries that make the context
/// ([`context_entries`]), each with the newest `context_edit` among them that
/// targets it applied.
fn emit_messages(context: &mut SessionContext, path: &[&Entry], compaction: Option<usize>) {
    let sources = context_entries(path, compaction);
    let edits = projection::edits(sources.iter().map(|source| source.entry(path)));
    let mut messages = Vec::with_capacity(2);
    for source in &sources {
        let entry = source.entry(path);
        match source {
            Source::Summary { summary, .. } => {
                let EntryKind::Compaction(compaction) = entry.kind() else { continue };
                if let Some(system) = compaction.system_message.as_ref().filter(|m| !m.is_null()) {
                    messages.push(ContextMessage::Stored(Some(system.clone())));
                }
                messages.push(ContextMessage::CompactionSummary(summary.clone()));
            }
            Source::Entry(_) => messages.extend(message_of(entry)),
        }
        if let Some(edit) = edits.get(entry.id().as_str()) {
            projection::apply(&mut messages, edit);
        }
        for message in messages.drain(..) {
            context.messages.push(message);
            context.entry_ids.push(entry.id().clone());
        }
    }
}

/// One entry of the context, by its position on the path.
enum Source {
    /// The newest compaction, at `at`, as its summary (and the system message
    /// it kept).
    Summary { at: usize, summary: CompactionSummary },
    /// An entry, as [`message_of`] gives it.
    Entry(usize),
}

impl Source {
    fn entry<'a>(&self, path: &[&'a Entry]) -> &'a Entry {
        match self {
            Self::Summary { at: position, .. } | Self::Entry(position) => path[*position],
        }
    }
}

/// The entries that make the context, in order:
///
/// - after the newest `reset_boundary` (oh-my-pi's `/clear`) when no
///   compaction follows it: the entries after it;
/// - with a compaction on the path: the newest compaction's summary, then the
///   kept entries from `firstKeptEntryId` up to it (without `system` messages,
///   which the compaction carries itself), then everything after it. A
///   provider's replay of the history stands in for the kept entries, except
///   those after `providerReplayThroughEntryId`; an Anthropic compaction with
///   an empty `firstKeptEntryId` keeps the entries after that one;
/// - otherwise the whole path.
fn context_entries(path: &[&Entry], compaction: Option<usize>) -> Vec<Source> {
    let reset = path.iter().rposition(|e| matches!(e.kind(), EntryKind::ResetBoundary));
    let entries = |range: std::ops::Range<usize>| range.map(Source::Entry);
    match (reset, compaction) {
        (Some(reset), None) => entries(reset + 1..path.len()).collect(),
        (Some(reset), Some(at)) if reset > at => entries(reset + 1..path.len()).collect(),
        (_, Some(at)) => {
            let EntryKind::Compaction(compaction) = path[at].kind() else { return Vec::new() };
            let preserved = compaction.preserve_data.as_ref().and_then(|d| d.decode::<Value>().ok());
            let remote = preserved.as_ref().and_then(remote_compaction);
            let anthropic = if remote.is_none() { preserved.as_ref().and_then(anthropic_compaction) } else { None };
            let position = |id: &EntryId| path[..at].iter().position(|e| e.id() == id);
            let replayed_through = compaction.provider_replay_through_entry_id.as_ref().and_then(position);
            let first_kept = compaction.first_kept_entry_id.as_ref().and_then(position);
            // An Anthropic compaction with an empty `firstKeptEntryId` keeps
            // what follows the provider's replay.
            let empty_first_kept = compaction.first_kept_entry_id.as_ref().is_some_and(|id| id.as_str().is_empty());
            let after_snapshot = replayed_through
                .filter(|_| anthropic.is_some() && empty_first_kept)
                .map(|through| through + 1)
                .filter(|&start| start < at);
            let kept = if remote.is_some() {
                replayed_through.map(|through| through + 1)
            } else {
                first_kept.or(after_snapshot)
            };
            let history_rewrite_at = anthropic.as_ref().and_then(|_| {
                let first_retained = first_kept.or(after_snapshot).unwrap_or(at + 1);
                path.get(first_retained).and_then(|e| millis(e)).map(|ms| ms - 1)
            });
            let summary = CompactionSummary {
                summary: compaction.summary.clone(),
                short_summary: compaction.short_summary.clone(),
                tokens_before: compaction.tokens_before.clone(),
                tokens_after: compaction.tokens_after.clone(),
                method: compaction.method.clone(),
                provider_payload: remote.or(anthropic),
                warning: compaction.warning.clone(),
                history_rewrite_at,
                timestamp: millis(path[at]),
            };
            let mut sources = vec![Source::Summary { at, summary }];
            if let Some(kept) = kept.filter(|&kept| kept < at) {
                sources.extend(entries(kept..at).filter(|s| !is_system_message(s.entry(path))));
            }
            sources.extend(entries(at + 1..path.len()));
            sources
        }
        (None, None) => entries(0..path.len()).collect(),
    }
}

/// A `message` entry whose message has the role `system` (pi 1.6).
fn is_system_message(entry: &Entry) -> bool {
    entry.message().is_some_and(|m| projection::role(m.as_str()).as_deref() == Some("system"))
}

fn set_model(models: &mut Vec<(String, String)>, role: &str, model: String) {
    match models.iter_mut().find(|(r, _)| r == role) {
        Some(slot) => slot.1 = model,
        None => models.push((role.to_owned(), model)),
    }
}

/// `provider/model` of an assistant message.
fn assistant_model_of(entry: &Entry) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Head {
        role: Option<Value>,
        provider: Option<Value>,
        model: Option<Value>,
    }
    let head: Head = entry.message()?.decode().ok()?;
    if head.role.as_ref().and_then(Value::as_str) != Some("assistant") {
        return None;
    }
    match (head.provider?, head.model?) {
        (Value::String(provider), Value::String(model)) => Some(format!("{provider}/{model}")),
        _ => None,
    }
}

/// `OpenAI`'s remote compaction kept in `preserveData`, as oh-my-pi replays it.
fn remote_compaction(data: &Value) -> Option<Value> {
    let remote = data.get("openaiRemoteCompaction")?;
    let provider = remote.get("provider")?.as_str().filter(|p| !p.is_empty())?;
    let items = remote.get("replacementHistory")?.as_array()?;
    if !items.iter().all(Value::is_object) {
        return None;
    }
    Some(serde_json::json!({"type": "openaiResponsesHistory", "provider": provider, "items": items}))
}

/// Anthropic's server compaction kept in `preserveData`, as oh-my-pi replays it.
fn anthropic_compaction(data: &Value) -> Option<Value> {
    let kept = data.get("anthropicCompaction")?;
    let text = |key: &str| kept.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let mut payload = serde_json::Map::new();
    payload.insert("type".into(), "anthropicCompaction".into());
    payload.insert("provider".into(), text("provider")?.into());
    payload.insert("content".into(), text("content")?.into());
    for key in ["encryptedContent", "filesText"] {
        if let Some(value) = text(key) {
            payload.insert(key.into(), value.into());
        }
    }
    Some(Value::Object(payload))
}

fn millis(entry: &Entry) -> Option<i64> {
    entry.timestamp().and_then(parse_iso_millis)
}

/// The message an entry puts in the context, if any: a `message`'s stored
/// message (a `null` or missing `content` given as pi 1.6 gives it: `[]`, or
/// `""` for a `system` message), a `custom_message` (its content `[]` when it
/// has none), a `branch_summary` with a summary. Compactions are not here:
/// only the newest on a path counts, and [`build`] places it.
pub fn message_of(entry: &Entry) -> Option<ContextMessage> {
    match entry.kind() {
        EntryKind::Message(message) => {
            Some(ContextMessage::Stored(message.message.as_ref().map(projection::with_content)))
        }
        EntryKind::CustomMessage(custom) => Some(ContextMessage::Custom {
            custom_type: custom.custom_type.clone(),
            content: Some(custom.content.clone().filter(|c| !c.is_null()).unwrap_or_else(projection::empty_array)),
            display: custom.display.clone(),
            details: custom.details.clone(),
            attribution: custom.attribution.clone(),
            timestamp: millis(entry),
        }),
        EntryKind::BranchSummary(summary) => {
            let text = summary.summary.clone().filter(RawJson::is_truthy)?;
            Some(ContextMessage::BranchSummary {
                summary: text,
                from_id: summary.from_id.clone(),
                timestamp: millis(entry),
            })
        }
        EntryKind::ThinkingLevelChange(_)
        | EntryKind::ModelChange(_)
        | EntryKind::Compaction(_)
        | EntryKind::Custom(_)
        | EntryKind::Label(_)
        | EntryKind::TtsrInjection(_)
        | EntryKind::SessionInit(_)
        | EntryKind::ModeChange(_)
        | EntryKind::SessionInfo(_)
        | EntryKind::ContextChange(_)
        | EntryKind::ServiceTierChange(_)
        | EntryKind::McpToolSelection(_)
        | EntryKind::ContextEdit(_)
        | EntryKind::ResetBoundary
        | EntryKind::TitleChange(_)
        | EntryKind::Usage
        | EntryKind::Unknown(_) => None,
    }
}

/// Serializes `Some` values and leaves `None` out, like `JSON.stringify` with
/// `undefined`.
fn entry_if<M: SerializeMap, T: Serialize>(map: &mut M, key: &str, value: Option<&T>) -> Result<(), M::Error> {
    match value {
        Some(value) => map.serialize_entry(key, value),
        None => Ok(()),
    }
}

impl Serialize for SessionContext {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("messages", &self.messages)?;
        match &self.thinking_level {
            Some(level) => map.serialize_entry("thinkingLevel", level)?,
            None => map.serialize_entry("thinkingLevel", "off")?,
        }
        entry_if(&mut map, "serviceTier", self.service_tier.as_ref())?;
        map.serialize_entry("models", &Models(&self.models))?;
        entry_if(&mut map, "activeContextName", self.active_context_name.as_ref())?;
        entry_if(&mut map, "activeContextTenant", self.active_context_tenant.as_ref())?;
        map.serialize_entry("injectedTtsrRules", &self.injected_ttsr_rules)?;
        match &self.selected_mcp_tool_names {
            Some(names) => map.serialize_entry("selectedMCPToolNames", names)?,
            None => map.serialize_entry("selectedMCPToolNames", &[] as &[String])?,
        }
        map.serialize_entry("hasPersistedMCPToolSelection", &self.has_persisted_mcp_tool_selection)?;
        match &self.mode {
            Some(mode) => map.serialize_entry("mode", mode)?,
            None => map.serialize_entry("mode", "none")?,
        }
        entry_if(&mut map, "modeData", self.mode_data.as_ref())?;
        map.end()
    }
}

struct Models<'a>(&'a [(String, String)]);

impl Serialize for Models<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl Serialize for ContextMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Stored(Some(message)) => message.serialize(serializer),
            Self::Stored(None) => serializer.serialize_unit(),
            Self::CompactionSummary(c) => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("role", "compactionSummary")?;
                entry_if(&mut map, "summary", c.summary.as_ref())?;
                entry_if(&mut map, "shortSummary", c.short_summary.as_ref())?;
                entry_if(&mut map, "tokensBefore", c.tokens_before.as_ref())?;
                entry_if(&mut map, "tokensAfter", c.tokens_after.as_ref())?;
                entry_if(&mut map, "method", c.method.as_ref())?;
                entry_if(&mut map, "providerPayload", c.provider_payload.as_ref())?;
                entry_if(&mut map, "warning", c.warning.as_ref())?;
                entry_if(&mut map, "historyRewriteAt", c.history_rewrite_at.as_ref())?;
                map.serialize_entry("timestamp", &c.timestamp)?;
                map.end()
            }
            Self::BranchSummary { summary, from_id, timestamp } => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("role", "branchSummary")?;
                map.serialize_entry("summary", summary)?;
                entry_if(&mut map, "fromId", from_id.as_ref())?;
                map.serialize_entry("timestamp", timestamp)?;
                map.end()
            }
            Self::Custom { custom_type, content, display, details, attribution, timestamp } => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("role", "custom")?;
                entry_if(&mut map, "customType", custom_type.as_ref())?;
                entry_if(&mut map, "content", content.as_ref())?;
                entry_if(&mut map, "display", display.as_ref())?;
                entry_if(&mut map, "details", details.as_ref())?;
                entry_if(&mut map, "attribution", attribution.as_ref())?;
                map.serialize_entry("timestamp", timestamp)?;
                map.end()
            }
        }
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
