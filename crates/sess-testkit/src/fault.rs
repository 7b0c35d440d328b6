//! A storage that fails a chosen operation.

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use sess_store::storage::{DirEntry, FileStat, SessionStorage, StorageLock, StorageWriter};

/// The kinds of operation a [`FaultStorage`] counts and can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Writing bytes: to an open file, in place, or by truncating.
    Write,
    /// Syncing a file or a directory.
    Sync,
    /// Renaming a file or directory.
    Rename,
    /// Creating or opening a file for writing.
    Open,
}

/// Wraps a storage and fails the Nth operation of a kind (1-based), once: at
/// once ([`fail_on`](FaultStorage::fail_on)), or, for a write, after writing
/// only its first bytes ([`tear_on`](FaultStorage::tear_on): a short write).
#[derive(Clone, Debug)]
pub struct FaultStorage {
    inner: Arc<dyn SessionStorage>,
    counts: Arc<[AtomicUsize; 4]>,
    plan: Arc<Mutex<Option<Plan>>>,
}

/// The failure to come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    op: Op,
    nth: usize,
    /// For a write: how many of its bytes are written before it fails.
    keep: Option<usize>,
}

/// What the operation being counted does.
enum Fault {
    None,
    Fail(io::Error),
    /// Write this many bytes, then fail.
    Tear(usize, io::Error),
}

impl FaultStorage {
    /// Wraps `inner`; nothing fails until [`fail_on`](Self::fail_on).
    pub fn new(inner: Arc<dyn SessionStorage>) -> Self {
        Self { inner, counts: Arc::new(Default::default()), plan: Arc::new(Mutex::new(None)) }
    }

    /// Fails the `nth` operation of kind `op` from now on (1 = the next one).
    pub fn fail_on(&self, op: Op, nth: usize) {
        self.plan(Plan { op, nth, keep: None });
    }

    /// Makes the `nth` write from now on (1 = the next one) a short write:
    /// only its first `keep` bytes reach the file, then it fails. A write
    /// that is not given bytes (a truncation) just fails.
    pub fn tear_on(&self, nth: usize, keep: usize) {
        self.plan(Plan { op: Op::Write, nth, keep: Some(keep) });
    }

    fn plan(&self, plan: Plan) {
        self.counts[plan.op as usize].store(0, Ordering::SeqCst);
        *self.plan.lock().unwrap_or_else(PoisonError::into_inner) = Some(plan);
    }

    /// How many operations of kind `op` ran since the last [`fail_on`](Self::fail_on)
    /// of that kind.
    pub fn count(&self, op: Op) -> usize {
        self.counts[op as usize].load(Ordering::SeqCst)
    }

    fn fault(&self, op: Op) -> Fault {
        let n = self.counts[op as usize].fetch_add(1, Ordering::SeqCst) + 1;
        let mut plan = self.plan.lock().unwrap_or_else(PoisonError::into_inner);
        match *plan {
            Some(Plan { op: planned, nth, keep }) if planned == op && nth == n => {
                *plan = None;
                let error = io::Error::other(format!("injected failure of {op:?} #{n}"));
                keep.map_or(Fault::Fail(error), |keep| {
                    Fault::Tear(keep, io::Error::other(format!("injected short write #{n}: {keep} bytes written")))
                })
            }
            _ => Fault::None,
        }
    }

    fn check(&self, op: Op) -> io::Result<()> {
        match self.fault(op) {
            Fault::None => Ok(()),
            Fault::Fail(error) | Fault::Tear(_, error) => Err(error),
        }
    }

    /// Writes `bytes` with `write`, unless this write is the one to fail.
    fn write(&self, bytes: &[u8], write: impl FnOnce(&[u8]) -> io::Result<()>) -> io::Result<()> {
        match self.fault(Op::Write) {
            Fault::None => write(bytes),
            Fault::Fail(error) => Err(error),
            Fault::Tear(keep, error) => {
                write(&bytes[..keep.min(bytes.len())])?;
                Err(error)
            }
        }
    }
}

struct FaultWriter {
    storage: FaultStorage,
    inner: Box<dyn StorageWriter>,
}

impl StorageWriter for FaultWriter {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let inner = &mut self.inner;
        self.storage.write(bytes, |bytes| inner.write_all(bytes))
    }

    fn sync(&mut self) -> io::Result<()> {
        self.storage.check(Op::Sync)?;
        self.inner.sync()
    }

    fn lock(&mut self) -> io::Result<Option<(u64, u64)>> {
        self.inner.lock()
    }

    fn unlock(&mut self) {
        self.inner.unlock();
    }
}

impl SessionStorage for FaultStorage {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.inner.create_dir_all(dir)
    }

    fn stat(&self, path: &Path) -> io::Result<FileStat> {
        self.inner.stat(path)
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
        self.check(Op::Open)?;
        Ok(Box::new(FaultWriter { storage: self.clone(), inner: self.inner.create_new(path)? }))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        self.check(Op::Open)?;
        Ok(Box::new(FaultWriter { storage: self.clone(), inner: self.inner.open_append(path)? }))
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        self.check(Op::Write)?;
        self.inner.truncate(path, len)
    }

    fn write_at(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.write(bytes, |bytes| self.inner.write_at(path, offset, bytes))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.check(Op::Rename)?;
        self.inner.rename(from, to)
    }

    /// Counted with the renames: it is the step that publishes a file.
    fn link_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.check(Op::Rename)?;
        self.inner.link_new(from, to)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.check(Op::Sync)?;
        self.inner.sync_dir(dir)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_file(path)
    }

    fn rename_dir(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.check(Op::Rename)?;
        self.inner.rename_dir(from, to)
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn StorageLock>> {
        self.inner.lock(path)
    }

    fn resolve_link(&self, path: &Path) -> io::Result<std::path::PathBuf> {
        self.inner.resolve_link(path)
    }
}
