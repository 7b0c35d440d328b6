//! A pi-family session's entries as the page's branch picker shows them.

use std::collections::HashSet;

use sess_core::{Entry, EntryIndex, EntryKind};

use crate::TreeNode;
use crate::describe::describe;

/// The entries a reader picks a leaf from: messages, compactions, branch
/// summaries and custom messages, each under its nearest shown ancestor.
pub(super) fn tree_nodes(entries: &[Entry], leaf: Option<&str>) -> Vec<TreeNode> {
    let index = EntryIndex::new(entries);
    let on_branch: HashSet<usize> = leaf
        .and_then(|l| index.position(l))
        .map(|l| index.path(entries, l).entries.into_iter().collect())
        .unwrap_or_default();
    let shown = |e: &Entry| {
        matches!(
            e.kind(),
            EntryKind::Message(_)
                | EntryKind::Compaction(_)
                | EntryKind::BranchSummary(_)
                | EntryKind::CustomMessage(_)
        )
    };
    let mut nodes = Vec::new();
    for (position, entry) in entries.iter().enumerate() {
        if !shown(entry) {
            continue;
        }
        // The nearest shown ancestor, walking at most the whole file (a loop
        // stops there).
        let mut parent = index.parent_of(entry);
        let mut steps = 0;
        while let Some(p) = parent {
            if shown(&entries[p]) || steps > entries.len() {
                break;
            }
            parent = index.parent_of(&entries[p]);
            steps += 1;
        }
        let role = match entry.kind() {
            EntryKind::Message(m) => m
                .message
                .as_ref()
                .and_then(|m| m.decode::<serde_json::Value>().ok())
                .and_then(|m| m.get("role").and_then(|r| r.as_str()).map(str::to_owned)),
            _ => None,
        };
        nodes.push(TreeNode {
            id: entry.id().to_string(),
            parent_id: parent.filter(|p| shown(&entries[*p])).map(|p| entries[p].id().to_string()),
            kind: entry.type_name().to_owned(),
            role,
            preview: describe(entry),
            label: index.label(entry.id().as_str()).map(str::to_owned),
            timestamp: entry.timestamp().map(str::to_owned),
            on_branch: on_branch.contains(&position),
        });
    }
    nodes
}
