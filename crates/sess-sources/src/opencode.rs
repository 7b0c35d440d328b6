//! OpenCode sessions: rows of `opencode.db` (1.2 and later), or JSON files
//! under `storage/` (before 1.2), in OpenCode's data folder.
//!
//! # Where
//!
//! The data folder is `$XDG_DATA_HOME/opencode`, else
//! `~/.local/share/opencode`. The database is `$OPENCODE_DB` when set (a
//! path relative to the data folder, or absolute), else `opencode.db` there
//! (builds of other release channels write `opencode-<channel>.db`, read
//! too). The database is opened read-only and never written (`opencode/db.rs`
//! says how the write-ahead log is read without creating files). OpenCode 1.2
//! copies `storage/` into a new database once and leaves the files in place:
//! a session of the files whose id the database also has is the database's.
//!
//! A session of the database is located by the database file and its id
//! ([`load_session`]; [`SessionInfo::path`] is the database file), or by the
//! path `<database>/<session id>` ([`load`]). A session of `storage/` is its
//! file, `storage/session/<project>/<id>.json`.
//!
//! # Listing
//!
//! Sessions that a `task` call started (a subagent's, with a parent) and
//! archived ones are not listed, as OpenCode's own list leaves them out; both
//! load. The title is the session's, unless it is still the placeholder
//! `New session - <time>` (then the first prompt); the cwd is the session's
//! `directory`; the change marker is its `time_updated`, bumped by OpenCode
//! on every write to the session.
//!
//! # From messages and parts to a transcript
//!
//! Messages are read in OpenCode's order (creation time, then id), each
//! with its parts in id order. A row or file that is not a JSON object is
//! skipped and reported in [`Transcript::issues`] (numbered in reading
//! order: messages first, then parts).
//!
//! - **User messages:** `text` parts are the prompt; text OpenCode added
//!   itself (`synthetic`: how it read an attached file, the prompt it sends
//!   after an automatic compaction) or kept from the model (`ignored`) is
//!   context, titled `Added by OpenCode`; a `file` part is an image (a
//!   base64 data URL split into media type and data) or, for other files,
//!   context with the text it stood for; `agent` and `subtask` parts are
//!   context. A message of nothing but a `compaction` part (the marker
//!   before a compaction's summary) shows nothing.
//! - **One assistant bubble per turn:** OpenCode writes an assistant message
//!   for every step of a turn (each model call); the steps between two user
//!   messages are one bubble, opened at the first step's id and time.
//!   `text` parts are text, `reasoning` thinking, `file` parts images;
//!   `step-start`, `step-finish`, `snapshot` and `patch` parts show nothing;
//!   a `retry` part is an error `Retry N: <message>`; an unknown part is kept
//!   as unknown.
//! - **Tool calls:** a `tool` part is a call: id `callID`, name `tool`,
//!   input `state.input`; `state.status` `completed` succeeds with
//!   `state.output`, `error` fails with `state.error`, `pending` and
//!   `running` run (pending at the end of the session); started and ended at
//!   `state.time.start`/`end`. A call whose `state.metadata.sessionId` names a
//!   session (the `task` tool's subagent) carries that session's messages.
//! - **Errors:** a message's `error` is an error block with its
//!   `data.message` (else its `name`) at the end of the bubble; an interrupt
//!   (`MessageAbortedError`) is instead the system notice `Turn aborted`.
//! - **Compaction:** the summary (an assistant message with `summary: true`)
//!   is a system message of summary blocks; the earlier messages stay shown.
//! - **Usage:** the model calls the catalog keeps are the steps of the
//!   assistant messages, the subagents' included (`opencode/usage.rs`).
//! - **Undo:** a session's `revert` names the first message an /undo took
//!   back; OpenCode hides it and every later one until the next prompt
//!   deletes them. They stay shown, after a system notice that says they
//!   were undone.

mod agent;
mod convert;
mod db;
mod dump;
mod edits;
mod paths;
mod records;
mod source;
mod storage;
#[cfg(test)]
mod test_db;
mod usage;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub(crate) use agent::{Agent, OPENCODE};
pub use paths::{data_dir, databases};
pub use source::{OpenCode, SOURCE};

use self::convert::Reader;
use self::db::Db;
use self::records::{RawMessages, SessionRecord};
use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::Indexed;
use crate::listing::{FoundFiles, FoundRow, Listing, Scope, SessionInfo, active_ms};
use crate::rows::RowDump;
use crate::sqlite::SQLITE_MAGIC;
use crate::transcript::{ToolCall, Transcript};
use sess_core::format_iso_millis;

/// OpenCode's sessions in `env` (`Agent::find`).
pub fn find_session_files(env: &Env) -> FoundFiles {
    OPENCODE.find(env)
}

/// OpenCode's sessions in `env` and `scope` (`Agent::list`).
pub fn list(env: &Env, scope: Scope<'_>) -> Listing {
    OPENCODE.list(env, scope)
}

/// The session file of OpenCode's `storage/` at `path` as a whole
/// transcript (`Agent::load`).
pub fn load(path: &Path) -> Result<Transcript> {
    OPENCODE.load(path)
}

/// Session `id` of OpenCode's database `database` as a whole transcript.
pub fn load_session(database: &Path, id: &str) -> Result<Transcript> {
    OPENCODE.load_session(database, id)
}

/// The reading every agent of OpenCode's family shares: each `Source`
/// method of theirs (`crate::source::Source`) that reads the database or
/// `storage/` is one of these.
impl Agent {
    /// The sessions of `env` a listing shows (see the module docs): the rows
    /// of each database, with their change markers, then the files of
    /// `storage/` whose ids no database has, and the names there that are
    /// not regular files. Only the `session` table and the session files are
    /// read.
    pub(crate) fn find(&self, env: &Env) -> FoundFiles {
        let mut found = FoundFiles::default();
        let mut seen = HashSet::new();
        for database in self.databases(env) {
            let Ok(records) = Db::open(&database).and_then(|db| db.sessions()) else { continue };
            for record in records {
                seen.insert(record.id.clone());
                if listed(&record) {
                    let version = version(&record);
                    found.rows.push(FoundRow { id: record.id, database: database.clone(), version });
                }
            }
        }
        let storage = self.data_dir(env).join(storage::STORAGE_DIR);
        for (id, path) in storage::session_files(&storage, &mut found.skipped) {
            if !seen.contains(&id) && storage::read_session(&path).is_ok_and(|record| listed(&record)) {
                found.files.push((id, path));
            }
        }
        found
    }

    /// The sessions of `env` in `scope` (see the module docs), in no
    /// particular order. A database or file that cannot be read goes to
    /// [`Listing::problems`].
    pub(crate) fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        let mut listing = Listing::default();
        let mut seen = HashSet::new();
        for database in self.databases(env) {
            let db = match Db::open(&database) {
                Ok(db) => db,
                Err(Error::NotFound { .. }) => continue,
                Err(err) => {
                    listing.problems.push(err);
                    continue;
                }
            };
            match db.sessions() {
                Ok(records) => {
                    for record in records {
                        seen.insert(record.id.clone());
                        if listed(&record) && in_scope(&record, scope) {
                            match self.read_db_session(&db, record, false) {
                                Ok(read) => {
                                    listing.sessions.push(self.info(&read.record, &read.transcript, &database));
                                }
                                Err(err) => listing.problems.push(err),
                            }
                        }
                    }
                }
                Err(err) => listing.problems.push(err),
            }
        }
        let storage = self.data_dir(env).join(storage::STORAGE_DIR);
        let mut skipped = Vec::new();
        for (id, path) in storage::session_files(&storage, &mut skipped) {
            if seen.contains(&id) {
                continue;
            }
            match storage::read_session(&path) {
                Ok(record) if listed(&record) && in_scope(&record, scope) => {
                    let read = self.read_storage_session(&storage, &path, record, false);
                    listing.sessions.push(self.info(&read.record, &read.transcript, &path));
                }
                Ok(_) => {}
                Err(err) => listing.problems.push(err),
            }
        }
        for (path, kind) in skipped {
            listing.problems.push(Error::NotASessionFile { path, kind });
        }
        listing
    }

    /// Whether the file whose head is `head` is one of the agent's
    /// databases: SQLite, and named as the agent names them.
    pub(crate) fn detect_database(&self, head: &Head<'_>) -> bool {
        head.bytes.starts_with(SQLITE_MAGIC) && self.is_database_name(Path::new(head.name.as_ref()))
    }

    /// The session at `path` as a whole transcript: a file of `storage/`
    /// (`storage/session/<project>/<id>.json`). A session of the database is
    /// loaded by its id ([`load_session`](Self::load_session)).
    pub(crate) fn load(&self, path: &Path) -> Result<Transcript> {
        Ok(self.read_file_session(path, false)?.transcript)
    }

    /// Session `id` of the database `database` as a whole transcript.
    pub(crate) fn load_session(&self, database: &Path, id: &str) -> Result<Transcript> {
        Ok(self.read_row_session(database, id, false)?.transcript)
    }

    /// The edits of a tool call (`opencode/edits.rs`).
    pub(crate) fn edits(call: &ToolCall) -> Vec<FileEdit> {
        edits::edits(call)
    }

    /// The ids of every session of the database, subagents' and archived
    /// ones included.
    pub(crate) fn row_ids(database: &Path) -> Result<Vec<String>> {
        Ok(Db::open(database)?.sessions()?.into_iter().map(|record| record.id).collect())
    }

    /// The rows of session `id` and of the subagents it ran, in every table
    /// keyed by a session (`opencode/dump.rs`).
    pub(crate) fn rows(database: &Path, id: &str) -> Result<RowDump> {
        Db::open(database)?.rows(id)
    }

    /// For a session of `storage/` (`storage/session/<project>/<id>.json`):
    /// the message and part files its transcript is read from, and those of
    /// the subagents its `task` calls ran, with their session files
    /// (`opencode/storage.rs`). A session of the database has none. The
    /// messages are those of the id the record inside names (where `load`
    /// reads them), whatever the file's name.
    pub(crate) fn companions(path: &Path) -> Vec<PathBuf> {
        let named = path.file_name().and_then(|n| n.to_str()).and_then(storage::session_id_of);
        let (Some(named), Some(storage)) = (named, storage::storage_of(path)) else { return Vec::new() };
        let id = storage::read_session(path).map_or_else(|_| named.to_owned(), |record| record.id);
        crate::companions::finish(path, storage::files_of_session(storage, &id))
    }

    /// What the catalog keeps of a session of `storage/`; its calls are its
    /// subagents' too (their sessions are not listed on their own).
    pub(crate) fn index(&self, path: &Path) -> std::result::Result<Indexed, String> {
        let read = self.read_file_session(path, true).map_err(|err| err.to_string())?;
        Ok(indexed(read))
    }

    /// What the catalog keeps of a session of the database; its calls are
    /// its subagents' too.
    pub(crate) fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        let read = self.read_row_session(database, id, true).map_err(|err| err.to_string())?;
        Ok(indexed(read))
    }

    fn read_file_session(&self, path: &Path, usage: bool) -> Result<Read> {
        if path.is_file() && db::is_database(path)? {
            return Err(Error::NotARecord {
                path: path.to_owned(),
                message: format!("a database of {} sessions: name one of its sessions by its id", self.name),
            });
        }
        let record = storage::read_session(path)?;
        let storage = storage::storage_of(path).ok_or_else(|| Error::NotARecord {
            path: path.to_owned(),
            message: format!("not in a {} `storage/session/<project>/` folder", self.name),
        })?;
        Ok(self.read_storage_session(storage, path, record, usage))
    }

    fn read_row_session(&self, database: &Path, id: &str, usage: bool) -> Result<Read> {
        let db = Db::open(database)?;
        let record = db.session(id)?.ok_or_else(|| Error::NotFound { path: database.join(id) })?;
        self.read_db_session(&db, record, usage)
    }

    fn read_db_session(&self, db: &Db, record: SessionRecord, with_usage: bool) -> Result<Read> {
        let raw = db.messages(&record.id)?;
        let child = |id: &str| db.messages(id).ok().map(|raw| raw.messages);
        let usage = if with_usage { usage::calls(&raw.messages, &child) } else { Vec::new() };
        let transcript = self.transcript(&record, raw, &Reader { agent: self.name, child: &child });
        Ok(Read { record, transcript, usage })
    }

    /// The session of the file at `path` under `storage`, whose record is
    /// `record`. Its id is the one its name gives (which every verb finds it
    /// by), even when the record inside names another; its messages are
    /// those of the record's id, where the agent keeps them.
    fn read_storage_session(&self, storage: &Path, path: &Path, record: SessionRecord, with_usage: bool) -> Read {
        let raw = storage::messages(storage, &record.id);
        let child = |id: &str| Some(storage::messages(storage, id).messages).filter(|m| !m.is_empty());
        let usage = if with_usage { usage::calls(&raw.messages, &child) } else { Vec::new() };
        let mut transcript = self.transcript(&record, raw, &Reader { agent: self.name, child: &child });
        if let Some(id) = path.file_name().and_then(|n| n.to_str()).and_then(storage::session_id_of) {
            id.clone_into(&mut transcript.id);
        }
        Read { record, transcript, usage }
    }

    fn transcript(&self, record: &SessionRecord, raw: RawMessages, reader: &Reader<'_>) -> Transcript {
        let mut transcript = Transcript::new(self.source, record.id.clone());
        transcript.cwd.clone_from(&record.directory);
        transcript.messages = reader.messages(record, &raw.messages);
        transcript.issues = raw.issues;
        transcript.title =
            record.own_title().map(ToOwned::to_owned).or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
        transcript
    }

    fn info(&self, record: &SessionRecord, transcript: &Transcript, path: &Path) -> SessionInfo {
        let created = record.created.map(format_iso_millis);
        SessionInfo {
            source: self.source,
            flavor: None,
            id: transcript.id.clone(),
            path: path.to_owned(),
            cwd: record.directory.clone(),
            title: transcript.title.clone(),
            created: created.clone(),
            modified_ms: active_ms(transcript, created.as_deref()).unwrap_or_else(|| version(record)),
            message_count: transcript.messages.len(),
            first_message: transcript.first_prompt().map(ToOwned::to_owned),
            parent_session: None,
        }
    }
}

/// A session's change marker: its `time_updated` (else its creation time).
fn version(record: &SessionRecord) -> i64 {
    record.updated.or(record.created).unwrap_or(0)
}

/// Whether a listing shows the session: not a subagent's, not archived.
fn listed(record: &SessionRecord) -> bool {
    record.parent_id.is_none() && record.archived.is_none()
}

fn in_scope(record: &SessionRecord, scope: Scope<'_>) -> bool {
    match scope {
        Scope::All => true,
        Scope::Project(dir) => record.directory.as_deref().is_some_and(|d| Path::new(d) == dir),
    }
}

/// A session read: its record, its transcript, and its model calls when
/// they were asked for.
struct Read {
    record: SessionRecord,
    transcript: Transcript,
    usage: Vec<crate::Call>,
}

/// What the catalog keeps of a loaded session and its calls. Its title is
/// its own unless it is its first prompt; its creation time is its first
/// message's.
fn indexed(read: Read) -> Indexed {
    let Read { transcript, usage, .. } = read;
    let title_explicit = transcript.title.is_some() && transcript.title.as_deref() != transcript.first_prompt();
    Indexed {
        session_id: transcript.id,
        title: transcript.title,
        title_explicit,
        cwd: transcript.cwd,
        created: transcript.messages.first().and_then(|m| m.timestamp.clone()),
        message_count: transcript.messages.len(),
        messages: transcript.messages,
        usage,
        listed: None,
    }
}

#[cfg(test)]
#[path = "opencode/opencode_tests.rs"]
mod tests;
