//! The record tree of a Qwen Code session, and what `sess verify` checks in
//! it.
//!
//! Every record with a `uuid` is a node whose parent is the record its
//! `parentUuid` names. A rewind writes a record whose parent is the one before
//! the rewound prompt: the tree branches there, and the rewound records stay
//! on the dead branch. Records sharing a `uuid` and a parent are fragments of
//! one record (the CLI merges them), not damage; sharing a `uuid` with another
//! parent is. The leaf is the last record of the conversation (every record
//! but artifact and bookkeeping ones), as the CLI picks it on resume.

use serde_json::Value;
use sess_core::integrity::{Finding, Severity};

use super::parse::records;
use super::record::Record;
use crate::line_tree::{Builder, LineTree, Node, Words, findings, one_line, sort};
use crate::verify::Checked;

/// The record tree of a session file's bytes, and its session ids (a file
/// should hold one).
pub(super) fn record_tree(bytes: &[u8]) -> (LineTree, Vec<(usize, String)>) {
    let mut builder = Builder::default();
    let mut sessions: Vec<(usize, String)> = Vec::new();
    let mut conversation = Vec::new();
    for (line, record) in records(bytes, &mut builder.tree.issues) {
        if let Some(id) = &record.session_id
            && !sessions.iter().any(|(_, s)| s == id)
        {
            sessions.push((line, id.clone()));
        }
        let Some(uuid) = record.uuid.clone() else { continue };
        if let Some(first) = builder.position(&uuid) {
            let tree = &mut builder.tree;
            if tree.nodes[first].parent_uuid != record.parent_uuid {
                tree.duplicates.push((line, uuid, tree.nodes[first].line));
            }
            conversation[first] |= record.in_conversation();
            continue;
        }
        conversation.push(record.in_conversation());
        let node = Node {
            summary: summary(&record),
            uuid,
            line,
            kind: record.kind().to_owned(),
            sidechain: record.is_sidechain,
            compaction: record.subtype() == "chat_compression",
            parent_uuid: record.parent_uuid,
            timestamp: record.timestamp,
        };
        builder.add(node, None);
    }
    let mut tree = builder.finish();
    tree.leaf = conversation.iter().rposition(|&c| c);
    (tree, sessions)
}

/// Checks a Qwen Code session file's bytes: lines that do not parse (a torn
/// last line included), a `uuid` on two records with different parents, a
/// `parentUuid` that names no record of the file, parent chains that loop,
/// and records of more than one session. `entries` counts the records with a
/// `uuid` (fragments once).
pub fn verify(bytes: &[u8]) -> Checked {
    let (tree, sessions) = record_tree(bytes);
    let words = Words { unit: "record", duplicate: ", with another parentUuid" };
    let mut findings = findings(&tree, &words);
    if let [(_, first), rest @ ..] = sessions.as_slice() {
        for (line, other) in rest {
            findings.push(Finding {
                severity: Severity::Error,
                code: "mixed-sessions",
                line: Some(*line),
                entry_id: None,
                message: format!("sessionId {other} differs from {first}, the file's first"),
            });
        }
    }
    sort(&mut findings);
    Checked { entries: tree.nodes.len(), findings }
}

/// What a record holds, on one line.
fn summary(record: &Record) -> String {
    let kind = record.kind();
    let part_text = |thought: bool| {
        record.parts().iter().find_map(|p| {
            let is_thought = p.get("thought").is_some_and(crate::jsonl::is_truthy);
            (is_thought == thought).then(|| p.get("text")?.as_str()).flatten().filter(|t| !t.trim().is_empty())
        })
    };
    let names =
        |key: &str| -> Vec<&str> { record.parts().iter().filter_map(|p| p.get(key)?.get("name")?.as_str()).collect() };
    match kind {
        "user" | "assistant" => {
            if let Some(text) = part_text(false) {
                return format!("{kind}: {}", one_line(text));
            }
            let calls = names("functionCall");
            if !calls.is_empty() {
                return format!("tool call: {}", calls.join(", "));
            }
            if part_text(true).is_some() { format!("{kind}: thinking") } else { kind.to_owned() }
        }
        "tool_result" => {
            let failed = record.tool_call_result.as_ref().and_then(|r| r.status.as_deref()) == Some("error");
            let names = names("functionResponse").join(", ");
            if failed { format!("tool result (error): {names}") } else { format!("tool result: {names}") }
        }
        "system" => match record.subtype() {
            "" => "system".to_owned(),
            "custom_title" => format!("title: {}", one_line(record.payload_str("customTitle").unwrap_or_default())),
            "ui_telemetry" => {
                let event = record.system_payload.as_ref().and_then(|p| p.pointer("/uiEvent/event.name"));
                format!("telemetry: {}", event.and_then(Value::as_str).unwrap_or_default())
            }
            subtype => format!("system: {subtype}"),
        },
        other => other.to_owned(),
    }
}
