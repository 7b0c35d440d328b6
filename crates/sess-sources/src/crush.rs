//! Crush sessions: rows of each project's `crush.db`.
//!
//! # Where
//!
//! Crush keeps one database per project, `<project>/.crush/crush.db`, and
//! lists the projects in `projects.json` in its global data folder
//! (`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush` or
//! `~/.local/share/crush`): `{"projects": [{"path", "data_dir", …}]}`, where
//! `data_dir` is absolute or relative to `path`. The databases are opened
//! read-only and never written or checkpointed (`sqlite.rs`); most of a
//! running Crush's rows are in the `-wal` file beside it, which is read.
//!
//! A session is located by its database file and its id
//! ([`SessionInfo::path`] is the database file).
//!
//! # Listing
//!
//! Sessions with a `parent_session_id` (a subagent's, or the one Crush uses
//! to title a session) are left out, as Crush's own list leaves them out;
//! they load. The title is the session's `title`, else its first prompt;
//! the cwd the row's `workspace_cwd` where it has one, else the project's
//! `path` (for a database loaded by path, the folder that holds `.crush/`);
//! the change marker its `updated_at`. Times are Unix seconds (milliseconds
//! are read too).
//!
//! # From messages to a transcript
//!
//! Messages are read in creation order; `parts` is a JSON array of
//! `{"type", "data"}`. A row whose parts do not parse is skipped and
//! reported.
//!
//! - `text` is text, `reasoning` thinking, `image_url` an image by URL,
//!   `binary` an image (base64 `data`, `mime_type`) or, for other files,
//!   context naming its `path`.
//! - `tool_call` (in an assistant message) is a call: `id`, `name`, `input`
//!   (JSON text). The `tool_result` with its `tool_call_id` (in the next
//!   `tool` message) completes it with its `content`, failed when
//!   `is_error`; started and ended at the two messages' times. A call
//!   without a result is pending at the end.
//! - **Subagents:** Crush names the session its `agent` tool starts by the
//!   call's id: a call whose id is a session's carries its messages.
//! - `finish` shows an error block when the turn ended in an `error` (its
//!   `message` and `details`), was `canceled` or refused permission.
//! - **Compaction:** the summary (`is_summary_message`) is a system message
//!   of a summary block; the earlier messages stay shown.
//! - **Usage:** Crush keeps no tokens per message, only per session: one
//!   call per session, of the session and of the subagents it ran, with its
//!   `prompt_tokens` as input and `completion_tokens` as output, at its
//!   `updated_at`, with the model of its last assistant message. Crush adds
//!   a subagent's cost to its parent's, so the cost is the parent's call's
//!   alone.

mod convert;
mod db;
mod edits;
mod source;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use source::{Crush, SOURCE};

use self::db::{Db, SessionRow};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::listing::{FoundFiles, FoundRow, Listing, Scope, SessionInfo, active_ms, transcript_info};
use crate::transcript::{Message, Transcript};
use crate::usage::{Call, Calls, tokens};
use sess_core::format_iso_millis;

/// The name of a project's database.
pub(crate) const DATABASE: &str = "crush.db";

/// Crush's global data folder (see the module docs).
pub fn data_dir(env: &Env) -> PathBuf {
    env.path("CRUSH_GLOBAL_DATA").unwrap_or_else(|| env.path_or_home("XDG_DATA_HOME", ".local/share").join("crush"))
}

/// The projects `projects.json` lists: each project's folder and the
/// database in its data folder, in the file's order.
pub fn projects(env: &Env) -> Vec<(PathBuf, PathBuf)> {
    let Ok(bytes) = std::fs::read(data_dir(env).join("projects.json")) else { return Vec::new() };
    let Ok(value) = serde_json::from_slice::<Value>(&bytes) else { return Vec::new() };
    let mut projects = Vec::new();
    for project in value.get("projects").and_then(Value::as_array).into_iter().flatten() {
        let Some(path) = project.get("path").and_then(Value::as_str).filter(|p| !p.is_empty()) else { continue };
        let path = PathBuf::from(path);
        let data = project.get("data_dir").and_then(Value::as_str).filter(|d| !d.is_empty()).unwrap_or(".crush");
        let database = path.join(data).join(DATABASE);
        if !projects.iter().any(|(_, db)| *db == database) {
            projects.push((path, database));
        }
    }
    projects
}

/// The sessions a listing shows, as rows of the projects' databases.
pub(crate) fn find_session_files(env: &Env) -> FoundFiles {
    let mut found = FoundFiles::default();
    for (_, database) in projects(env) {
        let Ok(rows) = Db::open(&database).and_then(|db| db.sessions()) else { continue };
        for row in rows.into_iter().filter(|row| row.parent.is_none()) {
            let version = row.updated_ms.or(row.created_ms).unwrap_or(0);
            found.rows.push(FoundRow { id: row.id, database: database.clone(), version });
        }
    }
    found
}

/// The sessions of `env` in `scope`; a database that cannot be read goes to
/// [`Listing::problems`] (one that is missing does not: a project Crush
/// listed and that is gone).
pub(crate) fn list(env: &Env, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    for (project, database) in projects(env) {
        if !database.exists() {
            continue;
        }
        let db = match Db::open(&database) {
            Ok(db) => db,
            Err(err) => {
                listing.problems.push(err);
                continue;
            }
        };
        match db.sessions() {
            Ok(rows) => {
                for row in rows.into_iter().filter(|row| row.parent.is_none()) {
                    let cwd = row.cwd.clone().unwrap_or_else(|| project.to_string_lossy().into_owned());
                    if let Scope::Project(dir) = scope
                        && Path::new(&cwd) != dir
                    {
                        continue;
                    }
                    match read_row(&db, &database, row, false) {
                        Ok(mut read) => {
                            read.transcript.cwd = Some(cwd);
                            listing.sessions.push(info(&read, &database));
                        }
                        Err(err) => listing.problems.push(err),
                    }
                }
            }
            Err(err) => listing.problems.push(err),
        }
    }
    listing
}

/// A session read.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    row: SessionRow,
    pub(crate) usage: Vec<Call>,
}

impl Read {
    /// Whether the title is the session's own.
    pub(crate) fn row_title(&self) -> bool {
        self.row.title.is_some()
    }
}

/// Session `id` of `database`.
pub(crate) fn read_session(database: &Path, id: &str, with_usage: bool) -> Result<Read> {
    let db = Db::open(database)?;
    let row = db.session(id)?.ok_or_else(|| Error::NotFound { path: database.join(id) })?;
    read_row(&db, database, row, with_usage)
}

fn read_row(db: &Db, database: &Path, row: SessionRow, with_usage: bool) -> Result<Read> {
    let (rows, issues) = db.messages(&row.id)?;
    let subagent = |id: &str| -> Option<Vec<Message>> {
        let child = db.session(id).ok()??;
        (child.parent.as_deref() == Some(row.id.as_str())).then_some(())?;
        let (rows, _) = db.messages(&child.id).ok()?;
        Some(convert::messages(&rows, &|_| None))
    };
    let mut transcript = Transcript::new(SOURCE, row.id.clone());
    transcript.messages = convert::messages(&rows, &subagent);
    transcript.issues = issues;
    transcript.cwd = row.cwd.clone().or_else(|| project_of(database));
    transcript.title = row.title.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
    let mut usage = Vec::new();
    if with_usage {
        let mut calls = Calls::default();
        for (at, id) in db.family(&row.id)?.iter().enumerate() {
            let Some(session) = db.session(id)? else { continue };
            let model = db.messages(id)?.0.into_iter().rev().find(|m| m.role == "assistant").and_then(|m| m.model);
            calls.push(Call {
                timestamp: session.updated_ms.map(format_iso_millis),
                model,
                input: tokens(session.prompt_tokens.map(Value::from).as_ref()),
                output: tokens(session.completion_tokens.map(Value::from).as_ref()),
                cost: if at == 0 { session.cost } else { None },
                ..Call::default()
            });
        }
        usage = calls.finish();
    }
    Ok(Read { transcript, row, usage })
}

/// The project of a database in Crush's default data folder
/// (`<project>/.crush/crush.db`).
fn project_of(database: &Path) -> Option<String> {
    let data = database.parent()?;
    (data.file_name()? == ".crush").then(|| data.parent().map(|p| p.to_string_lossy().into_owned()))?
}

fn info(read: &Read, path: &Path) -> SessionInfo {
    let created = read.row.created_ms.map(format_iso_millis);
    let modified = active_ms(&read.transcript, created.as_deref()).or(read.row.updated_ms).unwrap_or(0);
    transcript_info(SOURCE, &read.transcript, path, created, modified)
}

#[cfg(test)]
#[path = "crush/tests.rs"]
mod tests;
