//! A memory storage whose modification times the test chooses.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::storage::{DirEntry, FileStat, MemoryStorage, SessionStorage, StorageLock, StorageWriter};

/// [`MemoryStorage`] with settable modification times (files without one keep
/// the memory storage's own time).
#[derive(Clone, Debug, Default)]
pub(super) struct ClockStorage {
    inner: MemoryStorage,
    mtimes: Arc<Mutex<HashMap<PathBuf, SystemTime>>>,
}

impl ClockStorage {
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// Writes `path` with `text` and a modification time of `mtime_ms`.
    pub(super) fn file(&self, path: &str, text: &str, mtime_ms: u64) -> &Self {
        self.put(path, text);
        self.set_mtime(path, mtime_ms);
        self
    }

    /// Writes `path` with `text`.
    pub(super) fn put(&self, path: &str, text: &str) -> &Self {
        let _ = self.inner.remove_file(Path::new(path));
        let mut writer = self.inner.create_new(Path::new(path)).unwrap();
        writer.write_all(text.as_bytes()).unwrap();
        self
    }

    pub(super) fn set_mtime(&self, path: &str, mtime_ms: u64) {
        self.mtimes.lock().unwrap().insert(PathBuf::from(path), UNIX_EPOCH + Duration::from_millis(mtime_ms));
    }

    /// The paths of every file, sorted.
    pub(super) fn files(&self) -> Vec<PathBuf> {
        self.inner.files()
    }

    pub(super) fn dir(&self, path: &str) -> &Self {
        self.inner.create_dir_all(Path::new(path)).unwrap();
        self
    }
}

impl SessionStorage for ClockStorage {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.inner.create_dir_all(dir)
    }

    fn stat(&self, path: &Path) -> io::Result<FileStat> {
        let mut stat = self.inner.stat(path)?;
        if let Some(mtime) = self.mtimes.lock().unwrap().get(path) {
            stat.modified = Some(*mtime);
        }
        Ok(stat)
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        self.inner.open_read(path)
    }

    fn read_range(&self, path: &Path, offset: u64, max: usize) -> io::Result<Vec<u8>> {
        self.inner.read_range(path, offset, max)
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.inner.list_dir(dir)
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        self.inner.create_new(path)
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        self.inner.open_append(path)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        self.inner.truncate(path, len)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.inner.rename(from, to)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.inner.sync_dir(dir)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_file(path)
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn StorageLock>> {
        self.inner.lock(path)
    }
}
