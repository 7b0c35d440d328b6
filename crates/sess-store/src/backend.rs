//! The storage model every backend implements (seed 001): a **session** is a
//! family of **segments**; a segment is a linear run of entries addressed by
//! `(segment, seq)`; segments start `new`, as a `fork` of another segment at a
//! seq, or as a `compact`ion. Entries keep their exact JSON text.
//!
//! The JSONL backend ([`JsonlBackend`]) stores a session as one pi-family file and
//! derives its segments with [`sess_core::segment::derive`]; database backends
//! store the segments as rows. Either way a session copied from one backend to
//! another keeps its ids, parents, order and bytes.

use std::ops::Range;

use sess_core::segment::Origin;
use sess_core::{Entry, EntryId, SessionHeader};

use crate::blob::Blobs;
use crate::discovery::SessionSummary;
use crate::error::Result;

mod import;
mod jsonl;

pub use import::{ReplayStep, replay_moved, replay_rest, replay_session, replay_steps};
pub use jsonl::JsonlBackend;

/// A segment as the store records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Its id: the id of its first entry.
    pub id: String,
    /// How it started.
    pub origin: Origin,
    /// The segment it branched from, and the seq there of the entry its first
    /// entry hangs under (`fork_at`).
    pub parent: Option<(String, u64)>,
    /// How many entries it has.
    pub len: u64,
}

/// Where a new segment starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NewSegment {
    /// A root: its first entry's parent is null or names no entry of the session.
    New,
    /// A branch under the entry at `fork_at` of segment `parent`.
    Fork {
        /// The parent segment.
        parent: String,
        /// The seq in it.
        fork_at: u64,
    },
    /// A compaction (the first entry is a `compaction`) under the entry at
    /// `fork_at` of segment `parent`.
    Compact {
        /// The parent segment.
        parent: String,
        /// The seq in it.
        fork_at: u64,
    },
}

impl NewSegment {
    /// The origin of a segment started this way.
    pub fn origin(&self) -> Origin {
        match self {
            Self::New => Origin::New,
            Self::Fork { .. } => Origin::Fork,
            Self::Compact { .. } => Origin::Compact,
        }
    }
}

/// The result of [`Backend::append`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Appended {
    /// The entries now have seqs `first_seq..first_seq + n`.
    Done {
        /// The seq of the first appended entry.
        first_seq: u64,
    },
    /// Another writer appended first: the segment has `len` entries, not the
    /// expected number. Nothing was written; the caller forks (live auto-fork).
    TailMoved {
        /// The segment's length now.
        len: u64,
    },
}

/// A named writer's pointer (seed 001's pod state): the session and segment it
/// appends to, how far, and the sessions it spawned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The session.
    pub session: String,
    /// The segment it appends to.
    pub segment: String,
    /// The seq of its last entry there.
    pub last_seq: u64,
    /// Sessions this writer spawned (subagents), by id.
    pub children: Vec<String>,
    /// Bumped by every update; compare-and-swap uses it.
    pub version: u64,
}

/// A stored session's header and, for oh-my-pi files, its title line.
#[derive(Clone, Debug)]
pub struct StoredSession {
    /// The header.
    pub header: SessionHeader,
    /// oh-my-pi's title line, kept so an export writes it back.
    pub title_line: Option<String>,
}

/// Session storage in seed 001's model. Every method is atomic: a failure
/// leaves the store as it was. Implementations are shared between threads and
/// tolerate other processes writing the same store. A backend is also the
/// content-addressed store of its sessions' large images ([`Blobs`]).
pub trait Backend: Blobs + Send + Sync {
    /// A short name for messages (`"jsonl"`, `"sqlite"`, …).
    fn kind(&self) -> &'static str;

    /// Creates a session with `header` (and a title line). Fails with
    /// [`Error::Conflict`](crate::Error::Conflict) if the id exists.
    fn create_session(&self, header: &SessionHeader, title_line: Option<&str>) -> Result<()>;

    /// The session with `id`; [`Error::SessionNotFound`](crate::Error::SessionNotFound) if none.
    fn session(&self, id: &str) -> Result<StoredSession>;

    /// Every session, with the metadata `sess list` shows, newest first.
    fn list_sessions(&self) -> Result<Vec<SessionSummary>>;

    /// The segments of a session, in the order they were created.
    fn segments(&self, session: &str) -> Result<Vec<SegmentInfo>>;

    /// The entries of `segment` with seqs in `range` (clamped to the segment).
    fn read_segment(&self, session: &str, segment: &str, range: Range<u64>) -> Result<Vec<Entry>>;

    /// Every entry of the session, in the order they were appended.
    fn read_session(&self, session: &str) -> Result<Vec<Entry>>;

    /// Starts a segment holding `entries` (at least one; each the parent of the
    /// next; only the first may be a `compaction`). The first entry's parent must
    /// be what `start` says. Returns the new segment.
    fn create_segment(&self, session: &str, start: &NewSegment, entries: &[Entry]) -> Result<SegmentInfo>;

    /// Appends `entries` (a chain continuing the segment's last entry; no
    /// `compaction`) to `segment` if it still has `expected_len` entries, all or
    /// nothing. If another writer appended first, writes nothing and says so.
    fn append(&self, session: &str, segment: &str, expected_len: u64, entries: &[Entry]) -> Result<Appended>;

    /// The segments `segment` descends from, nearest first.
    fn ancestors(&self, session: &str, segment: &str) -> Result<Vec<SegmentInfo>> {
        let all = self.segments(session)?;
        let mut out = Vec::new();
        let mut at = find(&all, segment)?.parent.as_ref().map(|(p, _)| p.as_str());
        while let Some(parent) = at {
            let info = find(&all, parent)?;
            if out.iter().any(|s: &SegmentInfo| s.id == info.id) {
                break;
            }
            at = info.parent.as_ref().map(|(p, _)| p.as_str());
            out.push(info.clone());
        }
        Ok(out)
    }

    /// The segments that descend from `segment`, breadth first.
    fn descendants(&self, session: &str, segment: &str) -> Result<Vec<SegmentInfo>> {
        let all = self.segments(session)?;
        find(&all, segment)?;
        let mut out: Vec<SegmentInfo> = Vec::new();
        let mut frontier = vec![segment.to_owned()];
        while let Some(current) = frontier.pop() {
            for child in all.iter().filter(|s| s.parent.as_ref().is_some_and(|(p, _)| *p == current)) {
                if !out.iter().any(|s| s.id == child.id) {
                    out.push(child.clone());
                    frontier.insert(0, child.id.clone());
                }
            }
        }
        Ok(out)
    }

    /// Creates session `header` holding `entries` (ids, parents, order and bytes
    /// kept), telling `progress` how many entries each step stored. The default
    /// replays them with [`replay_session`]; a backend may store them in bulk.
    fn import_session(
        &self,
        header: &SessionHeader,
        title_line: Option<&str>,
        entries: &[Entry],
        progress: &mut dyn FnMut(u64),
    ) -> Result<()> {
        replay_session(self.dyn_backend(), header, title_line, entries, progress)
    }

    /// This backend as a trait object (for default methods).
    fn dyn_backend(&self) -> &dyn Backend;

    /// The cursor called `name`.
    fn cursor(&self, name: &str) -> Result<Option<Cursor>>;

    /// Sets cursor `name` to `new` if its version is still `expected` (`None`:
    /// the cursor must not exist). Returns the stored cursor (version bumped), or
    /// `None` when another writer changed it first.
    fn swap_cursor(&self, name: &str, expected: Option<u64>, new: &Cursor) -> Result<Option<Cursor>>;
}

/// Where [`append_or_fork`] put entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The segment that holds them.
    pub segment: String,
    /// The seq of the first one there.
    pub first_seq: u64,
    /// Set when another writer had appended first and the entries went to a new
    /// `fork` segment instead: the segment and seq they branch from.
    pub forked_from: Option<(String, u64)>,
}

/// Appends `entries` after the entry at seq `expected_len - 1` of `segment`; if
/// another writer appended first, opens a `fork` segment under that same entry
/// (live auto-fork, DESIGN.md §2) with the lineage recorded, and says so. The
/// source segment is never touched and no marker entry is written. This is the
/// one implementation every writer uses.
pub fn append_or_fork(
    backend: &dyn Backend,
    session: &str,
    segment: &str,
    expected_len: u64,
    entries: &[Entry],
) -> Result<Placed> {
    match backend.append(session, segment, expected_len, entries)? {
        Appended::Done { first_seq } => Ok(Placed { segment: segment.to_owned(), first_seq, forked_from: None }),
        Appended::TailMoved { .. } => {
            let fork_at = expected_len
                .checked_sub(1)
                .ok_or_else(|| crate::Error::SegmentNotFound { segment: segment.to_owned() })?;
            let start = NewSegment::Fork { parent: segment.to_owned(), fork_at };
            let info = backend.create_segment(session, &start, entries)?;
            Ok(Placed { segment: info.id, first_seq: 0, forked_from: Some((segment.to_owned(), fork_at)) })
        }
    }
}

fn find<'a>(all: &'a [SegmentInfo], id: &str) -> Result<&'a SegmentInfo> {
    all.iter().find(|s| s.id == id).ok_or_else(|| crate::Error::SegmentNotFound { segment: id.to_owned() })
}

/// Whether `segment` is a leaf: no entry continues from its last entry.
pub fn is_leaf(all: &[SegmentInfo], segment: &SegmentInfo) -> bool {
    !all.iter().any(|s| s.parent.as_ref().is_some_and(|(p, at)| *p == segment.id && *at + 1 == segment.len))
}

/// Checks that `entries` is a chain every backend accepts: at least one entry;
/// the first one's parent is `first_parent`; each entry the parent of the next;
/// no `compaction` except, when `allow_compaction_first`, the first (a compact
/// segment). Fails with [`Error::InvalidEntry`](crate::Error::InvalidEntry).
pub fn check_chain(entries: &[Entry], first_parent: Option<&str>, allow_compaction_first: bool) -> Result<()> {
    let bad = |reason: String| Err(crate::Error::InvalidEntry { reason });
    let Some(first) = entries.first() else { return bad("no entries to store".to_owned()) };
    if first.parent_id().map(sess_core::EntryId::as_str) != first_parent {
        return bad(format!(
            "entry {} hangs under {:?}, not under {first_parent:?}",
            first.id(),
            first.parent_id().map(sess_core::EntryId::as_str)
        ));
    }
    for (i, entry) in entries.iter().enumerate() {
        let is_compaction = matches!(entry.kind(), sess_core::EntryKind::Compaction(_));
        if is_compaction && !(i == 0 && allow_compaction_first) {
            return bad(format!("compaction {} must start its own segment", entry.id()));
        }
        if i > 0 && entry.parent_id() != Some(entries[i - 1].id()) {
            return bad(format!("entry {} does not continue entry {}", entry.id(), entries[i - 1].id()));
        }
    }
    Ok(())
}

/// Checks where a `Fork` or `Compact` segment branches from: `fork_at` must be
/// a seq of the parent segment, which has `parent_len` entries, and a fork may
/// not start under the parent's last entry (that is an append; a compaction
/// may). A `New` start always passes. Fails with
/// [`Error::InvalidEntry`](crate::Error::InvalidEntry).
pub fn check_fork_point(start: &NewSegment, parent_len: u64) -> Result<()> {
    let (NewSegment::Fork { parent, fork_at } | NewSegment::Compact { parent, fork_at }) = start else {
        return Ok(());
    };
    if *fork_at >= parent_len {
        return Err(crate::Error::InvalidEntry { reason: format!("segment {parent} has no seq {fork_at}") });
    }
    if *fork_at + 1 == parent_len && matches!(start, NewSegment::Fork { .. }) {
        return Err(crate::Error::InvalidEntry { reason: "a fork at the last entry is an append".to_owned() });
    }
    Ok(())
}

/// The parent the first of `entries` names, for a segment started as
/// [`NewSegment::New`]: a new segment starts a new root, so that parent must not
/// be an entry of the session (`exists` says whether it is). Fails with
/// [`Error::InvalidEntry`](crate::Error::InvalidEntry).
pub fn check_new_root(entries: &[Entry], exists: impl FnOnce(&str) -> Result<bool>) -> Result<Option<&str>> {
    let parent = entries.first().and_then(|e| e.parent_id()).map(EntryId::as_str);
    if let Some(parent) = parent
        && exists(parent)?
    {
        return Err(crate::Error::InvalidEntry { reason: format!("a new segment cannot hang under entry {parent}") });
    }
    Ok(parent)
}

/// Checks the entries of a segment started as `start` and returns its origin:
/// [`check_chain`] from `first_parent` (the entry at the fork point, or for a
/// `New` segment the first entry's own parent), and a compaction first exactly
/// when the segment is a `Compact` one (a `New` root may start with one too:
/// pi's `resetLeaf()` then `appendCompaction`). Fails with
/// [`Error::InvalidEntry`](crate::Error::InvalidEntry).
pub fn check_segment_entries(start: &NewSegment, entries: &[Entry], first_parent: Option<&str>) -> Result<Origin> {
    let origin = start.origin();
    check_chain(entries, first_parent, origin != Origin::Fork)?;
    let first_is_compaction = entries.first().is_some_and(|e| matches!(e.kind(), sess_core::EntryKind::Compaction(_)));
    if (origin == Origin::Fork && first_is_compaction) || (origin == Origin::Compact && !first_is_compaction) {
        return Err(crate::Error::InvalidEntry {
            reason: "a compact segment starts with a compaction, and only it".to_owned(),
        });
    }
    Ok(origin)
}

/// Checks a cursor name: what the JSONL backend accepts (there, a file name),
/// so every backend takes the same names: ASCII letters, digits, `-`, `_` and
/// `.`, not empty and not starting with a dot. Fails with
/// [`Error::InvalidEntry`](crate::Error::InvalidEntry).
pub fn check_cursor_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.');
    if valid { Ok(()) } else { Err(crate::Error::InvalidEntry { reason: format!("invalid cursor name `{name}`") }) }
}
