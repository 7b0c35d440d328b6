//! Appending entries: every `append_*` creates exactly one entry whose parent is
//! the leaf, and the new entry becomes the leaf.

use serde::Serialize;
use serde_json::{Map, Value};
use sess_core::{Entry, EntryId, JsonText, fresh_id};

use super::SessionManager;
use crate::error::{Error, Result};

/// Where the base fields (`id`, `parentId`, `timestamp`) go in the JSON object.
/// The agents write them after `customType` and its data for `custom` and
/// `custom_message` entries, and right after `type` for every other type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum BaseFields {
    First,
    Last,
}

impl BaseFields {
    /// Where an entry of `entry_type` has them: last for the agents' `custom`
    /// and `custom_message` entries, first for every other.
    fn of(entry_type: &str) -> Self {
        if matches!(entry_type, "custom" | "custom_message") { Self::Last } else { Self::First }
    }
}

/// The fields of a `compaction` entry.
#[derive(Clone, Debug, Default)]
pub struct CompactionParams {
    /// The summary of what was compacted.
    pub summary: String,
    /// A short recap.
    pub short_summary: Option<String>,
    /// The first entry the compaction keeps.
    pub first_kept_entry_id: String,
    /// Context size before compaction.
    pub tokens_before: u64,
    /// Extension data.
    pub details: Option<Value>,
    /// Hook data kept across the compaction.
    pub preserve_data: Option<Value>,
    /// Whether an extension made it.
    pub from_extension: Option<bool>,
}

/// The fields of a `custom_message` entry.
#[derive(Clone, Debug)]
pub struct CustomMessageParams {
    /// The extension that writes it.
    pub custom_type: String,
    /// A string or an array of text and image blocks.
    pub content: Value,
    /// Whether the agent's UI shows it.
    pub display: bool,
    /// Extension data, not sent to the model.
    pub details: Option<Value>,
    /// Who initiated it (`"agent"` when not given).
    pub attribution: Option<String>,
}

/// The fields of a `session_init` entry.
#[derive(Clone, Debug, Default)]
pub struct SessionInitParams {
    /// The system prompt.
    pub system_prompt: String,
    /// The task.
    pub task: String,
    /// The tools available.
    pub tools: Vec<String>,
    /// The output schema, if structured output was asked for.
    pub output_schema: Option<Value>,
}

fn opt<T: Into<Value>>(fields: &mut Vec<(&'static str, Value)>, key: &'static str, value: Option<T>) {
    if let Some(value) = value {
        fields.push((key, value.into()));
    }
}

impl SessionManager {
    /// Appends a message (an agent message: `{"role": …, …}`).
    pub fn append_message<M: Serialize + ?Sized>(&mut self, message: &M) -> Result<EntryId> {
        let message = serde_json::value::to_raw_value(message).map_err(invalid)?;
        self.append_message_json(&JsonText::from(message))
    }

    /// Appends a message given as JSON text, written as it is: spacing, key
    /// order and number spelling kept, and not parsed again.
    pub fn append_message_json(&mut self, message: &JsonText) -> Result<EntryId> {
        let mut ids = self.append_messages_json(&[message])?;
        Ok(ids.swap_remove(0))
    }

    /// Appends a thinking level change; `None` is written as `null` (off).
    pub fn append_thinking_level_change(&mut self, level: Option<&str>) -> Result<EntryId> {
        self.append_entry("thinking_level_change", vec![("thinkingLevel", level.into())], BaseFields::First)
    }

    /// Appends a model change (`model` is `"provider/modelId"`; `role` defaults to
    /// `default` when read).
    pub fn append_model_change(&mut self, model: &str, role: Option<&str>) -> Result<EntryId> {
        let mut fields = vec![("model", model.into())];
        opt(&mut fields, "role", role);
        self.append_entry("model_change", fields, BaseFields::First)
    }

    /// Appends a compaction.
    pub fn append_compaction(&mut self, params: CompactionParams) -> Result<EntryId> {
        let mut fields = vec![("summary", params.summary.into())];
        opt(&mut fields, "shortSummary", params.short_summary);
        fields.push(("firstKeptEntryId", params.first_kept_entry_id.into()));
        fields.push(("tokensBefore", params.tokens_before.into()));
        opt(&mut fields, "details", params.details);
        opt(&mut fields, "fromExtension", params.from_extension);
        opt(&mut fields, "preserveData", params.preserve_data);
        self.append_entry("compaction", fields, BaseFields::First)
    }

    /// Appends extension state (never part of the model context).
    pub fn append_custom_entry(&mut self, custom_type: &str, data: Option<Value>) -> Result<EntryId> {
        let mut fields = vec![("customType", custom_type.into())];
        opt(&mut fields, "data", data);
        self.append_entry("custom", fields, BaseFields::Last)
    }

    /// Appends an extension message that joins the model context.
    pub fn append_custom_message_entry(&mut self, params: CustomMessageParams) -> Result<EntryId> {
        let mut fields = vec![
            ("customType", params.custom_type.into()),
            ("content", params.content),
            ("display", params.display.into()),
        ];
        opt(&mut fields, "details", params.details);
        fields.push(("attribution", params.attribution.unwrap_or_else(|| "agent".to_owned()).into()));
        self.append_entry("custom_message", fields, BaseFields::Last)
    }

    /// Sets (`Some`) or clears (`None`) the label of an existing entry.
    pub fn append_label_change(&mut self, target_id: &str, label: Option<&str>) -> Result<EntryId> {
        if !self.index.contains(target_id) {
            return Err(Error::EntryNotFound { id: target_id.to_owned() });
        }
        let mut fields = vec![("targetId", target_id.into())];
        opt(&mut fields, "label", label.filter(|l| !l.is_empty()));
        self.append_entry("label", fields, BaseFields::First)
    }

    /// Records rules injected into the conversation.
    pub fn append_ttsr_injection(&mut self, rules: &[String]) -> Result<EntryId> {
        self.append_entry("ttsr_injection", vec![("injectedRules", rules.into())], BaseFields::First)
    }

    /// Records the initial prompt and tools of a subagent session.
    pub fn append_session_init(&mut self, params: SessionInitParams) -> Result<EntryId> {
        let mut fields = vec![
            ("systemPrompt", params.system_prompt.into()),
            ("task", params.task.into()),
            ("tools", params.tools.into()),
        ];
        opt(&mut fields, "outputSchema", params.output_schema);
        self.append_entry("session_init", fields, BaseFields::First)
    }

    /// Records a mode change (`"none"` leaves a mode).
    pub fn append_mode_change(&mut self, mode: &str, data: Option<Value>) -> Result<EntryId> {
        let mut fields = vec![("mode", mode.into())];
        opt(&mut fields, "data", data);
        self.append_entry("mode_change", fields, BaseFields::First)
    }

    /// Records the active context (xcsh).
    pub fn append_context_change(&mut self, context_name: &str, tenant: &str, namespace: &str) -> Result<EntryId> {
        let fields =
            vec![("contextName", context_name.into()), ("tenant", tenant.into()), ("namespace", namespace.into())];
        self.append_entry("context_change", fields, BaseFields::First)
    }

    /// Records a service tier change; `None` clears it (xcsh).
    pub fn append_service_tier_change(&mut self, tier: Option<&str>) -> Result<EntryId> {
        self.append_entry("service_tier_change", vec![("serviceTier", tier.into())], BaseFields::First)
    }

    /// Records the MCP tools selected for this branch (xcsh).
    pub fn append_mcp_tool_selection(&mut self, names: &[String]) -> Result<EntryId> {
        self.append_entry("mcp_tool_selection", vec![("selectedToolNames", names.into())], BaseFields::First)
    }

    /// Records the session's display name the way pi-mono does (`session_info`).
    pub fn append_session_info(&mut self, name: &str) -> Result<EntryId> {
        self.append_entry("session_info", vec![("name", name.trim().into())], BaseFields::First)
    }

    /// Appends an entry of any type from its type-specific fields; `id`,
    /// `parentId` and `timestamp` are filled in (any given are replaced).
    pub fn append_raw(&mut self, entry_type: &str, fields: Map<String, Value>) -> Result<EntryId> {
        let layout = BaseFields::of(entry_type);
        let fields = fields
            .into_iter()
            .filter(|(k, _)| !matches!(k.as_str(), "type" | "id" | "parentId" | "timestamp"))
            .collect();
        self.append_raw_with_layout(entry_type, fields, layout)
    }

    /// Appends an entry of `entry_type` whose own fields are the members of
    /// the JSON object `fields`, spliced in as written (key order, spacing and
    /// number spelling kept): `id`, `parentId` and `timestamp` right after
    /// `type`, or after the fields for `custom` and `custom_message` entries
    /// (as [`append_raw`](Self::append_raw) places them). The line is what a JavaScript
    /// agent's `JSON.stringify` of the whole entry gives, for the Node binding.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidEntry`] when `fields` is not an object or names a base
    /// field; as [`append_raw`](Self::append_raw) otherwise.
    pub fn append_fields_json(&mut self, entry_type: &str, fields: &str) -> Result<EntryId> {
        let mut named_base = false;
        let object = fields.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
        let inner = object.strip_prefix('{').and_then(|rest| rest.strip_suffix('}')).map(str::trim);
        let Some(inner) = inner else {
            return Err(Error::InvalidEntry {
                reason: format!("the fields of a `{entry_type}` entry are not an object"),
            });
        };
        JsonText::parse_with(object.to_owned(), |key| {
            named_base |= matches!(key, "type" | "id" | "parentId" | "timestamp");
        })
        .map_err(invalid)?;
        if named_base {
            return Err(Error::InvalidEntry {
                reason: format!("the fields of a `{entry_type}` entry name `type`, `id`, `parentId` or `timestamp`"),
            });
        }
        let (id, timestamp) = (self.next_entry_id(), self.now_iso());
        let text = |value: &str| Value::from(value).to_string();
        let parent = self.leaf.as_ref().map_or_else(|| "null".to_owned(), |p| text(p.as_str()));
        let base = format!(r#""id":{},"parentId":{parent},"timestamp":{}"#, text(id.as_str()), text(&timestamp));
        let line = match (inner.is_empty(), BaseFields::of(entry_type)) {
            (true, _) => format!(r#"{{"type":{},{base}}}"#, text(entry_type)),
            (false, BaseFields::First) => format!(r#"{{"type":{},{base},{inner}}}"#, text(entry_type)),
            (false, BaseFields::Last) => format!(r#"{{"type":{},{inner},{base}}}"#, text(entry_type)),
        };
        self.push_line(&line)
    }

    /// Appends `messages` (JSON texts, written as they are) one after the
    /// other under the leaf, as [`append_message_json`](Self::append_message_json)
    /// each, with one timestamp and one shared text block for all of them.
    /// Returns their ids in order.
    pub fn append_messages_json(&mut self, messages: &[&JsonText]) -> Result<Vec<EntryId>> {
        if let Some(reason) = &self.read_only {
            return Err(Error::ReadOnly { reason: reason.clone() });
        }
        let mut ids: Vec<EntryId> = Vec::with_capacity(messages.len());
        // Ids minted in this call, kept apart only when there are several (a
        // single append allocates no set).
        let mut minted = std::collections::HashSet::new();
        for _ in messages {
            let index = &self.index;
            let id = fresh_id(self.ids.as_mut(), &|candidate| index.contains(candidate) || minted.contains(candidate));
            if messages.len() > 1 {
                minted.insert(id.clone());
            }
            ids.push(id);
        }
        self.refresh_stamp();
        let entries = Entry::new_messages(self.leaf.as_ref().map(EntryId::as_str), &self.stamp.1, &ids, messages);
        for entry in entries {
            self.remember(entry);
        }
        if let Some(last) = ids.last() {
            self.leaf = Some(last.clone());
        }
        if !self.batching {
            self.persist_pending()?;
        }
        Ok(ids)
    }

    /// Builds the entry object in the agents' key order and appends it.
    pub(crate) fn append_entry(
        &mut self,
        entry_type: &'static str,
        fields: Vec<(&'static str, Value)>,
        layout: BaseFields,
    ) -> Result<EntryId> {
        let fields = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        self.append_raw_with_layout(entry_type, fields, layout)
    }

    fn append_raw_with_layout(
        &mut self,
        entry_type: &str,
        fields: Map<String, Value>,
        layout: BaseFields,
    ) -> Result<EntryId> {
        let mut object = Map::new();
        object.insert("type".into(), entry_type.into());
        let (id, timestamp) = (self.next_entry_id(), self.now_iso());
        let parent = self.leaf.as_ref().map_or(Value::Null, |p| p.as_str().into());
        let base = [("id", id.as_str().into()), ("parentId", parent), ("timestamp", timestamp.into())];
        if layout == BaseFields::First {
            object.extend(base.clone().into_iter().map(|(k, v)| (k.to_owned(), v)));
        }
        object.extend(fields);
        if layout == BaseFields::Last {
            object.extend(base.into_iter().map(|(k, v)| (k.to_owned(), v)));
        }
        self.push_line(&Value::Object(object).to_string())
    }

    /// A fresh id no entry of this session has.
    pub(crate) fn next_entry_id(&mut self) -> EntryId {
        let index = &self.index;
        fresh_id(self.ids.as_mut(), &|candidate| index.contains(candidate))
    }

    /// Parses an entry line built by this manager and [pushes](Self::push) it.
    pub(super) fn push_line(&mut self, line: &str) -> Result<EntryId> {
        if let Some(reason) = &self.read_only {
            return Err(Error::ReadOnly { reason: reason.clone() });
        }
        let entry = Entry::parse(line).map_err(|e| Error::InvalidEntry { reason: e.to_string() })?;
        self.push(entry)
    }

    /// Adds an entry to memory, makes it the leaf, then persists it (unless a
    /// batch is open). Memory is updated even when persisting fails.
    fn push(&mut self, entry: Entry) -> Result<EntryId> {
        let id = entry.id().clone();
        self.remember(entry);
        self.leaf = Some(id.clone());
        if !self.batching {
            self.persist_pending()?;
        }
        Ok(id)
    }

    /// Runs `appends`, then persists every entry they added at once: one write
    /// under one lock (one `fsync` with [`Durability::Synced`](super::Durability)),
    /// or one backend call. Inside, each append updates memory and returns its
    /// id but writes nothing; the entries reach the OS when this returns `Ok`.
    ///
    /// A caller that must not acknowledge an entry before it is written (as
    /// `sess append` prints ids) batches the input it already has and
    /// acknowledges after this returns.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let mut session = sess_store::SessionManager::create("/p", dir.path())?;
    /// let ids = session.append_batch(|s| {
    ///     let question = s.append_message(&serde_json::json!({"role": "user", "content": "hi"}))?;
    ///     let answer = s.append_message(&serde_json::json!({"role": "assistant", "content": "hello"}))?;
    ///     Ok::<_, sess_store::Error>([question, answer])
    /// })??;
    /// assert_eq!(session.entries().len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn append_batch<T>(&mut self, appends: impl FnOnce(&mut Self) -> T) -> Result<T> {
        let outer = std::mem::replace(&mut self.batching, true);
        let result = appends(self);
        self.batching = outer;
        if !outer {
            self.persist_pending()?;
        }
        Ok(result)
    }

    /// Adds an entry to memory and the index.
    pub(crate) fn remember(&mut self, entry: Entry) {
        if !self.has_assistant && is_assistant(&entry) {
            self.has_assistant = true;
        }
        self.index.push(&entry, self.entries.len());
        self.entries.push(entry);
    }
}

/// Whether an entry is an assistant message.
pub(crate) fn is_assistant(entry: &Entry) -> bool {
    entry.is_message_from("assistant")
}

#[allow(clippy::needless_pass_by_value)] // Used with `map_err`.
fn invalid(err: serde_json::Error) -> Error {
    Error::InvalidEntry { reason: err.to_string() }
}
