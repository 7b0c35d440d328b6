//! A tree of a session file's lines linked by ids and parents' ids (a
//! `uuid` and a `parentUuid`): every line with an id is a node whose parent
//! is the line its parent id names.
//!
//! A line whose parent is not the line before it branches the tree there (a
//! rewind, an edited prompt, a session resumed from an earlier point). The
//! same walk gives what `sess verify` checks: lines that do not parse, an id
//! used twice, a parent id that names no line of the file, and parent chains
//! that loop. A source reads its own lines and adds them to a [`Builder`];
//! the linking, the loops and the damage are the same for every source.

use std::collections::HashMap;

use sess_core::LineIssue;
use sess_core::integrity::{Finding, Severity, line_finding};

/// One line with an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The line's id (`uuid`).
    pub uuid: String,
    /// 1-based line number.
    pub line: usize,
    /// The line's `type`: `user`, `assistant`, `system`, …
    pub kind: String,
    /// What the line holds, on one line: `user: text`, `tool call: Bash`, …
    pub summary: String,
    /// A subagent's line (`isSidechain`).
    pub sidechain: bool,
    /// A compaction: a compaction boundary (hung under the last line before
    /// it) or a compression's summary.
    pub compaction: bool,
    /// The line's parent id (`parentUuid`), as written.
    pub parent_uuid: Option<String>,
    /// When the line was written (ISO 8601).
    pub timestamp: Option<String>,
}

/// The tree of a session's lines.
#[derive(Clone, Debug, Default)]
pub struct LineTree {
    /// The nodes in file order (an id seen again is not a second node).
    pub nodes: Vec<Node>,
    /// The nodes without a parent in the file, in file order: the first
    /// line, sidechain starts, lines whose parent is missing, and a line
    /// where a loop was broken.
    pub roots: Vec<usize>,
    /// Each node's children, in file order.
    pub children: Vec<Vec<usize>>,
    /// The node the session continues from.
    pub leaf: Option<usize>,
    /// Lines that do not parse (a cut last line included).
    pub issues: Vec<LineIssue>,
    /// Lines whose id an earlier line has: (line, uuid, first line).
    pub duplicates: Vec<(usize, String, usize)>,
    /// Nodes whose parent id names no line of the file.
    pub dangling: Vec<usize>,
    /// Nodes made roots because their parent chain loops back to them.
    pub loops: Vec<usize>,
}

/// A [`LineTree`] in the making: nodes are added in file order, each with the
/// parent it names, and linked once every line is read ([`Builder::finish`]).
#[derive(Default)]
pub(crate) struct Builder {
    /// The tree so far: the source adds its issues and duplicates.
    pub(crate) tree: LineTree,
    by_uuid: HashMap<String, usize>,
    /// The parent each node names, and whether it is a logical parent.
    links: Vec<Option<(String, bool)>>,
}

impl Builder {
    /// The position of the node with this id, if one was added.
    pub(crate) fn position(&self, uuid: &str) -> Option<usize> {
        self.by_uuid.get(uuid).copied()
    }

    /// Adds a node (whose id no earlier node has). Its parent is the line its
    /// `parent_uuid` names; without one, the line `logical_parent` names, if
    /// any: a compaction boundary hangs there and is marked
    /// [`Node::compaction`], and a logical parent missing from the file (it
    /// may be in an older one) is no damage.
    pub(crate) fn add(&mut self, node: Node, logical_parent: Option<String>) {
        let link = match (&node.parent_uuid, logical_parent) {
            (Some(parent), _) => Some((parent.clone(), false)),
            (None, Some(logical)) => Some((logical, true)),
            (None, None) => None,
        };
        self.by_uuid.insert(node.uuid.clone(), self.tree.nodes.len());
        self.links.push(link);
        self.tree.nodes.push(node);
    }

    /// Links every node to its parent, breaks the loops and records the
    /// dangling parents; the caller sets the leaf.
    pub(crate) fn finish(self) -> LineTree {
        let Self { mut tree, by_uuid, links } = self;
        let mut parents: Vec<Option<usize>> = vec![None; tree.nodes.len()];
        for (position, link) in links.into_iter().enumerate() {
            let Some((parent, logical)) = link else { continue };
            match by_uuid.get(&parent) {
                Some(&found) if found != position => {
                    parents[position] = Some(found);
                    tree.nodes[position].compaction |= logical;
                }
                // A line that is its own parent is a loop of one.
                Some(_) => tree.loops.push(position),
                None if !logical => tree.dangling.push(position),
                None => {}
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
        tree
    }
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
                    // `node` is on this walk: the chain loops; cut the last link.
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

/// How a source names what `sess verify` reports of a tree.
pub(crate) struct Words {
    /// What a node is in the file: `line`, `record`.
    pub(crate) unit: &'static str,
    /// Said after a duplicate id's first line: what makes it damage.
    pub(crate) duplicate: &'static str,
}

/// The damage in a tree as `sess verify` reports it, not yet sorted: each
/// line that does not parse, and as errors each duplicate id, each parent id
/// that names no line and each loop.
pub(crate) fn findings(tree: &LineTree, words: &Words) -> Vec<Finding> {
    let mut findings: Vec<Finding> = tree.issues.iter().map(line_finding).collect();
    let error = |code, line, uuid: &str, message| Finding {
        severity: Severity::Error,
        code,
        line: Some(line),
        entry_id: Some(uuid.to_owned()),
        message,
    };
    for (line, uuid, first) in &tree.duplicates {
        let message = format!("uuid {uuid} is also used on line {first}{}", words.duplicate);
        findings.push(error("duplicate-id", *line, uuid, message));
    }
    for node in tree.dangling.iter().map(|&n| &tree.nodes[n]) {
        let parent = node.parent_uuid.as_deref().unwrap_or_default();
        let message = format!("parentUuid {parent} is not a {} of this file", words.unit);
        findings.push(error("dangling-parent", node.line, &node.uuid, message));
    }
    for node in tree.loops.iter().map(|&n| &tree.nodes[n]) {
        let message = format!("the parentUuid chain of {} loops back to itself", node.uuid);
        findings.push(error("cycle", node.line, &node.uuid, message));
    }
    findings
}

/// Puts findings in line order, errors first on a line.
pub(crate) fn sort(findings: &mut [Finding]) {
    findings.sort_by_key(|f| (f.line.unwrap_or(0), std::cmp::Reverse(f.severity)));
}

/// How long a node's summary text may be.
const SUMMARY_CHARS: usize = 80;

/// The first line of `text`, cut to [`SUMMARY_CHARS`] characters: the text
/// of a node's summary.
pub(crate) fn one_line(text: &str) -> String {
    let first = text.trim().lines().next().unwrap_or_default();
    if first.chars().count() > SUMMARY_CHARS {
        let cut: String = first.chars().take(SUMMARY_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        first.to_owned()
    }
}
