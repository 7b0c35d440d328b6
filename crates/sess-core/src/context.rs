//! Context rebuild: what a session sends to the model from a given leaf
//! (`buildSessionContext` of seed 000, in xcsh's output shape).

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use crate::entry::{Entry, EntryKind};
use crate::id::EntryId;
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
    CompactionSummary {
        /// The summary.
        summary: Option<RawJson>,
        /// xcsh's short recap.
        short_summary: Option<RawJson>,
        /// Context size before compaction.
        tokens_before: Option<RawJson>,
        /// `OpenAI` remote-compaction history kept in `preserveData`.
        provider_payload: Option<ProviderPayload>,
        /// The compaction's time in ms, `None` when unparseable (`null`).
        timestamp: Option<i64>,
    },
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

/// xcsh's `providerPayload` for an `OpenAI` remote compaction.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderPayload {
    /// The provider.
    pub provider: String,
    /// The replacement history.
    pub items: Value,
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
            | EntryKind::SessionInit
            | EntryKind::SessionInfo(_)
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

/// Step 4: the messages, around the newest compaction at `compaction`.
fn emit_messages(context: &mut SessionContext, path: &[&Entry], compaction: Option<usize>) {
    let Some(at) = compaction else {
        push_messages(context, path);
        return;
    };
    let EntryKind::Compaction(compaction) = path[at].kind() else { return };
    let provider_payload = compaction.preserve_data.as_ref().and_then(remote_compaction);
    context.messages.push(ContextMessage::CompactionSummary {
        summary: compaction.summary.clone(),
        short_summary: compaction.short_summary.clone(),
        tokens_before: compaction.tokens_before.clone(),
        timestamp: millis(path[at]),
        provider_payload: provider_payload.clone(),
    });
    context.entry_ids.push(path[at].id().clone());
    // A remote compaction's replacement history stands in for the kept messages.
    if provider_payload.is_none() {
        let kept =
            compaction.first_kept_entry_id.as_ref().and_then(|first| path[..at].iter().position(|e| e.id() == first));
        if let Some(kept) = kept {
            push_messages(context, &path[kept..at]);
        }
    }
    push_messages(context, &path[at + 1..]);
}

/// The messages of `entries`, with the entries they come from.
fn push_messages(context: &mut SessionContext, entries: &[&Entry]) {
    for entry in entries {
        if let Some(message) = message_of(entry) {
            context.messages.push(message);
            context.entry_ids.push(entry.id().clone());
        }
    }
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

fn remote_compaction(preserve_data: &RawJson) -> Option<ProviderPayload> {
    let data: Value = preserve_data.decode().ok()?;
    let remote = data.get("openaiRemoteCompaction")?;
    let provider = remote.get("provider")?.as_str().filter(|p| !p.is_empty())?;
    let items = remote.get("replacementHistory").filter(|h| h.is_array())?;
    Some(ProviderPayload { provider: provider.to_owned(), items: items.clone() })
}

fn millis(entry: &Entry) -> Option<i64> {
    entry.timestamp().and_then(parse_iso_millis)
}

/// The message an entry puts in the context, if any: a `message`'s stored
/// message, a `custom_message`, a `branch_summary` with a summary. Compactions
/// are not here: only the newest on a path counts, and [`build`] places it.
pub fn message_of(entry: &Entry) -> Option<ContextMessage> {
    match entry.kind() {
        EntryKind::Message(message) => Some(ContextMessage::Stored(message.message.clone())),
        EntryKind::CustomMessage(custom) => Some(ContextMessage::Custom {
            custom_type: custom.custom_type.clone(),
            content: custom.content.clone(),
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
        | EntryKind::SessionInit
        | EntryKind::ModeChange(_)
        | EntryKind::SessionInfo(_)
        | EntryKind::ContextChange(_)
        | EntryKind::ServiceTierChange(_)
        | EntryKind::McpToolSelection(_)
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
            Self::CompactionSummary { summary, short_summary, tokens_before, provider_payload, timestamp } => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("role", "compactionSummary")?;
                entry_if(&mut map, "summary", summary.as_ref())?;
                entry_if(&mut map, "shortSummary", short_summary.as_ref())?;
                entry_if(&mut map, "tokensBefore", tokens_before.as_ref())?;
                if let Some(payload) = provider_payload {
                    map.serialize_entry(
                        "providerPayload",
                        &serde_json::json!({
                            "type": "openaiResponsesHistory",
                            "provider": payload.provider,
                            "items": payload.items,
                        }),
                    )?;
                }
                map.serialize_entry("timestamp", timestamp)?;
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
