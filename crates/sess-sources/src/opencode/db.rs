//! OpenCode's database (1.2 and later): `opencode.db`, whose `session`,
//! `message` and `part` tables hold every session. It is opened read-only
//! and never written, and reading it creates no file (`sqlite.rs` says how).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, Row};

use super::records::{RawMessage, RawMessages, RawPart, SessionRecord, object, string};
use crate::error::Result;
use crate::sqlite;
pub(crate) use crate::sqlite::{database, is_database};
#[cfg(test)]
use crate::{error::Error, sqlite::BUSY_TIMEOUT};

/// An open database.
pub(crate) struct Db {
    conn: Connection,
    path: PathBuf,
}

impl Db {
    /// Opens the database at `path` read-only ([`sqlite::open_read_only`]).
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Ok(Self { conn: sqlite::open_read_only(path)?, path: path.to_owned() })
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
            .query_map([id], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?, sqlite::text(row, 2)?)))
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
            .query_map([id], |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, sqlite::text(row, 2)?)))
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
