//! A storage that simulates a machine crash.
//!
//! Every file keeps its written bytes apart from its synced bytes, and every
//! directory keeps its entries apart from its synced entries. [`CrashStorage::crash`]
//! throws away what was not synced: file contents fall back to their last `sync`,
//! directory entries (creations, renames) to their directory's last `sync_dir`.
//! [`CrashStorage::kill_after`] makes the process "die" after a number of
//! mutating operations, so a test can crash at every point of a workload. A
//! write in place ([`SessionStorage::write_at`]) changes the written bytes
//! only: a crash before the file's next sync gives the old bytes back.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sess_store::storage::{self, DirEntry, FileStat, SessionStorage, StorageLock, StorageWriter};

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct CrashStorage {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    /// File contents by inode.
    inodes: BTreeMap<u64, Inode>,
    /// Directory entries as the running system sees them.
    names: BTreeMap<PathBuf, u64>,
    /// Directory entries as they are on disk.
    synced_names: BTreeMap<PathBuf, u64>,
    dirs: BTreeSet<PathBuf>,
    next_inode: u64,
    /// Mutating operations left before the process dies; `None`: never.
    budget: Option<usize>,
}

#[derive(Debug, Default, Clone)]
struct Inode {
    data: Vec<u8>,
    synced: Vec<u8>,
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("{} not found", path.display()))
}

impl CrashStorage {
    /// An empty disk.
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// After `ops` more mutating operations (write, write in place, sync,
    /// create, rename, truncate, remove), every mutating operation fails as if the process had died.
    pub fn kill_after(&self, ops: usize) {
        self.state().budget = Some(ops);
    }

    /// Whether the process has "died".
    pub fn is_dead(&self) -> bool {
        self.state().budget == Some(0)
    }

    /// The machine crashes and restarts: unsynced bytes and unsynced directory
    /// entries are lost, and the process is alive again.
    pub fn crash(&self) {
        let mut state = self.state();
        state.names = state.synced_names.clone();
        for inode in state.inodes.values_mut() {
            inode.data = inode.synced.clone();
        }
        let live: BTreeSet<u64> = state.names.values().copied().collect();
        state.inodes.retain(|ino, _| live.contains(ino));
        state.budget = None;
    }

    /// The current bytes of a file, if it exists.
    pub fn contents(&self, path: &Path) -> Option<Vec<u8>> {
        let state = self.state();
        state.names.get(path).and_then(|ino| state.inodes.get(ino)).map(|i| i.data.clone())
    }

    /// The paths of every file.
    pub fn files(&self) -> Vec<PathBuf> {
        self.state().names.keys().cloned().collect()
    }
}

impl State {
    fn spend(&mut self) -> io::Result<()> {
        match &mut self.budget {
            Some(0) => Err(io::Error::other("the process died (simulated crash)")),
            Some(n) => {
                *n -= 1;
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn inode_of(&self, path: &Path) -> io::Result<u64> {
        self.names.get(path).copied().ok_or_else(|| not_found(path))
    }

    fn add_dirs(&mut self, path: &Path) {
        for ancestor in path.ancestors().skip(1) {
            if ancestor.as_os_str().is_empty() {
                break;
            }
            self.dirs.insert(ancestor.to_owned());
        }
    }

    fn create(&mut self, path: &Path) -> u64 {
        self.next_inode += 1;
        let ino = self.next_inode;
        self.inodes.insert(ino, Inode::default());
        self.names.insert(path.to_owned(), ino);
        self.add_dirs(path);
        ino
    }
}

struct CrashWriter {
    storage: CrashStorage,
    inode: u64,
}

impl StorageWriter for CrashWriter {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut state = self.storage.state();
        state.spend()?;
        let inode = state.inodes.get_mut(&self.inode).ok_or_else(|| io::Error::other("file was removed"))?;
        inode.data.extend_from_slice(bytes);
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        let mut state = self.storage.state();
        state.spend()?;
        let inode = state.inodes.get_mut(&self.inode).ok_or_else(|| io::Error::other("file was removed"))?;
        inode.synced = inode.data.clone();
        Ok(())
    }

    fn lock(&mut self) -> io::Result<Option<(u64, u64)>> {
        // One process: a lock has nothing to keep out.
        Ok(Some((0, self.inode)))
    }

    fn unlock(&mut self) {}
}

struct NoLock;

impl StorageLock for NoLock {}

impl SessionStorage for CrashStorage {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.state();
        state.dirs.insert(dir.to_owned());
        state.add_dirs(dir);
        Ok(())
    }

    fn stat(&self, path: &Path) -> io::Result<FileStat> {
        let state = self.state();
        if let Some(ino) = state.names.get(path) {
            let len = state.inodes.get(ino).map_or(0, |i| i.data.len() as u64);
            return Ok(FileStat::file(len, None, Some((0, *ino))));
        }
        if state.dirs.contains(path) {
            return Ok(FileStat::dir());
        }
        Err(not_found(path))
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        let bytes = self.contents(path).ok_or_else(|| not_found(path))?;
        Ok(Box::new(Cursor::new(bytes)))
    }

    fn read_range(&self, path: &Path, offset: u64, max: usize) -> io::Result<Vec<u8>> {
        Ok(storage::byte_range(&self.contents(path).ok_or_else(|| not_found(path))?, offset, max))
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let state = self.state();
        if !state.dirs.contains(dir) {
            return Err(not_found(dir));
        }
        Ok(storage::children(dir, state.names.keys(), state.dirs.iter()))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        let mut state = self.state();
        state.spend()?;
        if state.names.contains_key(path) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", path.display())));
        }
        let inode = state.create(path);
        Ok(Box::new(CrashWriter { storage: self.clone(), inode }))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
        let mut state = self.state();
        state.spend()?;
        let inode = match state.names.get(path) {
            Some(ino) => *ino,
            None => state.create(path),
        };
        Ok(Box::new(CrashWriter { storage: self.clone(), inode }))
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let mut state = self.state();
        state.spend()?;
        let ino = state.inode_of(path)?;
        if let Some(inode) = state.inodes.get_mut(&ino) {
            inode.data.truncate(usize::try_from(len).unwrap_or(usize::MAX));
            // The file storage syncs after truncating.
            inode.synced = inode.data.clone();
        }
        Ok(())
    }

    fn write_at(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let mut state = self.state();
        state.spend()?;
        let ino = state.inode_of(path)?;
        let inode = state.inodes.get_mut(&ino).ok_or_else(|| not_found(path))?;
        storage::overwrite(&mut inode.data, offset, bytes);
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.state();
        state.spend()?;
        let ino = state.names.remove(from).ok_or_else(|| not_found(from))?;
        state.names.insert(to.to_owned(), ino);
        state.add_dirs(to);
        Ok(())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.state();
        state.spend()?;
        let in_dir = |p: &PathBuf| p.parent() == Some(dir);
        let current: Vec<(PathBuf, u64)> =
            state.names.iter().filter(|(p, _)| in_dir(p)).map(|(p, i)| (p.clone(), *i)).collect();
        state.synced_names.retain(|p, _| !in_dir(p));
        state.synced_names.extend(current);
        Ok(())
    }

    fn link_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.state();
        state.spend()?;
        if state.names.contains_key(to) || state.dirs.contains(to) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.display())));
        }
        let ino = state.inode_of(from)?;
        state.names.insert(to.to_owned(), ino);
        state.add_dirs(to);
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let mut state = self.state();
        state.spend()?;
        state.names.remove(path).map(|_| ()).ok_or_else(|| not_found(path))
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn StorageLock>> {
        self.state().inode_of(path)?;
        Ok(Box::new(NoLock))
    }
}
