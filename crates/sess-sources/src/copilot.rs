//! GitHub Copilot CLI sessions: `session-state/<id>/events.jsonl` under the
//! Copilot home (`$COPILOT_HOME`, else `~/.copilot`).
//!
//! # Files
//!
//! A session is a folder named by its id (a UUID) holding `events.jsonl`, its
//! event log, and `workspace.yaml`, where Copilot keeps its cwd and its name
//! (the title: the first prompt until the user names it with `-n` or
//! `/rename`; `user_named` says which). Older releases kept the events in a
//! flat `session-state/<id>.jsonl`; such files are listed and read too, with
//! the `workspace.yaml` of the folder `<id>/` beside them when there is one.
//! The other files in a session folder (checkpoints, a SQLite database,
//! rewind snapshots) are not read.
//!
//! # From events to a transcript
//!
//! Every line is an event `{"type", "data", "id", "timestamp", "parentId"}`;
//! `parentId` names the event before it, so the log is one line, never a
//! tree. A line that is not a JSON object with a string `type` and `id` is
//! skipped and reported in [`Transcript::issues`] (a cut last line is the
//! usual case); unknown event types are skipped silently.
//!
//! - **Prompts:** `user.message` is a user message: its `content` (the prompt
//!   as typed, not the `transformedContent` the model got, which adds the
//!   date), then its `attachments`: an image from the `session.binary_asset`
//!   event with its `assetId` (base64 data and media type), else by its path;
//!   another file is attached context with its path.
//! - **Answers:** each `assistant.message` (one per model call) adds to the
//!   assistant's message of the exchange, which runs until the next prompt or
//!   notice: `reasoningText` as thinking, `content` as text, and each of its
//!   `toolRequests` as a running call (input = its `arguments`, an object, or
//!   the raw string of a custom tool such as `apply_patch`; started at the
//!   message's timestamp).
//! - **Tool results:** `tool.execution_complete` completes the call with its
//!   `toolCallId` (ended at its timestamp): the result is `result.content`, or
//!   `error.message` when `success` is false. A call fails when `success` is
//!   false, and also when it ran a shell command that exited non-zero
//!   (`shellExecution.exitCode`), which Copilot records as a success, as sess
//!   shows such commands of every agent. Calls still running when a process
//!   ends (`session.shutdown`, `session.resume`, `abort`, or the end of the
//!   file) become pending.
//! - **Commands the user ran** (`!command`): `tool.user_requested` is a user
//!   message holding that one call (its `toolName`, `local_shell` for the
//!   shell, and `arguments`), completed as any call by its
//!   `tool.execution_complete` (marked `isUserRequested`).
//! - **Errors:** `session.error` (a failed model request) is an error block
//!   in the assistant's message.
//! - **Notices** (system messages): `session.compaction_complete` is a summary
//!   block with its `summaryContent` (the earlier messages stay shown), or an
//!   error when the compaction failed; `abort` is `Turn aborted (<reason>)`.
//! - **Subagents:** events with an `agentId` are a subagent's (a `task`
//!   call's): its prompt, answers and calls are folded under the call that
//!   started it (`subagent.started`'s `toolCallId`, or the
//!   `parentToolCallId` of its events), never shown as the session's own.
//! - **Not shown:** `system.message` (the system prompt), model changes,
//!   usage records (the model calls the catalog keeps: `copilot/usage.rs`),
//!   turn boundaries, warnings and the session's bookkeeping.
//!   A rewind leaves nothing to show: Copilot rewrites the log without the
//!   turns it discards.
//! - **Ids and times:** a message's id and timestamp are those of the event
//!   that opened it.
//!
//! The id is the folder's name (the stem of a flat file), else
//! `session.start`'s `sessionId`; the cwd is `session.start`'s
//! `context.cwd`, else `workspace.yaml`'s; the title is `workspace.yaml`'s
//! `name`.

mod edits;
mod files;
mod parse;
mod source;
#[cfg(test)]
mod tests;
mod usage;
mod workspace;

use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};

use sess_core::integrity::line_finding;

pub use source::{Copilot, SOURCE};

use crate::error::{Error, Result};
use crate::jsonl::{JsonLines, open_regular, read_file};
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, active_ms, modified_ms};
use crate::transcript::Transcript;
use crate::verify::Checked;
use workspace::Workspace;

/// The Copilot home: `copilot_home` (the value of `COPILOT_HOME`) when set
/// and non-empty, else `home/.copilot`.
pub fn home_dir(copilot_home: Option<&str>, home: &Path) -> PathBuf {
    match copilot_home {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => home.join(".copilot"),
    }
}

/// The session files under `<home>/session-state/`, found from their names
/// (no file is read), in path order; and the names that are not regular files.
pub fn find_session_files(home: &Path) -> FoundFiles {
    let mut skipped = Vec::new();
    let files = files::sessions_under(home, &mut skipped);
    FoundFiles { files, skipped, rows: Vec::new() }
}

/// The sessions under `<home>/session-state/`, in path order.
/// [`Scope::Project`] keeps those whose cwd is that directory (compared as
/// paths), reading only the first line of the others. A missing folder
/// lists as empty; a file that cannot be read goes to [`Listing::problems`].
pub fn list(home: &Path, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    let found = find_session_files(home);
    for (path, kind) in found.skipped {
        listing.problems.push(Error::NotASessionFile { path, kind });
    }
    for (id, path) in found.files {
        match session_info(&path, id, scope) {
            Ok(Some(info)) => listing.sessions.push(info),
            Ok(None) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    listing
}

/// Loads the session file at `path` as a full transcript (the caller keeps
/// the newest messages it wants), with its `workspace.yaml` for the title.
pub fn load(path: &Path) -> Result<Transcript> {
    let bytes = read_file(path)?;
    Ok(read(path, &bytes).0)
}

/// Checks the session file at `path`: the lines that are not events, and a
/// cut last line. `entries` counts the events.
pub fn verify_file(path: &Path) -> Result<Checked> {
    Ok(verify(&read_file(path)?))
}

/// [`verify_file`] of bytes.
pub fn verify(bytes: &[u8]) -> Checked {
    let issues = parse::read(bytes).transcript.issues;
    let lines = JsonLines::new(bytes).count();
    Checked { entries: lines.saturating_sub(issues.len()), findings: issues.iter().map(line_finding).collect() }
}

/// The transcript of the events `bytes` of the file at `path` (id, title and
/// cwd filled in), when the session started, and whether the user named it.
pub(crate) fn read(path: &Path, bytes: &[u8]) -> (Transcript, Option<String>, bool) {
    let read = parse::read(bytes);
    let workspace = files::workspace_dir(path).map(|dir| Workspace::read_in(&dir)).unwrap_or_default();
    let mut transcript = read.transcript;
    transcript.id = files::id_from_path(path).or(read.session_id).unwrap_or_default();
    transcript.title = workspace.name;
    transcript.cwd = read.cwd.or(workspace.cwd);
    (transcript, read.created, workspace.user_named)
}

/// How much of a file is read to find the cwd in its first event.
const HEAD_LIMIT: u64 = 1 << 20;

fn session_info(path: &Path, id: String, scope: Scope<'_>) -> Result<Option<SessionInfo>> {
    let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
    if let Scope::Project(dir) = scope {
        // The first event is `session.start`, with the cwd: the files of
        // other projects are left after it.
        let mut head = Vec::new();
        BufReader::new(open_regular(path)?.take(HEAD_LIMIT))
            .read_until(b'\n', &mut head)
            .map_err(|err| Error::io(path, err))?;
        let cwd = match parse::read(&head).cwd {
            Some(cwd) => Some(cwd),
            None => load(path)?.cwd,
        };
        if cwd.is_none_or(|cwd| Path::new(&cwd) != dir) {
            return Ok(None);
        }
    }
    let (transcript, created, _) = read(path, &read_file(path)?);
    let first_message = transcript.first_prompt().map(ToOwned::to_owned);
    let modified_ms = active_ms(&transcript, created.as_deref()).unwrap_or_else(|| modified_ms(&metadata));
    Ok(Some(SessionInfo {
        source: SOURCE,
        flavor: None,
        id: if transcript.id.is_empty() { id } else { transcript.id },
        path: path.to_owned(),
        cwd: transcript.cwd,
        title: transcript.title.or_else(|| first_message.clone()),
        created,
        modified_ms,
        message_count: transcript.messages.len(),
        first_message,
        parent_session: None,
    }))
}
