//! An in-memory storage for in-memory sessions and tests.

use std::collections::BTreeMap;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use super::{DirEntry, FileKind, FileStat, SessionStorage, StorageLock, StorageWriter, not_regular};

/// Files and directories in a map. Cloning shares the contents.
#[derive(Clone, Debug, Default)]
pub struct MemoryStorage {
    state: Arc<Mutex<State>>,
    unlocked: Arc<Condvar>,
}

#[derive(Debug, Default)]
struct State {
    files: BTreeMap<PathBuf, MemFile>,
    dirs: std::collections::BTreeSet<PathBuf>,
    locked: std::collections::BTreeSet<PathBuf>,
    /// Paths that are neither files nor directories (FIFOs, devices): listed
    /// and stated, never opened.
    specials: BTreeMap<PathBuf, FileKind>,
    next_identity: u64,
}

#[derive(Debug, Clone)]
struct MemFile {
    bytes: Vec<u8>,
    modified: SystemTime,
    identity: u64,
}

impl MemoryStorage {
    /// An empty storage.
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the lock on `path`, waiting while another holds it.
    fn wait_for_lock(&self, path: &Path) -> io::Result<()> {
        let mut state = self.state();
        state.check_not_special(path)?;
        loop {
            if !state.files.contains_key(path) {
                return Err(not_found(path));
            }
            if state.locked.insert(path.to_owned()) {
                return Ok(());
            }
            state = self.unlocked.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn release_lock(&self, path: &Path) {
        self.state().locked.remove(path);
        self.unlocked.notify_all();
    }

    /// The paths of every file, sorted.
    pub fn files(&self) -> Vec<PathBuf> {
        self.state().files.keys().cloned().collect()
    }

    /// Puts a file of another kind than regular or directory at `path` (a FIFO,
    /// a device), for tests of what is refused or skipped.
    pub fn add_special(&self, path: &Path, kind: FileKind) {
        let mut state = self.state();
        state.files.remove(path);
        state.specials.insert(path.to_owned(), kind);
        state.add_dirs(path);
    }

    /// Sets a file's modification time (tests of "most recent" logic).
    pub fn set_modified(&self, path: &Path, modified: SystemTime) -> io::Result<()> {
        let mut state = self.state();
        let file = state.files.get_mut(path).ok_or_else(|| not_found(path))?;
        file.modified = modified;
        Ok(())
    }
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("{} not found", path.display()))
}

impl State {
    /// The refusal to open `path` when it is a special file.
    fn check_not_special(&self, path: &Path) -> io::Result<()> {
        match self.specials.get(path) {
            Some(&kind) => Err(not_regular(path, kind)),
            None => Ok(()),
        }
    }

    fn add_dirs(&mut self, path: &Path) {
        for ancestor in path.ancestors().skip(1) {
            if ancestor.as_os_str().is_empty() {
                break;
            }
            self.dirs.insert(ancestor.to_owned());
        }
    }

    fn new_file(&mut self, bytes: Vec<u8>) -> MemFile {
        self.next_identity += 1;
        MemFile { bytes, modified: SystemTime::now(), identity: self.next_identity }
    }
}

struct MemWriter {
    storage: MemoryStorage,
    path: PathBuf,
    /// The identity of the file at `path` when it was opened.
    identity: u64,
    locked: bool,
}

impl StorageWriter for MemWriter {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut state = self.storage.state();
        let file = state.files.get_mut(&self.path).ok_or_else(|| not_found(&self.path))?;
        file.bytes.extend_from_slice(bytes);
        file.modified = SystemTime::now();
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn lock(&mut self) -> io::Result<Option<(u64, u64)>> {
        if !self.locked {
            self.storage.wait_for_lock(&self.path)?;
            self.locked = true;
        }
        Ok(Some((0, self.identity)))
    }

    fn unlock(&mut self) {
        if std::mem::take(&mut self.locked) {
            self.storage.release_lock(&self.path);
        }
    }
}

impl Drop for MemWriter {
    fn drop(&mut self) {
        self.unlock();
    }
}

struct MemLock {
    storage: MemoryStorage,
    path: PathBuf,
}

impl StorageLock for MemLock {}

impl Drop for MemLock {
    fn drop(&mut self) {
        self.storage.release_lock(&self.path);
    }
}

impl SessionStorage for MemoryStorage {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.state();
        state.dirs.insert(dir.to_owned());
        state.add_dirs(dir);
        Ok(())
    }

    fn stat(&self, path: &Path) -> io::Result<FileStat> {
        let state = self.state();
        if let Some(file) = state.files.get(path) {
            return Ok(FileStat::file(file.bytes.len() as u64, Some(file.modified), Some((0, file.identity))));
        }
        if state.dirs.contains(path) {
            return Ok(FileStat::dir());
        }
        if let Some(&kind) = state.specials.get(path) {
            return Ok(FileStat::special(kind));
        }
        Err(not_found(path))
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        let state = self.state();
        state.check_not_special(path)?;
        let bytes = state.files.get(path).map(|f| f.bytes.clone()).ok_or_else(|| not_found(path))?;
        Ok(Box::new(Cursor::new(bytes)))
    }

    fn read_range(&self, path: &Path, offset: u64, max: usize) -> io::Result<Vec<u8>> {
        let state = self.state();
        state.check_not_special(path)?;
        Ok(super::byte_range(&state.files.get(path).ok_or_else(|| not_found(path))?.bytes, offset, max))
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let state = self.state();
        if !state.dirs.contains(dir) {
            return Err(not_found(dir));
        }
        let mut children = super::children(dir, state.files.keys(), state.dirs.iter());
        children.extend(state.specials.iter().filter(|(p, _)| p.parent() == Some(dir)).map(|(p, &kind)| DirEntry {
            path: p.clone(),
            is_dir: false,
            kind,
        }));
        Ok(children)
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        let identity = {
            let mut state = self.state();
            if state.files.contains_key(path) || state.specials.contains_key(path) {
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", path.display())));
            }
            let file = state.new_file(Vec::new());
            let identity = file.identity;
            state.files.insert(path.to_owned(), file);
            state.add_dirs(path);
            identity
        };
        Ok(Box::new(MemWriter { storage: self.clone(), path: path.to_owned(), identity, locked: false }))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        let identity = {
            let mut state = self.state();
            state.check_not_special(path)?;
            if !state.files.contains_key(path) {
                let file = state.new_file(Vec::new());
                state.files.insert(path.to_owned(), file);
                state.add_dirs(path);
            }
            state.files.get(path).map_or(0, |file| file.identity)
        };
        Ok(Box::new(MemWriter { storage: self.clone(), path: path.to_owned(), identity, locked: false }))
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let mut state = self.state();
        state.check_not_special(path)?;
        let file = state.files.get_mut(path).ok_or_else(|| not_found(path))?;
        file.bytes.truncate(usize::try_from(len).unwrap_or(usize::MAX));
        Ok(())
    }

    fn write_at(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let mut state = self.state();
        state.check_not_special(path)?;
        let file = state.files.get_mut(path).ok_or_else(|| not_found(path))?;
        super::overwrite(&mut file.bytes, offset, bytes);
        file.modified = SystemTime::now();
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.state();
        if let Some(file) = state.files.remove(from) {
            state.specials.remove(to);
            state.files.insert(to.to_owned(), file);
            state.add_dirs(to);
            return Ok(());
        }
        if state.dirs.contains(from) {
            let moved: Vec<PathBuf> = state.files.keys().filter(|p| p.starts_with(from)).cloned().collect();
            for old in moved {
                if let (Some(file), Ok(rest)) = (state.files.remove(&old), old.strip_prefix(from)) {
                    state.files.insert(to.join(rest), file);
                }
            }
            let dirs: Vec<PathBuf> = state.dirs.iter().filter(|p| p.starts_with(from)).cloned().collect();
            for old in dirs {
                state.dirs.remove(&old);
                if let Ok(rest) = old.strip_prefix(from) {
                    state.dirs.insert(to.join(rest));
                }
            }
            state.add_dirs(to);
            return Ok(());
        }
        Err(not_found(from))
    }

    fn link_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.state();
        if state.files.contains_key(to) || state.specials.contains_key(to) || state.dirs.contains(to) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.display())));
        }
        let file = state.files.get(from).cloned().ok_or_else(|| not_found(from))?;
        state.files.insert(to.to_owned(), file);
        state.add_dirs(to);
        Ok(())
    }

    fn sync_dir(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let mut state = self.state();
        if state.specials.remove(path).is_some() {
            return Ok(());
        }
        state.files.remove(path).map(|_| ()).ok_or_else(|| not_found(path))
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn StorageLock>> {
        self.wait_for_lock(path)?;
        Ok(Box::new(MemLock { storage: self.clone(), path: path.to_owned() }))
    }
}
