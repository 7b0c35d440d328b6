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

use serde::Deserialize;
use serde_json::Value;

use crate::jsonl::JsonLines;
use crate::lenient::{string, truthy};
use crate::line_tree::{Builder, LineTree, Node, one_line};

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
    let mut builder = Builder::default();
    for raw in JsonLines::new(bytes) {
        let line = match raw.parse_object::<TreeLine>() {
            Ok(line) => line,
            Err(issue) => {
                builder.tree.issues.push(issue);
                continue;
            }
        };
        let Some(uuid) = line.uuid.clone() else { continue };
        if let Some(first) = builder.position(&uuid) {
            let first = builder.tree.nodes[first].line;
            builder.tree.duplicates.push((raw.number, uuid, first));
            continue;
        }
        let node = Node {
            summary: summary(&line),
            uuid,
            line: raw.number,
            kind: line.kind.unwrap_or_default(),
            sidechain: line.is_sidechain,
            compaction: false,
            parent_uuid: line.parent_uuid,
            timestamp: line.timestamp,
        };
        builder.add(node, line.logical_parent_uuid);
    }
    let mut tree = builder.finish();
    tree.leaf = tree.nodes.iter().rposition(|n| !n.sidechain).or_else(|| tree.nodes.len().checked_sub(1));
    tree
}

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

#[cfg(test)]
mod tests {
    use sess_core::{IssueKind, LineIssue};

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
