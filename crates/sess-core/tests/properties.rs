//! Property tests of the tree invariants, segment derivation, round trips and
//! migration.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::collections::HashSet;

use proptest::prelude::*;
use sess_core::segment;
use sess_core::{EntryIndex, Leaf, Tree, context, read};

/// What an agent does to a session.
#[derive(Clone, Debug)]
enum Op {
    /// Append a message under the leaf.
    Message(bool),
    /// Append a compaction keeping the entry `n` back on the path.
    Compaction(usize),
    /// Label an earlier entry.
    Label(usize, Option<String>),
    /// Move the leaf to an earlier entry.
    Branch(usize),
    /// Set the leaf to null.
    ResetLeaf,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => any::<bool>().prop_map(Op::Message),
        1 => (0usize..8).prop_map(Op::Compaction),
        1 => (0usize..64, proptest::option::of("[a-z]{0,3}")).prop_map(|(n, l)| Op::Label(n, l)),
        2 => (0usize..64).prop_map(Op::Branch),
        1 => Just(Op::ResetLeaf),
    ]
}

/// A v3 session file from a list of operations, with timestamps that sometimes tie.
fn session_text(ops: &[Op]) -> String {
    let mut lines =
        vec![r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned()];
    let mut ids: Vec<String> = Vec::new();
    let mut parents: Vec<Option<usize>> = Vec::new();
    let mut leaf: Option<usize> = None;
    for (n, op) in ops.iter().enumerate() {
        let parent = match op {
            Op::Branch(k) => {
                if !ids.is_empty() {
                    leaf = Some(k % ids.len());
                }
                continue;
            }
            Op::ResetLeaf => {
                leaf = None;
                continue;
            }
            _ => leaf,
        };
        let id = format!("e{n}");
        let parent_json = parent.map_or("null".to_owned(), |p| format!("\"{}\"", ids[p]));
        let ts = format!("2026-01-01T00:00:{:02}.000Z", (n / 3) % 60);
        let body = match op {
            Op::Message(user) => {
                let role = if *user { "user" } else { "assistant" };
                format!(r#""message":{{"role":"{role}","content":"m{n}","provider":"p","model":"m"}}"#)
            }
            Op::Compaction(back) => {
                let mut kept = parent;
                for _ in 0..*back {
                    kept = kept.and_then(|k| parents[k]);
                }
                let kept = kept.map_or("null".to_owned(), |k| format!("\"{}\"", ids[k]));
                format!(r#""summary":"s{n}","firstKeptEntryId":{kept},"tokensBefore":1"#)
            }
            Op::Label(k, label) => {
                let target = if ids.is_empty() { "none".to_owned() } else { ids[k % ids.len()].clone() };
                let label = label.as_ref().map_or(String::new(), |l| format!(r#","label":"{l}""#));
                format!(r#""targetId":"{target}"{label}"#)
            }
            Op::Branch(_) | Op::ResetLeaf => unreachable!(),
        };
        let ty = match op {
            Op::Message(_) => "message",
            Op::Compaction(_) => "compaction",
            _ => "label",
        };
        lines.push(format!(r#"{{"type":"{ty}","id":"{id}","parentId":{parent_json},"timestamp":"{ts}",{body}}}"#));
        ids.push(id);
        parents.push(parent);
        leaf = Some(ids.len() - 1);
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_read_session_writes_back_unchanged(ops in proptest::collection::vec(op(), 0..80)) {
        let text = session_text(&ops);
        let outcome = read(text.as_bytes());
        prop_assert!(outcome.issues.is_empty());
        prop_assert_eq!(outcome.file.to_jsonl(), text);
    }

    #[test]
    fn the_tree_holds_every_entry_once_in_timestamp_order(ops in proptest::collection::vec(op(), 0..80)) {
        let text = session_text(&ops);
        let outcome = read(text.as_bytes());
        let entries = outcome.file.entries();
        let index = EntryIndex::new(entries);
        let tree = Tree::build(entries, &index);
        let mut seen = vec![0usize; entries.len()];
        let mut stack = tree.roots.clone();
        while let Some(p) = stack.pop() {
            seen[p] += 1;
            let times: Vec<&str> = tree.children[p].iter().map(|&c| entries[c].timestamp().unwrap()).collect();
            prop_assert!(times.windows(2).all(|w| w[0] <= w[1]));
            for &c in &tree.children[p] {
                prop_assert_eq!(entries[c].parent_id(), Some(entries[p].id()));
            }
            stack.extend(&tree.children[p]);
        }
        prop_assert!(seen.iter().all(|&n| n == 1));
        prop_assert!(tree.cycle_breaks.is_empty());
        for &root in &tree.roots {
            prop_assert!(entries[root].parent_id().is_none());
        }
    }

    #[test]
    fn every_leaf_has_a_finite_path_of_existing_parents(ops in proptest::collection::vec(op(), 1..80)) {
        let text = session_text(&ops);
        let outcome = read(text.as_bytes());
        let entries = outcome.file.entries();
        let index = EntryIndex::new(entries);
        for leaf in 0..entries.len() {
            let path = index.path(entries, leaf);
            prop_assert_eq!(path.cycle_at, None);
            prop_assert_eq!(path.entries.last().copied(), Some(leaf));
            prop_assert!(entries[path.entries[0]].parent_id().is_none());
            for pair in path.entries.windows(2) {
                prop_assert_eq!(entries[pair[1]].parent_id(), Some(entries[pair[0]].id()));
            }
            let ctx = context::build(entries, &index, Leaf::Id(entries[leaf].id().as_str()));
            prop_assert!(ctx.messages.len() <= path.entries.len() + 1);
        }
    }

    #[test]
    fn segments_partition_the_entries_into_linear_runs(ops in proptest::collection::vec(op(), 0..80)) {
        let text = session_text(&ops);
        let outcome = read(text.as_bytes());
        let entries = outcome.file.entries();
        let derived = segment::derive(entries);
        let mut covered = HashSet::new();
        for (index, seg) in derived.segments.iter().enumerate() {
            for (seq, &p) in seg.entries.iter().enumerate() {
                prop_assert!(covered.insert(p));
                prop_assert_eq!(derived.placements[p].segment, index);
                prop_assert_eq!(derived.placements[p].seq, seq);
                if seq > 0 {
                    prop_assert_eq!(entries[p].parent_id(), Some(entries[seg.entries[seq - 1]].id()));
                }
            }
            let first = &entries[seg.entries[0]];
            match (seg.parent, seg.fork_at) {
                (Some(parent), Some(at)) => {
                    let fork_entry = derived.segments[parent].entries[at];
                    prop_assert_eq!(first.parent_id(), Some(entries[fork_entry].id()));
                    prop_assert!(parent < index);
                }
                (None, None) => prop_assert!(first.parent_id().is_none()),
                _ => prop_assert!(false, "parent and forkAt come together"),
            }
        }
        prop_assert_eq!(covered.len(), entries.len());
    }

    #[test]
    fn migrating_twice_changes_nothing(
        kinds in proptest::collection::vec(0u8..4, 0..40),
        kept in proptest::collection::vec(-2i64..50, 0..40),
    ) {
        let mut lines = vec![r#"{"type":"session","id":"legacy","timestamp":"t"}"#.to_owned()];
        for (n, kind) in kinds.iter().enumerate() {
            lines.push(match kind {
                0 => format!(r#"{{"type":"message","timestamp":"t{n}","message":{{"role":"user","content":"u{n}"}}}}"#),
                1 => format!(r#"{{"type":"message","timestamp":"t{n}","message":{{"role":"hookMessage","content":"h{n}"}}}}"#),
                2 => format!(r#"{{"type":"compaction","timestamp":"t{n}","summary":"s","firstKeptEntryIndex":{}}}"#, kept.get(n).copied().unwrap_or(1)),
                _ => format!(r#"{{"type":"thinking_level_change","timestamp":"t{n}","thinkingLevel":"low"}}"#),
            });
        }
        let text = lines.join("\n") + "\n";
        let once = read(text.as_bytes());
        prop_assert!(once.migrated_from.is_some());
        prop_assert_eq!(once.file.entries().len(), kinds.len());
        let once_text = once.file.to_jsonl();
        let twice = read(once_text.as_bytes());
        prop_assert_eq!(twice.migrated_from, None);
        prop_assert_eq!(twice.file.to_jsonl(), once_text);
        prop_assert!(!twice.file.to_jsonl().contains("hookMessage"));
        prop_assert!(!twice.file.to_jsonl().contains("firstKeptEntryIndex"));
    }

    #[test]
    fn a_damaged_line_never_costs_its_neighbours(
        ops in proptest::collection::vec(op(), 1..40),
        garbage in proptest::collection::vec(any::<u8>(), 0..60),
        at in any::<usize>(),
    ) {
        let text = session_text(&ops);
        let clean = read(text.as_bytes());
        let mut lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
        let garbage: Vec<u8> = garbage.into_iter().filter(|&b| b != b'\n').collect();
        let position = 1 + at % lines.len();
        lines.insert(position, garbage);
        let damaged: Vec<u8> = lines.join(&b'\n').into_iter().chain([b'\n']).collect();
        let outcome = read(&damaged);
        let ids = |o: &sess_core::ReadOutcome| o.file.entries().iter().map(|e| e.id().to_string()).collect::<Vec<_>>();
        let mut got = ids(&outcome);
        // The garbage line itself may happen to be a valid entry; everything else must survive.
        got.retain(|id| clean.file.entries().iter().any(|e| e.id().as_str() == id));
        let mut expected = ids(&clean);
        expected.dedup();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let outcome = read(&bytes);
        let entries = outcome.file.entries();
        let index = EntryIndex::new(entries);
        let _ = Tree::build(entries, &index);
        let _ = segment::derive(entries);
        let _ = serde_json::to_string(&context::build(entries, &index, Leaf::Last));
        let _ = sess_core::integrity::check(&outcome);
    }
}
