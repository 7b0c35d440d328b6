//! Reading an original file for the archive: what changed since the archive
//! last read it, as a [`FileWrite`].

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::vault::{FileWrite, Kind, KnownFile};

/// How much of a file's start (and of the bytes before where its stored
/// lines end) is hashed to tell a grown file from a rewritten one.
pub(crate) const PROBE: usize = 4096;

/// A file's size and modification time (ns), or why it has none.
pub(crate) fn stat(path: &Path) -> io::Result<(i64, i64)> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::other(format!("{} is not a regular file", sess_core::FileKind::of(meta.file_type()))));
    }
    let size = i64::try_from(meta.len()).unwrap_or(i64::MAX);
    let mtime = meta.mtime().saturating_mul(1_000_000_000).saturating_add(meta.mtime_nsec());
    Ok((size, mtime))
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Opens the file at `path` as every read of another agent's file is opened
/// ([`sess_sources::jsonl::open_regular`]: a FIFO or device that took the
/// place of the file since its stat is refused, never opened).
fn open(path: &Path) -> io::Result<File> {
    sess_sources::jsonl::open_regular(path).map_err(|err| match err {
        sess_sources::Error::Io { source, .. } => source,
        // A file gone since its stat is gone, not a failure.
        sess_sources::Error::NotFound { .. } => io::Error::from(io::ErrorKind::NotFound),
        other => io::Error::other(other.to_string()),
    })
}

/// A short hash of `bytes`.
pub(crate) fn hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(24);
    for byte in &digest[..12] {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 15)]));
    }
    out
}

/// Whether the file at `known`'s path is as the archive left it (same size
/// and modification time, and not marked gone): it is not read.
pub(crate) fn unchanged(known: Option<&KnownFile>, size: i64, mtime: i64) -> bool {
    known.is_some_and(|k| !k.deleted && k.size == size && k.mtime == mtime)
}

/// What to store of the file at `path` (of `source`, changing as `kind`),
/// which the archive holds as `known`; `size` and `mtime` are from its stat.
pub(crate) fn read_change(
    source: &str,
    path: &Path,
    kind: Kind,
    known: Option<&KnownFile>,
    size: i64,
    mtime: i64,
) -> io::Result<FileWrite> {
    let mut file = open(path)?;
    let name = path.to_string_lossy().into_owned();
    if kind == Kind::Lines
        && let Some(base) = known
        && let Some(write) = read_added(&mut file, source, &name, base, size, mtime)?
    {
        return Ok(write);
    }
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(whole(source, &name, kind, known, bytes, mtime))
}

/// A new version of a file (or, for a whole file whose bytes are the same,
/// only its new modification time), from all its `bytes`.
pub(crate) fn whole(
    source: &str,
    path: &str,
    kind: Kind,
    known: Option<&KnownFile>,
    mut bytes: Vec<u8>,
    mtime: i64,
) -> FileWrite {
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let (head, lines_end) = if kind == Kind::Lines {
        let end = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
        (hash(&bytes[..end.min(PROBE)]), end)
    } else {
        (hash(&bytes), bytes.len())
    };
    if kind != Kind::Lines
        && let Some(base) = known
        && base.head == head
    {
        // The same bytes: only the modification time (or the mark of a
        // deleted original coming back) changes.
        return FileWrite {
            source: source.to_owned(),
            path: path.to_owned(),
            kind,
            base: Some(base.clone()),
            version: base.version,
            start: base.stored,
            chunk: Vec::new(),
            tail: Vec::new(),
            size,
            mtime,
            head,
            stored: base.stored,
            mark: base.mark.clone(),
        };
    }
    let tail = bytes.split_off(lines_end);
    let stored = i64::try_from(lines_end).unwrap_or(i64::MAX);
    let mark = hash(&bytes[lines_end.saturating_sub(PROBE)..]);
    FileWrite {
        source: source.to_owned(),
        path: path.to_owned(),
        kind,
        base: known.cloned(),
        version: known.map_or(1, |k| k.version + 1),
        start: 0,
        chunk: bytes,
        tail,
        size,
        mtime,
        head,
        stored,
        mark,
    }
}

/// The lines added to a file the archive holds `base` of, when its start and
/// the bytes before where its stored lines end are the same; `None` when it
/// was rewritten otherwise (a new version).
fn read_added(
    file: &mut File,
    source: &str,
    path: &str,
    base: &KnownFile,
    size: i64,
    mtime: i64,
) -> io::Result<Option<FileWrite>> {
    if size < base.stored {
        return Ok(None);
    }
    let stored = u64::try_from(base.stored).unwrap_or(0);
    let mut head = vec![0; usize::try_from(size).unwrap_or(usize::MAX).min(PROBE)];
    file.read_exact(&mut head)?;
    let head_len = usize::try_from(stored).unwrap_or(usize::MAX).min(PROBE);
    if hash(&head[..head_len.min(head.len())]) != base.head {
        return Ok(None);
    }
    let mark_start = stored.saturating_sub(PROBE as u64);
    file.seek(SeekFrom::Start(mark_start))?;
    let mut rest = Vec::with_capacity(usize::try_from(u64::try_from(size).unwrap_or(0) - mark_start).unwrap_or(0));
    file.read_to_end(&mut rest)?;
    let before = usize::try_from(stored - mark_start).unwrap_or(0);
    if rest.len() < before || hash(&rest[..before]) != base.mark {
        return Ok(None);
    }
    let added = &rest[before..];
    let end = memchr::memrchr(b'\n', added).map_or(0, |i| i + 1);
    let new_stored = base.stored + i64::try_from(end).unwrap_or(i64::MAX);
    let full = &rest[..before + end];
    let mark = hash(&full[full.len().saturating_sub(PROBE)..]);
    let head_hash = hash(&head[..head.len().min(usize::try_from(new_stored).unwrap_or(usize::MAX))]);
    Ok(Some(FileWrite {
        source: source.to_owned(),
        path: path.to_owned(),
        kind: Kind::Lines,
        base: Some(base.clone()),
        version: base.version,
        start: base.stored,
        chunk: added[..end].to_vec(),
        tail: added[end..].to_vec(),
        size: base.stored + i64::try_from(added.len()).unwrap_or(i64::MAX),
        mtime,
        head: head_hash,
        stored: new_stored,
        mark,
    }))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use super::*;

    fn known(write: &FileWrite) -> KnownFile {
        KnownFile {
            id: 1,
            path: write.path.clone(),
            source: write.source.clone(),
            version: write.version,
            size: write.size,
            mtime: write.mtime,
            head: write.head.clone(),
            stored: write.stored,
            mark: write.mark.clone(),
            deleted: false,
            main: true,
        }
    }

    fn read(path: &Path, kind: Kind, base: Option<&KnownFile>) -> FileWrite {
        let (size, mtime) = stat(path).unwrap();
        read_change("claude", path, kind, base, size, mtime).unwrap()
    }

    #[test]
    fn a_grown_file_gives_its_new_lines_and_keeps_a_torn_tail_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\"").unwrap();
        let first = read(&path, Kind::Lines, None);
        assert_eq!(
            (first.version, first.start, first.chunk.as_slice(), first.tail.as_slice()),
            (1, 0, &b"{\"a\":1}\n"[..], &b"{\"b\""[..])
        );
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n").unwrap();
        let second = read(&path, Kind::Lines, Some(&known(&first)));
        assert_eq!((second.version, second.start), (1, 8));
        assert_eq!(second.chunk, b"{\"b\":2}\n{\"c\":3}\n");
        assert!(second.tail.is_empty());
        let third = read(&path, Kind::Lines, Some(&known(&second)));
        assert!(third.chunk.is_empty());
    }

    #[test]
    fn a_file_rewritten_in_place_is_a_new_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        let first = read(&path, Kind::Lines, None);
        std::fs::write(&path, "{\"a\":1}\n{\"B\":2}\n{\"c\":3}\n").unwrap();
        let second = read(&path, Kind::Lines, Some(&known(&first)));
        assert_eq!((second.version, second.start), (2, 0));
        assert_eq!(second.chunk, b"{\"a\":1}\n{\"B\":2}\n{\"c\":3}\n");
        std::fs::write(&path, "{\"x\":1}\n").unwrap();
        let third = read(&path, Kind::Lines, Some(&known(&second)));
        assert_eq!((third.version, third.chunk.as_slice()), (3, &b"{\"x\":1}\n"[..]));
    }

    #[test]
    fn a_whole_file_with_the_same_bytes_is_only_touched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, "{\"a\":1}").unwrap();
        let first = read(&path, Kind::Whole, None);
        assert_eq!((first.version, first.chunk.as_slice(), first.tail.len()), (1, &b"{\"a\":1}"[..], 0));
        let same = read(&path, Kind::Whole, Some(&known(&first)));
        assert_eq!((same.version, same.chunk.len()), (1, 0));
        std::fs::write(&path, "{\"a\":2}").unwrap();
        let changed = read(&path, Kind::Whole, Some(&known(&first)));
        assert_eq!((changed.version, changed.chunk.as_slice()), (2, &b"{\"a\":2}"[..]));
    }

    #[test]
    fn a_long_file_grows_past_the_probes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let line = format!("{{\"t\":\"{}\"}}\n", "x".repeat(1000));
        std::fs::write(&path, line.repeat(3)).unwrap();
        let first = read(&path, Kind::Lines, None);
        std::fs::write(&path, line.repeat(9)).unwrap();
        let second = read(&path, Kind::Lines, Some(&known(&first)));
        assert_eq!((second.version, second.start, second.chunk.len()), (1, first.stored, line.len() * 6));
        std::fs::write(&path, line.repeat(12)).unwrap();
        let third = read(&path, Kind::Lines, Some(&known(&second)));
        assert_eq!((third.version, third.start, third.chunk.len()), (1, second.stored, line.len() * 3));
    }
}
