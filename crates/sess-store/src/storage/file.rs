//! The real file system.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{DirEntry, FileKind, FileStat, SessionStorage, StorageLock, StorageWriter, not_regular};

/// More links than this in a chain is a loop (Linux's own limit is 40).
const MAX_LINKS: usize = 40;

/// Session storage on the local file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileStorage;

/// An open file and its identity, read when it was opened.
struct FileWriter {
    file: File,
    identity: Option<(u64, u64)>,
}

impl FileWriter {
    /// `file`, whose metadata (read when it was opened) is `meta`.
    fn new(file: File, meta: &fs::Metadata) -> Self {
        Self { file, identity: identity(meta) }
    }
}

impl StorageWriter for FileWriter {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn lock(&mut self) -> io::Result<Option<(u64, u64)>> {
        self.file.lock()?;
        Ok(self.identity)
    }

    fn unlock(&mut self) {
        let _ = self.file.unlock();
    }
}

struct FileLock(File);

impl StorageLock for FileLock {}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl SessionStorage for FileStorage {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)
    }

    fn stat(&self, path: &Path) -> io::Result<FileStat> {
        let meta = fs::metadata(path)?;
        Ok(FileStat {
            len: meta.len(),
            modified: meta.modified().ok(),
            is_dir: meta.is_dir(),
            kind: FileKind::of(meta.file_type()),
            identity: identity(&meta),
        })
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(open_regular(path, OpenOptions::new().read(true))?))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let mut file = open_regular(path, OpenOptions::new().read(true))?;
        let mut bytes = Vec::with_capacity(file.metadata().map_or(0, |m| usize::try_from(m.len()).unwrap_or(0)));
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn read_range(&self, path: &Path, offset: u64, max: usize) -> io::Result<Vec<u8>> {
        let mut file = open_regular(path, OpenOptions::new().read(true))?;
        file.seek(SeekFrom::Start(offset))?;
        let mut bytes = Vec::with_capacity(max.min(1 << 20));
        file.take(max as u64).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        fs::read_dir(dir)?
            .map(|item| {
                let item = item?;
                let own = item.file_type()?;
                let path = item.path();
                // A link is listed as what it points to; a dangling one stays a link.
                let kind = if own.is_symlink() {
                    fs::metadata(&path).map_or(FileKind::Symlink, |m| FileKind::of(m.file_type()))
                } else {
                    FileKind::of(own)
                };
                Ok(DirEntry { path, is_dir: own.is_dir(), kind })
            })
            .collect()
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        let file = OpenOptions::new().write(true).create_new(true).open(path)?;
        let meta = file.metadata()?;
        Ok(Box::new(FileWriter::new(file, &meta)))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        let (file, meta) = open_regular_stat(path, OpenOptions::new().append(true).create(true))?;
        Ok(Box::new(FileWriter::new(file, &meta)))
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = open_regular(path, OpenOptions::new().write(true))?;
        file.set_len(len)?;
        file.sync_data()
    }

    fn write_at(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let file = open_regular(path, OpenOptions::new().write(true))?;
        write_all_at(&file, offset, bytes)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        #[allow(clippy::disallowed_methods)] // The storage layer is where renames happen.
        fs::rename(from, to)
    }

    fn link_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        // link(2) fails with EEXIST when `to` names anything, a dangling
        // link included, and never follows it.
        fs::hard_link(from, to)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        match File::open(dir)?.sync_all() {
            // Some platforms cannot sync a directory handle; the rename is then as
            // durable as the OS makes it.
            Err(e) if matches!(e.kind(), io::ErrorKind::InvalidInput | io::ErrorKind::PermissionDenied) => Ok(()),
            other => other,
        }
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn StorageLock>> {
        // Lock the file, then check the path still names it: a concurrent atomic
        // rewrite may have replaced it while we waited.
        loop {
            let (file, meta) = open_regular_stat(path, OpenOptions::new().read(true))?;
            file.lock()?;
            let locked = identity(&meta);
            let current = fs::metadata(path).ok().and_then(|m| identity(&m));
            if locked.is_none() || locked == current {
                return Ok(Box::new(FileLock(file)));
            }
        }
    }

    fn resolve_link(&self, path: &Path) -> io::Result<PathBuf> {
        let mut current = path.to_owned();
        for _ in 0..MAX_LINKS {
            match fs::symlink_metadata(&current) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let target = fs::read_link(&current)?;
                    current = match current.parent() {
                        Some(dir) if target.is_relative() => dir.join(target),
                        _ => target,
                    };
                }
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => return Ok(current),
            }
        }
        Err(io::Error::other(format!("`{}`: too many levels of symbolic links", path.display())))
    }
}

/// Opens `path` only if it is a regular file (links followed). The kind is
/// checked before the open, so a FIFO or a device is never opened (opening a
/// FIFO blocks until a writer comes); the open itself does not wait (a FIFO
/// put there in between fails the check on the open file instead of blocking).
/// A missing file is left to `options` (created, or `NotFound`).
fn open_regular(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    open_regular_stat(path, options).map(|(file, _)| file)
}

/// [`open_regular`], with the open file's metadata.
fn open_regular_stat(path: &Path, options: &mut OpenOptions) -> io::Result<(File, fs::Metadata)> {
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Err(not_regular(path, FileKind::of(meta.file_type()))),
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let file = no_wait(options).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(path, FileKind::of(meta.file_type())));
    }
    Ok((file, meta))
}

#[cfg(unix)]
fn write_all_at(file: &File, offset: u64, bytes: &[u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(not(unix))]
fn write_all_at(mut file: &File, offset: u64, bytes: &[u8]) -> io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

#[cfg(unix)]
fn no_wait(options: &mut OpenOptions) -> &mut OpenOptions {
    use std::os::unix::fs::OpenOptionsExt as _;
    // No effect on a regular file.
    options.custom_flags(libc::O_NONBLOCK)
}

#[cfg(not(unix))]
fn no_wait(options: &mut OpenOptions) -> &mut OpenOptions {
    options
}

#[cfg(unix)]
#[allow(clippy::unnecessary_wraps)] // Other platforms have no identity.
fn identity(meta: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_meta: &fs::Metadata) -> Option<(u64, u64)> {
    None
}
