//! Segments: the maximal linear runs of a session's entry tree (DESIGN.md §2).

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::entry::{Entry, EntryKind};
use crate::id::EntryId;

/// How a segment started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A root: the first entry, an entry after `resetLeaf()`, or one whose parent
    /// names no earlier entry.
    New,
    /// A branch off an entry that was not the tail of its segment.
    Fork,
    /// A `compaction` entry.
    Compact,
}

impl Origin {
    /// The lowercase name, as stored by the database backends.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Fork => "fork",
            Self::Compact => "compact",
        }
    }

    /// The origin [`as_str`](Self::as_str) names.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::New, Self::Fork, Self::Compact].into_iter().find(|origin| origin.as_str() == name)
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One segment: entries in order, each the parent of the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// How it started.
    pub origin: Origin,
    /// The segment it branched from (an index into the segment list).
    pub parent: Option<usize>,
    /// The seq (0-based position) in the parent segment of the entry it branched from.
    pub fork_at: Option<usize>,
    /// Positions of its entries in the session, in order; seq = index here.
    pub entries: Vec<usize>,
}

/// Where an entry sits: its segment and its seq there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Index of the segment.
    pub segment: usize,
    /// 0-based position in that segment.
    pub seq: usize,
}

/// The segments of a session and the placement of every entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segments {
    /// Segments in the order their first entries appear.
    pub segments: Vec<Segment>,
    /// Placement of each entry, parallel to the entries.
    pub placements: Vec<Placement>,
}

/// Derives segments from entries in insertion order. The rule, identical in every
/// backend: an entry continues its parent's segment when the parent is that
/// segment's current tail and the entry is not a `compaction`. Otherwise it opens
/// a segment: `new` when its parent is null or names no earlier entry, `compact`
/// for a compaction, else `fork`, with the parent's segment and seq as lineage.
pub fn derive(entries: &[Entry]) -> Segments {
    let mut deriver = Deriver::default();
    for entry in entries {
        deriver.push(entry);
    }
    deriver.finish()
}

/// [`derive()`], one entry at a time, for stores that learn of entries as they
/// are appended.
#[derive(Clone, Debug, Default)]
pub struct Deriver {
    segments: Segments,
    /// The latest entry with each id.
    seen: HashMap<EntryId, usize>,
}

impl Deriver {
    /// Places the next entry and returns where it went.
    pub fn push(&mut self, entry: &Entry) -> Placement {
        let position = self.segments.placements.len();
        let parent = entry.parent_id().and_then(|p| self.seen.get(p).copied());
        let is_compaction = matches!(entry.kind(), EntryKind::Compaction(_));
        let segments = &mut self.segments.segments;
        let placement = if let Some(parent) = parent {
            let at = self.segments.placements[parent];
            let segment = &mut segments[at.segment];
            if !is_compaction && segment.entries.last() == Some(&parent) {
                segment.entries.push(position);
                Placement { segment: at.segment, seq: segment.entries.len() - 1 }
            } else {
                let origin = if is_compaction { Origin::Compact } else { Origin::Fork };
                segments.push(Segment {
                    origin,
                    parent: Some(at.segment),
                    fork_at: Some(at.seq),
                    entries: vec![position],
                });
                Placement { segment: segments.len() - 1, seq: 0 }
            }
        } else {
            segments.push(Segment { origin: Origin::New, parent: None, fork_at: None, entries: vec![position] });
            Placement { segment: segments.len() - 1, seq: 0 }
        };
        self.segments.placements.push(placement);
        self.seen.insert(entry.id().clone(), position);
        placement
    }

    /// The segments so far.
    pub fn segments(&self) -> &Segments {
        &self.segments
    }

    /// The position of the latest entry with `id`.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.seen.get(id).copied()
    }

    /// The derived segments.
    pub fn finish(self) -> Segments {
        self.segments
    }
}

impl Segments {
    /// Whether the entry at `position` opens a segment.
    pub fn starts_segment(&self, position: usize) -> bool {
        self.placements.get(position).is_some_and(|p| p.seq == 0)
    }

    /// The id of segment `index`: the id of its first entry.
    pub fn id<'a>(&self, entries: &'a [Entry], index: usize) -> &'a EntryId {
        entries[self.segments[index].entries[0]].id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn e(ty: &str, id: &str, parent: Option<&str>) -> Entry {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        Entry::parse(&format!(r#"{{"type":"{ty}","id":"{id}","parentId":{parent}}}"#)).unwrap()
    }

    type Shape<'a> = (Origin, Option<usize>, Option<usize>, Vec<&'a str>);

    fn shape(entries: &[Entry]) -> Vec<Shape<'_>> {
        derive(entries)
            .segments
            .iter()
            .map(|s| (s.origin, s.parent, s.fork_at, s.entries.iter().map(|&p| entries[p].id().as_str()).collect()))
            .collect()
    }

    #[test]
    fn a_linear_chain_is_one_segment() {
        let entries = [e("message", "a", None), e("message", "b", Some("a")), e("label", "c", Some("b"))];
        assert_eq!(shape(&entries), vec![(Origin::New, None, None, vec!["a", "b", "c"])]);
    }

    #[test]
    fn branches_compactions_and_resets_open_segments() {
        let entries = [
            e("message", "a", None),
            e("message", "b", Some("a")),
            e("message", "c", Some("b")),
            e("message", "x", Some("a")), // branch at a (seq 0)
            e("message", "d", Some("c")), // continues the first segment
            e("compaction", "k", Some("d")),
            e("message", "f", Some("k")),
            e("message", "r", None),       // after resetLeaf()
            e("message", "o", Some("zz")), // dangling parent
            e("message", "y", Some("x")),
        ];
        assert_eq!(
            shape(&entries),
            vec![
                (Origin::New, None, None, vec!["a", "b", "c", "d"]),
                (Origin::Fork, Some(0), Some(0), vec!["x", "y"]),
                (Origin::Compact, Some(0), Some(3), vec!["k", "f"]),
                (Origin::New, None, None, vec!["r"]),
                (Origin::New, None, None, vec!["o"]),
            ]
        );
    }

    #[test]
    fn a_forward_parent_reference_starts_a_new_segment() {
        let entries = [e("message", "a", Some("b")), e("message", "b", None)];
        assert_eq!(shape(&entries)[0].0, Origin::New);
    }

    #[test]
    fn a_compaction_as_first_entry_is_new() {
        let entries = [e("compaction", "k", None)];
        assert_eq!(shape(&entries)[0].0, Origin::New);
    }
}
