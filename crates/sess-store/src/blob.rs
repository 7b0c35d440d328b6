//! The content-addressed blob store shared by the sessions of an agent
//! directory (xcsh keeps it in `~/.xcsh/agent/blobs`).
//!
//! A blob is a file named by the lowercase hex SHA-256 of its bytes, with no
//! extension, and is referred to from session entries as
//! `blob:sha256:<hex>`. Because the name is the hash, writing the same bytes
//! twice is harmless and the store deduplicates across sessions; nothing is
//! ever deleted.
//!
//! ```
//! use std::sync::Arc;
//! use sess_store::{BlobStore, MemoryStorage};
//!
//! let blobs = BlobStore::new(Arc::new(MemoryStorage::new()), "/agent/blobs");
//! let reference = blobs.put(b"hello")?;
//! assert_eq!(reference, "blob:sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
//! assert_eq!(blobs.get(&reference)?, Some(b"hello".to_vec()));
//! # Ok::<(), sess_store::Error>(())
//! ```

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::storage::{self, SessionStorage};

/// The prefix of every blob reference.
pub(crate) const BLOB_REF_PREFIX: &str = "blob:sha256:";

/// The number of hex digits of a SHA-256 digest.
const HEX_DIGITS: usize = 64;

/// A directory of content-addressed blobs on a [`SessionStorage`].
///
/// Cloning is cheap and shares the storage.
#[derive(Clone, Debug)]
pub struct BlobStore {
    storage: Arc<dyn SessionStorage>,
    dir: PathBuf,
}

impl BlobStore {
    /// A blob store in `dir` on `storage`. Nothing is touched until the first
    /// [`put`](Self::put); the directory is created then if it is missing.
    pub fn new(storage: Arc<dyn SessionStorage>, dir: impl Into<PathBuf>) -> Self {
        Self { storage, dir: dir.into() }
    }

    /// The directory holding the blobs.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stores `bytes` as `<dir>/<sha256 lowercase hex>` and returns the
    /// reference `blob:sha256:<hex>`.
    ///
    /// Idempotent: if the file already holds exactly these bytes nothing is
    /// written. A missing or corrupt file is (re)written with
    /// [`storage::write_atomic`] (temp + fsync + rename + directory fsync), so
    /// once this returns the blob is durable and a crash never leaves a torn
    /// blob under its final name. The directory is created if needed.
    pub fn put(&self, bytes: &[u8]) -> Result<String> {
        let hex = blob_hash(bytes);
        let path = self.dir.join(&hex);
        match self.storage.read(&path) {
            Ok(existing) if existing == bytes => return Ok(blob_ref(&hex)),
            // Corrupt (torn by another writer, damaged on disk): replace it.
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.storage.create_dir_all(&self.dir).map_err(|e| Error::io("creating", &self.dir, e))?;
            }
            Err(e) => return Err(Error::io("reading", path, e)),
        }
        storage::write_atomic(self.storage.as_ref(), &path, bytes).map_err(|e| Error::io("writing", &path, e))?;
        Ok(blob_ref(&hex))
    }

    /// The bytes of the blob `reference` names.
    ///
    /// A reference that is not exactly `blob:sha256:` followed by 64 lowercase
    /// hex digits is [`Error::InvalidBlobRef`] and never reaches the storage
    /// (so it can never be used as a path). A missing blob is `Ok(None)`; a blob
    /// whose bytes do not hash to its name is [`Error::CorruptBlob`].
    pub fn get(&self, reference: &str) -> Result<Option<Vec<u8>>> {
        let hex = parse_blob_ref(reference).ok_or_else(|| Error::InvalidBlobRef { reference: reference.to_owned() })?;
        let path = self.dir.join(hex);
        let bytes = match self.storage.read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("reading", path, e)),
        };
        if blob_hash(&bytes) != hex {
            return Err(Error::CorruptBlob { path });
        }
        Ok(Some(bytes))
    }
}

/// Where large images go: a content-addressed store of bytes.
pub trait Blobs {
    /// Stores `bytes`; returns `blob:sha256:<hex>`.
    fn put(&self, bytes: &[u8]) -> Result<String>;

    /// The bytes of a reference; `None` when missing. A reference that is not
    /// 64 hex digits is an error and never used as a key.
    fn get(&self, reference: &str) -> Result<Option<Vec<u8>>>;

    /// Where the blobs are, for messages.
    fn location(&self) -> String {
        "the blob store".to_owned()
    }
}

impl Blobs for BlobStore {
    fn put(&self, bytes: &[u8]) -> Result<String> {
        BlobStore::put(self, bytes)
    }

    fn get(&self, reference: &str) -> Result<Option<Vec<u8>>> {
        BlobStore::get(self, reference)
    }

    fn location(&self) -> String {
        format!("`{}`", self.dir().display())
    }
}

/// The hex digest of a valid blob reference (`blob:sha256:` followed by exactly
/// 64 lowercase hex digits), or `None`.
///
/// ```
/// use sess_store::parse_blob_ref;
///
/// let hex = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
/// assert_eq!(parse_blob_ref(&format!("blob:sha256:{hex}")), Some(hex));
/// assert_eq!(parse_blob_ref("blob:sha256:../../etc/passwd"), None);
/// ```
pub fn parse_blob_ref(reference: &str) -> Option<&str> {
    let hex = reference.strip_prefix(BLOB_REF_PREFIX)?;
    let valid = hex.len() == HEX_DIGITS && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    valid.then_some(hex)
}

/// The reference (`blob:sha256:<hex>`) of the blob whose digest is `hex`.
pub fn blob_ref(hex: &str) -> String {
    format!("{BLOB_REF_PREFIX}{hex}")
}

/// The lowercase hex SHA-256 of `bytes`: the name a blob is stored under.
pub fn blob_hash(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{DirEntry, FileStat, FileStorage, MemoryStorage, StorageLock, StorageWriter};
    use pretty_assertions::assert_eq;
    use rstest::rstest;
    use std::io::Read;

    const HELLO_HEX: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    fn memory_store() -> (MemoryStorage, BlobStore) {
        let storage = MemoryStorage::new();
        let blobs = BlobStore::new(Arc::new(storage.clone()), "/agent/blobs");
        (storage, blobs)
    }

    /// A storage that fails the test if anything touches it.
    #[derive(Debug)]
    struct UntouchableStorage;

    impl SessionStorage for UntouchableStorage {
        fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
            panic!("create_dir_all({})", dir.display())
        }
        fn stat(&self, path: &Path) -> io::Result<FileStat> {
            panic!("stat({})", path.display())
        }
        fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
            panic!("open_read({})", path.display())
        }
        fn read_range(&self, path: &Path, _offset: u64, _max: usize) -> io::Result<Vec<u8>> {
            panic!("read_range({})", path.display())
        }
        fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
            panic!("list_dir({})", dir.display())
        }
        fn create_new(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
            panic!("create_new({})", path.display())
        }
        fn open_append(&self, path: &Path) -> io::Result<Box<dyn StorageWriter>> {
            panic!("open_append({})", path.display())
        }
        fn truncate(&self, path: &Path, _len: u64) -> io::Result<()> {
            panic!("truncate({})", path.display())
        }
        fn write_at(&self, path: &Path, _offset: u64, _bytes: &[u8]) -> io::Result<()> {
            panic!("write_at({})", path.display())
        }
        fn rename(&self, from: &Path, _to: &Path) -> io::Result<()> {
            panic!("rename({})", from.display())
        }
        fn link_new(&self, from: &Path, _to: &Path) -> io::Result<()> {
            panic!("link_new({})", from.display())
        }
        fn sync_dir(&self, dir: &Path) -> io::Result<()> {
            panic!("sync_dir({})", dir.display())
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            panic!("remove_file({})", path.display())
        }
        fn lock(&self, path: &Path) -> io::Result<Box<dyn StorageLock>> {
            panic!("lock({})", path.display())
        }
    }

    #[test]
    fn put_then_get_round_trips_in_memory() {
        let (storage, blobs) = memory_store();
        let reference = blobs.put(b"hello").unwrap();
        assert_eq!(reference, format!("blob:sha256:{HELLO_HEX}"));
        assert_eq!(storage.files(), [PathBuf::from(format!("/agent/blobs/{HELLO_HEX}"))]);
        assert_eq!(blobs.get(&reference).unwrap(), Some(b"hello".to_vec()));
    }

    #[test]
    fn put_then_get_round_trips_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let blob_dir = dir.path().join("agent").join("blobs");
        let blobs = BlobStore::new(Arc::new(FileStorage), &blob_dir);
        assert_eq!(blobs.dir(), blob_dir);
        let bytes: Vec<u8> = (0..=255).collect();
        let reference = blobs.put(&bytes).unwrap();
        assert_eq!(blobs.get(&reference).unwrap(), Some(bytes.clone()));
        // Only the blob itself is left: no extension, no temporary file.
        let names: Vec<_> = std::fs::read_dir(&blob_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [parse_blob_ref(&reference).unwrap()]);
        assert_eq!(std::fs::read(blob_dir.join(parse_blob_ref(&reference).unwrap())).unwrap(), bytes);
    }

    #[test]
    fn put_is_idempotent_and_does_not_rewrite_a_good_blob() {
        let (storage, blobs) = memory_store();
        let first = blobs.put(b"hello").unwrap();
        let path = PathBuf::from(format!("/agent/blobs/{HELLO_HEX}"));
        let identity = storage.stat(&path).unwrap().identity;
        let second = blobs.put(b"hello").unwrap();
        assert_eq!(first, second);
        assert_eq!(storage.stat(&path).unwrap().identity, identity, "a good blob is not rewritten");
        assert_eq!(storage.files(), [path]);
    }

    #[test]
    fn put_replaces_a_corrupt_blob() {
        let (storage, blobs) = memory_store();
        let path = PathBuf::from(format!("/agent/blobs/{HELLO_HEX}"));
        storage::write_atomic(&storage, &path, b"hel").unwrap();
        let reference = blobs.put(b"hello").unwrap();
        assert_eq!(storage.read(&path).unwrap(), b"hello");
        assert_eq!(blobs.get(&reference).unwrap(), Some(b"hello".to_vec()));
    }

    #[test]
    fn get_of_a_missing_blob_is_none() {
        let (_, blobs) = memory_store();
        assert_eq!(blobs.get(&format!("blob:sha256:{HELLO_HEX}")).unwrap(), None);
    }

    #[test]
    fn get_detects_a_corrupt_blob() {
        let (storage, blobs) = memory_store();
        let path = PathBuf::from(format!("/agent/blobs/{HELLO_HEX}"));
        storage::write_atomic(&storage, &path, b"jello").unwrap();
        let error = blobs.get(&format!("blob:sha256:{HELLO_HEX}")).unwrap_err();
        assert!(matches!(&error, Error::CorruptBlob { path: p } if *p == path), "{error:?}");
    }

    #[rstest]
    #[case::path_traversal("blob:sha256:../../etc/passwd")]
    #[case::absolute_path("blob:sha256:/etc/passwd")]
    #[case::uppercase_hex("blob:sha256:2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824")]
    #[case::digits_63("blob:sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b982")]
    #[case::digits_65("blob:sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98244")]
    #[case::missing_prefix("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")]
    #[case::other_algorithm("blob:sha512:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")]
    #[case::trailing_slash("blob:sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b982/")]
    #[case::non_ascii("blob:sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98é")]
    #[case::empty("")]
    fn invalid_references_are_rejected_without_touching_storage(#[case] reference: &str) {
        assert_eq!(parse_blob_ref(reference), None);
        let blobs = BlobStore::new(Arc::new(UntouchableStorage), "/agent/blobs");
        let error = blobs.get(reference).unwrap_err();
        assert!(matches!(&error, Error::InvalidBlobRef { reference: r } if r == reference), "{error:?}");
    }

    #[test]
    fn parse_blob_ref_returns_the_digest() {
        assert_eq!(parse_blob_ref(&format!("blob:sha256:{HELLO_HEX}")), Some(HELLO_HEX));
    }
}
