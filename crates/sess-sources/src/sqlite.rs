//! Agents' SQLite databases, opened read-only: never written, never
//! checkpointed, never locked against the agent, and reading one creates no
//! file.
//!
//! Agents keep their databases in WAL mode: a running agent holds its
//! newest writes in `<db>-wal` (indexed by `<db>-shm`), which a reader must
//! see. So:
//!
//! - a WAL database with its `-wal` and `-shm` beside it is opened read-only
//!   the usual way: SQLite reads the log through the existing index;
//! - a WAL database without them has no agent writing it (the last
//!   connection to close removes them), and a read-only connection would
//!   create both: it is opened `immutable`, which reads the file alone and
//!   creates nothing. (A log left without its index by a crash is read only
//!   once the agent has opened the database again.)
//! - a database in rollback mode (a copy, like the fixtures) is opened
//!   read-only the usual way, which creates nothing.
//!
//! A writer that holds a lock (a checkpoint, a database in rollback mode
//! being written) makes the reader wait up to [`BUSY_TIMEOUT`], then the read
//! fails with [`Error::Database`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Row};

use crate::error::{Error, Result};

/// The first bytes of every SQLite database.
pub(crate) const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// How long a read waits for a writer's lock before it gives up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// Opens the database at `path` read-only (see the module docs).
pub(crate) fn open_read_only(path: &Path) -> Result<Connection> {
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
    Ok(conn)
}

/// An agent's database, open read-only ([`open_read_only`]), with its path
/// for the errors it reports.
pub(crate) struct Database {
    conn: Connection,
    path: PathBuf,
}

impl Database {
    /// Opens the database at `path` read-only.
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Ok(Self { conn: open_read_only(path)?, path: path.to_owned() })
    }

    /// The connection, read-only.
    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// `err` as this database's [`Error::Database`].
    pub(crate) fn fail(&self, err: &rusqlite::Error) -> Error {
        database(&self.path, err)
    }

    /// The rows `sql` selects with `params`, each as `map` makes it.
    pub(crate) fn query<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut statement = self.conn.prepare(sql).map_err(|e| self.fail(&e))?;
        let rows = statement.query_map(params, map).map_err(|e| self.fail(&e))?;
        rows.collect::<rusqlite::Result<_>>().map_err(|e| self.fail(&e))
    }
}

/// Whether the file at `path` is a SQLite database (by its first bytes).
pub(crate) fn is_database(path: &Path) -> Result<bool> {
    Ok(header(path)?.is_some_and(|header| header.starts_with(SQLITE_MAGIC)))
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

pub(crate) fn database(path: &Path, err: &rusqlite::Error) -> Error {
    Error::Database { path: path.to_owned(), message: err.to_string() }
}

/// A text column that may hold bytes that are not UTF-8 (replaced).
pub(crate) fn text(row: &Row<'_>, index: usize) -> rusqlite::Result<String> {
    match row.get_ref(index)? {
        rusqlite::types::ValueRef::Text(bytes) | rusqlite::types::ValueRef::Blob(bytes) => {
            Ok(String::from_utf8_lossy(bytes).into_owned())
        }
        rusqlite::types::ValueRef::Null => Ok(String::new()),
        other => Ok(format!("{other:?}")),
    }
}

/// Column `name` of `row`, `None` when the table has no such column (an
/// older version of the agent), or it is null or of another type.
pub(crate) fn optional<T: rusqlite::types::FromSql>(row: &Row<'_>, name: &str) -> Option<T> {
    row.as_ref().column_index(name).ok().and_then(|index| row.get(index).ok())
}

/// A time column of `row` in ms since the Unix epoch: an integer of Unix
/// seconds (ms when it is too large for seconds: past the year 5138), a real
/// of seconds, or text in ISO 8601 or SQLite's `YYYY-MM-DD HH:MM:SS` (UTC
/// unless it says otherwise). `None` when missing or unreadable.
pub(crate) fn time_ms(row: &Row<'_>, name: &str) -> Option<i64> {
    let index = row.as_ref().column_index(name).ok()?;
    match row.get_ref(index).ok()? {
        rusqlite::types::ValueRef::Integer(n) => Some(if n.abs() >= 100_000_000_000 { n } else { n * 1000 }),
        #[allow(clippy::cast_possible_truncation)] // A time in range; out of range saturates.
        rusqlite::types::ValueRef::Real(f) => Some((f * 1000.0) as i64),
        rusqlite::types::ValueRef::Text(bytes) => iso_ms(std::str::from_utf8(bytes).ok()?),
        _ => None,
    }
}

/// [`sess_core::parse_iso_millis`] of `text`, which may separate date and time
/// with a space, as SQLite's `CURRENT_TIMESTAMP` does.
pub(crate) fn iso_ms(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.len() > 10 && text.as_bytes()[10] == b' ' {
        let mut fixed = text.to_owned();
        fixed.replace_range(10..11, "T");
        let fixed = fixed.replace(' ', "");
        return sess_core::parse_iso_millis(&fixed);
    }
    sess_core::parse_iso_millis(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_sqlite_would_read_as_query_or_escape() {
        assert_eq!(uri(Path::new("/a b/x?y#z%.db"), false), "file:/a b/x%3Fy%23z%25.db?mode=ro");
        assert_eq!(uri(Path::new("/d/é.db"), true), "file:/d/%C3%A9.db?mode=ro&immutable=1");
    }

    #[test]
    fn times_are_seconds_milliseconds_or_text() {
        let conn = Connection::open_in_memory().unwrap();
        let row = |sql: &str| conn.query_row(&format!("select {sql} as t"), [], |row| Ok(time_ms(row, "t"))).unwrap();
        assert_eq!(row("1700000000"), Some(1_700_000_000_000));
        assert_eq!(row("1700000000123"), Some(1_700_000_000_123));
        assert_eq!(row("'2025-10-01 12:00:00'"), Some(1_759_320_000_000));
        assert_eq!(row("'2025-10-01T12:00:00.5+02:00'"), Some(1_759_312_800_500));
        assert_eq!(row("'2025-10-01 12:00:00.5 +00:00'"), Some(1_759_320_000_500));
        assert_eq!(row("'soon'"), None);
        assert_eq!(row("null"), None);
    }
}
