//! Durable writes on the real file system.
//!
//! A whole-file write goes to a temporary sibling, is fsynced, renamed over the
//! target, and then the directory is fsynced so the rename itself survives a
//! crash. A reader sees either the old file or the new one, never a mix.

use std::path::Path;

use crate::error::{Error, Result};
use crate::storage::{self, FileStorage};

/// Replaces `path` with `bytes` atomically and durably (temp file, fsync,
/// rename, directory fsync). On failure the temporary file is removed and the
/// original file is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    storage::write_atomic(&FileStorage, path, bytes).map_err(|e| Error::io("writing", path, e))
}

/// Writes `bytes` as a new file at `path`, atomically and durably, never
/// replacing a file (or following a link) that is there or appears there
/// meanwhile: [`storage::write_new`]. Something at `path` is
/// `io::ErrorKind::AlreadyExists`, under [`Error::Io`].
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    storage::write_new(&FileStorage, path, bytes).map_err(|e| Error::io("writing", path, e))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn replaces_the_file_and_leaves_no_temp_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "old\n").unwrap();
        write_atomic(&path, b"new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["s.jsonl"]);
    }

    #[test]
    fn a_failed_write_keeps_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-dir").join("s.jsonl");
        assert!(write_atomic(&path, b"new\n").is_err());
        assert!(!path.exists());
    }
}
