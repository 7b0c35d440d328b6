//! OpenCode's database (1.2 and later): `opencode.db`, whose `session`,
//! `message` and `part` tables hold every session.
//!
//! It is opened read-only and never written, and reading it creates no file.
//! OpenCode keeps it in WAL mode: a running OpenCode holds its newest writes
//! in `opencode.db-wal` (indexed by `opencode.db-shm`), which a reader must
//! see. So:
//!
//! - a WAL database with its `-wal` and `-shm` beside it is opened read-only
//!   the usual way: SQLite reads the log through the existing index;
//! - a WAL database without them has no OpenCode writing it (the last
//!   connection to close removes them), and a read-only connection would
//!   create both: it is opened `immutable`, which reads the file alone and
//!   creates nothing. (A log left without its index by a crash is read only
//!   once OpenCode has opened the database again.)
//! - a database in rollback mode (a copy, like the fixtures) is opened
//!   read-only the usual way, which creates nothing.
//!
//! A writer that holds a lock (a checkpoint, a database in rollback mode
//! being written) makes the reader wait up to [`BUSY_TIMEOUT`], then the read
//! fails with [`Error::Database`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Row};

use super::records::{RawMessage, RawMessages, RawPart, SessionRecord, object, string};
use crate::error::{Error, Result};

/// How long a read waits for a writer's lock before it gives up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// An open database.
pub(crate) struct Db {
    conn: Connection,
    path: PathBuf,
}

impl Db {
    /// Opens the database at `path` read-only (see the module docs).
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
        if !metadata.is_file() {
            let kind = sess_core::FileKind::of(metadata.file_type());
            return Err(Error::NotASessionFile { path: path.to_owned(), kind });
        }
        let immutable = is_wal(path)? && !(beside(path, "-wal").exists() && beside(path, "-shm").exists());
        let uri = uri(path, immutable);
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&uri, flags).map_err(|err| database(path, &err))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|err| database(path, &err))?;
        Ok(Self { conn, path: path.to_owned() })
    }

    /// The connection, read-only.
    pub(super) fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The database file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Every session's record, in id order.
    pub(crate) fn sessions(&self) -> Result<Vec<SessionRecord>> {
        self.query_sessions("select * from session order by id", [])
    }

    /// The record of session `id`, when there is one.
    pub(crate) fn session(&self, id: &str) -> Result<Option<SessionRecord>> {
        Ok(self.query_sessions("select * from session where id = ?1", [id])?.pop())
    }

    fn query_sessions<P: rusqlite::Params>(&self, sql: &str, params: P) -> Result<Vec<SessionRecord>> {
        let fail = |err: rusqlite::Error| database(&self.path, &err);
        let mut statement = self.conn.prepare(sql).map_err(fail)?;
        let rows = statement.query_map(params, session_record).map_err(fail)?;
        rows.collect::<rusqlite::Result<_>>().map_err(fail)
    }

    /// The messages of session `id` with their parts, in OpenCode's order; a
    /// row whose `data` is not a JSON object is skipped and reported.
    pub(crate) fn messages(&self, id: &str) -> Result<RawMessages> {
        let fail = |err: rusqlite::Error| database(&self.path, &err);
        let mut raw = RawMessages::default();
        let mut number = 0;
        let mut statement = self
            .conn
            .prepare("select id, time_created, data from message where session_id = ?1 order by time_created, id")
            .map_err(fail)?;
        let rows = statement
            .query_map([id], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?, text(row, 2)?)))
            .map_err(fail)?;
        for row in rows {
            let (message_id, created, data) = row.map_err(fail)?;
            number += 1;
            match object(&data) {
                Ok(data) => raw.messages.push(RawMessage { id: message_id, created, data, parts: Vec::new() }),
                Err(err) => raw.skip(number, &format!("message {message_id}"), err),
            }
        }
        let at: HashMap<String, usize> = raw.messages.iter().enumerate().map(|(i, m)| (m.id.clone(), i)).collect();
        let mut statement = self
            .conn
            .prepare("select id, message_id, data from part where session_id = ?1 order by message_id, id")
            .map_err(fail)?;
        let rows = statement
            .query_map([id], |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, text(row, 2)?)))
            .map_err(fail)?;
        for row in rows {
            let (part_id, message_id, data) = row.map_err(fail)?;
            number += 1;
            // A part of a message that was skipped or is gone shows nowhere.
            let Some(&index) = at.get(&message_id) else { continue };
            match object(&data) {
                Ok(data) => raw.messages[index].parts.push(RawPart { id: part_id, data }),
                Err(err) => raw.skip(number, &format!("part {part_id}"), err),
            }
        }
        raw.sort();
        Ok(raw)
    }
}

/// Whether the file at `path` is a SQLite database (by its first bytes).
pub(crate) fn is_database(path: &Path) -> Result<bool> {
    Ok(header(path)?.is_some_and(|header| header.starts_with(b"SQLite format 3\0")))
}

/// The first 20 bytes of the file at `path`; `None` when it is shorter.
fn header(path: &Path) -> Result<Option<[u8; 20]>> {
    use std::io::Read;
    let mut header = [0u8; 20];
    let mut file = std::fs::File::open(path).map_err(|err| Error::io(path, err))?;
    match file.read_exact(&mut header) {
        Ok(()) => Ok(Some(header)),
        Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
        Err(err) => Err(Error::io(path, err)),
    }
}

/// Whether the database at `path` is in WAL mode: its header's read and
/// write versions (bytes 18 and 19) are 2. A file too short for a header is
/// not (SQLite then says what it is).
fn is_wal(path: &Path) -> Result<bool> {
    Ok(header(path)?.is_some_and(|header| header[18] == 2 && header[19] == 2))
}

/// The file named like `path` with `suffix` added (`opencode.db-wal`).
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The `file:` URI that opens `path` read-only (`immutable`: without
/// locking or a write-ahead log).
fn uri(path: &Path, immutable: bool) -> String {
    let mut uri = String::from("file:");
    for &byte in path.as_os_str().as_encoded_bytes() {
        // SQLite decodes `%HH`, and a `?` or `#` would end the path.
        if byte.is_ascii() && !byte.is_ascii_control() && !matches!(byte, b'?' | b'#' | b'%') {
            uri.push(char::from(byte));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            uri.extend(['%', char::from(HEX[usize::from(byte >> 4)]), char::from(HEX[usize::from(byte & 15)])]);
        }
    }
    uri.push_str(if immutable { "?mode=ro&immutable=1" } else { "?mode=ro" });
    uri
}

pub(super) fn database(path: &Path, err: &rusqlite::Error) -> Error {
    Error::Database { path: path.to_owned(), message: err.to_string() }
}

/// A text column that may hold bytes that are not UTF-8 (replaced).
fn text(row: &Row<'_>, index: usize) -> rusqlite::Result<String> {
    match row.get_ref(index)? {
        rusqlite::types::ValueRef::Text(bytes) | rusqlite::types::ValueRef::Blob(bytes) => {
            Ok(String::from_utf8_lossy(bytes).into_owned())
        }
        rusqlite::types::ValueRef::Null => Ok(String::new()),
        other => Ok(format!("{other:?}")),
    }
}

/// A `session` row as a record; columns a version of OpenCode lacks are
/// `None`.
fn session_record(row: &Row<'_>) -> rusqlite::Result<SessionRecord> {
    let revert: Option<String> = optional(row, "revert");
    Ok(SessionRecord {
        id: row.get("id")?,
        parent_id: optional(row, "parent_id"),
        title: optional(row, "title"),
        directory: optional(row, "directory"),
        created: optional(row, "time_created"),
        updated: optional(row, "time_updated"),
        archived: optional(row, "time_archived"),
        revert_message: revert.and_then(|text| object(&text).ok()).and_then(|value| string(&value, "messageID")),
    })
}

/// Column `name` of `row`, `None` when it is missing, null or of another type.
fn optional<T: rusqlite::types::FromSql>(row: &Row<'_>, name: &str) -> Option<T> {
    row.as_ref().column_index(name).ok().and_then(|index| row.get(index).ok())
}

#[cfg(test)]
#[path = "db_tests.rs"]
mod tests;
