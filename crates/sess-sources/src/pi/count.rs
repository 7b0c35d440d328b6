//! How many messages a pi-family transcript has, without building it: what a
//! listing shows beside pi's own count, for every session it lists.
//!
//! The rules are [`super::transcript`]'s (its `Builder`): a user prompt, a
//! `bashExecution`, a summary and a shown custom message are one message each;
//! an assistant turn is one message until the next of those; a tool result
//! joins its call. A stored message is checked with the same field types the
//! transcript decodes, so one the transcript leaves out is not counted; its
//! content is skipped, not decoded. `pi_tests.rs` checks the two agree on every
//! fixture and leaf.

use serde::Deserialize;
use serde::de::{self, IgnoredAny, Visitor};
use serde_json::Value;
use sess_core::context::{self, ContextMessage};
use sess_core::{EntryIndex, Leaf, SessionFile};

/// The number of messages `transcript(file, leaf)` has.
pub fn shown_message_count(file: &SessionFile, leaf: Leaf<'_>) -> usize {
    let entries = file.entries();
    let index = EntryIndex::new(entries);
    let context = context::build(entries, &index, leaf);
    let mut count = 0;
    // Whether an assistant message is still taking the turn's blocks.
    let mut open = false;
    for message in &context.messages {
        let opens = match message {
            ContextMessage::Stored(Some(raw)) => {
                let Ok(shape) = raw.decode::<Shape>() else { continue };
                match shape.role.as_str() {
                    "user" | "bashExecution" => true,
                    "assistant" => {
                        count += usize::from(!open);
                        open = true;
                        continue;
                    }
                    "custom" | "hookMessage" if shape.display.as_ref().is_none_or(crate::jsonl::is_truthy) => true,
                    _ => continue,
                }
            }
            ContextMessage::Stored(None) => continue,
            ContextMessage::CompactionSummary(_) | ContextMessage::BranchSummary { .. } => true,
            ContextMessage::Custom { display, .. } => {
                if display.as_ref().is_some_and(|d| !d.is_truthy()) {
                    continue;
                }
                true
            }
        };
        if opens {
            count += 1;
            open = false;
        }
    }
    count
}

/// The fields of a stored message the transcript decodes, with the same types
/// (so the same messages fail), the large ones skipped.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Fields are read only to be checked, as the transcript reads them.
struct Shape {
    #[serde(default)]
    role: String,
    #[serde(default)]
    content: IgnoredAny,
    timestamp: Option<IgnoredAny>,
    stop_reason: Option<AnyString>,
    error_message: Option<AnyString>,
    tool_call_id: Option<AnyString>,
    #[serde(default)]
    is_error: bool,
    command: Option<AnyString>,
    output: Option<AnyString>,
    exit_code: Option<i64>,
    #[serde(default)]
    cancelled: bool,
    custom_type: Option<AnyString>,
    display: Option<Value>,
}

/// A JSON string, checked but not kept.
struct AnyString;

impl<'de> Deserialize<'de> for AnyString {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Check;
        impl Visitor<'_> for Check {
            type Value = AnyString;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<AnyString, E> {
                Ok(AnyString)
            }
        }
        deserializer.deserialize_str(Check)
    }
}
