//! Zed's agent threads: rows of `threads.db`.
//!
//! # Where
//!
//! `$XDG_DATA_HOME/zed/threads/threads.db`, else
//! `~/.local/share/zed/threads/threads.db` (on macOS Zed keeps it in
//! `~/Library/Application Support/Zed/threads/`, read too). The database is
//! opened read-only and never written or checkpointed (`sqlite.rs`). A thread
//! is located by the database file and its id ([`SessionInfo::path`] is the
//! database file).
//!
//! # Listing
//!
//! Every row of `threads(id, summary, updated_at, data_type, data,
//! folder_paths, parent_id, created_at, …)` but a subagent's (with a
//! `parent_id`). The title is `summary` (else the first prompt), the cwd the
//! first of `folder_paths` (one path a line), created and modified its
//! `created_at` and `updated_at`: Zed's messages carry no times of their own.
//!
//! # From a thread to a transcript
//!
//! `data` is the thread's JSON when `data_type` is `json`, and that JSON
//! compressed with zstd when it is `zstd`. A row whose data does not
//! decompress or parse is reported in [`Transcript::issues`] and shows no
//! messages.
//!
//! - **Current threads** (`version` `0.3.0`): each message is `{"User": {"id",
//!   "content"}}`, `{"Agent": {"content", "tool_results"}}` or `"Resume"` (a
//!   system notice). User content: `Text`, `Mention` (context titled with its
//!   URI), `Image` (base64 PNG `source`). Agent content: `Text`, `Thinking`,
//!   `RedactedThinking`, `ToolUse` (`id`, `name`, `input`), completed by the
//!   entry of `tool_results` under its id (`content`, `is_error`). A call
//!   without a result is pending.
//! - **Older threads** (Zed's first agent panel): messages with `role`,
//!   `segments` (`text`, `thinking`, `redacted_thinking`), `tool_uses` and
//!   their `tool_results`, and attached `context`.
//! - **Usage:** one call per entry of `request_token_usage` (a request's
//!   input, output, cache write and cache read tokens), with the thread's
//!   `model`; the thread's `cumulative_token_usage` when there are none.
//!   Zed records no time per request: the calls are dated by the thread's
//!   `updated_at`.

mod convert;
mod source;

use std::path::{Path, PathBuf};

use rusqlite::Row;
use serde_json::Value;
use sess_core::{IssueKind, LineIssue, format_iso_millis};

pub use source::{SOURCE, Zed};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::listing::{FoundFiles, FoundRow, Listing, Scope, SessionInfo, transcript_info};
use crate::sqlite::{self, database, optional, time_ms};
use crate::transcript::Transcript;
use crate::usage::Call;

/// The name of Zed's database of threads.
pub(crate) const DATABASE: &str = "threads.db";

/// The databases of `env` that exist (see the module docs).
pub fn databases(env: &Env) -> Vec<PathBuf> {
    let xdg = env.path_or_home("XDG_DATA_HOME", ".local/share").join("zed/threads").join(DATABASE);
    let mac = env.home().join("Library/Application Support/Zed/threads").join(DATABASE);
    let mut found = Vec::new();
    for path in [xdg, mac] {
        if path.is_file() && !found.contains(&path) {
            found.push(path);
        }
    }
    found
}

/// A `threads` row, its data not yet read.
struct ThreadRow {
    id: String,
    summary: Option<String>,
    parent: Option<String>,
    cwd: Option<String>,
    created_ms: Option<i64>,
    updated_ms: Option<i64>,
    data_type: String,
    data: Vec<u8>,
}

const COLUMNS: &str = "select * from threads";

fn thread_row(row: &Row<'_>) -> rusqlite::Result<ThreadRow> {
    let data = match row.get_ref("data")? {
        rusqlite::types::ValueRef::Blob(bytes) | rusqlite::types::ValueRef::Text(bytes) => bytes.to_vec(),
        _ => Vec::new(),
    };
    let folders: Option<String> = optional(row, "folder_paths");
    Ok(ThreadRow {
        id: row.get("id")?,
        summary: optional::<String>(row, "summary").filter(|s| !s.trim().is_empty()),
        parent: optional::<String>(row, "parent_id").filter(|p| !p.is_empty()),
        cwd: folders.and_then(|f| f.lines().find(|l| !l.is_empty()).map(ToOwned::to_owned)),
        created_ms: time_ms(row, "created_at"),
        updated_ms: time_ms(row, "updated_at"),
        data_type: optional::<String>(row, "data_type").unwrap_or_default(),
        data,
    })
}

fn rows(path: &Path, filter: &str, params: &[&str]) -> Result<Vec<ThreadRow>> {
    let conn = sqlite::open_read_only(path)?;
    let fail = |err: rusqlite::Error| database(path, &err);
    let mut statement = conn.prepare(&format!("{COLUMNS}{filter}")).map_err(fail)?;
    let rows = statement.query_map(rusqlite::params_from_iter(params), thread_row).map_err(fail)?;
    rows.collect::<rusqlite::Result<_>>().map_err(fail)
}

/// The threads a listing shows, with their `updated_at` as the change marker.
pub(crate) fn find_session_files(env: &Env) -> FoundFiles {
    let mut found = FoundFiles::default();
    for path in databases(env) {
        let Ok(threads) = rows(&path, " order by rowid", &[]) else { continue };
        for thread in threads.into_iter().filter(|t| t.parent.is_none()) {
            let version = thread.updated_ms.unwrap_or(0);
            found.rows.push(FoundRow { id: thread.id, database: path.clone(), version });
        }
    }
    found
}

pub(crate) fn list(env: &Env, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    for path in databases(env) {
        match rows(&path, " order by rowid", &[]) {
            Ok(threads) => {
                for thread in threads.into_iter().filter(|t| t.parent.is_none()) {
                    if let Scope::Project(dir) = scope
                        && thread.cwd.as_deref().is_none_or(|cwd| Path::new(cwd) != dir)
                    {
                        continue;
                    }
                    let read = read(thread);
                    listing.sessions.push(info(&read, &path));
                }
            }
            Err(err) => listing.problems.push(err),
        }
    }
    listing
}

/// A thread read.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    created_ms: Option<i64>,
    updated_ms: Option<i64>,
    pub(crate) usage: Vec<Call>,
    pub(crate) named: bool,
}

impl Read {
    /// When the thread started: its `created_at`, else (rows older than the
    /// column) its `updated_at`.
    pub(crate) fn created(&self) -> Option<String> {
        self.created_ms.or(self.updated_ms).map(format_iso_millis)
    }
}

/// Thread `id` of `database`.
pub(crate) fn read_thread(database: &Path, id: &str) -> Result<Read> {
    let thread = rows(database, " where id = ?1", &[id])?.pop();
    Ok(read(thread.ok_or_else(|| Error::NotFound { path: database.join(id) })?))
}

fn read(row: ThreadRow) -> Read {
    let mut transcript = Transcript::new(SOURCE, row.id.clone());
    transcript.cwd = row.cwd;
    let mut usage = Vec::new();
    match data(&row.data_type, &row.data) {
        Ok(value) => {
            let thread = convert::thread(&value);
            transcript.messages = thread.messages;
            let at = row.updated_ms.map(format_iso_millis);
            usage = thread.calls.into_iter().map(|call| Call { timestamp: at.clone(), ..call }).collect();
        }
        Err(message) => transcript.issues.push(LineIssue { line: 1, kind: IssueKind::InvalidJson(message) }),
    }
    let named = row.summary.is_some();
    transcript.title = row.summary.or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
    Read { transcript, created_ms: row.created_ms, updated_ms: row.updated_ms, usage, named }
}

/// The thread's JSON: `data` as it is, or decompressed for `zstd`.
fn data(data_type: &str, data: &[u8]) -> std::result::Result<Value, String> {
    let json = match data_type {
        "zstd" => crate::codex::compression::decompress(data).map_err(|err| format!("zstd data: {err}"))?,
        _ => data.to_vec(),
    };
    serde_json::from_slice(&json).map_err(|err| format!("thread data: {err}"))
}

fn info(read: &Read, path: &Path) -> SessionInfo {
    let modified = read.updated_ms.or(read.created_ms).unwrap_or(0);
    transcript_info(SOURCE, &read.transcript, path, read.created(), modified)
}

#[cfg(test)]
#[path = "zed/tests.rs"]
mod tests;
