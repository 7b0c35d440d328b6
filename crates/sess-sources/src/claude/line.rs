//! One line of a Claude Code session file, as far as the reader needs it.
//!
//! Only the fields the transcript, the title and the listing use are read;
//! everything else (`toolUseResult`, `snapshot`, …) is skipped by the
//! parser without being built. Every field is lenient: a value of the wrong
//! JSON type reads as absent instead of failing the line.

use serde::Deserialize;
use serde_json::Value;

use crate::lenient::{string, truthy};

/// The fields of a line that matter here.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(clippy::struct_excessive_bools)] // The line's flags, as the file has them.
pub(super) struct Line {
    /// `user`, `assistant`, `summary`, `custom-title`, …
    #[serde(rename = "type", default, deserialize_with = "string")]
    pub(super) kind: Option<String>,
    /// The line's own id (envelope lines only).
    #[serde(default, deserialize_with = "string")]
    pub(super) uuid: Option<String>,
    /// The line it follows: `null` for the first line of a conversation (and
    /// of a subagent's, in a sidechain).
    #[serde(default, deserialize_with = "string")]
    pub(super) parent_uuid: Option<String>,
    /// A line of a subagent's conversation (Claude Code 1.0.x wrote a
    /// `Task`'s turns into the main file).
    #[serde(default, deserialize_with = "truthy")]
    pub(super) is_sidechain: bool,
    /// When the line was written (ISO 8601).
    #[serde(default, deserialize_with = "string")]
    pub(super) timestamp: Option<String>,
    /// The directory the CLI ran in.
    #[serde(default, deserialize_with = "string")]
    pub(super) cwd: Option<String>,
    /// Text the user did not type (caveats, command output, skill bodies).
    #[serde(default, deserialize_with = "truthy")]
    pub(super) is_meta: bool,
    /// The summary a `/compact` left.
    #[serde(default, deserialize_with = "truthy")]
    pub(super) is_compact_summary: bool,
    /// An assistant line the CLI made up to report an API error.
    #[serde(default, deserialize_with = "truthy")]
    pub(super) is_api_error_message: bool,
    /// An error the CLI attached to an assistant line.
    #[serde(default)]
    pub(super) error: Option<Value>,
    /// The API message: `{role, model, content, …}`.
    #[serde(default)]
    pub(super) message: Option<Value>,
    /// `custom-title` lines: the title the user set.
    #[serde(default, deserialize_with = "string")]
    pub(super) custom_title: Option<String>,
    /// `ai-title` lines: the generated title.
    #[serde(default, deserialize_with = "string")]
    pub(super) ai_title: Option<String>,
    /// `summary` lines: the summary text.
    #[serde(default, deserialize_with = "string")]
    pub(super) summary: Option<String>,
    /// Assistant lines: the id of the API request that answered.
    #[serde(default, deserialize_with = "string")]
    pub(super) request_id: Option<String>,
    /// Assistant lines of older versions: the cost the CLI computed.
    #[serde(default, rename = "costUSD", deserialize_with = "crate::lenient::or_none")]
    pub(super) cost_usd: Option<f64>,
    /// `summary` lines: the last line of the branch the summary describes.
    #[serde(default, deserialize_with = "string")]
    pub(super) leaf_uuid: Option<String>,
}

impl Line {
    /// `message.content`: a string or an array of blocks.
    pub(super) fn content(&self) -> Option<&Value> {
        self.message.as_ref()?.get("content")
    }

    /// `message.model`.
    pub(super) fn model(&self) -> Option<&str> {
        self.message.as_ref()?.get("model")?.as_str()
    }

    /// Whether the `error` field is set (JavaScript truthiness, as the CLI
    /// tests it).
    pub(super) fn has_error(&self) -> bool {
        self.error.as_ref().is_some_and(crate::jsonl::is_truthy)
    }
}
