//! A file that the reading of each of many sessions consults (an agent's
//! index of its sessions: the Continue CLI's `sessions.json`, a Cline
//! extension's `taskHistory.json`), parsed once per version of the file
//! rather than once per session: reading 1,000 sessions beside a 200 KB
//! index parsed 200 MB of JSON.
//!
//! A version is the file's size and modification time; a file that changes
//! is parsed again at its next use. The cache lives as long as the process
//! and holds one entry per file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The parsed files of one kind, by path.
pub(crate) struct SharedFiles<T> {
    files: Mutex<Vec<Entry<T>>>,
}

struct Entry<T> {
    path: PathBuf,
    version: Vec<Option<(u64, SystemTime)>>,
    parsed: Arc<T>,
}

/// The size and modification time of each file of `paths`.
fn version(paths: &[&Path]) -> Vec<Option<(u64, SystemTime)>> {
    paths.iter().map(|path| std::fs::metadata(path).ok().and_then(|m| Some((m.len(), m.modified().ok()?)))).collect()
}

impl<T> SharedFiles<T> {
    pub(crate) const fn new() -> Self {
        Self { files: Mutex::new(Vec::new()) }
    }

    /// The file at `path` as `parse` reads it, parsed again only when its
    /// size or modification time changed since the last call (a missing
    /// file is a version too: `parse` says what it is).
    pub(crate) fn get(&self, path: &Path, parse: impl FnOnce(&Path) -> T) -> Arc<T> {
        self.get_versioned(path, version(&[path]), parse)
    }

    /// [`get`](Self::get) of an SQLite database, whose version is also its
    /// write-ahead log's (`-wal`), where rows are written before they reach
    /// the file.
    pub(crate) fn get_database(&self, path: &Path, parse: impl FnOnce(&Path) -> T) -> Arc<T> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        self.get_versioned(path, version(&[path, Path::new(&wal)]), parse)
    }

    fn get_versioned(
        &self,
        path: &Path,
        version: Vec<Option<(u64, SystemTime)>>,
        parse: impl FnOnce(&Path) -> T,
    ) -> Arc<T> {
        if let Ok(files) = self.files.lock()
            && let Some(entry) = files.iter().find(|e| e.path == path && e.version == version)
        {
            return Arc::clone(&entry.parsed);
        }
        // Parsed outside the lock: two threads may both parse a new
        // version, and the last one kept wins, with the same content.
        let parsed = Arc::new(parse(path));
        if let Ok(mut files) = self.files.lock() {
            files.retain(|e| e.path != path);
            files.push(Entry { path: path.to_owned(), version, parsed: Arc::clone(&parsed) });
        }
        parsed
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // The test writes its input directly.

    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_file_is_parsed_once_per_version() {
        static FILES: SharedFiles<String> = SharedFiles::new();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.json");
        std::fs::write(&path, "one").unwrap();
        let parses = AtomicUsize::new(0);
        let read = |p: &Path| {
            parses.fetch_add(1, Ordering::SeqCst);
            std::fs::read_to_string(p).unwrap_or_default()
        };
        assert_eq!(*FILES.get(&path, read), "one");
        assert_eq!(*FILES.get(&path, read), "one");
        assert_eq!(parses.load(Ordering::SeqCst), 1);
        // A new version (another size) is read again.
        std::fs::write(&path, "three").unwrap();
        assert_eq!(*FILES.get(&path, read), "three");
        assert_eq!(parses.load(Ordering::SeqCst), 2);
        // A missing file is a version of its own.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(*FILES.get(&path, read), "");
        assert_eq!(parses.load(Ordering::SeqCst), 3);
    }
}
