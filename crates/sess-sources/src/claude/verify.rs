//! What `sess verify` checks in a Claude Code session file.

use super::tree::line_tree;
use crate::line_tree::{Words, findings, sort};
use crate::verify::Checked;

/// Checks a Claude Code session file's bytes: lines that do not parse (a
/// torn last line included), a `uuid` on two lines, a `parentUuid` that
/// names no line of the file, and parent chains that loop. `entries` counts
/// the lines with a `uuid`.
pub fn verify(bytes: &[u8]) -> Checked {
    let tree = line_tree(bytes);
    let mut findings = findings(&tree, &Words { unit: "line", duplicate: "" });
    sort(&mut findings);
    Checked { entries: tree.nodes.len(), findings }
}
