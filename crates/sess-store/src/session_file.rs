//! Reading session files from storage.

use std::io::Read as _;
use std::path::Path;

use sess_core::{BLOCK_BYTES, IdSource, Lines, ReadOutcome, SessionReader};

use crate::error::{Error, Result};
use crate::storage::{self, FileStorage, SessionStorage};

/// Reads the session file at `path` on the local file system (see [`read_session`]).
pub fn read_session_file(path: &Path, ids: &mut dyn IdSource) -> Result<ReadOutcome> {
    read_session(&FileStorage, path, ids)
}

/// Reads the session file at `path` line by line (lenient, see
/// [`sess_core::read`]). A legacy file is migrated in memory only; the caller
/// decides whether to write it back.
pub fn read_session(storage: &dyn SessionStorage, path: &Path, ids: &mut dyn IdSource) -> Result<ReadOutcome> {
    // Only a regular file is opened: a FIFO would block, `/dev/zero` never ends.
    let stat = storage::regular_file(storage, path).map_err(|e| Error::io("reading", path, e))?;
    let mut file = storage.open_read(path).map_err(|e| Error::io("reading", path, e))?;
    // The entries keep the buffers their lines were read into: a small file
    // gets buffers its size, not a block's.
    let size = usize::try_from(stat.len).unwrap_or(usize::MAX);
    let mut reader = SessionReader::new();
    // A second thread reads and checks the next block of lines while this one
    // parses the last (a large block on more threads).
    let (send, blocks) = std::sync::mpsc::sync_channel::<Lines>(2);
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || read_blocks(&mut *file, size, &send));
        for block in blocks {
            reader.push_lines(block);
        }
        reading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
    .map_err(|e| Error::io("reading", path, e))?;
    Ok(reader.finish(ids))
}

/// Reads `file`, of about `size` bytes, in blocks of whole lines (about
/// [`BLOCK_BYTES`]; the bytes after the last newline wait for the next read)
/// and sends each, checked.
fn read_blocks(
    file: &mut dyn std::io::Read,
    size: usize,
    send: &std::sync::mpsc::SyncSender<Lines>,
) -> std::io::Result<()> {
    // Each block is read into a buffer of its own, which its entries keep: no
    // larger than what is left of the file (plus room to see its end).
    let capacity = |left: usize| left.min(BLOCK_BYTES) + 4096;
    let mut left = size;
    let mut buffer: Vec<u8> = Vec::with_capacity(capacity(left));
    loop {
        let want = BLOCK_BYTES.saturating_sub(buffer.len()).max(64 << 10);
        if file.take(want as u64).read_to_end(&mut buffer)? == 0 {
            if !buffer.is_empty() {
                // The receiver only goes away when this scope ends.
                let _ = send.send(Lines::from_vec(buffer, true));
            }
            return Ok(());
        }
        if let Some(last) = buffer.iter().rposition(|&b| b == b'\n') {
            left = left.saturating_sub(last + 1);
            let mut rest = Vec::with_capacity(capacity(left));
            rest.extend_from_slice(&buffer[last + 1..]);
            buffer.truncate(last + 1);
            if send.send(Lines::from_vec(std::mem::replace(&mut buffer, rest), false)).is_err() {
                return Ok(());
            }
        }
    }
}
