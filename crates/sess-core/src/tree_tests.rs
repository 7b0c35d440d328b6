use super::*;
use crate::entry::Entry;
use pretty_assertions::assert_eq;

fn e(id: &str, parent: Option<&str>, ts: &str) -> Entry {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    Entry::parse(&format!(r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{}}}}"#))
        .unwrap()
}

fn label(id: &str, target: &str, text: Option<&str>) -> Entry {
    let text = text.map_or(String::new(), |t| format!(r#","label":"{t}""#));
    Entry::parse(&format!(r#"{{"type":"label","id":"{id}","parentId":null,"targetId":"{target}"{text}}}"#)).unwrap()
}

fn ids(entries: &[Entry], positions: &[usize]) -> Vec<String> {
    positions.iter().map(|&p| entries[p].id().to_string()).collect()
}

const T1: &str = "2026-01-01T00:00:01.000Z";
const T2: &str = "2026-01-01T00:00:02.000Z";
const T3: &str = "2026-01-01T00:00:03.000Z";

#[test]
fn roots_include_orphans_and_self_parents() {
    let entries = [e("a", None, T1), e("b", Some("missing"), T1), e("c", Some("c"), T1), e("d", Some("a"), T1)];
    let index = EntryIndex::new(&entries);
    let tree = Tree::build(&entries, &index);
    assert_eq!(ids(&entries, &tree.roots), ["a", "b", "c"]);
    assert_eq!(ids(&entries, &tree.children[0]), ["d"]);
    assert!(tree.cycle_breaks.is_empty());
}

#[test]
fn children_are_ordered_by_timestamp_stably() {
    let entries = [
        e("r", None, T1),
        e("late", Some("r"), T3),
        e("early", Some("r"), T1),
        e("mid1", Some("r"), T2),
        e("mid2", Some("r"), T2),
        e("bad", Some("r"), "not a time"),
    ];
    let index = EntryIndex::new(&entries);
    let tree = Tree::build(&entries, &index);
    assert_eq!(ids(&entries, &tree.children[0]), ["early", "mid1", "mid2", "late", "bad"]);
}

#[test]
fn loops_are_broken_at_their_first_entry() {
    let entries =
        [e("a", None, T1), e("x", Some("z"), T1), e("y", Some("x"), T1), e("z", Some("y"), T1), e("w", Some("z"), T1)];
    let index = EntryIndex::new(&entries);
    let tree = Tree::build(&entries, &index);
    assert_eq!(ids(&entries, &tree.roots), ["a", "x"]);
    assert_eq!(ids(&entries, &tree.cycle_breaks), ["x"]);
    assert_eq!(ids(&entries, &tree.children[1]), ["y"]);
    assert_eq!(ids(&entries, &tree.children[3]), ["w"]);
}

#[test]
fn labels_resolve_in_file_order() {
    let entries = [
        e("a", None, T1),
        label("l1", "a", Some("first")),
        label("l2", "a", Some("second")),
        e("b", Some("a"), T1),
        label("l3", "b", Some("x")),
        label("l4", "b", None),
        label("l5", "a", Some("")),
        label("l6", "a", Some("third")),
    ];
    let index = EntryIndex::new(&entries);
    assert_eq!(index.label("a"), Some("third"));
    assert_eq!(index.label("b"), None);
    let index = EntryIndex::new(&entries[..7]);
    assert_eq!(index.label("a"), None);
    let index = EntryIndex::new(&entries[..3]);
    assert_eq!(index.label("a"), Some("second"));
}

#[test]
fn path_walks_to_the_root_and_stops_at_missing_parents() {
    let entries = [e("a", None, T1), e("b", Some("a"), T1), e("c", Some("gone"), T1), e("d", Some("c"), T1)];
    let index = EntryIndex::new(&entries);
    assert_eq!(ids(&entries, &index.path(&entries, 1).entries), ["a", "b"]);
    assert_eq!(ids(&entries, &index.path(&entries, 3).entries), ["c", "d"]);
}

#[test]
fn path_detects_loops() {
    let entries = [e("a", Some("c"), T1), e("b", Some("a"), T1), e("c", Some("b"), T1), e("d", Some("c"), T1)];
    let index = EntryIndex::new(&entries);
    let path = index.path(&entries, 3);
    assert_eq!(ids(&entries, &path.entries), ["a", "b", "c", "d"]);
    assert_eq!(path.cycle_at.map(|p| entries[p].id().to_string()), Some("a".to_owned()));
}

#[test]
fn a_deep_chain_needs_no_recursion() {
    let n = 200_000;
    let entries: Vec<Entry> =
        (0..n).map(|i| e(&format!("e{i}"), (i > 0).then(|| format!("e{}", i - 1)).as_deref(), T1)).collect();
    let index = EntryIndex::new(&entries);
    let path = index.path(&entries, n - 1);
    assert_eq!(path.entries.len(), n);
    assert_eq!(path.cycle_at, None);
    let tree = Tree::build(&entries, &index);
    assert_eq!(tree.roots, [0]);
}
