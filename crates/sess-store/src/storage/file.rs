//! The real file system.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::{DirEntry, FileStat, SessionStorage, StorageLock, StorageWriter};

/// Session storage on the local file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileStorage;

struct FileWriter(File);

impl StorageWriter for FileWriter {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write_all(bytes)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.0.sync_data()
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
            identity: identity(&meta),
        })
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(File::open(path)?))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }

    fn read_range(&self, path: &Path, offset: u64, max: usize) -> io::Result<Vec<u8>> {
        let mut file = File::open(path)?;
        file.seek(SeekFrom::Start(offset))?;
        let mut bytes = Vec::with_capacity(max.min(1 << 20));
        file.take(max as u64).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        fs::read_dir(dir)?
            .map(|item| {
                let item = item?;
                Ok(DirEntry { path: item.path(), is_dir: item.file_type()?.is_dir() })
            })
            .collect()
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        Ok(Box::new(FileWriter(OpenOptions::new().write(true).create_new(true).open(path)?)))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        Ok(Box::new(FileWriter(OpenOptions::new().append(true).create(true).open(path)?)))
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = OpenOptions::new().write(true).open(path)?;
        file.set_len(len)?;
        file.sync_data()
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        #[allow(clippy::disallowed_methods)] // The storage layer is where renames happen.
        fs::rename(from, to)
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
            let file = OpenOptions::new().read(true).open(path)?;
            file.lock()?;
            let locked = identity(&file.metadata()?);
            let current = fs::metadata(path).ok().and_then(|m| identity(&m));
            if locked.is_none() || locked == current {
                return Ok(Box::new(FileLock(file)));
            }
        }
    }
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
