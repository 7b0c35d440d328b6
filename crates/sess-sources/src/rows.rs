//! A session kept as rows of an agent's database, exactly as stored: what the
//! archive keeps of it, and how a copy of those rows is read again.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// One value of a row, with SQLite's type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cell {
    /// `NULL`.
    Null,
    /// An integer.
    Integer(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
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
    /// columns and values as they were, so that
    /// [`Source::load_row`](crate::Source::load_row) reads the session from it.
    pub fn write_database(&self, path: &Path) -> Result<()> {
        Err(crate::Error::Database { path: path.to_owned(), message: "not implemented".to_owned() })
    }
}
