//! Reading session files from storage.

use std::io::Read as _;
use std::path::Path;

use sess_core::{BLOCK_BYTES, Lines, ReadOutcome, SessionReader};

use crate::error::{Error, Result};
use crate::storage::{self, FileStorage, SessionStorage};

/// Reads the session file at `path` on the local file system (see [`read_session`]).
pub fn read_session_file(path: &Path) -> Result<ReadOutcome> {
    read_session(&FileStorage, path)
}

/// Reads the session file at `path` line by line (lenient, see
/// [`sess_core::read`]). A legacy file is migrated in memory only, with the ids
/// every read of it gives; the caller decides whether to write it back.
pub fn read_session(storage: &dyn SessionStorage, path: &Path) -> Result<ReadOutcome> {
    // Only a regular file is opened: a FIFO would block, `/dev/zero` never ends.
    let stat = storage::regular_file(storage, path).map_err(|e| Error::io("reading", path, e))?;
    let mut file = storage.open_read(path).map_err(|e| Error::io("reading", path, e))?;
    // The entries keep the buffers their lines were read into: a small file
    // gets buffers its size, not a block's.
    let size = usize::try_from(stat.len).unwrap_or(usize::MAX);
    // A second thread reads and checks the next block of lines while this one
    // parses the last: the reading thread keeps a core busy, and the others
    // parse. With one other core, blocks are smaller so that parsing starts
    // sooner after the first read (a 10 MB session opened in 8.5 ms rather
    // than 10.4 on 2 cores; docs/PERFORMANCE.md).
    let parsers = sess_core::machine_threads().saturating_sub(1).max(1);
    let block = if parsers == 1 { ONE_PARSER_BLOCK_BYTES } else { BLOCK_BYTES };
    let mut reader = SessionReader::new().with_parse_threads(parsers);
    let (send, blocks) = std::sync::mpsc::sync_channel::<Lines>(2);
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || read_blocks(&mut *file, size, block, &send));
        for block in blocks {
            reader.push_lines(block);
        }
        reading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
    .map_err(|e| Error::io("reading", path, e))?;
    Ok(reader.finish())
}

/// The size of a block when one thread parses while another reads.
const ONE_PARSER_BLOCK_BYTES: usize = 1 << 20;

/// Reads `file`, of about `size` bytes, in blocks of whole lines (about
/// `block` bytes; the bytes after the last newline wait for the next read)
/// and sends each, checked.
fn read_blocks(
    file: &mut dyn std::io::Read,
    size: usize,
    block: usize,
    send: &std::sync::mpsc::SyncSender<Lines>,
) -> std::io::Result<()> {
    let mut blocks = LineBlocks::new(size, block);
    loop {
        if !blocks.fill(file)? {
            if let Some(rest) = blocks.into_rest() {
                // The receiver only goes away when this scope ends.
                let _ = send.send(Lines::from_vec(rest, true));
            }
            return Ok(());
        }
        if let Some(block) = blocks.take_lines()
            && send.send(Lines::from_vec(block, false)).is_err()
        {
            return Ok(());
        }
    }
}

/// The bytes of a file as they are read, cut into blocks of whole lines.
struct LineBlocks {
    /// Bytes read and not handed out yet.
    buffer: Vec<u8>,
    /// About how many bytes a block holds.
    block: usize,
    /// About how many bytes of the file were not handed out yet.
    left: usize,
    /// How many bytes at the start of `buffer` are known to hold no newline:
    /// a line longer than a read is searched once, not again on every read.
    no_newline: usize,
    /// Bytes looked at in the search for newlines, all told.
    #[cfg(test)]
    searched: usize,
}

impl LineBlocks {
    fn new(size: usize, block: usize) -> Self {
        let mut blocks = Self {
            buffer: Vec::new(),
            block,
            left: size,
            no_newline: 0,
            #[cfg(test)]
            searched: 0,
        };
        blocks.buffer = Vec::with_capacity(blocks.capacity());
        blocks
    }

    /// Each block is read into a buffer of its own, which its entries keep: no
    /// larger than what is left of the file (plus room to see its end).
    fn capacity(&self) -> usize {
        self.left.min(self.block) + 4096
    }

    /// Reads the next bytes; false at the end of the file.
    fn fill(&mut self, file: &mut dyn std::io::Read) -> std::io::Result<bool> {
        let want = self.block.saturating_sub(self.buffer.len()).max(64 << 10);
        Ok(file.take(want as u64).read_to_end(&mut self.buffer)? > 0)
    }

    /// The lines read so far, up to the last newline, if one was read.
    fn take_lines(&mut self) -> Option<Vec<u8>> {
        let unsearched = &self.buffer[self.no_newline..];
        #[cfg(test)]
        {
            self.searched += unsearched.len();
        }
        let Some(at) = memchr::memrchr(b'\n', unsearched) else {
            self.no_newline = self.buffer.len();
            return None;
        };
        let last = self.no_newline + at;
        self.no_newline = 0;
        self.left = self.left.saturating_sub(last + 1);
        let mut rest = Vec::with_capacity(self.capacity());
        rest.extend_from_slice(&self.buffer[last + 1..]);
        self.buffer.truncate(last + 1);
        Some(std::mem::replace(&mut self.buffer, rest))
    }

    /// What is left after the last newline, if anything.
    fn into_rest(self) -> Option<Vec<u8>> {
        Some(self.buffer).filter(|rest| !rest.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cuts `bytes` as [`read_session`] does, with blocks of about `block` bytes.
    fn cut(bytes: &[u8], block: usize) -> (Vec<Vec<u8>>, usize) {
        let mut blocks = LineBlocks::new(bytes.len(), block);
        let mut file = bytes;
        let mut out = Vec::new();
        while blocks.fill(&mut file).unwrap() {
            out.extend(blocks.take_lines());
        }
        let searched = blocks.searched;
        out.extend(blocks.into_rest());
        (out, searched)
    }

    #[test]
    fn a_line_longer_than_many_reads_is_searched_for_its_end_once() {
        // A 16 MiB line, read 64 KiB at a time: 256 reads.
        let line_len = 16 << 20;
        let mut bytes = b"{\"type\":\"session\"}\n".to_vec();
        bytes.resize(bytes.len() + line_len, b'a');
        bytes.extend_from_slice(b"\nafter\n");
        let (blocks, searched) = cut(&bytes, 64 << 10);
        assert_eq!(blocks.concat(), bytes, "every byte handed out once, in order");
        assert!(blocks.iter().all(|b| b.ends_with(b"\n")), "blocks of whole lines");
        assert!(
            searched <= 2 * bytes.len(),
            "{searched} bytes searched for newlines in a file of {} bytes: a long line is searched again on every read",
            bytes.len()
        );
    }

    #[test]
    fn blocks_are_whole_lines_and_keep_every_byte() {
        let mut bytes = Vec::new();
        for n in 0..200 {
            bytes.extend(std::iter::repeat_n(b'x', n * 7919 % 150_000));
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(b"no newline at the end");
        for block in [1, 100, 64 << 10, 1 << 20] {
            let (blocks, _) = cut(&bytes, block);
            assert_eq!(blocks.concat(), bytes, "block size {block}");
            let (last, whole) = blocks.split_last().unwrap();
            assert!(whole.iter().all(|b| b.ends_with(b"\n")), "block size {block}");
            assert_eq!(last.as_slice(), b"no newline at the end".as_slice(), "block size {block}");
        }
    }
}
