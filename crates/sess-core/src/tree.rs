//! The entry tree: lookups by id, labels, paths from a leaf to the root, and the
//! whole tree as the peers' `getTree` returns it.

use std::collections::HashMap;

use foldhash::fast::RandomState;

use crate::entry::{Entry, EntryKind};
use crate::id::EntryId;
use crate::time::parse_iso_millis;

/// An index over a session's entries: id → position (a later duplicate wins, as
/// in the peers' `byId` map) and labels resolved in file order.
///
/// The maps hash with foldhash, seeded at random per process: several times
/// faster than `SipHash` on short ids, and still not predictable from a file.
#[derive(Clone, Debug, Default)]
pub struct EntryIndex {
    by_id: HashMap<EntryId, usize, RandomState>,
    labels: HashMap<EntryId, String, RandomState>,
}

/// A path from the root to a leaf, as positions into the entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path {
    /// Positions from the root to the leaf.
    pub entries: Vec<usize>,
    /// Set when the walk met an entry twice: the parent chain loops. The walk
    /// stopped there; this is the entry whose parent closed the loop.
    pub cycle_at: Option<usize>,
}

impl EntryIndex {
    /// Indexes `entries`.
    pub fn new(entries: &[Entry]) -> Self {
        let mut index = Self::default();
        for (position, entry) in entries.iter().enumerate() {
            index.push(entry, position);
        }
        index
    }

    /// Adds the entry at `position` (the next one after those already indexed).
    pub fn push(&mut self, entry: &Entry, position: usize) {
        self.by_id.insert(entry.id().clone(), position);
        if let EntryKind::Label(label) = entry.kind()
            && let Some(target) = &label.target_id
        {
            match label.text() {
                Some(text) => self.labels.insert(target.clone(), text),
                None => self.labels.remove(target),
            };
        }
    }

    /// The position of the entry with `id`.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// Whether an entry has this id.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// The label of the entry `id`: the last label entry for it in file order,
    /// unless that one cleared it.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(String::as_str)
    }

    /// The position of `entry`'s parent, if it exists.
    pub fn parent_of(&self, entry: &Entry) -> Option<usize> {
        entry.parent_id().and_then(|p| self.position(p.as_str()))
    }

    /// The path from the root to the entry at `leaf`. A missing parent ends the
    /// walk (an orphan chain starts there); a loop is detected, never followed.
    pub fn path(&self, entries: &[Entry], leaf: usize) -> Path {
        let mut path = Vec::new();
        let mut current = Some(leaf);
        let mut cycle_at = None;
        while let Some(position) = current {
            path.push(position);
            current = self.parent_of(&entries[position]);
            // A path longer than the number of entries must repeat one; only then
            // pay for finding where.
            if path.len() > entries.len() {
                let mut seen = vec![false; entries.len()];
                path.clear();
                let mut at = Some(leaf);
                while let Some(p) = at {
                    if seen[p] {
                        break;
                    }
                    seen[p] = true;
                    path.push(p);
                    at = self.parent_of(&entries[p]);
                }
                cycle_at = path.last().copied();
                break;
            }
        }
        path.reverse();
        Path { entries: path, cycle_at }
    }
}

/// The whole tree of a session: roots and ordered children, as positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    /// Root positions in file order: entries with no parent, a parent that does
    /// not exist, or themselves as parent; plus one entry of each parent loop.
    pub roots: Vec<usize>,
    /// Children of each position, oldest timestamp first (stable).
    pub children: Vec<Vec<usize>>,
    /// Entries that were made roots to break a parent loop.
    pub cycle_breaks: Vec<usize>,
}

impl Tree {
    /// Builds the tree of `entries`. Iterative: depth costs no stack.
    pub fn build(entries: &[Entry], index: &EntryIndex) -> Self {
        let n = entries.len();
        let mut roots = Vec::new();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (position, entry) in entries.iter().enumerate() {
            // With duplicate ids, only the indexed (last) copy is a tree node
            // that children attach to, but every copy appears in the tree.
            match index.parent_of(entry).filter(|&p| p != position && entries[p].id() != entry.id()) {
                Some(p) => {
                    children[p].push(position);
                    parent[position] = Some(p);
                }
                None => roots.push(position),
            }
        }
        let cycle_breaks = break_cycles(&parent, &mut roots, &mut children);
        let times: Vec<Option<i64>> = entries.iter().map(|e| e.timestamp().and_then(parse_iso_millis)).collect();
        for list in &mut children {
            // Unparseable timestamps sort after the rest, keeping file order.
            list.sort_by_key(|&c| (times[c].is_none(), times[c].unwrap_or(0)));
        }
        Self { roots, children, cycle_breaks }
    }
}

/// Finds entries whose parent chain never reaches a root and makes the first
/// (in file order) entry of each loop a root.
fn break_cycles(parent: &[Option<usize>], roots: &mut Vec<usize>, children: &mut [Vec<usize>]) -> Vec<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unseen,
        Walking,
        Rooted,
    }
    let n = parent.len();
    let mut state = vec![State::Unseen; n];
    let mut breaks = Vec::new();
    let mut stack = Vec::new();
    for start in 0..n {
        let mut at = start;
        while state[at] == State::Unseen {
            state[at] = State::Walking;
            stack.push(at);
            match parent[at] {
                Some(p) => at = p,
                None => break,
            }
        }
        if state[at] == State::Walking && parent[at].is_some() {
            // `at` is on the current walk and its chain came back to it: a loop.
            let loop_start = stack.iter().position(|&p| p == at).unwrap_or(0);
            let first = stack[loop_start..].iter().copied().min().unwrap_or(at);
            if let Some(p) = parent[first] {
                children[p].retain(|&c| c != first);
            }
            breaks.push(first);
        }
        for p in stack.drain(..) {
            state[p] = State::Rooted;
        }
    }
    breaks.sort_unstable();
    roots.extend(&breaks);
    roots.sort_unstable();
    breaks
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
