//! One record (line) of a Qwen Code session file, as far as the reader needs
//! it.
//!
//! Only the fields the transcript, the title, the tree and the listing use are
//! read; everything else (`usageMetadata`, `resultDisplay`, snapshots, …) is
//! skipped without being built. Every field is lenient: a value of the wrong
//! JSON type reads as absent instead of failing the line.

use serde::Deserialize;
use serde_json::Value;

use crate::lenient::{object, string, truthy};

/// The fields of a record that matter here.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Record {
    /// The record's own id.
    #[serde(default, deserialize_with = "string")]
    pub(super) uuid: Option<String>,
    /// The record it follows: `null` for the first one.
    #[serde(default, deserialize_with = "string")]
    pub(super) parent_uuid: Option<String>,
    /// The session the record belongs to.
    #[serde(default, deserialize_with = "string")]
    pub(super) session_id: Option<String>,
    /// When it was written (ISO 8601).
    #[serde(default, deserialize_with = "string")]
    pub(super) timestamp: Option<String>,
    /// `user`, `assistant`, `tool_result` or `system`.
    #[serde(rename = "type", default, deserialize_with = "string")]
    pub(super) kind: Option<String>,
    /// What a `system` record (or a special `user` record) is:
    /// `chat_compression`, `custom_title`, `notification`, …
    #[serde(default, deserialize_with = "string")]
    pub(super) subtype: Option<String>,
    /// The project root the CLI ran in.
    #[serde(default, deserialize_with = "string")]
    pub(super) cwd: Option<String>,
    /// The API content: `{role, parts}`.
    #[serde(default, deserialize_with = "object")]
    pub(super) message: Option<Message>,
    /// What a `system` record holds (or a user record's display text).
    #[serde(default)]
    pub(super) system_payload: Option<Value>,
    /// A `tool_result` record: `{callId, status, …}`.
    #[serde(default, deserialize_with = "object")]
    pub(super) tool_call_result: Option<ToolCallResult>,
    /// A record copied from another session by a fork: `{sessionId, messageUuid}`.
    #[serde(default, deserialize_with = "object")]
    pub(super) forked_from: Option<ForkedFrom>,
    /// A record of a subagent's own transcript.
    #[serde(default, deserialize_with = "truthy")]
    pub(super) is_sidechain: bool,
}

/// `message`: the content sent to or received from the model.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Message {
    /// Text, thoughts, function calls and responses, inline data.
    #[serde(default, deserialize_with = "parts")]
    pub(super) parts: Vec<Value>,
}

/// `toolCallResult` of a `tool_result` record.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolCallResult {
    /// The call it answers.
    #[serde(default, deserialize_with = "string")]
    pub(super) call_id: Option<String>,
    /// `success` or `error`.
    #[serde(default, deserialize_with = "string")]
    pub(super) status: Option<String>,
}

/// `forkedFrom` of a record a fork copied.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ForkedFrom {
    /// The session it was copied from.
    #[serde(default, deserialize_with = "string")]
    pub(super) session_id: Option<String>,
}

/// An array field as its elements; any other value reads as empty.
fn parts<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Value>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(parts) => parts,
        _ => Vec::new(),
    })
}

impl Record {
    /// The record's `type`, or `""`.
    pub(super) fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or_default()
    }

    /// The record's `subtype`, or `""`.
    pub(super) fn subtype(&self) -> &str {
        self.subtype.as_deref().unwrap_or_default()
    }

    /// The parts of `message`.
    pub(super) fn parts(&self) -> &[Value] {
        self.message.as_ref().map_or(&[], |m| m.parts.as_slice())
    }

    /// A string field of `systemPayload`.
    pub(super) fn payload_str(&self, key: &str) -> Option<&str> {
        self.system_payload.as_ref()?.get(key)?.as_str()
    }

    /// Whether the record is part of the conversation tree, as Qwen Code walks
    /// it: every record but artifact, source and managed-session bookkeeping.
    pub(super) fn in_conversation(&self) -> bool {
        !(self.kind() == "system"
            && (self.subtype().starts_with("session_artifact_")
                || self.subtype().starts_with("managed_session_")
                || self.subtype() == "session_sources_snapshot"))
    }
}
