//! Finding and listing Droid's session files.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::jsonl::{open_regular, read_file};
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, active_ms, modified_ms, note_nowhere, transcript_info};

/// Where Droid keeps its sessions in `env`: `<Factory folder>/sessions`.
pub fn sessions_dir(env: &crate::Env) -> PathBuf {
    super::factory_dir(env).join("sessions")
}

/// The session id a file name gives: `<id>.jsonl`.
fn id_of(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl").filter(|id| !id.is_empty())
}

/// The session files in `sessions` (Droid's sessions folder), found from their
/// names: those directly in it, then those of its project folders (names that
/// start with `-`), each folder in name order; and the names that are not
/// regular files.
pub fn find_session_files(sessions: &Path) -> FoundFiles {
    let mut found = FoundFiles::default();
    found.add_folder(sessions, id_of);
    let Ok(entries) = std::fs::read_dir(sessions) else { return found };
    let mut folders: Vec<PathBuf> = Vec::new();
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with('-') || note_nowhere(&entry, &mut found.skipped) {
            continue;
        }
        if entry.path().is_dir() {
            folders.push(entry.path());
        }
    }
    folders.sort();
    for folder in folders {
        found.add_folder(&folder, id_of);
    }
    found
}

/// The sessions in `sessions` that are not a subagent's, in path order.
/// [`Scope::Project`] keeps those whose cwd is that directory (compared as
/// paths), reading only the first line of the others. A missing folder lists
/// as empty; a file that cannot be read goes to [`Listing::problems`].
pub fn list(sessions: &Path, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    let found = find_session_files(sessions);
    for (path, kind) in found.skipped {
        listing.problems.push(Error::NotASessionFile { path, kind });
    }
    for (_, path) in found.files {
        match session_info(&path, scope) {
            Ok(Some(info)) => listing.sessions.push(info),
            Ok(None) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    listing
}

/// How much of a file is read for the cwd in its first line.
const HEAD_LIMIT: u64 = 1 << 20;

fn session_info(path: &Path, scope: Scope<'_>) -> Result<Option<SessionInfo>> {
    let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
    if let Scope::Project(dir) = scope {
        let mut head = Vec::new();
        BufReader::new(open_regular(path)?.take(HEAD_LIMIT))
            .read_until(b'\n', &mut head)
            .map_err(|err| Error::io(path, err))?;
        let cwd = super::parse::parse(&head, "", 0, false).transcript.cwd;
        if cwd.is_none_or(|cwd| Path::new(&cwd) != dir) {
            return Ok(None);
        }
    }
    Ok(info(path, &read_file(path)?, modified_ms(&metadata)))
}

/// What a listing says of the session file at `path` whose bytes are
/// `bytes`; `None` for a subagent's session. `file_ms`: the file's
/// modification time, for a session that records no time.
pub(super) fn info(path: &Path, bytes: &[u8], file_ms: i64) -> Option<SessionInfo> {
    let parsed = super::parse::parse(bytes, &super::session_id(path), 0, true);
    if parsed.calling.is_some() {
        return None;
    }
    let transcript = parsed.transcript;
    let modified = active_ms(&transcript, parsed.created.as_deref()).unwrap_or(file_ms);
    let mut info = transcript_info(super::SOURCE, &transcript, path, parsed.created, modified);
    info.title = info.title.or_else(|| info.first_message.clone());
    Some(info)
}
