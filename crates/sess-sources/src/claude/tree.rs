//! The line tree of a Claude Code session: every line with a `uuid` is a
//! node whose parent is the line its `parentUuid` names.
//!
//! A rewind, an edited prompt or a session resumed from an earlier point
//! writes a line whose `parentUuid` is not the previous line: the tree then
//! branches there. A `compact_boundary` line has no `parentUuid`; it hangs
//! under its `logicalParentUuid` (the last line before the compaction) and is
//! marked. Sidechain lines (`isSidechain`: the turns of a subagent, written
//! into the main file by Claude Code 1.0.x) are marked. The leaf is the last
//! line of the main conversation in file order (the last line with a `uuid`
//! when every one is a sidechain's).
//!
//! The same walk gives what `sess verify` checks: lines that do not parse,
//! a `uuid` used twice, a `parentUuid` that names no line of the file, and
//! parent chains that loop.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use sess_core::{IssueKind, LineIssue};

use crate::jsonl::{JsonLines, RawLine};
use crate::lenient::{string, truthy};

/// One line with a `uuid`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The line's `uuid`.
    pub uuid: String,
    /// 1-based line number.
    pub line: usize,
    /// The line's `type`: `user`, `assistant`, `attachment`, `system`, …
    pub kind: String,
    /// What the line holds, on one line: `user: text`, `tool call: Bash`, …
    pub summary: String,
    /// A subagent's line (`isSidechain`).
    pub sidechain: bool,
    /// Hung under its `logicalParentUuid`: a compaction boundary.
    pub compaction: bool,
    /// The line's `parentUuid`, as written.
    pub parent_uuid: Option<String>,
    /// When the line was written (ISO 8601).
    pub timestamp: Option<String>,
}

/// The tree of a session's lines.
#[derive(Clone, Debug, Default)]
pub struct LineTree {
    /// The nodes in file order (a `uuid` seen again is not a second node).
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
    /// Lines whose `uuid` an earlier line has: (line, uuid, first line).
    pub duplicates: Vec<(usize, String, usize)>,
    /// Nodes whose `parentUuid` names no line of the file.
    pub dangling: Vec<usize>,
    /// Nodes made roots because their parent chain loops back to them.
    pub loops: Vec<usize>,
}

/// The fields of a line the tree needs; a value of the wrong JSON type reads
/// as absent.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TreeLine {
    #[serde(rename = "type", default, deserialize_with = "string")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "string")]
    uuid: Option<String>,
    #[serde(default, deserialize_with = "string")]
    parent_uuid: Option<String>,
    #[serde(default, deserialize_with = "string")]
    logical_parent_uuid: Option<String>,
    #[serde(default, deserialize_with = "truthy")]
    is_sidechain: bool,
    #[serde(default, deserialize_with = "string")]
    subtype: Option<String>,
    #[serde(default, deserialize_with = "string")]
    timestamp: Option<String>,
    #[serde(default)]
    message: Option<Value>,
}

/// The line tree of a session file's bytes.
pub fn line_tree(bytes: &[u8]) -> LineTree {
    let mut tree = LineTree::default();
    let mut by_uuid: HashMap<String, usize> = HashMap::new();
    // The parent each node names, resolved once every line is read.
    let mut links: Vec<Option<(String, bool)>> = Vec::new();
    for raw in JsonLines::new(bytes) {
        let line = match parse_line(&raw) {
            Ok(line) => line,
            Err(issue) => {
                tree.issues.push(issue);
                continue;
            }
        };
        let Some(uuid) = line.uuid.clone() else { continue };
        if let Some(&first) = by_uuid.get(&uuid) {
            tree.duplicates.push((raw.number, uuid, tree.nodes[first].line));
            continue;
        }
        let parent_link = match (&line.parent_uuid, &line.logical_parent_uuid) {
            (Some(parent), _) => Some((parent.clone(), false)),
            (None, Some(logical)) => Some((logical.clone(), true)),
            (None, None) => None,
        };
        by_uuid.insert(uuid.clone(), tree.nodes.len());
        links.push(parent_link);
        tree.nodes.push(Node {
            summary: summary(&line),
            uuid,
            line: raw.number,
            kind: line.kind.unwrap_or_default(),
            sidechain: line.is_sidechain,
            compaction: false,
            parent_uuid: line.parent_uuid,
            timestamp: line.timestamp,
        });
    }
    let mut parents: Vec<Option<usize>> = vec![None; tree.nodes.len()];
    for (position, link) in links.into_iter().enumerate() {
        let Some((parent, logical)) = link else { continue };
        match by_uuid.get(&parent) {
            Some(&found) if found != position => {
                parents[position] = Some(found);
                tree.nodes[position].compaction = logical;
            }
            // A line that is its own parent is a loop of one.
            Some(_) => tree.loops.push(position),
            // A compaction's logical parent may be in an older file: not damage.
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
    tree.leaf = tree.nodes.iter().rposition(|n| !n.sidechain).or_else(|| tree.nodes.len().checked_sub(1));
    tree
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

/// One line, which must be a JSON object.
fn parse_line(raw: &RawLine<'_>) -> Result<TreeLine, LineIssue> {
    if !raw.text.starts_with('{') {
        raw.parse::<serde::de::IgnoredAny>()?;
        return Err(LineIssue { line: raw.number, kind: IssueKind::NotAnObject });
    }
    raw.parse()
}

/// How long a summary's text may be.
const SUMMARY_CHARS: usize = 80;

/// What a line holds, on one line.
fn summary(line: &TreeLine) -> String {
    let kind = line.kind.as_deref().unwrap_or("line");
    let content = line.message.as_ref().and_then(|m| m.get("content"));
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        _ => Vec::new(),
    };
    let block_type = |b: &&Value| b.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    match kind {
        "user" | "assistant" => {
            if let Some(Value::String(text)) = content {
                return format!("{kind}: {}", one_line(text));
            }
            let text = blocks.iter().find_map(|b| (block_type(b) == "text").then(|| b.get("text")?.as_str()).flatten());
            if let Some(text) = text {
                return format!("{kind}: {}", one_line(text));
            }
            let tools: Vec<&str> =
                blocks.iter().filter(|b| block_type(b) == "tool_use").filter_map(|b| b.get("name")?.as_str()).collect();
            if !tools.is_empty() {
                return format!("tool call: {}", tools.join(", "));
            }
            let results: Vec<&&Value> = blocks.iter().filter(|b| block_type(b) == "tool_result").collect();
            if !results.is_empty() {
                let failed = results.iter().any(|b| b.get("is_error").is_some_and(crate::jsonl::is_truthy));
                return if failed { "tool result (error)".to_owned() } else { "tool result".to_owned() };
            }
            match blocks.first().map(block_type) {
                Some(first) if !first.is_empty() => format!("{kind}: {first}"),
                _ => kind.to_owned(),
            }
        }
        "system" => match &line.subtype {
            Some(subtype) => format!("system: {subtype}"),
            None => "system".to_owned(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn line(uuid: &str, parent: Option<&str>, text: &str) -> String {
        serde_json::json!({
            "type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
            "message": {"role": "user", "content": text},
        })
        .to_string()
    }

    #[test]
    fn a_rewind_is_a_branch_and_the_leaf_is_the_last_line() {
        let text =
            [line("a", None, "one"), line("b", Some("a"), "two"), line("c", Some("a"), "two, edited")].join("\n");
        let tree = line_tree(text.as_bytes());
        assert_eq!(tree.roots, [0]);
        assert_eq!(tree.children[0], [1, 2]);
        assert_eq!(tree.leaf, Some(2));
        assert_eq!(tree.nodes[2].summary, "user: two, edited");
    }

    #[test]
    fn damage_is_recorded() {
        let text = [
            line("a", None, "one"),
            line("a", None, "again"),
            line("b", Some("ghost"), "lost"),
            line("c", Some("d"), "loop"),
            line("d", Some("c"), "loop"),
            "{\"type\":\"user\",\"uuid\":\"e\",\"parentUuid\":\"d\"".to_owned(),
        ]
        .join("\n");
        let tree = line_tree(text.as_bytes());
        assert_eq!(tree.duplicates, [(2, "a".to_owned(), 1)]);
        assert_eq!(tree.dangling, [1]);
        assert_eq!(tree.loops.len(), 1);
        assert_eq!(tree.issues, [LineIssue { line: 6, kind: IssueKind::TruncatedLastLine }]);
        // Every node is reachable from a root.
        let reachable: usize = tree.roots.len() + tree.children.iter().map(Vec::len).sum::<usize>();
        assert_eq!(reachable, tree.nodes.len());
    }
}
