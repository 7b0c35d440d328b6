//! Goose's sessions before 1.10: one `<id>.jsonl` per session, a metadata
//! line (`working_dir`, `description`, token totals) and then one message a
//! line (`{"role", "created", "content": [...]}`).

use serde_json::Value;
use sess_core::LineIssue;

use super::content::RawMessage;
use crate::jsonl::JsonLines;
use crate::usage::{Call, Counter};

/// A session file read.
#[derive(Debug, Default)]
pub(crate) struct Legacy {
    /// Its metadata line.
    pub(crate) meta: Value,
    pub(crate) messages: Vec<RawMessage>,
    pub(crate) issues: Vec<LineIssue>,
}

/// The session id of a file named `name` (`<id>.jsonl`).
pub(crate) fn id_of(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl").filter(|id| !id.is_empty() && !id.starts_with('.'))
}

/// Whether `line` is a metadata line: an object with `working_dir` and
/// `description`, or `message_count`.
pub(crate) fn is_meta(line: &Value) -> bool {
    line.get("working_dir").is_some_and(Value::is_string)
        && (line.get("description").is_some() || line.get("message_count").is_some())
}

/// The session in `bytes`: a line that does not parse is skipped and
/// reported; a first line that is not metadata is read as a message.
pub(crate) fn parse(bytes: &[u8]) -> Legacy {
    let mut legacy = Legacy::default();
    for line in JsonLines::new(bytes) {
        let value: Value = match line.parse_object() {
            Ok(value) => value,
            Err(issue) => {
                legacy.issues.push(issue);
                continue;
            }
        };
        if line.number == 1 && is_meta(&value) {
            legacy.meta = value;
            continue;
        }
        let role = value.get("role").and_then(Value::as_str).unwrap_or_default().to_owned();
        let created_ms = value.get("created").and_then(Value::as_i64).map(|s| s * 1000);
        legacy.messages.push(RawMessage {
            id: value.get("id").and_then(Value::as_str).map(ToOwned::to_owned),
            role,
            created_ms,
            content: value.get("content").cloned().unwrap_or(Value::Null),
            metadata: value.get("metadata").cloned().unwrap_or(Value::Null),
        });
    }
    legacy
}

/// The one call the metadata line records: the session's accumulated
/// tokens (its last call's, in files older than the accumulated fields),
/// at its last message's time. Goose counts no cache apart here.
pub(crate) fn call(legacy: &Legacy) -> Option<Call> {
    let meta = &legacy.meta;
    let prefix = if meta.get("accumulated_input_tokens").is_some() { "accumulated_" } else { "" };
    let counter = Counter::default();
    let input = counter.count("input_tokens", meta.get(format!("{prefix}input_tokens")));
    let output = counter.count("output_tokens", meta.get(format!("{prefix}output_tokens")));
    let call = Call {
        input,
        output,
        timestamp: legacy.messages.iter().filter_map(|m| m.created_ms).max().map(sess_core::format_iso_millis),
        not_counts: counter.take(),
        ..Call::default()
    };
    (!call.is_empty()).then_some(call)
}
