//! Durable writes: the only module that replaces session bytes on disk.
//!
//! A whole-file write goes to a temporary sibling, is fsynced, renamed over the
//! target, and then the directory is fsynced so the rename itself survives a
//! crash. A reader sees either the old file or the new one, never a mix.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Replaces `path` with `bytes` atomically and durably (temp file, fsync,
/// rename, directory fsync). On failure the temporary file is removed and the
/// original file is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let temp = temp_path(path);
    let result = write_temp(&temp, bytes).and_then(|()| {
        #[allow(clippy::disallowed_methods)] // This is the one place that renames session files.
        fs::rename(&temp, path).map_err(|e| Error::io("renaming into", path, e))?;
        sync_dir(path)
    });
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

fn write_temp(temp: &Path, bytes: &[u8]) -> Result<()> {
    let mut file =
        OpenOptions::new().write(true).create_new(true).open(temp).map_err(|e| Error::io("creating", temp, e))?;
    file.write_all(bytes).map_err(|e| Error::io("writing", temp, e))?;
    file.sync_all().map_err(|e| Error::io("syncing", temp, e))
}

/// Fsyncs the directory that holds `path`, so a rename or a new file in it is durable.
pub fn sync_dir(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // Directories cannot be opened for syncing on every platform; where they
    // cannot, the rename is as durable as the OS makes it.
    match File::open(dir) {
        Ok(handle) => match handle.sync_all() {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::InvalidInput || e.kind() == io::ErrorKind::PermissionDenied => Ok(()),
            Err(e) => Err(Error::io("syncing directory", dir, e)),
        },
        Err(e) => Err(Error::io("opening directory", dir, e)),
    }
}

/// `<dir>/.<name>.<random>.tmp`, next to `path` so the rename stays on one file system.
fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "session".into(), |n| n.to_string_lossy().into_owned());
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    path.with_file_name(format!(".{name}.{}.tmp", &nonce[..12]))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use super::*;

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
