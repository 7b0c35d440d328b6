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

pub use sess_core::FileKind;

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
    /// What kind of file it is (symbolic links followed). Only a
    /// [`FileKind::Regular`] file is opened as a session.
    pub kind: FileKind,
    /// An identity that changes when the path is replaced by another file
    /// (device and inode on Unix). `None` where the storage has none.
    pub identity: Option<(u64, u64)>,
}

impl FileStat {
    /// A regular file.
    pub fn file(len: u64, modified: Option<SystemTime>, identity: Option<(u64, u64)>) -> Self {
        Self { len, modified, is_dir: false, kind: FileKind::Regular, identity }
    }

    /// A directory.
    pub fn dir() -> Self {
        Self { len: 0, modified: None, is_dir: true, kind: FileKind::Directory, identity: None }
    }

    /// Another kind of file, which is never opened (a FIFO, a device).
    pub fn special(kind: FileKind) -> Self {
        Self { len: 0, modified: None, is_dir: kind == FileKind::Directory, kind, identity: None }
    }
}

/// The error of opening `path` when it is not a regular file: a FIFO would
/// block the caller, a device never ends or swallows what is written, a
/// directory has no lines. It carries a [`NotRegular`], which
/// [`Error`](crate::Error) turns into
/// [`Error::NotASessionFile`](crate::Error::NotASessionFile).
pub fn not_regular(path: &Path, kind: FileKind) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, NotRegular { path: path.to_owned(), kind })
}

/// The payload of [`not_regular`].
#[derive(Debug)]
pub struct NotRegular {
    /// The path.
    pub path: PathBuf,
    /// What it is instead.
    pub kind: FileKind,
}

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is {}, not a session file", self.path.display(), self.kind)
    }
}

impl std::error::Error for NotRegular {}

/// The one check every reader and writer makes before opening a session
/// file: `path` (symbolic links followed) must be a regular file. A missing
/// file is `io::ErrorKind::NotFound`; any other kind is [`not_regular`].
/// Nothing is opened, so a FIFO or a device cannot block or feed the caller.
pub fn regular_file(storage: &dyn SessionStorage, path: &Path) -> io::Result<FileStat> {
    let stat = storage.stat(path)?;
    if stat.kind.is_regular() { Ok(stat) } else { Err(not_regular(path, stat.kind)) }
}

/// An open file that bytes are written to.
pub trait StorageWriter: Send {
    /// Writes all of `bytes`. With the file storage they have reached the OS
    /// (not necessarily the disk) when this returns.
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// Makes everything written so far durable (`fsync`).
    fn sync(&mut self) -> io::Result<()>;

    /// Takes the exclusive lock [`SessionStorage::lock`] takes, on the file
    /// this writer has open, and holds it until [`unlock`](Self::unlock) (or
    /// the writer is dropped). Returns that file's identity: the path may name
    /// another file by now, which the caller finds by comparing it with the
    /// path's.
    fn lock(&mut self) -> io::Result<Option<(u64, u64)>>;

    /// Releases the lock [`lock`](Self::lock) took.
    fn unlock(&mut self);
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

    /// Writes `bytes` over the existing file at `path` from `offset`, in place
    /// (`pwrite`): every other byte, the file's identity and its links stay.
    /// Bytes past the end make the file longer. Not synced: a sync of a
    /// [`StorageWriter`] of the same file makes it durable, as `fsync` of any
    /// open handle of a file does. A missing file is `io::ErrorKind::NotFound`
    /// (nothing is created). Used to rewrite a fixed-width title line.
    fn write_at(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()>;

    /// Renames `from` to `to`, replacing `to` if it exists.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;

    /// Gives the file `from` the second name `to` (`from` keeps its name),
    /// failing with `io::ErrorKind::AlreadyExists` when anything is at `to`
    /// (a file, a directory, a link, a dangling link): it never replaces
    /// and never follows a link at `to`. [`write_new`] publishes with it.
    fn link_new(&self, from: &Path, to: &Path) -> io::Result<()>;

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

    /// The path a whole-file rewrite of `path` replaces: the file a symbolic
    /// link points to (through every link in a chain), so the link stays; `path`
    /// itself when it is no link. Storages without links return `path`.
    fn resolve_link(&self, path: &Path) -> io::Result<PathBuf> {
        Ok(path.to_owned())
    }
}

/// An entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The full path.
    pub path: PathBuf,
    /// Whether it is a directory (symbolic links are not followed).
    pub is_dir: bool,
    /// What kind of file it is, symbolic links followed (a dangling link is a
    /// [`FileKind::Symlink`]). Discovery lists only regular files.
    pub kind: FileKind,
}

/// Replaces `path` with `bytes` atomically and durably: a temporary sibling is
/// written and synced, renamed over `path`, and the directory is synced. On
/// failure the temporary file is removed and `path` is untouched.
///
/// A symbolic link is kept: the file it points to is replaced. A path that
/// names something other than a regular file (a device, a FIFO, a directory)
/// is refused with [`not_regular`] and left as it is.
pub fn write_atomic(storage: &dyn SessionStorage, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = storage.resolve_link(path)?;
    let path = target.as_path();
    match regular_file(storage, path) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
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

/// Writes `bytes` as a new file at `path`, atomically and durably, never
/// replacing anything: a temporary sibling is written and synced, given the
/// name `path` with [`SessionStorage::link_new`] (so a file, or a link, that
/// appeared at `path` meanwhile makes it fail with
/// `io::ErrorKind::AlreadyExists` and is left as it is), then removed, and
/// the directory is synced. A reader sees no file or the whole new one.
pub fn write_new(storage: &dyn SessionStorage, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path(path);
    let mut writer = storage.create_new(&temp)?;
    let result = (|| {
        writer.write_all(bytes)?;
        writer.sync()?;
        storage.link_new(&temp, path)
    })();
    drop(writer);
    let removed = storage.remove_file(&temp);
    result?;
    removed?;
    storage.sync_dir(parent_dir(path))
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

/// Writes `bytes` over `file` from `offset`, as a positional write does (a
/// gap past the end is filled with zeros): [`SessionStorage::write_at`] for
/// storages that hold files in memory.
pub fn overwrite(file: &mut Vec<u8>, offset: u64, bytes: &[u8]) {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let end = start.saturating_add(bytes.len());
    if file.len() < end {
        file.resize(end, 0);
    }
    file[start..end].copy_from_slice(bytes);
}

/// The entries of `dir` among `files` and `dirs`: [`SessionStorage::list_dir`]
/// for storages that hold paths in maps.
pub fn children<'a>(
    dir: &Path,
    files: impl Iterator<Item = &'a PathBuf>,
    dirs: impl Iterator<Item = &'a PathBuf>,
) -> Vec<DirEntry> {
    let files = files.filter(|p| p.parent() == Some(dir)).map(|p| DirEntry {
        path: p.clone(),
        is_dir: false,
        kind: FileKind::Regular,
    });
    let dirs = dirs.filter(|p| p.parent() == Some(dir)).map(|p| DirEntry {
        path: p.clone(),
        is_dir: true,
        kind: FileKind::Directory,
    });
    files.chain(dirs).collect()
}

/// `<dir>/.<name>.<random>.tmp`, next to `path` so the rename stays on one file system.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "session".into(), |n| n.to_string_lossy().into_owned());
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    path.with_file_name(format!(".{name}.{}.tmp", &nonce[..12]))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests lay out their files directly.
mod tests {
    use super::*;
    use std::fs;

    #[cfg(unix)]
    #[test]
    fn a_rewrite_through_a_symlink_replaces_the_target_and_keeps_the_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("real")).unwrap();
        let target = dir.path().join("real/s.jsonl");
        std::fs::write(&target, "old\n").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink("real/s.jsonl", &link).unwrap();
        let chain = dir.path().join("chain.jsonl");
        std::os::unix::fs::symlink(&link, &chain).unwrap();

        write_atomic(&FileStorage, &chain, b"new\n").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::symlink_metadata(&chain).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        let mut names: Vec<_> =
            std::fs::read_dir(dir.path().join("real")).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["s.jsonl"]);
    }

    // Issue 26, item 3: `sess restore` needs a write that never replaces a
    // file (or follows a link) that is there or appears there.
    #[test]
    fn a_new_file_is_written_whole_and_never_over_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        write_new(&FileStorage, &path, b"one\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one\n");
        let err = write_new(&FileStorage, &path, b"two\n").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&path).unwrap(), b"one\n");
        let (link, elsewhere) = (dir.path().join("l.jsonl"), dir.path().join("elsewhere.jsonl"));
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        assert_eq!(write_new(&FileStorage, &link, b"two\n").unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert!(!elsewhere.exists(), "written through a dangling link");
        let mut names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["l.jsonl", "s.jsonl"], "no temporary file is left");

        let memory = MemoryStorage::default();
        write_new(&memory, Path::new("/m/s.jsonl"), b"one\n").unwrap();
        let err = write_new(&memory, Path::new("/m/s.jsonl"), b"two\n").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(memory.read(Path::new("/m/s.jsonl")).unwrap(), b"one\n");
        assert_eq!(memory.list_dir(Path::new("/m")).unwrap().len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_write_in_place_keeps_every_other_byte_the_file_and_its_links() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s.jsonl");
        fs::write(&target, "0123456789\n").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let identity = FileStorage.stat(&target).unwrap().identity;
        FileStorage.write_at(&link, 2, b"ab").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"01ab456789\n");
        assert_eq!(FileStorage.stat(&target).unwrap().identity, identity);
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        FileStorage.write_at(&target, 10, b"!\n").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"01ab456789!\n");
        let missing = dir.path().join("missing.jsonl");
        assert_eq!(FileStorage.write_at(&missing, 0, b"x").unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(!missing.exists(), "a write in place created a file");
    }

    #[test]
    fn a_write_in_place_in_memory_is_the_same() {
        let memory = MemoryStorage::new();
        let path = Path::new("/s/s.jsonl");
        memory.open_append(path).unwrap().write_all(b"0123456789\n").unwrap();
        let identity = memory.stat(path).unwrap().identity;
        memory.write_at(path, 2, b"ab").unwrap();
        memory.write_at(path, 10, b"!\n").unwrap();
        assert_eq!(memory.read(path).unwrap(), b"01ab456789!\n");
        assert_eq!(memory.stat(path).unwrap().identity, identity);
        let missing = Path::new("/s/missing.jsonl");
        assert_eq!(memory.write_at(missing, 0, b"x").unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(!memory.exists(missing));
        let device = Path::new("/s/null.jsonl");
        memory.add_special(device, FileKind::CharDevice);
        assert_eq!(memory.write_at(device, 0, b"x").unwrap_err().kind(), io::ErrorKind::InvalidInput);
        let mut bytes = b"ab".to_vec();
        overwrite(&mut bytes, 4, b"cd");
        assert_eq!(bytes, b"ab\0\0cd");
    }

    #[test]
    fn a_rewrite_of_a_path_that_is_not_a_regular_file_is_refused() {
        let storage = MemoryStorage::new();
        let device = Path::new("/s/null.jsonl");
        storage.add_special(device, FileKind::CharDevice);
        let err = write_atomic(&storage, device, b"new\n").unwrap_err();
        assert_eq!(err.to_string(), "`/s/null.jsonl` is a character device, not a session file");
        assert_eq!(storage.stat(device).unwrap().kind, FileKind::CharDevice);
        assert_eq!(storage.files(), Vec::<PathBuf>::new(), "no temporary file is left");
        let err = crate::Error::from_io("writing", device, err);
        assert!(matches!(err, crate::Error::NotASessionFile { kind: FileKind::CharDevice, .. }), "{err:?}");
    }

    #[test]
    fn special_files_are_stated_and_listed_but_never_opened() {
        let storage = MemoryStorage::new();
        let fifo = Path::new("/s/pipe.jsonl");
        storage.add_special(fifo, FileKind::Fifo);
        assert!(regular_file(&storage, fifo).is_err_and(|e| e.kind() == io::ErrorKind::InvalidInput));
        assert!(storage.open_read(fifo).is_err());
        assert!(storage.open_append(fifo).is_err());
        assert!(storage.lock(fifo).is_err());
        assert!(storage.truncate(fifo, 0).is_err());
        assert!(storage.write_at(fifo, 0, b"x").is_err());
        let listed = storage.list_dir(Path::new("/s")).unwrap();
        assert_eq!(listed, [DirEntry { path: fifo.to_owned(), is_dir: false, kind: FileKind::Fifo }]);
    }

    #[cfg(unix)]
    #[test]
    fn the_file_storage_refuses_a_fifo_without_opening_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.jsonl");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        // Each call would block forever if it opened the FIFO.
        for result in [
            FileStorage.open_read(&fifo).map(drop),
            FileStorage.read(&fifo).map(drop),
            FileStorage.read_range(&fifo, 0, 10).map(drop),
            FileStorage.open_append(&fifo).map(drop),
            FileStorage.write_at(&fifo, 0, b"x").map(drop),
            FileStorage.lock(&fifo).map(drop),
        ] {
            let err = result.err().unwrap();
            assert!(err.to_string().ends_with("is a FIFO (named pipe), not a session file"), "{err}");
        }
        assert_eq!(FileStorage.stat(&fifo).unwrap().kind, FileKind::Fifo);
        let listed = FileStorage.list_dir(dir.path()).unwrap();
        assert_eq!(listed[0].kind, FileKind::Fifo);
    }
}
