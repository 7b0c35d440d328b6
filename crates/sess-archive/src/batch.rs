//! The archive's tables, and storing a batch: what to run for each file
//! and session, the same on every vault. A vault gives a [`Writer`] that runs the statements (the SQL
//! here, in PostgreSQL's `$N` form; SQLite takes it as `?N`) in its
//! transaction; its text index is its own.

use std::collections::HashMap;

use crate::vault::{Doc, FileWrite, Grown, KnownFile, Meta, SessionChange, SessionWrite, Stored};

/// The archive's tables but its text index, with `{KEY}` (an integer key
/// the database makes), `{INT}` (a 64-bit integer) and `{BYTES}` for the
/// dialect's words ([`tables`]).
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS archive_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS archive_machines (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, first_ms {INT} NOT NULL, last_ms {INT} NOT NULL);
CREATE TABLE IF NOT EXISTS archive_files (
    id {KEY}, machine TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL,
    growth TEXT NOT NULL, version {INT} NOT NULL, size {INT} NOT NULL, mtime {INT} NOT NULL,
    head TEXT NOT NULL, stored {INT} NOT NULL, mark TEXT NOT NULL, deleted_ms {INT},
    digest TEXT NOT NULL DEFAULT '', UNIQUE (machine, path));
CREATE TABLE IF NOT EXISTS archive_chunks (
    file {INT} NOT NULL, version {INT} NOT NULL, start {INT} NOT NULL, bytes {BYTES} NOT NULL,
    UNIQUE (file, version, start));
CREATE TABLE IF NOT EXISTS archive_tails (
    file {INT} NOT NULL, version {INT} NOT NULL, bytes {BYTES} NOT NULL, PRIMARY KEY (file, version));
CREATE TABLE IF NOT EXISTS archive_sessions (
    id {KEY}, machine TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL,
    session_id TEXT NOT NULL, title TEXT, cwd TEXT, created TEXT, message_count {INT} NOT NULL,
    modified_ms {INT} NOT NULL, archived_ms {INT} NOT NULL, updated_ms {INT} NOT NULL,
    deleted_ms {INT}, UNIQUE (machine, path));
CREATE INDEX IF NOT EXISTS archive_sessions_session_id ON archive_sessions (session_id);
CREATE TABLE IF NOT EXISTS archive_members (
    session {INT} NOT NULL, file {INT} NOT NULL, position {INT} NOT NULL, PRIMARY KEY (session, file));
";

/// The archive's tables in a dialect: its words for a made key, a 64-bit
/// integer and bytes.
pub(crate) fn tables(key: &str, int: &str, bytes: &str) -> String {
    TABLES.replace("{KEY}", key).replace("{INT}", int).replace("{BYTES}", bytes)
}

/// A new file, unless another archiver made it first (then no row).
pub(crate) const INSERT_FILE: &str = "INSERT INTO archive_files
    (machine, source, path, growth, version, size, mtime, head, stored, mark, digest)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
    ON CONFLICT (machine, path) DO NOTHING RETURNING id";

/// A file's new state, only if its row is still what was read (`$10`: its
/// key, `$11` and `$12`: the version and stored length read).
pub(crate) const UPDATE_FILE: &str = "UPDATE archive_files SET source = $1, growth = $2, version = $3,
    size = $4, mtime = $5, head = $6, stored = $7, mark = $8, digest = $9, deleted_ms = NULL
    WHERE id = $10 AND version = $11 AND stored = $12";

/// The files of an archive made before it kept digests (schema version 1)
/// whose digest is the hash of their stored lines: key and current version.
pub(crate) const LINE_FILES: &str = "SELECT id, version FROM archive_files WHERE growth = 'lines'";

/// A whole file's digest is the hash of all of it, which it kept as its head.
pub(crate) const WHOLE_DIGESTS: &str = "UPDATE archive_files SET digest = head WHERE growth <> 'lines'";

/// The stored lines of a version of a file, in order.
pub(crate) const VERSION_CHUNKS: &str =
    "SELECT bytes FROM archive_chunks WHERE file = $1 AND version = $2 ORDER BY start";

/// A file's digest.
pub(crate) const SET_DIGEST: &str = "UPDATE archive_files SET digest = $2 WHERE id = $1";

/// Lines (or a whole file) at their place in a version; stored once.
pub(crate) const INSERT_CHUNK: &str =
    "INSERT INTO archive_chunks (file, version, start, bytes) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";

/// The bytes after a version's last newline, now.
pub(crate) const PUT_TAIL: &str = "INSERT INTO archive_tails (file, version, bytes) VALUES ($1, $2, $3)
    ON CONFLICT (file, version) DO UPDATE SET bytes = excluded.bytes";

/// A session's listing, new or updated (and no longer gone); its key.
pub(crate) const PUT_SESSION: &str = "INSERT INTO archive_sessions (machine, source, path, session_id,
    title, cwd, created, message_count, modified_ms, archived_ms, updated_ms)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
    ON CONFLICT (machine, path) DO UPDATE SET source = excluded.source,
      session_id = excluded.session_id, title = excluded.title, cwd = excluded.cwd,
      created = excluded.created, message_count = excluded.message_count,
      modified_ms = excluded.modified_ms, updated_ms = excluded.updated_ms, deleted_ms = NULL
    RETURNING id";

/// What lines appended to a session's main file add to its listing (and it
/// is no longer gone); its key, no row when the archive has no such session.
pub(crate) const GROW_SESSION: &str = "UPDATE archive_sessions SET title = COALESCE($3, title),
    message_count = message_count + $4, modified_ms = $5, updated_ms = $6, deleted_ms = NULL
    WHERE machine = $1 AND path = $2 RETURNING id";

/// The key of a machine's file.
pub(crate) const FILE_ID: &str = "SELECT id FROM archive_files WHERE machine = $1 AND path = $2";

/// A file of a session, at its place among the session's files.
pub(crate) const LINK: &str = "INSERT INTO archive_members (session, file, position) VALUES ($1, $2, $3)
    ON CONFLICT (session, file) DO UPDATE SET position = excluded.position";

/// The statements of a batch, run in a vault's transaction.
pub(crate) trait Writer {
    /// What its driver fails with.
    type Error;
    /// [`INSERT_FILE`]: the new file's key, `None` when another made it.
    fn insert_file(&mut self, machine_id: &str, write: &FileWrite) -> Result<Option<i64>, Self::Error>;
    /// [`UPDATE_FILE`]: whether the row was still `base`.
    fn update_file(&mut self, write: &FileWrite, base: &KnownFile) -> Result<bool, Self::Error>;
    /// [`INSERT_CHUNK`].
    fn insert_chunk(&mut self, file: i64, write: &FileWrite) -> Result<(), Self::Error>;
    /// [`PUT_TAIL`].
    fn put_tail(&mut self, file: i64, write: &FileWrite) -> Result<(), Self::Error>;
    /// [`PUT_SESSION`]: the session's key.
    fn put_session(
        &mut self,
        machine_id: &str,
        session: &SessionWrite,
        meta: &Meta,
        now_ms: i64,
    ) -> Result<i64, Self::Error>;
    /// [`GROW_SESSION`]: the session's key, `None` when it has no row.
    fn grow_session(
        &mut self,
        machine_id: &str,
        path: &str,
        grown: &Grown,
        now_ms: i64,
    ) -> Result<Option<i64>, Self::Error>;
    /// [`FILE_ID`].
    fn file_id(&mut self, machine_id: &str, path: &str) -> Result<Option<i64>, Self::Error>;
    /// [`LINK`].
    fn link(&mut self, session: i64, file: i64, position: i64) -> Result<(), Self::Error>;
    /// The session's searchable text, in place of what it had.
    fn replace_docs(&mut self, session: i64, docs: &[Doc]) -> Result<(), Self::Error>;
    /// More searchable text of the session, after what it has.
    fn append_docs(&mut self, session: i64, docs: &[Doc]) -> Result<(), Self::Error>;
}

/// Stores `files`, then `sessions`, of the machine `machine_id` with
/// `writer`. A file whose row is no longer what it was read from is left
/// out ([`Stored::raced`]); a file two sessions share is written once.
pub(crate) fn store<W: Writer>(
    writer: &mut W,
    machine_id: &str,
    files: &[FileWrite],
    sessions: &[SessionWrite],
    now_ms: i64,
) -> Result<Stored, W::Error> {
    let mut stored = Stored::default();
    let mut ids: HashMap<&str, i64> = HashMap::new();
    for write in files {
        let id = match &write.base {
            None => writer.insert_file(machine_id, write)?,
            Some(base) => writer.update_file(write, base)?.then_some(base.id),
        };
        let Some(id) = id else {
            stored.raced += 1;
            continue;
        };
        ids.insert(write.path.as_str(), id);
        if !write.chunk.is_empty() {
            writer.insert_chunk(id, write)?;
        }
        let new_version = write.base.as_ref().is_none_or(|b| b.version != write.version);
        if !write.chunk.is_empty() || new_version {
            stored.files += 1;
            stored.bytes += write.chunk.len() as u64;
        }
        writer.put_tail(id, write)?;
    }
    for session in sessions {
        let key = match &session.change {
            SessionChange::Whole { meta, .. } => writer.put_session(machine_id, session, meta, now_ms)?,
            // What appended lines add goes with the lines: when another
            // archiver stored them first (or they were left out), it did.
            SessionChange::Grown(_) if !ids.contains_key(session.path.as_str()) => continue,
            SessionChange::Grown(grown) => {
                let Some(key) = writer.grow_session(machine_id, &session.path, grown, now_ms)? else { continue };
                key
            }
        };
        for (position, member) in session.members.iter().enumerate() {
            let file = match ids.get(member.as_str()) {
                Some(&id) => Some(id),
                None => writer.file_id(machine_id, member)?,
            };
            if let Some(file) = file {
                writer.link(key, file, i64::try_from(position).unwrap_or(i64::MAX))?;
            }
        }
        match &session.change {
            SessionChange::Whole { docs, .. } => writer.replace_docs(key, docs)?,
            SessionChange::Grown(grown) => writer.append_docs(key, &grown.docs)?,
        }
    }
    Ok(stored)
}

/// `sql` with SQLite's `?N` for PostgreSQL's `$N`.
pub(crate) fn sqlite_form(sql: &str) -> String {
    sql.replace('$', "?")
}
