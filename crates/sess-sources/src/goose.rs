//! Goose sessions: rows of `sessions.db` (Goose 1.10 and later), or one
//! `.jsonl` file per session (before).
//!
//! # Where
//!
//! Goose's data folder is `$GOOSE_PATH_ROOT/data` when that is set, else
//! `$XDG_DATA_HOME/goose` or `~/.local/share/goose`. Its `sessions/` folder
//! holds `sessions.db` and the older `<id>.jsonl` files; the oldest builds
//! kept those in `~/.goose/sessions/` (read too, unless `GOOSE_PATH_ROOT`
//! is set). Goose 1.10 copied the files into the new database and left them
//! in place: a file whose id the database has is the database's session.
//! The database is opened read-only and never written or checkpointed
//! (`sqlite.rs`).
//!
//! A session of the database is located by the database file and its id
//! ([`SessionInfo::path`] is the database file); one of the files is its
//! file.
//!
//! # Listing
//!
//! Sessions of type `hidden` and `sub_agent` (a subagent's, whose calls
//! count toward its parent) and archived ones are left out, as Goose's own
//! list leaves them out; they load. The title is the session's `name`
//! (`description` in older rows and files), else its first prompt; the cwd
//! its `working_dir`; the change marker its `updated_at`.
//!
//! # From messages to a transcript
//!
//! Messages (`messages.content_json`, or a file's lines after the metadata
//! line) are read in order; each is a role and a list of content items.
//! A row or line that does not parse is skipped and reported.
//!
//! - `text` is text, `thinking` thinking (`redactedThinking` a placeholder),
//!   `image` an image (base64 `data`, `mimeType`).
//! - `toolRequest` (and `frontendToolRequest`) is a call: id, and the `name`
//!   and `arguments` of `toolCall.value`; a `toolCall` of status `error` (a
//!   call the model wrote that Goose could not read) fails at once. The
//!   `toolResponse` with the same id, in the next user message, completes it:
//!   `toolResult.value.content` is the result (`isError` fails it), a
//!   `toolResult` of status `error` fails it with its `error`. A user message
//!   of nothing but responses shows nothing. Started and ended at the times
//!   of the two messages.
//! - `systemNotification` is a system notice of its `msg`; other items
//!   (confirmation requests, …) are kept as unknown.
//! - **Compaction:** a message Goose keeps for the model only
//!   (`metadata.userVisible: false`) is the compaction's summary when the
//!   assistant wrote it (a system message of a summary block), else context
//!   Goose added; the messages before it stay shown.
//! - **Usage:** one call per row of `usage_ledger` (one per provider call)
//!   of the session and of the subagent sessions it ran (`parent_session_id`),
//!   with model, tokens and cost; a database without that table gives one
//!   call per session from its accumulated totals, a file one from its
//!   metadata line. Goose counts cache reads and writes inside its input
//!   tokens; they are taken out of `input`.

mod content;
mod db;
mod edits;
mod legacy;
mod source;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use source::{Goose, SOURCE};

use self::content::RawMessage;
use self::db::{Db, SessionRow};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::listing::{FoundFiles, FoundRow, Listing, Scope, SessionInfo, active_ms, transcript_info};
use crate::transcript::Transcript;
use crate::usage::Call;
use sess_core::{LineIssue, format_iso_millis};

/// The name of Goose's database in its `sessions/` folder.
pub(crate) const DATABASE: &str = "sessions.db";

/// Goose's data folder (see the module docs).
pub fn data_dir(env: &Env) -> PathBuf {
    match env.path("GOOSE_PATH_ROOT") {
        Some(root) => root.join("data"),
        None => env.path_or_home("XDG_DATA_HOME", ".local/share").join("goose"),
    }
}

/// The folders that hold Goose's session files: `sessions/` of the data
/// folder, and `~/.goose/sessions` unless `GOOSE_PATH_ROOT` is set.
pub fn session_dirs(env: &Env) -> Vec<PathBuf> {
    let mut dirs = vec![data_dir(env).join("sessions")];
    if env.path("GOOSE_PATH_ROOT").is_none() {
        dirs.push(env.home().join(".goose/sessions"));
    }
    dirs
}

fn database(env: &Env) -> PathBuf {
    data_dir(env).join("sessions").join(DATABASE)
}

/// The sessions a listing shows, as rows and files (see the module docs).
pub(crate) fn find_session_files(env: &Env) -> FoundFiles {
    let mut found = FoundFiles::default();
    let mut seen = HashSet::new();
    let path = database(env);
    if let Ok(rows) = Db::open(&path).and_then(|db| db.sessions()) {
        for row in rows {
            seen.insert(row.id.clone());
            if listed(&row) {
                let version = row.updated_ms.or(row.created_ms).unwrap_or(0);
                found.rows.push(FoundRow { id: row.id, database: path.clone(), version });
            }
        }
    }
    let mut files = FoundFiles::default();
    for dir in session_dirs(env) {
        files.add_folder(&dir, legacy::id_of);
    }
    found.files.extend(files.files.into_iter().filter(|(id, _)| !seen.contains(id)));
    found.skipped.extend(files.skipped);
    found
}

/// The sessions of `env` in `scope`; a database or file that cannot be read
/// goes to [`Listing::problems`].
pub(crate) fn list(env: &Env, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    let mut seen = HashSet::new();
    let path = database(env);
    match Db::open(&path) {
        Ok(db) => match db.sessions() {
            Ok(rows) => {
                for row in rows {
                    seen.insert(row.id.clone());
                    if listed(&row) && in_scope(row.working_dir.as_deref(), scope) {
                        match read_row(&db, row, false) {
                            Ok(read) => listing.sessions.push(info(&read, &path)),
                            Err(err) => listing.problems.push(err),
                        }
                    }
                }
            }
            Err(err) => listing.problems.push(err),
        },
        Err(Error::NotFound { .. }) => {}
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => listing.problems.push(err),
    }
    let mut files = FoundFiles::default();
    for dir in session_dirs(env) {
        files.add_folder(&dir, legacy::id_of);
    }
    for (id, file) in files.files {
        if seen.contains(&id) {
            continue;
        }
        match read_file(&file, false) {
            Ok(read) if in_scope(read.transcript.cwd.as_deref(), scope) => listing.sessions.push(info(&read, &file)),
            Ok(_) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    for (path, kind) in files.skipped {
        listing.problems.push(Error::NotASessionFile { path, kind });
    }
    listing
}

/// A session read: its transcript, when it started and last changed, and
/// its calls when they were asked for.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    created_ms: Option<i64>,
    updated_ms: Option<i64>,
    pub(crate) usage: Vec<Call>,
    /// Whether the title is the session's own.
    pub(crate) named: bool,
}

/// The session file at `path` (`<id>.jsonl`). A session of the database is
/// loaded by its id ([`read_session`]).
pub(crate) fn read_file(path: &Path, with_usage: bool) -> Result<Read> {
    if crate::sqlite::is_database(path)? {
        return Err(Error::NotARecord {
            path: path.to_owned(),
            message: "a database of Goose sessions: name one of its sessions by its id".to_owned(),
        });
    }
    let bytes = crate::jsonl::read_file(path)?;
    let parsed = legacy::parse(&bytes);
    let id = path.file_name().and_then(|n| n.to_str()).and_then(legacy::id_of).unwrap_or_default();
    let name = parsed.meta.get("description").and_then(|d| d.as_str()).filter(|d| !d.trim().is_empty());
    let cwd = parsed.meta.get("working_dir").and_then(|d| d.as_str()).map(ToOwned::to_owned);
    let usage = if with_usage { legacy::call(&parsed).into_iter().collect() } else { Vec::new() };
    let created_ms = parsed.messages.iter().find_map(|m| m.created_ms);
    let updated_ms = parsed.messages.iter().filter_map(|m| m.created_ms).max();
    let named = name.is_some();
    let transcript = transcript(id, name.map(ToOwned::to_owned), cwd, &parsed.messages, parsed.issues);
    Ok(Read { transcript, created_ms, updated_ms, usage, named })
}

/// Session `id` of the database `database`.
pub(crate) fn read_session(database: &Path, id: &str, with_usage: bool) -> Result<Read> {
    let db = Db::open(database)?;
    let row = db.session(id)?.ok_or_else(|| Error::NotFound { path: database.join(id) })?;
    read_row(&db, row, with_usage)
}

fn read_row(db: &Db, row: SessionRow, with_usage: bool) -> Result<Read> {
    let (messages, issues) = db.messages(&row.id)?;
    let usage = if with_usage { db.calls(&db.family(&row.id)?)? } else { Vec::new() };
    let named = row.name.is_some();
    let transcript = transcript(&row.id, row.name, row.working_dir, &messages, issues);
    Ok(Read { transcript, created_ms: row.created_ms, updated_ms: row.updated_ms, usage, named })
}

fn transcript(
    id: &str,
    name: Option<String>,
    cwd: Option<String>,
    messages: &[RawMessage],
    issues: Vec<LineIssue>,
) -> Transcript {
    let mut transcript = Transcript::new(SOURCE, id);
    transcript.cwd = cwd;
    transcript.messages = content::messages(messages);
    transcript.issues = issues;
    transcript.title = name.or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
    transcript
}

/// Whether a listing shows the session: not hidden, not a subagent's, not
/// archived.
fn listed(row: &SessionRow) -> bool {
    !row.archived && !matches!(row.session_type.as_deref(), Some("hidden" | "sub_agent"))
}

fn in_scope(cwd: Option<&str>, scope: Scope<'_>) -> bool {
    match scope {
        Scope::All => true,
        Scope::Project(dir) => cwd.is_some_and(|cwd| Path::new(cwd) == dir),
    }
}

fn info(read: &Read, path: &Path) -> SessionInfo {
    let created = read.created_ms.map(format_iso_millis);
    let modified = active_ms(&read.transcript, created.as_deref()).or(read.updated_ms).unwrap_or(0);
    transcript_info(SOURCE, &read.transcript, path, created, modified)
}

#[cfg(test)]
#[path = "goose/tests.rs"]
mod tests;
