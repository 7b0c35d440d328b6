//! Sessions kept in one folder per project, the folder named after the
//! project's directory (every character outside ASCII letters and digits made
//! `-`), each session's own `cwd` in its lines: the folder names, and a
//! listing that keeps the sessions of one directory.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::jsonl::open_regular;
use crate::lenient::string;
use crate::listing::{FoundFiles, Listing, SessionInfo, note_nowhere};
use sess_core::FileKind;

/// The folder name for a directory: every UTF-16 code unit outside ASCII
/// `[A-Za-z0-9]` becomes `-` (so an emoji gives two dashes), with no length
/// limit: JavaScript's `replace(/[^a-zA-Z0-9]/g, "-")` on the path. The result
/// is ASCII, so its length in bytes is its length in UTF-16 units.
pub(crate) fn folder_name(dir: &str) -> String {
    dir.encode_utf16()
        .map(|unit| match u8::try_from(unit) {
            Ok(byte) if byte.is_ascii_alphanumeric() => char::from(byte),
            _ => '-',
        })
        .collect()
}

/// The folders in `dir`, sorted; none when it is missing or unreadable. A
/// name there that is a link to nothing (a loop, or dangling) is a project
/// folder that cannot be read: it goes to `skipped` ([`note_nowhere`]).
pub(crate) fn subfolders(dir: &Path, skipped: &mut Vec<(PathBuf, FileKind)>) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut folders = Vec::new();
    for entry in entries.flatten() {
        if !note_nowhere(&entry, skipped) && entry.path().is_dir() {
            folders.push(entry.path());
        }
    }
    folders.sort();
    folders
}

/// Whether a session's `cwd` names the directory `wanted`: equal once a
/// trailing separator is dropped, ignoring case on Windows and macOS (whose
/// file systems usually do).
pub(crate) fn same_dir(cwd: &str, wanted: &str) -> bool {
    fn trim(path: &str) -> &str {
        let trimmed = path.trim_end_matches(['/', '\\']);
        if trimmed.is_empty() || trimmed.ends_with(':') { path } else { trimmed }
    }
    let (cwd, wanted) = (trim(cwd), trim(wanted));
    if cfg!(any(windows, target_os = "macos")) { cwd.to_lowercase() == wanted.to_lowercase() } else { cwd == wanted }
}

/// Adds the sessions `found` in one project folder to `listing`, each as
/// `info` says (`None`: not a session); with `cwd`, only those whose `cwd`
/// (the first line that has one) is that directory. Files that cannot be read
/// and names that are not regular files are in [`Listing::problems`].
pub(crate) fn list_found(
    found: FoundFiles,
    cwd: Option<&str>,
    listing: &mut Listing,
    info: impl Fn(&Path, String) -> Result<Option<SessionInfo>>,
) {
    for (path, kind) in found.skipped {
        listing.problems.push(Error::NotASessionFile { path, kind });
    }
    for (id, path) in found.files {
        if let Some(wanted) = cwd {
            match first_cwd(&path) {
                Ok(Some(found)) if same_dir(&found, wanted) => {}
                Ok(_) => continue,
                Err(err) => {
                    listing.problems.push(err);
                    continue;
                }
            }
        }
        match info(&path, id) {
            Ok(Some(info)) => listing.sessions.push(info),
            Ok(None) => {}
            Err(err) => listing.problems.push(err),
        }
    }
}

/// Only the `cwd` of a line, for finding a file's directory without building
/// the rest.
#[derive(Debug, Default, Deserialize)]
struct CwdOnly {
    /// The directory the agent ran in.
    #[serde(default, deserialize_with = "string")]
    cwd: Option<String>,
}

/// The `cwd` of the first line that has one, reading no further.
fn first_cwd(path: &Path) -> Result<Option<String>> {
    let mut reader = BufReader::new(open_regular(path)?);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(|err| Error::io(path, err))? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line));
        let text = sess_core::replace_lone_surrogate_escapes(&text);
        if let Ok(CwdOnly { cwd: Some(cwd) }) = serde_json::from_str(&text) {
            return Ok(Some(cwd));
        }
    }
}
