//! Reading session files from storage.

use std::io::{BufRead, BufReader};
use std::path::Path;

use sess_core::{IdSource, ReadOutcome, SessionReader};

use crate::error::{Error, Result};
use crate::storage::{FileStorage, SessionStorage};

/// Reads the session file at `path` on the local file system (see [`read_session`]).
pub fn read_session_file(path: &Path, ids: &mut dyn IdSource) -> Result<ReadOutcome> {
    read_session(&FileStorage, path, ids)
}

/// Reads the session file at `path` line by line (lenient, see
/// [`sess_core::read`]). A legacy file is migrated in memory only; the caller
/// decides whether to write it back.
pub fn read_session(storage: &dyn SessionStorage, path: &Path, ids: &mut dyn IdSource) -> Result<ReadOutcome> {
    let file = storage.open_read(path).map_err(|e| Error::io("reading", path, e))?;
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut reader = SessionReader::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line).map_err(|e| Error::io("reading", path, e))?;
        if read == 0 {
            break;
        }
        match line.strip_suffix(b"\n") {
            Some(body) => reader.push_line(body, true),
            None => reader.push_line(&line, false),
        }
    }
    Ok(reader.finish(ids))
}
