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

use std::collections::HashMap;

use serde_json::Value;
use sess_core::integrity::{Finding, Severity, line_finding};

use super::parse::records;
use super::record::Record;
use crate::claude::{LineTree, Node};
use crate::verify::Checked;

/// How long a summary's text may be.
const SUMMARY_CHARS: usize = 80;

/// The record tree of a session file's bytes, and its session ids (a file
/// should hold one).
pub(super) fn record_tree(bytes: &[u8]) -> (LineTree, Vec<(usize, String)>) {
    let mut tree = LineTree::default();
    let mut by_uuid: HashMap<String, usize> = HashMap::new();
    let mut sessions: Vec<(usize, String)> = Vec::new();
    let mut conversation = Vec::new();
    for (line, record) in records(bytes, &mut tree.issues) {
        if let Some(id) = &record.session_id
            && !sessions.iter().any(|(_, s)| s == id)
        {
            sessions.push((line, id.clone()));
        }
        let Some(uuid) = record.uuid.clone() else { continue };
        if let Some(&first) = by_uuid.get(&uuid) {
            if tree.nodes[first].parent_uuid != record.parent_uuid {
                tree.duplicates.push((line, uuid, tree.nodes[first].line));
            }
            conversation[first] |= record.in_conversation();
            continue;
        }
        by_uuid.insert(uuid.clone(), tree.nodes.len());
        conversation.push(record.in_conversation());
        tree.nodes.push(Node {
            summary: summary(&record),
            uuid,
            line,
            kind: record.kind().to_owned(),
            sidechain: record.is_sidechain,
            compaction: record.subtype() == "chat_compression",
            parent_uuid: record.parent_uuid,
            timestamp: record.timestamp,
        });
    }
    let mut parents: Vec<Option<usize>> = vec![None; tree.nodes.len()];
    for (position, node) in tree.nodes.iter().enumerate() {
        let Some(parent) = &node.parent_uuid else { continue };
        match by_uuid.get(parent) {
            Some(&found) if found != position => parents[position] = Some(found),
            Some(_) => tree.loops.push(position),
            None => tree.dangling.push(position),
        }
    }
    break_loops(&mut parents, &mut tree.loops);
    tree.children = vec![Vec::new(); tree.nodes.len()];
    for (position, parent) in parents.iter().enumerate() {
        match parent {
            Some(parent) => tree.children[*parent].push(position),
            None => tree.roots.push(position),
        }
    }
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
    let mut findings: Vec<Finding> = tree.issues.iter().map(line_finding).collect();
    let error = |code, line, uuid: Option<&str>, message| Finding {
        severity: Severity::Error,
        code,
        line: Some(line),
        entry_id: uuid.map(str::to_owned),
        message,
    };
    for (line, uuid, first) in &tree.duplicates {
        let message = format!("uuid {uuid} is also used on line {first}, with another parentUuid");
        findings.push(error("duplicate-id", *line, Some(uuid), message));
    }
    for node in tree.dangling.iter().map(|&n| &tree.nodes[n]) {
        let parent = node.parent_uuid.as_deref().unwrap_or_default();
        let message = format!("parentUuid {parent} is not a record of this file");
        findings.push(error("dangling-parent", node.line, Some(&node.uuid), message));
    }
    for node in tree.loops.iter().map(|&n| &tree.nodes[n]) {
        let message = format!("the parentUuid chain of {} loops back to itself", node.uuid);
        findings.push(error("cycle", node.line, Some(&node.uuid), message));
    }
    if let [(_, first), rest @ ..] = sessions.as_slice() {
        for (line, other) in rest {
            let message = format!("sessionId {other} differs from {first}, the file's first");
            findings.push(error("mixed-sessions", *line, None, message));
        }
    }
    findings.sort_by_key(|f| (f.line.unwrap_or(0), std::cmp::Reverse(f.severity)));
    Checked { entries: tree.nodes.len(), findings }
}

/// Cuts each parent chain that loops: the node where a walk comes back to a
/// node of its own chain loses its parent (and is recorded in `loops`).
fn break_loops(parents: &mut [Option<usize>], loops: &mut Vec<usize>) {
    // 0: not seen, 1: on the walk in progress, 2: done.
    let mut state = vec![0u8; parents.len()];
    for start in 0..parents.len() {
        let mut walk = Vec::new();
        let mut at = Some(start);
        while let Some(node) = at {
            match state[node] {
                2 => break,
                1 => {
                    if let Some(&last) = walk.last() {
                        parents[last] = None;
                        loops.push(last);
                    }
                    break;
                }
                _ => {
                    state[node] = 1;
                    walk.push(node);
                    at = parents[node];
                }
            }
        }
        for node in walk {
            state[node] = 2;
        }
    }
    loops.sort_unstable();
    loops.dedup();
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

/// The first line of `text`, cut to [`SUMMARY_CHARS`] characters.
fn one_line(text: &str) -> String {
    let first = text.trim().lines().next().unwrap_or_default();
    if first.chars().count() > SUMMARY_CHARS {
        let cut: String = first.chars().take(SUMMARY_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        first.to_owned()
    }
}
