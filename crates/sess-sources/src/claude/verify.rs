//! What `sess verify` checks in a Claude Code session file.

use sess_core::integrity::{Finding, Severity, line_finding};

use super::tree::{LineTree, line_tree};
use crate::verify::Checked;

/// Checks a Claude Code session file's bytes: lines that do not parse (a
/// torn last line included), a `uuid` on two lines, a `parentUuid` that
/// names no line of the file, and parent chains that loop. `entries` counts
/// the lines with a `uuid`.
pub fn verify(bytes: &[u8]) -> Checked {
    let tree = line_tree(bytes);
    Checked { entries: tree.nodes.len(), findings: findings(&tree) }
}

fn findings(tree: &LineTree) -> Vec<Finding> {
    let mut findings: Vec<Finding> = tree.issues.iter().map(line_finding).collect();
    let error = |code, line, uuid: &str, message| Finding {
        severity: Severity::Error,
        code,
        line: Some(line),
        entry_id: Some(uuid.to_owned()),
        message,
    };
    for (line, uuid, first) in &tree.duplicates {
        findings.push(error("duplicate-id", *line, uuid, format!("uuid {uuid} is also used on line {first}")));
    }
    for &node in &tree.dangling {
        let node = &tree.nodes[node];
        let parent = node.parent_uuid.as_deref().unwrap_or_default();
        findings.push(error(
            "dangling-parent",
            node.line,
            &node.uuid,
            format!("parentUuid {parent} is not a line of this file"),
        ));
    }
    for &node in &tree.loops {
        let node = &tree.nodes[node];
        let message = format!("the parentUuid chain of {} loops back to itself", node.uuid);
        findings.push(error("cycle", node.line, &node.uuid, message));
    }
    findings.sort_by_key(|f| (f.line.unwrap_or(0), std::cmp::Reverse(f.severity)));
    findings
}
