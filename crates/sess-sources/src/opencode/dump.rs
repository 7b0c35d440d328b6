//! A session of the database as rows, exactly as stored: what the archive
//! keeps of it ([`Source::rows`](crate::Source::rows)).
//!
//! The rows are those of the session and of every session it ran (the
//! subagents of its `task` calls, whose turns its transcript shows: the
//! sessions whose `parent_id` it is, and those a tool part's
//! `state.metadata.sessionId` names, and theirs in turn):
//!
//! - `session`: their rows, by `id`;
//! - `part`: the rows of those sessions, and the parts of their messages;
//! - every other table with a `session_id` column (`message`, `todo`,
//!   `session_share`, … as the schema has them), by that column;
//! - `event` and `event_sequence`, OpenCode's log of the changes to each
//!   session, by `aggregate_id` (the session's id).
//!
//! Tables shared by many sessions (`project`, `workspace`, `permission`,
//! accounts) are not a session's and are left out. Every column is kept
//! (`select *`), each value with its type, in the table's rowid order (key
//! order for a table without rowids); a table of the list that holds no row
//! of the session is kept empty, with its columns, so that a copy has every
//! table the reader asks for.

use std::collections::HashSet;

use rusqlite::Connection;

use super::db::{Db, database};
use crate::error::{Error, Result};
use crate::rows::{Cell, RowDump, TableRows, quoted};

/// Tables whose rows are a session's by a column other than `session_id`.
const KEYS: [(&str, &str); 3] = [("session", "id"), ("event_sequence", "aggregate_id"), ("event", "aggregate_id")];

/// The part rows of the sessions' messages, whatever their own `session_id`.
const PARTS_OF_MESSAGES: &str = "message_id in (select id from message where session_id in ({ids}))";

/// The sessions a session's tool parts name as the subagent they ran.
const NAMED_CHILDREN: &str = "select distinct case when json_valid(data)
    then json_extract(data, '$.state.metadata.sessionId') end from part where session_id = ?1";

impl Db {
    /// The rows of session `id` and of the sessions it ran (see the module
    /// docs); [`Error::NotFound`] when the database has no session `id`.
    pub(crate) fn rows(&self, id: &str) -> Result<RowDump> {
        let fail = |err: rusqlite::Error| database(self.path(), &err);
        let conn = self.connection();
        if self.session(id)?.is_none() {
            return Err(Error::NotFound { path: self.path().join(id) });
        }
        let sessions = family(conn, id).map_err(fail)?;
        let ids = (1..=sessions.len()).map(|at| format!("?{at}")).collect::<Vec<_>>().join(", ");
        let mut dump = RowDump::default();
        for name in tables(conn).map_err(fail)? {
            let columns = columns(conn, &name).map_err(fail)?;
            let key = KEYS.iter().find(|(table, _)| *table == name).map(|&(_, key)| key);
            let Some(key) = key.or_else(|| columns.iter().any(|c| c == "session_id").then_some("session_id")) else {
                continue;
            };
            if !columns.iter().any(|c| c == key) {
                continue;
            }
            let mut filter = format!("{} in ({ids})", quoted(key));
            if name == "part" && columns.iter().any(|c| c == "message_id") {
                filter = format!("{filter} or {}", PARTS_OF_MESSAGES.replace("{ids}", &ids));
            }
            let order = if without_rowid(conn, &name).map_err(fail)? { "" } else { " order by rowid" };
            let sql = format!("select * from {} where {filter}{order}", quoted(&name));
            let mut statement = conn.prepare(&sql).map_err(fail)?;
            let width = statement.column_count();
            let mut rows = Vec::new();
            let mut cursor = statement.query(rusqlite::params_from_iter(&sessions)).map_err(fail)?;
            while let Some(row) = cursor.next().map_err(fail)? {
                rows.push(
                    (0..width)
                        .map(|at| row.get_ref(at).map(Cell::of))
                        .collect::<rusqlite::Result<_>>()
                        .map_err(fail)?,
                );
            }
            dump.tables.push(TableRows { name, columns, rows });
        }
        Ok(dump)
    }
}

/// Session `id` and the sessions it ran, and theirs, each once, in the order
/// found.
fn family(conn: &Connection, id: &str) -> rusqlite::Result<Vec<String>> {
    let mut found = vec![id.to_owned()];
    let mut seen: HashSet<String> = found.iter().cloned().collect();
    let mut children = conn.prepare("select id from session where parent_id = ?1 order by rowid")?;
    let mut named = conn.prepare(NAMED_CHILDREN)?;
    let mut at = 0;
    while let Some(session) = found.get(at).cloned() {
        at += 1;
        let mut ran: Vec<String> =
            children.query_map([&session], |row| row.get(0))?.collect::<rusqlite::Result<_>>()?;
        let by_parts = named.query_map([&session], |row| row.get::<_, Option<rusqlite::types::Value>>(0))?;
        for value in by_parts {
            if let Some(rusqlite::types::Value::Text(child)) = value? {
                ran.push(child);
            }
        }
        found.extend(ran.into_iter().filter(|child| seen.insert(child.clone())));
    }
    Ok(found)
}

/// The tables of the database, in the order of its schema.
fn tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement = conn.prepare(
        "select name from sqlite_schema where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by rowid",
    )?;
    statement.query_map([], |row| row.get(0))?.collect()
}

/// The columns of `table`, in its order.
fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let statement = conn.prepare(&format!("select * from {} limit 0", quoted(table)))?;
    Ok(statement.column_names().map(ToOwned::to_owned).collect())
}

/// Whether `table` is a `WITHOUT ROWID` table (its rows have no rowid to be
/// ordered by).
fn without_rowid(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    let mut statement = conn.prepare("select wr from pragma_table_list where schema = 'main' and name = ?1")?;
    let mut rows = statement.query([table])?;
    Ok(match rows.next()? {
        Some(row) => row.get::<_, i64>(0)? != 0,
        None => false,
    })
}

#[cfg(test)]
#[path = "dump_tests.rs"]
mod tests;
