//! The storage abstraction (seed 000's `SessionStorage`): every file operation
//! the store performs, so the same code runs on the real file system, in memory,
//! and on the fault-injecting and crash-simulating storages of the test kit.
//!
//! The trait is made of primitive steps — create, write, sync, rename, sync the
//! directory — so a test storage can fail or "crash" between any two of them.
//! [`write_atomic`] composes them into the one way whole files are replaced.

use std::fmt::Debug;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

mod file;
mod memory;

pub use file::FileStorage;
pub use memory::MemoryStorage;

/// What the store needs to know about a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileStat {
    /// Size in bytes.
    pub len: u64,
    /// Last modification time, where the storage keeps one.
    pub modified: Option<SystemTime>,
    /// Whether it is a directory.
    pub is_dir: bool,
    /// An identity that changes when the path is replaced by another file
    /// (device and inode on Unix). `None` where the storage has none.
    pub identity: Option<(u64, u64)>,
}

/// An open file that bytes are written to.
pub trait StorageWriter: Send {
    /// Writes all of `bytes`. With the file storage they have reached the OS
    /// (not necessarily the disk) when this returns.
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// Makes everything written so far durable (`fsync`).
    fn sync(&mut self) -> io::Result<()>;
}

/// An exclusive lock on a session file, released when dropped.
pub trait StorageLock: Send {}

/// Every file operation of the session store.
///
/// Paths are absolute or relative to the process's working directory for the
/// file storage, and plain keys for the memory storage. Errors are
/// `io::Error`s; a missing file is `io::ErrorKind::NotFound`.
pub trait SessionStorage: Debug + Send + Sync {
    /// Creates `dir` and its parents.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;

    /// Metadata of `path`.
    fn stat(&self, path: &Path) -> io::Result<FileStat>;

    /// Whether `path` exists.
    fn exists(&self, path: &Path) -> bool {
        self.stat(path).is_ok()
    }

    /// A reader over the whole file.
    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>>;

    /// The whole file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.open_read(path)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Up to `max` bytes from `offset` (fewer at the end of the file).
    fn read_range(&self, path: &Path, offset: u64, max: usize) -> io::Result<Vec<u8>>;

    /// The entries of `dir` (not recursive), in no particular order.
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>>;

    /// Creates a new file, failing if `path` exists.
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>>;

    /// Opens `path` for appending, creating it if it is missing.
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>>;

    /// Cuts the file to `len` bytes (used to remove a torn last line).
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;

    /// Renames `from` to `to`, replacing `to` if it exists.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;

    /// Makes the entries of `dir` (creations, renames) durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;

    /// Removes a file.
    fn remove_file(&self, path: &Path) -> io::Result<()>;

    /// Renames a directory (for moving a session's artifacts).
    fn rename_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.rename(from, to)
    }

    /// Takes an exclusive lock on the existing file at `path`, waiting for
    /// other holders. The lock is advisory: it keeps `sess` writers apart.
    fn lock(&self, path: &Path) -> io::Result<Box<dyn StorageLock>>;
}

/// An entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The full path.
    pub path: PathBuf,
    /// Whether it is a directory (symbolic links are not followed).
    pub is_dir: bool,
}

/// Replaces `path` with `bytes` atomically and durably: a temporary sibling is
/// written and synced, renamed over `path`, and the directory is synced. On
/// failure the temporary file is removed and `path` is untouched.
pub fn write_atomic(storage: &dyn SessionStorage, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path(path);
    let result = (|| {
        let mut writer = storage.create_new(&temp)?;
        writer.write_all(bytes)?;
        writer.sync()?;
        drop(writer);
        storage.rename(&temp, path)?;
        storage.sync_dir(parent_dir(path))
    })();
    if result.is_err() {
        let _ = storage.remove_file(&temp);
    }
    result
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Up to `max` bytes of `bytes` from `offset`: [`SessionStorage::read_range`]
/// for storages that hold files in memory.
pub fn byte_range(bytes: &[u8], offset: u64, max: usize) -> Vec<u8> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(bytes.len());
    let end = start.saturating_add(max).min(bytes.len());
    bytes[start..end].to_vec()
}

/// The entries of `dir` among `files` and `dirs`: [`SessionStorage::list_dir`]
/// for storages that hold paths in maps.
pub fn children<'a>(
    dir: &Path,
    files: impl Iterator<Item = &'a PathBuf>,
    dirs: impl Iterator<Item = &'a PathBuf>,
) -> Vec<DirEntry> {
    let files = files.filter(|p| p.parent() == Some(dir)).map(|p| DirEntry { path: p.clone(), is_dir: false });
    let dirs = dirs.filter(|p| p.parent() == Some(dir)).map(|p| DirEntry { path: p.clone(), is_dir: true });
    files.chain(dirs).collect()
}

/// `<dir>/.<name>.<random>.tmp`, next to `path` so the rename stays on one file system.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "session".into(), |n| n.to_string_lossy().into_owned());
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    path.with_file_name(format!(".{name}.{}.tmp", &nonce[..12]))
}
