//! Reading an original file for the archive: what changed since the archive
//! last read it, as a [`FileWrite`].

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

pub(crate) use sha2::{Digest, Sha256};

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

/// How much of a file is read at a time when its stored lines are hashed.
const BLOCK: usize = 1 << 20;

/// A short hash of `bytes`.
pub(crate) fn hash(bytes: &[u8]) -> String {
    short(&Sha256::new_with_prefix(bytes))
}

/// The short form of what `hasher` has hashed so far.
pub(crate) fn short(hasher: &Sha256) -> String {
    let digest = hasher.clone().finalize();
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

/// What to store of a changed file.
pub(crate) struct Change {
    /// The write.
    pub(crate) write: FileWrite,
    /// When it adds lines to the version the archive holds: how many whole
    /// lines that version had.
    pub(crate) lines_before: Option<usize>,
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
) -> io::Result<Change> {
    let mut file = open(path)?;
    let name = path.to_string_lossy().into_owned();
    if kind == Kind::Lines
        && let Some(base) = known
        && let Some((write, lines)) = read_added(&mut file, source, &name, base, size, mtime)?
    {
        return Ok(Change { write, lines_before: Some(lines) });
    }
    file.seek(SeekFrom::Start(0))?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(Change { write: whole(source, &name, kind, known, bytes, mtime), lines_before: None })
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
            digest: base.digest.clone(),
        };
    }
    let tail = bytes.split_off(lines_end);
    let stored = i64::try_from(lines_end).unwrap_or(i64::MAX);
    let mark = hash(&bytes[lines_end.saturating_sub(PROBE)..]);
    let digest = if kind == Kind::Lines { hash(&bytes) } else { head.clone() };
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
        digest,
    }
}

/// The lines added to a file the archive holds `base` of, when the bytes
/// it stored as whole lines are still the file's start (their hash is the
/// [`digest`](KnownFile::digest) the archive keeps); `None` when it was
/// rewritten otherwise (a new version). The stored part is read a block at a
/// time and hashed (and its lines counted), so a change anywhere in it is
/// seen; what was added is read into memory. With the write, how many whole
/// lines were stored before it.
fn read_added(
    file: &mut File,
    source: &str,
    path: &str,
    base: &KnownFile,
    size: i64,
    mtime: i64,
) -> io::Result<Option<(FileWrite, usize)>> {
    if size < base.stored || base.digest.is_empty() {
        return Ok(None);
    }
    let mut left = usize::try_from(base.stored).unwrap_or(usize::MAX);
    let mut digest = Sha256::new();
    // The first bytes, and those just before the stored end (the probes the
    // archive keeps besides the digest).
    let mut head: Vec<u8> = Vec::with_capacity(PROBE);
    let mut last: Vec<u8> = Vec::with_capacity(PROBE);
    let mut lines = 0;
    let mut block = vec![0; BLOCK.min(left).max(1)];
    while left > 0 {
        let n = file.read(&mut block[..left.min(BLOCK)])?;
        if n == 0 {
            // Shorter than its stat said: it is being rewritten.
            return Ok(None);
        }
        let got = &block[..n];
        digest.update(got);
        lines += memchr::memchr_iter(b'\n', got).count();
        if head.len() < PROBE {
            head.extend_from_slice(&got[..(PROBE - head.len()).min(n)]);
        }
        keep_last(&mut last, got);
        left -= n;
    }
    if short(&digest) != base.digest {
        return Ok(None);
    }
    let mut added = Vec::with_capacity(usize::try_from(size - base.stored).unwrap_or(0));
    file.read_to_end(&mut added)?;
    let end = memchr::memrchr(b'\n', &added).map_or(0, |i| i + 1);
    let new_lines = &added[..end];
    digest.update(new_lines);
    if head.len() < PROBE {
        head.extend_from_slice(&new_lines[..(PROBE - head.len()).min(end)]);
    }
    keep_last(&mut last, new_lines);
    let new_stored = base.stored + i64::try_from(end).unwrap_or(i64::MAX);
    let write = FileWrite {
        source: source.to_owned(),
        path: path.to_owned(),
        kind: Kind::Lines,
        base: Some(base.clone()),
        version: base.version,
        start: base.stored,
        chunk: new_lines.to_vec(),
        tail: added[end..].to_vec(),
        size: base.stored + i64::try_from(added.len()).unwrap_or(i64::MAX),
        mtime,
        head: hash(&head),
        stored: new_stored,
        mark: hash(&last),
        digest: short(&digest),
    };
    Ok(Some((write, lines)))
}

/// Keeps in `last` the up to [`PROBE`] bytes that end `more` (after what it
/// held).
fn keep_last(last: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= PROBE {
        last.clear();
        last.extend_from_slice(&more[more.len() - PROBE..]);
    } else {
        last.extend_from_slice(more);
        let extra = last.len().saturating_sub(PROBE);
        last.drain(..extra);
    }
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
            digest: write.digest.clone(),
            deleted: false,
            main: true,
        }
    }

    fn read(path: &Path, kind: Kind, base: Option<&KnownFile>) -> FileWrite {
        let (size, mtime) = stat(path).unwrap();
        read_change("claude", path, kind, base, size, mtime).unwrap().write
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

    // Issue 26, item 2: a change the probes of the start and of the bytes
    // before the stored end do not see was taken as growth, and the archive
    // kept the old middle.
    #[test]
    fn a_long_file_rewritten_in_the_middle_to_the_same_size_is_a_new_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let line = |c: char| format!("{{\"t\":\"{}\"}}\n", c.to_string().repeat(1000));
        let lines: Vec<String> = (0..12).map(|_| line('x')).collect();
        std::fs::write(&path, lines.concat()).unwrap();
        let first = read(&path, Kind::Lines, None);
        let mut changed = lines.clone();
        changed[6] = line('y');
        std::fs::write(&path, changed.concat()).unwrap();
        let second = read(&path, Kind::Lines, Some(&known(&first)));
        assert_eq!((second.version, second.start), (2, 0));
        assert_eq!(second.chunk, changed.concat().as_bytes());
    }

    // Issue 26, item 2: a change in the middle plus an append was stored as
    // the appended lines only (restore gave the old middle and the new tail).
    #[test]
    fn a_change_in_the_middle_with_lines_appended_is_a_new_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let line = |c: char| format!("{{\"t\":\"{}\"}}\n", c.to_string().repeat(1000));
        let lines: Vec<String> = (0..12).map(|_| line('x')).collect();
        std::fs::write(&path, lines.concat()).unwrap();
        let first = read(&path, Kind::Lines, None);
        let mut changed = lines.clone();
        changed[5] = line('y');
        changed.push(line('z'));
        std::fs::write(&path, changed.concat()).unwrap();
        let second = read(&path, Kind::Lines, Some(&known(&first)));
        assert_eq!((second.version, second.start), (2, 0));
        assert_eq!(second.chunk, changed.concat().as_bytes());
        // Then lines appended to the new version are growth again.
        changed.push(line('w'));
        std::fs::write(&path, changed.concat()).unwrap();
        let third = read(&path, Kind::Lines, Some(&known(&second)));
        assert_eq!((third.version, third.start, third.chunk.as_slice()), (2, second.stored, line('w').as_bytes()));
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
