//! Continue CLI sessions (`cn`, npm `@continuedev/cli`): one JSON file a
//! session in `~/.continue/sessions/`.
//!
//! # Where
//!
//! `$CONTINUE_GLOBAL_DIR/sessions/`, else `~/.continue/sessions/`: a file
//! `<sessionId>.json` a session (its id a UUID), and the index
//! `sessions.json` beside them (`[{sessionId, title, dateCreated,
//! workspaceDirectory, messageCount}]`, `dateCreated` in Unix milliseconds
//! as a string). The CLI writes a session file whole at every save (a
//! `--resume` rewrites it with the history grown), and the index with it.
//!
//! # Listing
//!
//! Every `*.json` of the folder but the index, with a history. The cwd is
//! the file's `workspaceDirectory`; the title its `title`, unless it is the
//! CLI's `Untitled Session` (a headless run never names its session): the
//! first prompt is shown instead. The session started at the index's
//! `dateCreated`; nothing in the file is dated, so it was last active when
//! the file was last written. A fork (`--fork ID`) is a new session with the
//! parent's history copied, and names no parent.
//!
//! # From a session file to a transcript
//!
//! The file is one JSON object: `sessionId`, `title`, `workspaceDirectory`,
//! `history`, `usage`. Each `history` item is `{message, contextItems,
//! editorState?, toolCallStates?, conversationSummary?}`
//! (`continue_cli/history.rs`):
//!
//! - `message.role` `user`: the prompt; `content` a string, or parts
//!   (`text`, `imageUrl` with a data URL: an image); each of `contextItems`
//!   is context titled with its `name`.
//! - `assistant`: the answer's text, and its `toolCalls` (OpenAI-style, the
//!   arguments a JSON string). The results are not messages: each call's
//!   `toolCallStates` entry (by `toolCallId`) holds its `status` (`done`:
//!   succeeded; `errored`, `canceled`: failed; the others running, pending at
//!   the end of the file) and its `output[].content`, the result.
//! - An assistant item with `conversationSummary` is a compaction's summary:
//!   a system message of a summary block. An automatic compaction replaces
//!   the history on disk, so the summary then opens the file; the prompt that
//!   started it is in no file, and the CLI's own `continue` follows.
//! - `thinking` items are thinking, shown with the answer after them;
//!   `system` items context; `tool` messages (`toolCallId`) complete their
//!   call. An item without a `message` object is skipped and reported in
//!   [`Transcript::issues`] at its position; a file that is not a JSON object
//!   with a `history` array is an error.
//!
//! # Usage
//!
//! The session's `usage` counts every request of the session (compactions
//! and messages no longer in the history included): one call, with
//! `promptTokens` (cache reads and writes apart), `completionTokens` and
//! `totalCost` in US dollars, the model of the last answer, dated when the
//! file was last written. Each answer's `message.usage` (tokens, `model`,
//! `cost_cents`) is a call of its own only in a file without the session's
//! `usage`: a fork copies its parent's answers with their usage, while its
//! `usage` counts its own requests alone.

mod edits;
mod history;
mod source;
#[cfg(test)]
mod tests;
mod usage;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use sess_core::format_iso_millis;

pub use source::{Continue, SOURCE};

use crate::error::{Error, Result};
use crate::jsonl::read_file;
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, modified_ms, transcript_info};
use crate::shared_file::SharedFiles;
use crate::transcript::Transcript;
use crate::usage::Call;

/// The index of the sessions, beside them.
pub(crate) const INDEX: &str = "sessions.json";

/// The title the CLI gives a session it has not named.
const UNTITLED: &str = "Untitled Session";

/// The CLI's folder: `$CONTINUE_GLOBAL_DIR` when set, else `home/.continue`.
pub fn continue_dir(global_dir: Option<&Path>, home: &Path) -> PathBuf {
    global_dir.filter(|d| !d.as_os_str().is_empty()).map_or_else(|| home.join(".continue"), Path::to_path_buf)
}

/// The session id a file name gives: `<id>.json`, the index left out.
fn id_of(name: &str) -> Option<&str> {
    name.strip_suffix(".json").filter(|_| name != INDEX).filter(|id| !id.is_empty())
}

/// The session files of `sessions` (the CLI's `sessions/` folder), by path,
/// and the names there that are not regular files.
pub fn find_session_files(sessions: &Path) -> FoundFiles {
    let mut found = FoundFiles::default();
    found.add_folder(sessions, id_of);
    found
}

/// The sessions of `sessions` with a history, within `scope` (the cwd is
/// the session's `workspaceDirectory`). A file that cannot be read goes to
/// [`Listing::problems`].
pub fn list(sessions: &Path, scope: Scope<'_>) -> Listing {
    let found = find_session_files(sessions);
    let mut listing = Listing::default();
    listing.problems.extend(found.skipped.into_iter().map(|(path, kind)| Error::NotASessionFile { path, kind }));
    let index = Index::shared(sessions);
    for (_, path) in found.files {
        match session_info(&path, &index, scope) {
            Ok(Some(info)) => listing.sessions.push(info),
            Ok(None) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    listing
}

fn session_info(path: &Path, index: &Index, scope: Scope<'_>) -> Result<Option<SessionInfo>> {
    let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
    let read = read_with(path, &read_file(path)?, index)?;
    if let Scope::Project(dir) = scope
        && read.transcript.cwd.as_deref().is_none_or(|cwd| Path::new(cwd) != dir)
    {
        return Ok(None);
    }
    if read.transcript.messages.is_empty() {
        return Ok(None);
    }
    Ok(Some(transcript_info(SOURCE, &read.transcript, path, read.created, modified_ms(&metadata))))
}

/// Loads the session file at `path` as a whole transcript.
pub fn load(path: &Path) -> Result<Transcript> {
    Ok(read(path, &read_file(path)?)?.transcript)
}

/// A session file read.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    /// When it started: the index's `dateCreated`.
    pub(crate) created: Option<String>,
    /// Whether the title is the session's own.
    pub(crate) named: bool,
    /// The document, for its usage.
    document: Value,
}

impl Read {
    /// The model calls it records, dated `at`.
    pub(crate) fn calls(&self, at: Option<&str>) -> Vec<Call> {
        usage::calls(&self.document, at)
    }
}

/// The session file at `path`, whose bytes are `bytes` (its start time from
/// the index beside it).
pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<Read> {
    let index = path.parent().map(Index::shared).unwrap_or_default();
    read_with(path, bytes, &index)
}

fn read_with(path: &Path, bytes: &[u8], index: &Index) -> Result<Read> {
    let document = crate::document::parse(path, bytes, "a Continue session", "history")?;
    let items = crate::document::items(&document, "history");
    let text = |key: &str| crate::document::text(&document, key);
    let id = crate::document::id(&document, path, id_of);
    let mut transcript = Transcript::new(SOURCE, id);
    let (messages, issues) = history::messages(items);
    transcript.messages = messages;
    transcript.issues = issues;
    let entry = index.sessions.get(&transcript.id);
    transcript.cwd = text("workspaceDirectory").map(ToOwned::to_owned).or_else(|| entry.and_then(|e| e.cwd.clone()));
    transcript.title = text("title").filter(|t| *t != UNTITLED).map(ToOwned::to_owned);
    let named = transcript.title.is_some();
    let created = entry.and_then(|e| e.created_ms).map(format_iso_millis);
    Ok(Read { transcript, created, named, document })
}

/// What `sessions.json` says of each session, by id.
#[derive(Debug, Default)]
pub(crate) struct Index {
    sessions: HashMap<String, IndexEntry>,
}

#[derive(Debug, Default)]
struct IndexEntry {
    created_ms: Option<i64>,
    cwd: Option<String>,
}

/// The indexes read, each parsed once per version.
static INDEXES: SharedFiles<Index> = SharedFiles::new();

impl Index {
    /// The index in the folder `sessions`; empty when it is missing or does
    /// not parse (the session files still list, undated).
    pub(crate) fn shared(sessions: &Path) -> Arc<Self> {
        INDEXES.get(&sessions.join(INDEX), Self::parse)
    }

    fn parse(file: &Path) -> Self {
        let Ok(bytes) = read_file(file) else { return Self::default() };
        let Ok(Value::Array(entries)) = serde_json::from_slice::<Value>(&bytes) else { return Self::default() };
        let sessions = entries
            .iter()
            .filter_map(|entry| {
                let id = entry.get("sessionId")?.as_str()?.to_owned();
                let created_ms = match entry.get("dateCreated") {
                    Some(Value::String(ms)) => ms.trim().parse().ok(),
                    Some(Value::Number(ms)) => ms.as_i64(),
                    _ => None,
                };
                let cwd = entry.get("workspaceDirectory").and_then(Value::as_str).map(ToOwned::to_owned);
                Some((id, IndexEntry { created_ms, cwd }))
            })
            .collect();
        Self { sessions }
    }
}
