//! A session kept in a [`Backend`] (seed 001): resume at a segment, append to a
//! leaf, auto-fork when another writer got there first, and keep a named cursor.

use std::collections::HashMap;
use std::sync::Arc;

use sess_core::segment;
use sess_core::{Entry, EntryId, EntryKind};

use super::{Notice, SessionManager, SessionManagerBuilder};
use crate::backend::{Backend, Cursor, NewSegment, append_or_fork, is_leaf};
use crate::error::{Error, Result};

/// Where to open a stored session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// At the last entry of a segment. A leaf segment is appended to; any other
    /// segment is a read-only view of that past state.
    Segment(String),
    /// At an entry. The last entry of a leaf segment is appended to; any other
    /// entry is a read-only view.
    Entry(String),
}

/// What the manager knows of its session in the backend.
pub(super) struct Stored {
    backend: Arc<dyn Backend>,
    created: bool,
    /// Segment and seq of every entry the store has.
    placements: HashMap<EntryId, (String, u64)>,
    /// The length of each segment as last seen.
    lens: HashMap<String, u64>,
    cursor: Option<CursorState>,
}

struct CursorState {
    name: String,
    version: Option<u64>,
    children: Vec<String>,
}

impl Stored {
    /// The backend's blob store.
    pub(super) fn blobs(&self) -> &dyn crate::blob::Blobs {
        self.backend.as_ref() as &dyn crate::blob::Blobs
    }
}

impl SessionManagerBuilder {
    /// Keep the session in `backend` instead of a file.
    #[must_use]
    pub fn backend(mut self, backend: Arc<dyn Backend>) -> Self {
        self.backend = Some(backend);
        self
    }

    /// Keep the named cursor (seed 001's pod state) pointing at where this
    /// manager appends, updated with compare-and-swap after every write.
    #[must_use]
    pub fn cursor(mut self, name: impl Into<String>) -> Self {
        self.cursor = Some(name.into());
        self
    }

    /// A new session for `cwd` in the backend. Like a file session, it is stored
    /// once it has an assistant message.
    pub fn create_in(mut self, cwd: &str) -> Result<SessionManager> {
        let backend = self.backend.take().ok_or(Error::NotPersisted { operation: "create_in" })?;
        let cursor = self.cursor.take();
        let mut manager = SessionManager::new(self, cwd, true);
        manager.header = manager.fresh_header(None);
        manager.stored = Some(Stored {
            backend,
            created: false,
            placements: HashMap::new(),
            lens: HashMap::new(),
            cursor: cursor.map(|name| CursorState { name, version: None, children: Vec::new() }),
        });
        manager.read_cursor_version()?;
        Ok(manager)
    }

    /// Opens stored session `session`. Without `at`, the leaf is the cursor's
    /// segment when the cursor points into this session, else the last entry.
    pub fn open_in(mut self, session: &str, at: Option<At>) -> Result<SessionManager> {
        let backend = self.backend.take().ok_or(Error::NotPersisted { operation: "open_in" })?;
        let cursor = self.cursor.take();
        let stored = backend.session(session)?;
        let entries = backend.read_session(session)?;
        let cwd = stored.header.cwd().unwrap_or_default().to_owned();
        let mut manager = SessionManager::new(self, &cwd, true);
        manager.header = stored.header;
        manager.title_line = stored.title_line;
        let derived = segment::derive(&entries);
        let mut placements = HashMap::new();
        let mut lens = HashMap::new();
        for seg in &derived.segments {
            let id = entries[seg.entries[0]].id().to_string();
            for (seq, &position) in seg.entries.iter().enumerate() {
                placements.insert(entries[position].id().clone(), (id.clone(), seq as u64));
            }
            lens.insert(id, seg.entries.len() as u64);
        }
        manager.install_entries(entries);
        manager.disk.persisted = manager.entries.len();
        // The session exists in the store: every append is stored at once, as
        // for an opened file, even before it has an assistant message.
        manager.disk.ensured_on_disk = true;
        manager.stored = Some(Stored {
            backend: backend.clone(),
            created: true,
            placements,
            lens,
            cursor: cursor.map(|name| CursorState { name, version: None, children: Vec::new() }),
        });
        manager.read_cursor_version()?;
        let at = match at {
            Some(at) => Some(at),
            None => manager.cursor_position(session)?.map(At::Segment),
        };
        if let Some(at) = at {
            manager.place_leaf(&backend, session, &at)?;
        }
        Ok(manager)
    }

    /// Resumes where the cursor `name` points (seed 001's "resume by name").
    pub fn resume(mut self, name: &str) -> Result<SessionManager> {
        let backend = self.backend.clone().ok_or(Error::NotPersisted { operation: "resume" })?;
        let cursor = backend.cursor(name)?.ok_or_else(|| Error::SessionNotFound { query: format!("cursor {name}") })?;
        self.cursor = Some(name.to_owned());
        self.open_in(&cursor.session, Some(At::Segment(cursor.segment)))
    }
}

impl SessionManager {
    /// The cursor's segment, when it points into `session`.
    fn cursor_position(&self, session: &str) -> Result<Option<String>> {
        let Some(stored) = &self.stored else { return Ok(None) };
        let Some(state) = &stored.cursor else { return Ok(None) };
        Ok(stored.backend.cursor(&state.name)?.filter(|c| c.session == session).map(|c| c.segment))
    }

    fn read_cursor_version(&mut self) -> Result<()> {
        let Some(stored) = &mut self.stored else { return Ok(()) };
        if let Some(state) = &mut stored.cursor
            && let Some(cursor) = stored.backend.cursor(&state.name)?
        {
            state.version = Some(cursor.version);
            state.children = cursor.children;
        }
        Ok(())
    }

    /// Moves the leaf to `at`; a past state is read-only.
    fn place_leaf(&mut self, backend: &Arc<dyn Backend>, session: &str, at: &At) -> Result<()> {
        let segments = backend.segments(session)?;
        let (segment, leaf) = match at {
            At::Segment(id) => {
                let info = segments
                    .iter()
                    .find(|s| s.id == *id)
                    .ok_or_else(|| Error::SegmentNotFound { segment: id.clone() })?;
                let last = backend.read_segment(session, id, info.len.saturating_sub(1)..info.len)?;
                (info, last.first().map(|e| e.id().clone()))
            }
            At::Entry(id) => {
                let (segment, _) = self.placement(id).ok_or_else(|| Error::EntryNotFound { id: id.clone() })?;
                let info = segments.iter().find(|s| s.id == segment).ok_or(Error::SegmentNotFound { segment })?;
                (info, self.entry(id).map(|e| e.id().clone()))
            }
        };
        let at_tail =
            leaf.as_ref().and_then(|l| self.placement(l.as_str())).is_some_and(|(_, seq)| seq + 1 == segment.len);
        if !(is_leaf(&segments, segment) && at_tail) {
            self.read_only = Some(format!("{at:?} is a past state of session {session}, not a leaf"));
        }
        self.leaf = leaf;
        Ok(())
    }

    /// Forgets what the backend holds, for a new session built from this one's
    /// entries: the next persist writes them all.
    pub(super) fn restart_stored(&mut self) {
        if let Some(stored) = &mut self.stored {
            stored.created = false;
            stored.placements.clear();
            stored.lens.clear();
            self.disk.persisted = 0;
        }
    }

    fn placement(&self, id: &str) -> Option<(String, u64)> {
        self.stored.as_ref()?.placements.get(id).cloned()
    }

    /// Writes the entries the backend does not have yet, grouped into runs that
    /// continue a segment or start one.
    pub(super) fn persist_to_backend(&mut self) -> Result<()> {
        let Some(stored) = self.stored.as_mut() else { return Ok(()) };
        let session = self.header.id().to_owned();
        if !stored.created {
            stored.backend.create_session(&self.header, self.title_line.as_deref())?;
            stored.created = true;
        }
        // The persisted copy of each entry is prepared (truncation, blobs); memory keeps the original.
        let mut pending: Vec<Entry> = Vec::with_capacity(self.entries.len() - self.disk.persisted);
        for entry in &self.entries[self.disk.persisted..] {
            pending.push(match crate::prepare::prepare_for_persistence(entry.json(), Some(stored.blobs()))? {
                std::borrow::Cow::Borrowed(_) => entry.clone(),
                std::borrow::Cow::Owned(json) => {
                    Entry::parse(&json).map_err(|e| Error::InvalidEntry { reason: e.to_string() })?
                }
            });
        }
        let mut last_placed = None;
        let mut i = 0;
        while i < pending.len() {
            let run = next_run(&pending, i, stored);
            let entries = &pending[run.range.clone()];
            let (segment, first_seq) = match &run.start {
                Start::Continue { segment, expected_len } => {
                    let placed = append_or_fork(stored.backend.as_ref(), &session, segment, *expected_len, entries)?;
                    if let Some((from, at)) = &placed.forked_from {
                        self.notices.push(Notice::AutoForked {
                            segment: placed.segment.clone(),
                            from: from.clone(),
                            at: *at,
                        });
                    }
                    (placed.segment, placed.first_seq)
                }
                Start::Open(start) => (stored.backend.create_segment(&session, start, entries)?.id, 0),
            };
            for (offset, entry) in entries.iter().enumerate() {
                stored.placements.insert(entry.id().clone(), (segment.clone(), first_seq + offset as u64));
            }
            let len = first_seq + entries.len() as u64;
            stored.lens.insert(segment.clone(), len);
            last_placed = Some((segment, len - 1));
            i = run.range.end;
        }
        self.disk.persisted = self.entries.len();
        if let Some((segment, last_seq)) = last_placed {
            self.move_cursor(&session, &segment, last_seq)?;
        }
        Ok(())
    }

    /// Points the cursor at `(segment, last_seq)`, retrying if another writer
    /// updated it in between.
    fn move_cursor(&mut self, session: &str, segment: &str, last_seq: u64) -> Result<()> {
        let Some(stored) = self.stored.as_mut() else { return Ok(()) };
        let Some(state) = stored.cursor.as_mut() else { return Ok(()) };
        for _ in 0..100 {
            let new = Cursor {
                session: session.to_owned(),
                segment: segment.to_owned(),
                last_seq,
                children: state.children.clone(),
                version: 0,
            };
            if let Some(done) = stored.backend.swap_cursor(&state.name, state.version, &new)? {
                state.version = Some(done.version);
                return Ok(());
            }
            let current = stored.backend.cursor(&state.name)?;
            state.version = current.as_ref().map(|c| c.version);
            if let Some(current) = current {
                state.children = current.children;
            }
        }
        Err(Error::Conflict { what: format!("cursor {} keeps changing", state.name) })
    }

    /// Records a session this writer spawned in its cursor.
    pub fn add_cursor_child(&mut self, child_session: &str) -> Result<()> {
        let Some(stored) = self.stored.as_mut() else {
            return Err(Error::NotPersisted { operation: "add_cursor_child" });
        };
        let Some(state) = stored.cursor.as_mut() else {
            return Err(Error::NotPersisted { operation: "add_cursor_child" });
        };
        if !state.children.iter().any(|c| c == child_session) {
            state.children.push(child_session.to_owned());
        }
        let leaf = self.leaf.clone();
        let (segment, seq) = leaf.and_then(|l| self.placement(l.as_str())).unwrap_or_default();
        let session = self.header.id().to_owned();
        self.move_cursor(&session, &segment, seq)
    }
}

/// How a run of pending entries reaches the store.
enum Start {
    Continue { segment: String, expected_len: u64 },
    Open(NewSegment),
}

struct Run {
    start: Start,
    range: std::ops::Range<usize>,
}

/// The run of pending entries starting at `i`: it continues a known segment's
/// last entry or opens a segment (new, fork, compact), and takes every following
/// entry that continues the previous one.
fn next_run(pending: &[Entry], i: usize, stored: &Stored) -> Run {
    let entry = &pending[i];
    let is_compaction = matches!(entry.kind(), EntryKind::Compaction(_));
    let start = match entry.parent_id().and_then(|p| stored.placements.get(p).cloned()) {
        None => Start::Open(NewSegment::New),
        Some((segment, seq)) => {
            let len = stored.lens.get(&segment).copied().unwrap_or(0);
            if is_compaction {
                Start::Open(NewSegment::Compact { parent: segment, fork_at: seq })
            } else if seq + 1 == len {
                Start::Continue { segment, expected_len: len }
            } else {
                Start::Open(NewSegment::Fork { parent: segment, fork_at: seq })
            }
        }
    };
    let mut end = i + 1;
    while end < pending.len()
        && pending[end].parent_id() == Some(pending[end - 1].id())
        && !matches!(pending[end].kind(), EntryKind::Compaction(_))
    {
        end += 1;
    }
    Run { start, range: i..end }
}
