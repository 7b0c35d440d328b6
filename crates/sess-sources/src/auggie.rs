//! Auggie sessions (Augment's command-line agent, npm
//! `@augmentcode/auggie`): one JSON file a session in
//! `~/.augment/sessions/`.
//!
//! # Where
//!
//! `<cache dir>/sessions/<sessionId>.json`, the cache dir `~/.augment`
//! unless the CLI is started with `--augment-cache-dir <path>` (no
//! environment variable moves it; `sess` reads `$SESS_AUGGIE_CACHE_DIR` for a
//! folder moved that way). The CLI writes a session file whole at every
//! save (JSON with two-space indents and no final newline, written to a
//! `.tmp` file then renamed over it); `<id>-backup<n>.json` beside it are
//! copies kept before a destructive change, not sessions of their own.
//!
//! # Listing
//!
//! Every `<id>.json` of the folder with an exchange. The cwd is the first
//! workspace folder the session's IDE state names (a request node of type
//! 4, `ide_state_node.workspace_folders[0]`, its `repository_root`, else
//! its `folder_root`). The title is the user's `customTitle`, else the
//! generated `title`, else the first prompt. The session started at its
//! `created`, and was last active at its `modified` (both ISO times).
//!
//! # From a session file to a transcript
//!
//! The file is one JSON object: `sessionId`, `created`, `modified`,
//! `chatHistory`, `agentState` (`modelId`), `title`, `customTitle`, …
//! Each `chatHistory` item is `{exchange, completed, sequenceId,
//! finishedAt, isHistorySummary?}`; an exchange is a request and the
//! model's response to it (`auggie/history.rs`):
//!
//! - `request_nodes`: text (type 0, `text_node.content`: the prompt, else
//!   the exchange's `request_message`), tool results (type 1,
//!   `tool_result_node`: `{tool_use_id, content, is_error, start_time_ms,
//!   duration_ms}`, completing the call of the exchange before), images
//!   (type 2, `image_node`), the IDE state (type 4: the cwd, not shown),
//!   and the summary a compaction made of the exchanges before (type 10,
//!   `history_summary_node.summary_text`: a system message of a summary
//!   block, before the prompt);
//! - `response_nodes`: text (type 0, `content`; else the exchange's
//!   `response_text`), tool calls (type 5, `tool_use`: `{tool_use_id,
//!   tool_name, input_json}`, the input a JSON string), thinking (type 8,
//!   `thinking.summary` or `content`), token usage (type 10).
//! - An item with `isHistorySummary` is a summary exchange: its
//!   `request_message` is a system message of a summary block.
//!
//! A call whose result never came is pending at the end of the file. An
//! item that is not an object with an `exchange` is skipped and reported in
//! [`Transcript::issues`] at its position; a file that is not a JSON object
//! with a `chatHistory` array is an error.
//!
//! # Usage
//!
//! Each response's token usage node (type 10, `token_usage`:
//! `input_tokens`, `output_tokens`, `cache_read_input_tokens`,
//! `cache_creation_input_tokens`, the input without the cache as Anthropic
//! counts it) is one call, keyed by the exchange's `request_id`, dated by
//! its item's `finishedAt`, of the exchange's `model_id` (else the
//! session's `agentState.modelId`). No cost is recorded.

mod edits;
mod history;
mod source;
#[cfg(test)]
mod tests;
mod usage;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use source::{Auggie, SOURCE};

use crate::error::{Error, Result};
use crate::jsonl::read_file;
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, modified_ms, transcript_info};
use crate::transcript::Transcript;
use crate::usage::Call;

/// The CLI's cache folder: `cache_dir` when set, else `home/.augment`.
pub fn augment_dir(cache_dir: Option<&Path>, home: &Path) -> PathBuf {
    cache_dir.filter(|d| !d.as_os_str().is_empty()).map_or_else(|| home.join(".augment"), Path::to_path_buf)
}

/// The session id a file name gives: `<id>.json`, backups left out.
fn id_of(name: &str) -> Option<&str> {
    let id = name.strip_suffix(".json").filter(|id| !id.is_empty())?;
    let backup = id.rsplit_once("-backup").is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (!backup).then_some(id)
}

/// The session files of `sessions` (the CLI's `sessions/` folder), by path,
/// and the names there that are not regular files.
pub fn find_session_files(sessions: &Path) -> FoundFiles {
    let mut found = FoundFiles::default();
    found.add_folder(sessions, id_of);
    found
}

/// The sessions of `sessions` with an exchange, within `scope`. A file that
/// cannot be read goes to [`Listing::problems`].
pub fn list(sessions: &Path, scope: Scope<'_>) -> Listing {
    let found = find_session_files(sessions);
    let mut listing = Listing::default();
    listing.problems.extend(found.skipped.into_iter().map(|(path, kind)| Error::NotASessionFile { path, kind }));
    for (_, path) in found.files {
        match session_info(&path, scope) {
            Ok(Some(info)) => listing.sessions.push(info),
            Ok(None) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    listing
}

fn session_info(path: &Path, scope: Scope<'_>) -> Result<Option<SessionInfo>> {
    let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
    let read = read(path, &read_file(path)?)?;
    if let Scope::Project(dir) = scope
        && read.transcript.cwd.as_deref().is_none_or(|cwd| Path::new(cwd) != dir)
    {
        return Ok(None);
    }
    if read.transcript.messages.is_empty() {
        return Ok(None);
    }
    let modified = read.modified_ms.unwrap_or_else(|| modified_ms(&metadata));
    Ok(Some(transcript_info(SOURCE, &read.transcript, path, read.created.clone(), modified)))
}

/// Loads the session file at `path` as a whole transcript.
pub fn load(path: &Path) -> Result<Transcript> {
    Ok(read(path, &read_file(path)?)?.transcript)
}

/// A session file read.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    /// When it started: its `created`.
    pub(crate) created: Option<String>,
    /// When it was last saved: its `modified`, in Unix milliseconds.
    pub(crate) modified_ms: Option<i64>,
    /// Whether the title is the session's own (`customTitle` or `title`).
    pub(crate) named: bool,
    /// The document, for its usage.
    document: Value,
}

impl Read {
    /// The model calls it records.
    pub(crate) fn calls(&self) -> Vec<Call> {
        usage::calls(&self.document)
    }
}

/// The session file at `path`, whose bytes are `bytes`.
pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<Read> {
    let document = crate::document::parse(path, bytes, "an Auggie session", "chatHistory")?;
    let items = crate::document::items(&document, "chatHistory");
    let text = |key: &str| crate::document::text(&document, key);
    let id = crate::document::id(&document, path, id_of);
    let mut transcript = Transcript::new(SOURCE, id);
    let (messages, issues) = history::messages(items);
    transcript.messages = messages;
    transcript.issues = issues;
    transcript.cwd = history::workspace(items);
    transcript.title = text("customTitle").or_else(|| text("title")).map(ToOwned::to_owned);
    let named = transcript.title.is_some();
    let created = text("created").map(ToOwned::to_owned);
    let modified_ms = text("modified").and_then(sess_core::parse_iso_millis);
    Ok(Read { transcript, created, modified_ms, named, document })
}
