//! Writing the session to its file.
//!
//! - Deferral: a new session is not written until it has an assistant message.
//! - The first write, and any rewrite, replaces the whole file atomically.
//! - Later entries are appended under an exclusive lock on the file, after
//!   reading in whatever another writer appended (live auto-fork) and cutting a
//!   torn last line.
//! - The first error is latched: kept, logged once, and returned by every later call.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use sess_core::{Entry, EntryIndex};

use super::append::is_assistant;
use super::{Durability, NextWrite, Notice, SessionManager, Tail};
use crate::error::{Error, Result};
use crate::prepare::{any_may_need_preparation, prepare_for_persistence};
use crate::session_file::read_session;
use crate::storage::{self, StorageLock, parent_dir};

/// The largest append buffer kept for the next append.
const KEPT_BUFFER: usize = 16 << 20;

impl SessionManager {
    /// Persists the entries memory has and the file does not.
    pub(crate) fn persist_pending(&mut self) -> Result<()> {
        if !self.persist {
            return Ok(());
        }
        self.check_latch()?;
        if !self.disk.ensured_on_disk && !self.has_assistant {
            self.disk.next_write = NextWrite::Full;
            return Ok(());
        }
        if self.stored.is_some() {
            return self.persist_to_backend().map_err(|err| self.latch(err));
        }
        let Some(path) = self.file.clone() else { return Ok(()) };
        let result = if self.disk.next_write == NextWrite::Full {
            self.rewrite_file(&path)
        } else if self.disk.persisted < self.entries.len() {
            self.append_to_file(&path)
        } else {
            Ok(())
        };
        result.map_err(|err| self.latch(err))
    }

    /// Rewrites the whole file now (seed 000's `rewriteEntries`).
    pub fn rewrite_entries(&mut self) -> Result<()> {
        if !self.persist {
            return Ok(());
        }
        let Some(path) = self.file.clone() else { return Ok(()) };
        self.check_latch()?;
        self.rewrite_file(&path).map_err(|err| self.latch(err))
    }

    /// Writes the session to disk now even without an assistant message
    /// (seed 000's `ensureOnDisk`); from then on every append persists at once.
    pub fn ensure_on_disk(&mut self) -> Result<()> {
        self.disk.ensured_on_disk = true;
        self.persist_pending()
    }

    /// Makes everything written durable (`fsync`). Returns the latched error, if any.
    pub fn flush(&mut self) -> Result<()> {
        self.check_latch()?;
        if let Some(writer) = self.disk.writer.as_mut() {
            let path = self.file.clone().unwrap_or_default();
            let result = writer.sync().map_err(|e| Error::io("syncing", &path, e));
            result.map_err(|err| self.latch(err))?;
        }
        Ok(())
    }

    /// Flushes and closes the file. Returns the first error of the session.
    pub fn close(&mut self) -> Result<()> {
        let result = self.flush();
        self.disk.writer = None;
        result
    }

    fn check_latch(&self) -> Result<()> {
        match &self.latched {
            Some(message) => {
                Err(Error::Latched { path: self.file.clone().unwrap_or_default(), message: message.clone() })
            }
            None => Ok(()),
        }
    }

    /// Keeps the first error and logs it once; returns `err` to the caller.
    fn latch(&mut self, err: Error) -> Error {
        if self.latched.is_none() {
            let path = self.file.clone().unwrap_or_default();
            log::error!("session persistence error in `{}`: {err}", path.display());
            self.latched = Some(err.to_string());
        }
        self.disk.writer = None;
        err
    }

    /// The exclusive lock on the session file, or `None` when it does not exist.
    fn lock_file(&self, path: &Path) -> Result<Option<Box<dyn StorageLock>>> {
        match self.storage.lock(path) {
            Ok(lock) => Ok(Some(lock)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("locking", path, e)),
        }
    }

    /// Replaces the file with the whole session, atomically.
    pub(crate) fn rewrite_file(&mut self, path: &Path) -> Result<()> {
        let lock = self.lock_file(path)?;
        if lock.is_some() && self.disk.identity.is_some() {
            self.absorb_foreign(path)?;
        }
        if self.disk.lossy {
            self.keep_original(path)?;
        }
        let bytes = self.serialize_all()?;
        self.storage.create_dir_all(parent_dir(path)).map_err(|e| Error::io("creating", parent_dir(path), e))?;
        storage::write_atomic(self.storage.as_ref(), path, &bytes).map_err(|e| Error::io("writing", path, e))?;
        drop(lock);
        let stat = self.storage.stat(path).map_err(|e| Error::io("reading", path, e))?;
        self.disk.known_len = stat.len;
        self.disk.identity = stat.identity;
        self.disk.tail = Tail::Clean;
        self.disk.persisted = self.entries.len();
        self.disk.next_write = NextWrite::Append;
        self.disk.writer = None;
        Ok(())
    }

    /// Appends the pending entries under the file lock.
    fn append_to_file(&mut self, path: &Path) -> Result<()> {
        if self.append_on_open_file(path)? {
            return Ok(());
        }
        let Some(lock) = self.lock_file(path)? else {
            // The file was deleted under us: write it again, header included.
            return self.rewrite_file(path);
        };
        self.absorb_foreign(path)?;
        self.append_locked(path)?;
        drop(lock);
        Ok(())
    }

    /// The usual append, in four system calls: lock the file this manager
    /// already has open, check with one `stat` that the path still names it
    /// and that no one else wrote to it, write, unlock. Returns `false`, having
    /// written nothing and released the lock, when there is no open file or
    /// something changed; the caller then takes the full path (a fresh lock,
    /// another writer's entries read in, a torn tail cut).
    fn append_on_open_file(&mut self, path: &Path) -> Result<bool> {
        if self.disk.tail != Tail::Clean || self.disk.identity.is_none() {
            return Ok(false);
        }
        let Some(writer) = self.disk.writer.as_mut() else { return Ok(false) };
        let held = writer.lock().map_err(|e| Error::io("locking", path, e))?;
        let unchanged = held == self.disk.identity
            && self.storage.stat(path).is_ok_and(|stat| stat.identity == held && stat.len == self.disk.known_len);
        let result = if unchanged { self.append_locked(path).map(|()| true) } else { Ok(false) };
        if let Some(writer) = self.disk.writer.as_mut() {
            writer.unlock();
        }
        result
    }

    /// Appends the pending entries (a `title_change`), then writes `slot`
    /// over the title slot the file begins with, all under the file's lock
    /// (the one appends hold). A file that does not begin with a slot of the
    /// same width (another writer replaced it) is rewritten whole instead.
    pub(crate) fn persist_title_in_place(&mut self, path: &Path, slot: &[u8]) -> Result<()> {
        self.check_latch()?;
        self.title_in_place(path, slot).map_err(|err| self.latch(err))
    }

    fn title_in_place(&mut self, path: &Path, slot: &[u8]) -> Result<()> {
        let Some(lock) = self.lock_file(path)? else { return self.rewrite_file(path) };
        self.absorb_foreign(path)?;
        let head = self.storage.read_range(path, 0, slot.len()).map_err(|e| Error::io("reading", path, e))?;
        if !is_title_slot(&head, slot.len()) {
            drop(lock);
            return self.rewrite_file(path);
        }
        self.append_locked(path)?;
        // The first byte first: while the rest is written the line is no
        // JSON, so a write cut short leaves no slot rather than a title made
        // of the old one and the new one; the newest `title_change` (just
        // appended) names the session meanwhile. `#` begins no JSON value, so
        // oh-my-pi skips the line and finds the header after it (a space
        // would leave `"type"` for its reader to take as the first value).
        let write = |offset: usize, bytes: &[u8]| {
            self.storage.write_at(path, offset as u64, bytes).map_err(|e| Error::io("writing", path, e))
        };
        write(0, b"#")?;
        write(1, &slot[1..])?;
        write(0, &slot[..1])?;
        if self.durability == Durability::Synced
            && let Some(writer) = self.disk.writer.as_mut()
        {
            writer.sync().map_err(|e| Error::io("syncing", path, e))?;
        }
        drop(lock);
        Ok(())
    }

    /// Appends the pending entries; the caller holds the file's lock and has
    /// read in what other writers did.
    fn append_locked(&mut self, path: &Path) -> Result<()> {
        let mut bytes = std::mem::take(&mut self.disk.buffer);
        bytes.clear();
        match std::mem::take(&mut self.disk.tail) {
            Tail::Clean => {}
            Tail::MissingNewline => bytes.push(b'\n'),
            Tail::Torn(at) => {
                self.storage.truncate(path, at).map_err(|e| Error::io("repairing", path, e))?;
                self.notices.push(Notice::TornTailRemoved { path: path.to_owned(), bytes: self.disk.known_len - at });
                self.disk.known_len = at;
                self.disk.writer = None;
            }
        }
        let pending = &self.entries[self.disk.persisted..];
        // Entries made together share one block of lines: when none of them
        // needs preparation, the block is written as it is.
        let longest = pending.iter().map(|e| e.json().len()).max().unwrap_or(0);
        let block = sess_core::joined_lines(pending)
            .filter(|block| !any_may_need_preparation(block, longest, self.blob_sink().is_some()));
        if block.is_none() {
            for entry in pending {
                bytes.extend_from_slice(self.prepare_line(entry.json())?.as_bytes());
                bytes.push(b'\n');
            }
        }
        if self.disk.writer.is_none() {
            let writer = self.storage.open_append(path).map_err(|e| Error::io("opening", path, e))?;
            self.disk.writer = Some(writer);
        }
        let writer =
            self.disk.writer.as_mut().ok_or_else(|| Error::io("writing", path, io::ErrorKind::Other.into()))?;
        writer.write_all(&bytes).map_err(|e| Error::io("writing", path, e))?;
        let written = bytes.len() + block.map_or(0, str::len);
        if let Some(block) = block {
            writer.write_all(block.as_bytes()).map_err(|e| Error::io("writing", path, e))?;
        }
        if self.durability == Durability::Synced {
            writer.sync().map_err(|e| Error::io("syncing", path, e))?;
        }
        self.disk.known_len += written as u64;
        self.disk.persisted = self.entries.len();
        if bytes.capacity() <= KEPT_BUFFER {
            self.disk.buffer = bytes;
        }
        Ok(())
    }

    /// Reads in what other writers did to the file since this manager last saw
    /// it, so nothing of theirs is lost and the file's order stays the memory order.
    fn absorb_foreign(&mut self, path: &Path) -> Result<()> {
        let stat = self.storage.stat(path).map_err(|e| Error::io("reading", path, e))?;
        if stat.identity == self.disk.identity && stat.len == self.disk.known_len {
            return Ok(());
        }
        self.disk.writer = None;
        let continued_from = self.leaf_before_pending();
        let foreign = if stat.identity == self.disk.identity && stat.len > self.disk.known_len {
            let foreign = self.read_appended(path, stat.len)?;
            let ids: Vec<_> = foreign.iter().map(|e| e.id().clone()).collect();
            // They go after what this manager persisted and before what it has
            // not, which is where they are in the file.
            let pending = self.entries.split_off(self.disk.persisted);
            self.entries.extend(foreign);
            self.disk.persisted = self.entries.len();
            self.entries.extend(pending);
            ids
        } else {
            self.read_replaced(path)?
        };
        self.disk.identity = stat.identity;
        self.index = EntryIndex::new(&self.entries);
        self.has_assistant = self.entries.iter().any(is_assistant);
        if !foreign.is_empty() {
            self.notices.push(Notice::ConcurrentAppend { foreign, continued_from });
        }
        Ok(())
    }

    /// The entry this manager's pending entries continue from.
    fn leaf_before_pending(&self) -> Option<sess_core::EntryId> {
        match self.entries.get(self.disk.persisted) {
            Some(first_pending) => first_pending.parent_id().cloned(),
            None => self.leaf.clone(),
        }
    }

    /// Entries another writer appended after `known_len`, and how the file
    /// ends now (called under the lock, so a cut last line is torn).
    fn read_appended(&mut self, path: &Path, len: u64) -> Result<Vec<Entry>> {
        let start = self.disk.known_len;
        self.disk.tail = Tail::Clean;
        let max = usize::try_from(len - start).unwrap_or(usize::MAX);
        let bytes = self.storage.read_range(path, start, max).map_err(|e| Error::io("reading", path, e))?;
        let mut foreign = Vec::new();
        let mut foreign_ids = HashSet::new();
        let mut skipped = Vec::new();
        let mut offset = 0usize;
        let mut line_no = 0usize;
        while offset < bytes.len() {
            line_no += 1;
            let end = bytes[offset..].iter().position(|&b| b == b'\n').map(|p| offset + p);
            let line = &bytes[offset..end.unwrap_or(bytes.len())];
            let text = String::from_utf8_lossy(line);
            if matches!(text, std::borrow::Cow::Owned(_)) {
                // Bytes that are not UTF-8 were replaced in memory: a rewrite
                // would not give them back.
                self.disk.lossy = true;
            }
            let parsed = if text.trim().is_empty() { None } else { Some(Entry::parse(&text)) };
            match (parsed, end) {
                (Some(Ok(entry)), _) => {
                    if !self.index.contains(entry.id().as_str()) && foreign_ids.insert(entry.id().clone()) {
                        foreign.push(entry);
                    }
                    if end.is_none() {
                        self.disk.tail = Tail::MissingNewline;
                    }
                }
                (Some(Err(_)), None) => self.disk.tail = Tail::Torn(start + offset as u64),
                (Some(Err(_)), Some(_)) => {
                    skipped.push(line_no);
                    self.disk.lossy = true;
                }
                (None, _) => {}
            }
            offset = end.map_or(bytes.len(), |e| e + 1);
        }
        if !skipped.is_empty() {
            self.notices.push(Notice::SkippedLines { lines: skipped });
        }
        self.disk.known_len = len;
        Ok(foreign)
    }

    /// The file was replaced (or shrunk): read it again. Memory becomes the
    /// file's entries in file order, followed by this manager's entries the file
    /// lacks (the next persist writes those again). Returns the ids of the
    /// entries that are new to this manager.
    fn read_replaced(&mut self, path: &Path) -> Result<Vec<sess_core::EntryId>> {
        let outcome = read_session(self.storage.as_ref(), path)?;
        self.disk.known_len = outcome.len;
        self.disk.tail = Tail::of(&outcome);
        self.disk.lossy |= outcome.issues.iter().any(|i| i.kind.is_lost_by_rewrite());
        let in_file = outcome.file.into_entries();
        let known: HashSet<&str> = self.entries.iter().map(|e| e.id().as_str()).collect();
        let foreign = in_file.iter().filter(|e| !known.contains(e.id().as_str())).map(|e| e.id().clone()).collect();
        let in_file_ids: HashSet<sess_core::EntryId> = in_file.iter().map(|e| e.id().clone()).collect();
        let missing: Vec<Entry> =
            std::mem::take(&mut self.entries).into_iter().filter(|e| !in_file_ids.contains(e.id())).collect();
        self.entries = in_file;
        self.disk.persisted = self.entries.len();
        self.entries.extend(missing);
        Ok(foreign)
    }

    /// Copies the file's current bytes to `<file>.corrupt-<time>` before a
    /// rewrite drops lines that could not be read or replaces bytes that are
    /// not UTF-8.
    fn keep_original(&mut self, path: &Path) -> Result<()> {
        if !self.storage.exists(path) {
            self.disk.lossy = false;
            return Ok(());
        }
        let copy = self.sibling(path, "corrupt");
        let bytes = self.storage.read(path).map_err(|e| Error::io("reading", path, e))?;
        storage::write_atomic(self.storage.as_ref(), &copy, &bytes).map_err(|e| Error::io("writing", &copy, e))?;
        self.notices.push(Notice::OriginalKept { copy });
        self.disk.lossy = false;
        Ok(())
    }

    /// `<file>.<what>-<time>`, a sibling for bytes that must be kept.
    pub(crate) fn sibling(&self, path: &Path, what: &str) -> PathBuf {
        let stamp = self.now_iso().replace([':', '.'], "-");
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{what}-{stamp}"));
        PathBuf::from(name)
    }

    /// Title line, header and every entry, prepared for persistence.
    fn serialize_all(&self) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        if let Some(title) = &self.title_line {
            bytes.extend_from_slice(title.as_bytes());
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(self.prepare_line(self.header.json())?.as_bytes());
        bytes.push(b'\n');
        for entry in &self.entries {
            bytes.extend_from_slice(self.prepare_line(entry.json())?.as_bytes());
            bytes.push(b'\n');
        }
        Ok(bytes)
    }

    /// One line as it is persisted.
    fn prepare_line<'a>(&self, json: &'a str) -> Result<std::borrow::Cow<'a, str>> {
        prepare_for_persistence(json, self.blob_sink())
    }

    /// Where large images go: the backend's blob store for a stored session,
    /// else the configured blob directory.
    pub(crate) fn blob_sink(&self) -> Option<&dyn crate::blob::Blobs> {
        match &self.stored {
            Some(stored) => Some(stored.blobs()),
            None => self.blobs.as_ref().map(|b| b as &dyn crate::blob::Blobs),
        }
    }
}

/// Whether `head`, a file's first bytes, is a title slot line of `width`
/// bytes, its newline included.
fn is_title_slot(head: &[u8], width: usize) -> bool {
    head.len() == width
        && head.last() == Some(&b'\n')
        && std::str::from_utf8(&head[..width - 1]).ok().and_then(sess_core::TitleSlot::parse).is_some()
}
