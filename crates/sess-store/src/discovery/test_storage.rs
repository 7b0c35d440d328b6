//! Helpers to lay out files and their modification times in a memory storage.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use crate::storage::{MemoryStorage, SessionStorage};

/// The storage of the discovery tests.
pub(super) type ClockStorage = MemoryStorage;

/// Laying out files in a [`MemoryStorage`].
pub(super) trait Layout {
    /// Writes `path` with `text` and a modification time of `mtime_ms`.
    fn file(&self, path: &str, text: &str, mtime_ms: u64) -> &Self;
    /// Writes `path` with `text`.
    fn put(&self, path: &str, text: &str) -> &Self;
    /// Sets the modification time of `path`.
    fn set_mtime(&self, path: &str, mtime_ms: u64);
    /// Creates a directory.
    fn dir(&self, path: &str) -> &Self;
}

impl Layout for MemoryStorage {
    fn file(&self, path: &str, text: &str, mtime_ms: u64) -> &Self {
        self.put(path, text);
        self.set_mtime(path, mtime_ms);
        self
    }

    fn put(&self, path: &str, text: &str) -> &Self {
        let _ = self.remove_file(Path::new(path));
        let mut writer = self.create_new(Path::new(path)).unwrap();
        writer.write_all(text.as_bytes()).unwrap();
        self
    }

    fn set_mtime(&self, path: &str, mtime_ms: u64) {
        self.set_modified(Path::new(path), UNIX_EPOCH + Duration::from_millis(mtime_ms)).unwrap();
    }

    fn dir(&self, path: &str) -> &Self {
        self.create_dir_all(Path::new(path)).unwrap();
        self
    }
}
