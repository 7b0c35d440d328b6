//! A session kept as rows of an agent's database, exactly as stored: what the
//! archive keeps of it, and how a copy of those rows is read again.
//!
//! A [`RowDump`] survives JSON as it is: a [`Cell::Real`] is written as the
//! text of the shortest decimal that reads back as the same bits (`"0.1"`,
//! `"inf"`; a JSON number would lose bits to a parser that rounds), bytes as
//! base64.

mod cell_serde;
mod family;

pub(crate) use family::{columns, dump_family, has_table};

use std::fs::OpenOptions;
use std::path::Path;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One value of a row, with SQLite's type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cell {
    /// `NULL`.
    Null,
    /// An integer.
    Integer(i64),
    /// A floating-point number (in JSON: its shortest exact decimal, as text).
    Real(#[serde(with = "cell_serde::real")] f64),
    /// Text.
    Text(String),
    /// Bytes (in JSON: base64).
    Blob(#[serde(with = "cell_serde::bytes")] Vec<u8>),
    /// Text whose bytes are not UTF-8 (a writer stored them as text anyway,
    /// a lone UTF-16 surrogate of a JavaScript string, say): its bytes as they
    /// are, written back as text (in JSON: base64).
    #[serde(rename = "text_bytes")]
    TextBytes(#[serde(with = "cell_serde::bytes")] Vec<u8>),
}

impl Cell {
    /// The value SQLite returned, with its type.
    pub(crate) fn of(value: ValueRef<'_>) -> Self {
        match value {
            ValueRef::Null => Self::Null,
            ValueRef::Integer(int) => Self::Integer(int),
            ValueRef::Real(real) => Self::Real(real),
            ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => Self::Text(text.to_owned()),
                Err(_) => Self::TextBytes(bytes.to_vec()),
            },
            ValueRef::Blob(bytes) => Self::Blob(bytes.to_vec()),
        }
    }
}

impl ToSql for Cell {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Self::Null => ValueRef::Null,
            Self::Integer(int) => ValueRef::Integer(*int),
            Self::Real(real) => ValueRef::Real(*real),
            Self::Text(text) => ValueRef::Text(text.as_bytes()),
            Self::Blob(bytes) => ValueRef::Blob(bytes),
            Self::TextBytes(bytes) => ValueRef::Text(bytes),
        }))
    }
}

/// The rows of one table that belong to a session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableRows {
    /// The table's name.
    pub name: String,
    /// Its columns, in the table's order.
    pub columns: Vec<String>,
    /// The rows, each a value per column, in the table's order of rowid.
    pub rows: Vec<Vec<Cell>>,
}

/// Every row of one session, table by table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RowDump {
    /// The tables, in the order the agent's schema lists them.
    pub tables: Vec<TableRows>,
}

impl RowDump {
    /// Writes these rows into a new SQLite database at `path` (a file of
    /// `sess`'s own, never an agent's): one table per [`TableRows`], with its
    /// columns (untyped, so every value keeps the type it has here) and its
    /// rows in order, so that [`Source::load_row`](crate::Source::load_row)
    /// reads the session from it.
    ///
    /// Refuses ([`Error::Exists`]) when `path` exists. A table without
    /// columns, or a row without a value for each column, is
    /// [`Error::Database`], and the file is removed again.
    pub fn write_database(&self, path: &Path) -> Result<()> {
        // Claims the name first, so that a file made meanwhile is never
        // written over.
        match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Error::Exists { path: path.to_owned() });
            }
            Err(err) => return Err(Error::io(path, err)),
        }
        let written = self.fill(path);
        if written.is_err() {
            let _ = std::fs::remove_file(path);
        }
        written
    }

    /// Creates the tables in the empty file at `path` and inserts the rows,
    /// in one transaction.
    fn fill(&self, path: &Path) -> Result<()> {
        let fail = |message: String| Error::Database { path: path.to_owned(), message };
        let sql = |err: rusqlite::Error| fail(err.to_string());
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(sql)?;
        let transaction = conn.transaction().map_err(sql)?;
        for table in &self.tables {
            if table.columns.is_empty() {
                return Err(fail(format!("table `{}` has no columns", table.name)));
            }
            let columns: Vec<String> = table.columns.iter().map(|c| quoted(c)).collect();
            let name = quoted(&table.name);
            transaction.execute_batch(&format!("create table {name} ({})", columns.join(", "))).map_err(sql)?;
            let slots: Vec<String> = (1..=columns.len()).map(|at| format!("?{at}")).collect();
            let insert = format!("insert into {name} ({}) values ({})", columns.join(", "), slots.join(", "));
            let mut statement = transaction.prepare(&insert).map_err(sql)?;
            for (at, row) in table.rows.iter().enumerate() {
                if row.len() != columns.len() {
                    let (found, wanted) = (row.len(), columns.len());
                    return Err(fail(format!("row {at} of `{}` has {found} values for {wanted} columns", table.name)));
                }
                statement.execute(rusqlite::params_from_iter(row)).map_err(sql)?;
            }
        }
        transaction.commit().map_err(sql)
    }
}

/// `name` as an SQL identifier: in double quotes, a quote doubled.
pub(crate) fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
#[path = "rows/rows_tests.rs"]
mod tests;
