//! What the catalog keeps of a pi-family session: every message on every
//! branch, each at its own entry, and every model call (`pi/usage.rs`).

use std::collections::HashSet;

use serde_json::Value;
use sess_core::{Entry, EntryKind};

use crate::index::{Added, Indexed, LateResult};
use crate::transcript::{Block, Message, content_text, first_prompt};

/// A whole session file's complete lines.
pub(super) fn whole(path: &std::path::Path, bytes: &[u8]) -> Result<Indexed, String> {
    let outcome = sess_core::read(bytes);
    let file = outcome.file;
    let Some(header) = file.header() else {
        let why = outcome.issues.first().map_or_else(|| "no session header".to_owned(), ToString::to_string);
        return Err(format!("not a pi-family session: {why}"));
    };
    let listed = super::source::listed(path, bytes, &file);
    let entries = file.entries();
    let messages = super::entry_messages(entries);
    let own_title = file.names().name().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned);
    let first_message = first_prompt(&messages).map(|text| text.trim().to_owned());
    Ok(Indexed {
        session_id: header.id().to_owned(),
        title_explicit: own_title.is_some(),
        title: own_title.or(first_message),
        cwd: header.cwd().filter(|c| !c.is_empty()).map(str::to_owned),
        created: header.timestamp().map(str::to_owned),
        message_count: message_entries(entries),
        messages,
        usage: super::usage::calls(entries),
        listed,
    })
}

/// Complete lines added to a session file.
pub(super) fn added(bytes: &[u8]) -> Added {
    let entries: Vec<Entry> = bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| std::str::from_utf8(line).ok())
        .map(|line| line.trim_end_matches('\r'))
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| Entry::parse(line).ok())
        .collect();
    let messages = super::entry_messages(&entries);
    Added {
        title: session_info_name(&entries),
        message_count: message_entries(&entries),
        late_results: late_results(&entries, &messages),
        messages,
        subagent_turns: Vec::new(),
        usage: super::usage::calls(&entries),
    }
}

fn message_entries(entries: &[Entry]) -> usize {
    entries.iter().filter(|e| matches!(e.kind(), EntryKind::Message(_))).count()
}

/// The name the last `session_info` with a name gives.
fn session_info_name(entries: &[Entry]) -> Option<String> {
    entries.iter().rev().find_map(|e| match e.kind() {
        EntryKind::SessionInfo(info) => {
            info.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned)
        }
        _ => None,
    })
}

/// The `toolResult` entries among `entries` whose call is not in `messages`
/// (it was read before), each at its own entry (a leaf `sess show --leaf`
/// takes).
fn late_results(entries: &[Entry], messages: &[Message]) -> Vec<LateResult> {
    let calls: HashSet<&str> = messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|block| match block {
            Block::ToolCall(call) => Some(call.id.as_str()),
            _ => None,
        })
        .collect();
    entries
        .iter()
        .filter_map(|entry| {
            let EntryKind::Message(message) = entry.kind() else { return None };
            let value: Value = message.message.as_ref()?.decode().ok()?;
            if value.get("role").and_then(Value::as_str) != Some("toolResult") {
                return None;
            }
            let call = value.get("toolCallId").and_then(Value::as_str).unwrap_or_default();
            if calls.contains(call) {
                return None;
            }
            Some(LateResult {
                entry_id: Some(entry.id().as_str().to_owned()),
                text: content_text(value.get("content")?),
            })
        })
        .collect()
}
