//! Gemini CLI sessions: `tmp/<project>/chats/session-*.jsonl` under
//! `$GEMINI_CLI_HOME/.gemini` or `~/.gemini`.
//!
//! # Files
//!
//! A session is `session-<YYYY-MM-DDThh-mm>-<first 8 characters of its
//! id>.jsonl` in its project's `chats/` folder (`.json` from older CLIs);
//! the name carries only a prefix of the id, so the id is read from the
//! file's first bytes. Projects, their folders and their paths:
//! `gemini/files.rs`. A resume in a later minute than the session's file
//! leaves a second file with the same id that holds no conversation, and
//! resuming a `.json` session writes a `.jsonl` beside it: of the files with
//! one id, the `.jsonl` with a conversation is the session (and only it is
//! listed). Subagents' sessions (`chats/<session id>/<agent id>.jsonl`) are
//! not listed: each belongs to the tool call that started it.
//!
//! # From records to a transcript
//!
//! The file is a log of records (`gemini/record.rs`): the metadata
//! (`sessionId`, `projectHash`, `startTime`, `kind`), messages keyed by `id`
//! (a later record with the same id replaces the message), `$set` updates
//! (`summary` is the title; `messages` replaces the whole conversation) and
//! `$rewindTo`. An older CLI's `.json` is one document: the metadata and its
//! `messages`. The records are replayed into what the transcript shows, with
//! notices for rewinds, compressions and turns the CLI took back
//! (`gemini/replay.rs`), and shown as messages (`gemini/messages.rs`). A line
//! that is not a JSON object, or no record, is skipped and reported in
//! [`Transcript::issues`].
//!
//! The id is the metadata's `sessionId`, the title the last `summary` (the
//! CLI has a model write one when it lists sessions or starts its UI), the
//! cwd the project's path (its folder's `.project_root`, else
//! `projects.json`; a subagent's: the first of its `directories`), and the
//! session started at the first metadata's `startTime` (a resume writes the
//! metadata again).
//!
//! # Usage
//!
//! The model calls are the `tokens` of the `gemini` messages, each message
//! once (`gemini/usage.rs`); a subagent's are in its own session file, read
//! as a companion.

mod edits;
mod files;
mod handoff;
mod messages;
mod parts;
mod record;
mod replay;
mod source;
#[cfg(test)]
mod tests;
mod usage;

use std::path::{Path, PathBuf};

pub use source::{Gemini, SOURCE};

use crate::error::{Error, Result};
use crate::jsonl::read_file;
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, active_ms, modified_ms};
use crate::transcript::{Message, Transcript};
use crate::verify::Checked;

/// How deep subagents' sessions are read under the calls that started them.
const SUBAGENT_DEPTH: usize = 4;

/// The Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini` when that variable
/// names a folder (it stands for the home, not for `.gemini`), else
/// `home/.gemini`.
pub fn gemini_dir(cli_home: Option<&Path>, home: &Path) -> PathBuf {
    cli_home.filter(|h| !h.as_os_str().is_empty()).unwrap_or(home).join(".gemini")
}

/// The sessions under `<gemini dir>/tmp/*/chats/`, one file per session id,
/// in path order, and the session names that are not regular files.
pub fn find_session_files(gemini_dir: &Path) -> FoundFiles {
    let mut found = FoundFiles::default();
    for project in files::project_dirs(gemini_dir, &mut found.skipped) {
        found.files.extend(files::sessions_in(&project, &mut found.skipped));
    }
    found
}

/// The sessions of [`find_session_files`] that hold a conversation.
/// [`Scope::Project`] keeps those whose project is that folder (by the
/// project's path, or by the `projectHash` the CLI computes from it). A file
/// that cannot be read goes to [`Listing::problems`].
pub fn list(gemini_dir: &Path, scope: Scope<'_>) -> Listing {
    let registry = files::Registry::read(gemini_dir);
    let mut listing = Listing::default();
    let mut nowhere = Vec::new();
    for project in files::project_dirs(gemini_dir, &mut nowhere) {
        let root = files::project_root(&project, &registry);
        let mut skipped = Vec::new();
        let sessions = files::sessions_in(&project, &mut skipped);
        for (path, kind) in skipped {
            listing.problems.push(Error::NotASessionFile { path, kind });
        }
        for (_, path) in sessions {
            match session_info(&path, root.as_deref(), scope) {
                Ok(Some(info)) => listing.sessions.push(info),
                Ok(None) => {}
                Err(err) => listing.problems.push(err),
            }
        }
    }
    listing.problems.extend(nowhere.into_iter().map(|(path, kind)| Error::NotASessionFile { path, kind }));
    listing
}

fn session_info(path: &Path, root: Option<&str>, scope: Scope<'_>) -> Result<Option<SessionInfo>> {
    let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
    let read = read(path, &read_file(path)?);
    if let Scope::Project(dir) = scope {
        let by_path = root.is_some_and(|root| Path::new(root) == dir);
        let by_hash = dir.to_str().is_some_and(|d| read.project_hash.as_deref() == Some(&files::sha256_hex(d)));
        if !by_path && !by_hash {
            return Ok(None);
        }
    }
    let transcript = read.transcript;
    if transcript.messages.is_empty() {
        return Ok(None);
    }
    let modified_ms = active_ms(&transcript, read.created.as_deref()).unwrap_or_else(|| modified_ms(&metadata));
    Ok(Some(SessionInfo {
        source: SOURCE,
        flavor: None,
        first_message: transcript.first_prompt().map(ToOwned::to_owned),
        id: transcript.id,
        path: path.to_owned(),
        cwd: transcript.cwd,
        title: transcript.title,
        modified_ms,
        created: read.created,
        message_count: transcript.messages.len(),
        parent_session: None,
    }))
}

/// Loads one session file (or a subagent's) as a whole transcript.
pub fn load(path: &Path) -> Result<Transcript> {
    Ok(read(path, &read_file(path)?).transcript)
}

/// Checks the session file at `path`: the lines its transcript had to skip.
pub fn verify_file(path: &Path) -> Result<Checked> {
    let bytes = read_file(path)?;
    let records = record::read(&bytes);
    let lines = crate::jsonl::JsonLines::new(&bytes).count().max(usize::from(!records.records.is_empty()));
    let mut findings: Vec<_> = records.issues.iter().map(sess_core::integrity::line_finding).collect();
    findings.sort_by_key(|f| f.line);
    Ok(Checked { entries: lines.saturating_sub(records.issues.len()), findings })
}

/// The pure part: a transcript from a session file's bytes, with its id,
/// title and messages (no cwd, and no subagents: those need the file's
/// folder).
pub fn parse(bytes: &[u8]) -> Transcript {
    transcript(bytes, None, &|_| Vec::new()).transcript
}

/// A session file read whole, and what a listing wants besides.
pub(crate) struct Read {
    pub transcript: Transcript,
    /// When the session started: the first metadata's `startTime`.
    pub created: Option<String>,
    pub project_hash: Option<String>,
}

/// The session file at `path`, whose bytes are `bytes`.
pub(crate) fn read(path: &Path, bytes: &[u8]) -> Read {
    read_at(path, bytes, 0)
}

fn read_at(path: &Path, bytes: &[u8], depth: usize) -> Read {
    let session_id = std::cell::OnceCell::<String>::new();
    let subagent = |agent: &str| -> Vec<Message> {
        let Some(id) = session_id.get() else { return Vec::new() };
        let Some(file) = files::subagent_file(path, id, agent).filter(|_| depth < SUBAGENT_DEPTH) else {
            return Vec::new();
        };
        read_file(&file).map(|b| read_at(&file, &b, depth + 1).transcript.messages).unwrap_or_default()
    };
    let mut read = transcript(bytes, Some(&session_id), &subagent);
    if read.transcript.id.is_empty() {
        read.transcript.id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    }
    let registry = || files::project_of(path).and_then(files::gemini_dir_of).map(files::Registry::read);
    let root = files::project_of(path).and_then(|p| files::project_root(p, &registry().unwrap_or_default()));
    read.transcript.cwd = root.or(read.transcript.cwd);
    read
}

/// The transcript of `bytes`; `session_id` is given the session's id before
/// the messages are made (subagents are found by it).
fn transcript(
    bytes: &[u8],
    session_id: Option<&std::cell::OnceCell<String>>,
    subagent: &dyn Fn(&str) -> Vec<Message>,
) -> Read {
    let session = replay::replay(record::read(bytes));
    let id = session.meta("sessionId").unwrap_or_default().to_owned();
    if let Some(cell) = session_id {
        let _ = cell.set(id.clone());
    }
    let mut transcript = Transcript::new(SOURCE, id);
    transcript.messages = messages::render(&session.shown, subagent);
    transcript.title = session.summary.clone().filter(|s| !s.trim().is_empty());
    transcript.cwd = session.directories.first().cloned();
    let created = session.meta("startTime").map(ToOwned::to_owned);
    let project_hash = session.meta("projectHash").map(ToOwned::to_owned);
    transcript.issues = session.issues;
    Read { transcript, created, project_hash }
}

/// [`parse`] of the file at `path`, for `files` to tell a session's file
/// from an empty one.
pub(crate) fn read_file_transcript(path: &Path) -> Result<Transcript> {
    Ok(parse(&read_file(path)?))
}
