//! The JSONL backend: a tree of pi-family session files.
//!
//! One session is one file, `<root>/<cwd dir>/<timestamp>_<id>.jsonl`; its
//! segments are derived from the entries with the rule every backend shares.
//! Appends take the file lock and check the segment's length against a cached
//! derivation that is extended by reading only the bytes appended since (the
//! tail check is not O(file)). Cursors live in `<root>/.sess-cursors/`, blobs in
//! `<root>/../blobs`, as the agents keep them.

use std::collections::HashMap;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use sess_core::segment::{Deriver, Segment};
use sess_core::{Entry, SessionFile, SessionHeader};

use super::{
    Appended, Backend, Cursor, NewSegment, SegmentInfo, StoredSession, check_chain, check_cursor_name,
    check_fork_point, check_new_root, check_segment_entries,
};
use crate::blob::{BlobStore, Blobs};
use crate::discovery::{self, SessionSummary};
use crate::error::{Error, Result};
use crate::session_file::read_session;
use crate::storage::{self, SessionStorage, StorageLock, parent_dir};

/// Sessions as pi-family JSONL files under one directory.
pub struct JsonlBackend {
    storage: Arc<dyn SessionStorage>,
    root: PathBuf,
    blobs: BlobStore,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Where each session id's file is.
    paths: HashMap<String, PathBuf>,
    /// What is known of each file that was read.
    files: HashMap<String, Known>,
}

/// A file's derivation as far as it was read.
struct Known {
    identity: Option<(u64, u64)>,
    len: u64,
    deriver: Deriver,
    /// The ids of the entries, in file order (the deriver's positions).
    ids: Vec<String>,
    tail: Tail,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    Clean,
    MissingNewline,
    Torn(u64),
}

#[derive(Serialize, Deserialize)]
struct StoredCursor {
    session: String,
    segment: String,
    last_seq: u64,
    children: Vec<String>,
    version: u64,
}

impl JsonlBackend {
    /// Sessions under `root` (an agent's `sessions` directory, or any directory),
    /// with blobs in `root/../blobs`.
    pub fn new(storage: Arc<dyn SessionStorage>, root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let blobs_dir = root.parent().map_or_else(|| root.join("blobs"), |p| p.join("blobs"));
        let blobs = BlobStore::new(storage.clone(), blobs_dir);
        Self { storage, root, blobs, state: Mutex::new(State::default()) }
    }

    /// The directory of the sessions.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The file of session `id`, looking through the tree if it is not known yet.
    pub fn path_of(&self, id: &str) -> Result<PathBuf> {
        if let Some(path) = self.state().paths.get(id) {
            return Ok(path.clone());
        }
        let found = discovery::list_all(self.storage.as_ref(), &self.root);
        let mut state = self.state();
        for summary in found {
            state.paths.entry(summary.id).or_insert(summary.path);
        }
        state.paths.get(id).cloned().ok_or_else(|| Error::SessionNotFound { query: id.to_owned() })
    }

    /// Brings the cached derivation of session `id` up to date with its file and
    /// returns the path. Reads only what was appended since the last look.
    fn refresh(&self, id: &str) -> Result<PathBuf> {
        let path = self.path_of(id)?;
        let stat = self.storage.stat(&path).map_err(|e| Error::io("reading", &path, e))?;
        let mut state = self.state();
        if let Some(known) = state.files.get(id)
            && known.identity == stat.identity
            && known.len == stat.len
        {
            return Ok(path);
        }
        let incremental = state.files.get(id).is_some_and(|k| k.identity == stat.identity && stat.len > k.len);
        if incremental {
            let known = state.files.get_mut(id).ok_or_else(|| Error::SessionNotFound { query: id.to_owned() })?;
            read_appended(self.storage.as_ref(), &path, known, stat.len)?;
        } else {
            drop(state);
            let outcome = read_session(self.storage.as_ref(), &path)?;
            let tail = match (outcome.torn_tail_at, outcome.unterminated_tail) {
                (Some(at), _) => Tail::Torn(at),
                (None, true) => Tail::MissingNewline,
                (None, false) => Tail::Clean,
            };
            let mut known =
                Known { identity: stat.identity, len: outcome.len, deriver: Deriver::default(), ids: Vec::new(), tail };
            for entry in outcome.file.entries() {
                known.deriver.push(entry);
                known.ids.push(entry.id().to_string());
            }
            self.state().files.insert(id.to_owned(), known);
        }
        Ok(path)
    }

    /// The segment list of a session from its cached derivation.
    fn infos(&self, id: &str) -> Result<Vec<SegmentInfo>> {
        self.refresh(id)?;
        let state = self.state();
        let known = state.files.get(id).ok_or_else(|| Error::SessionNotFound { query: id.to_owned() })?;
        Ok(infos_of(known))
    }

    /// Appends `entries` to the session file under its lock, after `check`
    /// approves the up-to-date derivation; `Some` is `check`'s refusal, and
    /// nothing was written.
    fn write_entries(
        &self,
        session: &str,
        entries: &[Entry],
        check: impl FnOnce(&Known) -> Result<Option<Appended>>,
    ) -> Result<Option<Appended>> {
        let path = self.path_of(session)?;
        let _lock = self.lock(&path)?;
        self.refresh(session)?;
        let mut state = self.state();
        let known = state.files.get_mut(session).ok_or_else(|| Error::SessionNotFound { query: session.to_owned() })?;
        if let Some(refused) = check(known)? {
            return Ok(Some(refused));
        }
        let mut bytes = Vec::new();
        match known.tail {
            Tail::Clean => {}
            Tail::MissingNewline => bytes.push(b'\n'),
            Tail::Torn(at) => {
                self.storage.truncate(&path, at).map_err(|e| Error::io("repairing", &path, e))?;
                known.len = at;
            }
        }
        for entry in entries {
            bytes.extend_from_slice(entry.json().as_bytes());
            bytes.push(b'\n');
        }
        let mut writer = self.storage.open_append(&path).map_err(|e| Error::io("opening", &path, e))?;
        writer.write_all(&bytes).map_err(|e| Error::io("writing", &path, e))?;
        known.len += bytes.len() as u64;
        known.tail = Tail::Clean;
        for entry in entries {
            known.deriver.push(entry);
            known.ids.push(entry.id().to_string());
        }
        Ok(None)
    }

    /// Creates the file of session `header` holding `entries`, in one atomic
    /// write; a conflict if the session exists.
    fn create_file(&self, header: &SessionHeader, title_line: Option<&str>, entries: &[Entry]) -> Result<()> {
        if self.path_of(header.id()).is_ok() {
            return Err(Error::Conflict { what: format!("session {} exists", header.id()) });
        }
        let dir = self.root.join(discovery::legacy_dir_name(header.cwd().unwrap_or_default()));
        let name = discovery::session_file_name(header.timestamp().unwrap_or("0000-00-00T00:00:00.000Z"), header.id());
        let path = dir.join(name);
        self.storage.create_dir_all(&dir).map_err(|e| Error::io("creating", &dir, e))?;
        let file = SessionFile::from_entries(Some(header.clone()), title_line, entries.to_vec());
        storage::write_atomic(self.storage.as_ref(), &path, file.to_jsonl().as_bytes())
            .map_err(|e| Error::io("writing", &path, e))?;
        self.state().paths.insert(header.id().to_owned(), path);
        Ok(())
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        self.storage.lock(path).map_err(|e| Error::io("locking", path, e))
    }

    fn cursor_path(&self, name: &str) -> Result<PathBuf> {
        check_cursor_name(name)?;
        Ok(self.root.join(".sess-cursors").join(format!("{name}.json")))
    }
}

/// Reads the lines appended to `path` after `known.len` into the derivation.
fn read_appended(storage: &dyn SessionStorage, path: &Path, known: &mut Known, len: u64) -> Result<()> {
    let start = match known.tail {
        Tail::Torn(at) => at,
        Tail::Clean | Tail::MissingNewline => known.len,
    };
    let bytes = storage
        .read_range(path, start, usize::try_from(len - start).unwrap_or(usize::MAX))
        .map_err(|e| Error::io("reading", path, e))?;
    let mut offset = 0;
    known.tail = Tail::Clean;
    while offset < bytes.len() {
        let end = bytes[offset..].iter().position(|&b| b == b'\n').map(|p| offset + p);
        let line = String::from_utf8_lossy(&bytes[offset..end.unwrap_or(bytes.len())]);
        match (Entry::parse(&line), end) {
            (Ok(entry), _) => {
                known.deriver.push(&entry);
                known.ids.push(entry.id().to_string());
                if end.is_none() {
                    known.tail = Tail::MissingNewline;
                }
            }
            (Err(_), None) if !line.trim().is_empty() => known.tail = Tail::Torn(start + offset as u64),
            (Err(_), _) => {}
        }
        offset = end.map_or(bytes.len(), |e| e + 1);
    }
    known.len = len;
    Ok(())
}

/// The derived segment whose first entry is `id`.
fn segment_of<'k>(known: &'k Known, id: &str) -> Option<&'k Segment> {
    known.deriver.segments().segments.iter().find(|s| known.ids[s.entries[0]] == id)
}

fn infos_of(known: &Known) -> Vec<SegmentInfo> {
    let segments = known.deriver.segments();
    segments
        .segments
        .iter()
        .map(|s| SegmentInfo {
            id: known.ids[s.entries[0]].clone(),
            origin: s.origin,
            parent: s
                .parent
                .zip(s.fork_at)
                .map(|(p, at)| (known.ids[segments.segments[p].entries[0]].clone(), at as u64)),
            len: s.entries.len() as u64,
        })
        .collect()
}

impl Backend for JsonlBackend {
    fn kind(&self) -> &'static str {
        "jsonl"
    }

    fn dyn_backend(&self) -> &dyn Backend {
        self
    }

    fn create_session(&self, header: &SessionHeader, title_line: Option<&str>) -> Result<()> {
        self.create_file(header, title_line, &[])
    }

    /// The whole file, written at once (atomically): an import that fails or
    /// is interrupted part way leaves no file.
    fn import_session(
        &self,
        header: &SessionHeader,
        title_line: Option<&str>,
        entries: &[Entry],
        progress: &mut dyn FnMut(u64),
    ) -> Result<()> {
        self.create_file(header, title_line, entries)?;
        progress(entries.len() as u64);
        Ok(())
    }

    fn session(&self, id: &str) -> Result<StoredSession> {
        let path = self.path_of(id)?;
        let outcome = read_session(self.storage.as_ref(), &path)?;
        let header = outcome.file.header().cloned().ok_or_else(|| Error::SessionNotFound { query: id.to_owned() })?;
        Ok(StoredSession { header, title_line: outcome.file.title_line().map(str::to_owned) })
    }

    fn list_sessions(&self) -> Result<Vec<SessionSummary>> {
        let found = discovery::list_all(self.storage.as_ref(), &self.root);
        let mut state = self.state();
        for summary in &found {
            state.paths.entry(summary.id.clone()).or_insert_with(|| summary.path.clone());
        }
        Ok(found)
    }

    fn segments(&self, session: &str) -> Result<Vec<SegmentInfo>> {
        self.infos(session)
    }

    fn read_segment(&self, session: &str, segment: &str, range: Range<u64>) -> Result<Vec<Entry>> {
        let entries = self.read_session(session)?;
        let segments = sess_core::segment::derive(&entries);
        let index = segments
            .segments
            .iter()
            .position(|s| entries[s.entries[0]].id().as_str() == segment)
            .ok_or_else(|| Error::SegmentNotFound { segment: segment.to_owned() })?;
        let positions = &segments.segments[index].entries;
        let start = usize::try_from(range.start).unwrap_or(usize::MAX).min(positions.len());
        let end = usize::try_from(range.end).unwrap_or(usize::MAX).clamp(start, positions.len());
        Ok(positions[start..end].iter().map(|&p| entries[p].clone()).collect())
    }

    fn read_session(&self, session: &str) -> Result<Vec<Entry>> {
        let path = self.path_of(session)?;
        Ok(read_session(self.storage.as_ref(), &path)?.file.into_entries())
    }

    fn create_segment(&self, session: &str, start: &NewSegment, entries: &[Entry]) -> Result<SegmentInfo> {
        let first_id = entries.first().map(|e| e.id().to_string()).unwrap_or_default();
        self.write_entries(session, entries, |known| {
            let parent_entry = match start {
                NewSegment::New => {
                    check_new_root(entries, |parent| Ok(known.deriver.position(parent).is_some()))?.map(str::to_owned)
                }
                NewSegment::Fork { parent, fork_at } | NewSegment::Compact { parent, fork_at } => {
                    let from =
                        segment_of(known, parent).ok_or_else(|| Error::SegmentNotFound { segment: parent.clone() })?;
                    check_fork_point(start, from.entries.len() as u64)?;
                    let position = from.entries[usize::try_from(*fork_at).unwrap_or(0)];
                    Some(known.ids[position].clone())
                }
            };
            check_segment_entries(start, entries, parent_entry.as_deref())?;
            if known.deriver.position(&first_id).is_some() {
                return Err(Error::Conflict { what: format!("entry {first_id} exists") });
            }
            Ok(None)
        })?;
        let created = self.infos(session)?.into_iter().rev().find(|s| s.id == first_id);
        created.ok_or(Error::SegmentNotFound { segment: first_id })
    }

    fn append(&self, session: &str, segment: &str, expected_len: u64, entries: &[Entry]) -> Result<Appended> {
        let refused = self.write_entries(session, entries, |known| {
            let found =
                segment_of(known, segment).ok_or_else(|| Error::SegmentNotFound { segment: segment.to_owned() })?;
            let len = found.entries.len() as u64;
            if len != expected_len {
                return Ok(Some(Appended::TailMoved { len }));
            }
            let tail = found.entries.last().map(|&p| known.ids[p].as_str());
            check_chain(entries, tail, false)?;
            Ok(None)
        })?;
        Ok(refused.unwrap_or(Appended::Done { first_seq: expected_len }))
    }

    fn cursor(&self, name: &str) -> Result<Option<Cursor>> {
        let path = self.cursor_path(name)?;
        match self.storage.read(&path) {
            Ok(bytes) => {
                let stored: StoredCursor = serde_json::from_slice(&bytes)
                    .map_err(|e| Error::InvalidEntry { reason: format!("cursor `{name}`: {e}") })?;
                Ok(Some(Cursor {
                    session: stored.session,
                    segment: stored.segment,
                    last_seq: stored.last_seq,
                    children: stored.children,
                    version: stored.version,
                }))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("reading", &path, e)),
        }
    }

    fn swap_cursor(&self, name: &str, expected: Option<u64>, new: &Cursor) -> Result<Option<Cursor>> {
        let path = self.cursor_path(name)?;
        let dir = parent_dir(&path).to_owned();
        self.storage.create_dir_all(&dir).map_err(|e| Error::io("creating", &dir, e))?;
        let lock_path = dir.join(".lock");
        if !self.storage.exists(&lock_path) {
            let _ = self.storage.open_append(&lock_path).map_err(|e| Error::io("creating", &lock_path, e))?;
        }
        let _lock = self.lock(&lock_path)?;
        let current = self.cursor(name)?;
        if current.as_ref().map(|c| c.version) != expected {
            return Ok(None);
        }
        let version = expected.map_or(1, |v| v + 1);
        let stored = StoredCursor {
            session: new.session.clone(),
            segment: new.segment.clone(),
            last_seq: new.last_seq,
            children: new.children.clone(),
            version,
        };
        let bytes = serde_json::to_vec(&stored).map_err(|e| Error::InvalidEntry { reason: e.to_string() })?;
        storage::write_atomic(self.storage.as_ref(), &path, &bytes).map_err(|e| Error::io("writing", &path, e))?;
        Ok(Some(Cursor { version, ..new.clone() }))
    }
}

impl Blobs for JsonlBackend {
    fn put(&self, bytes: &[u8]) -> Result<String> {
        self.blobs.put(bytes)
    }

    fn get(&self, reference: &str) -> Result<Option<Vec<u8>>> {
        self.blobs.get(reference)
    }
}
