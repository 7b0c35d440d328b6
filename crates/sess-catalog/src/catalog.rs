//! Opening a catalog, and reading its sessions.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;
use sess_sources::SourceKind;

use crate::error::{Error, Result};
use crate::schema;
use crate::stop::Slot;

/// The page size of a new catalog.
const PAGE_SIZE: i64 = 16 * 1024;

/// How long a write waits for another process's refresh.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// A catalog database.
#[derive(Debug)]
pub struct Catalog {
    pub(crate) conn: Connection,
    path: PathBuf,
    /// When the search running on `conn` stops.
    pub(crate) stop: Slot,
}

/// One session in the catalog.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    /// The catalog's id of the session: stable while the file stays.
    pub key: i64,
    /// The agent that wrote it.
    pub source: SourceKind,
    /// The session's own id.
    pub id: String,
    /// The session file; for a session of a store, `URL#id`.
    pub path: PathBuf,
    /// The store URL, for a session of a store (`--store`).
    pub store: Option<String>,
    /// Whether the session is rows of the database file [`path`](Self::path)
    /// (an agent that keeps sessions in a database), found by its id there.
    pub database_row: bool,
    /// Its title, or its first prompt.
    pub title: Option<String>,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// When it started (ISO 8601), when known.
    pub created: Option<String>,
    /// The file's modification time, in ms since the Unix epoch.
    pub modified_ms: i64,
    /// How many messages it has.
    pub message_count: usize,
}

/// Which sessions [`Catalog::sessions`] lists.
#[derive(Clone, Debug)]
pub struct ListParams {
    /// Only this agent's.
    pub source: Option<SourceKind>,
    /// Only those whose agent worked in this directory.
    pub cwd: Option<String>,
    /// Only those whose title, directory or id contain this text (any case).
    pub text: Option<String>,
    /// At most this many.
    pub limit: usize,
    /// After skipping this many of them (newest first): the next page.
    pub offset: usize,
}

impl Default for ListParams {
    fn default() -> Self {
        Self { source: None, cwd: None, text: None, limit: 200, offset: 0 }
    }
}

/// A directory agents worked in.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRow {
    /// The directory.
    pub cwd: String,
    /// How many sessions worked in it.
    pub sessions: usize,
    /// The newest session's modification time, in ms since the Unix epoch.
    pub last_modified_ms: i64,
    /// The agents that worked in it.
    pub sources: Vec<SourceKind>,
}

/// The filters of a [`ListParams`] over `sessions s`: its source (`?1`),
/// directory (`?2`) and text (`?3`).
const LISTED: &str = "(?1 IS NULL OR s.source = ?1) AND (?2 IS NULL OR s.cwd = ?2)
    AND (?3 IS NULL OR instr(lower(coalesce(s.title, '') || ' ' || coalesce(s.cwd, '') || ' ' || s.session_id), lower(?3)) > 0)";

pub(crate) const SESSION_COLUMNS: &str =
    "s.id, s.source, s.session_id, s.path, s.title, s.cwd, s.created, s.modified_ms, s.message_count, s.store";

impl Catalog {
    /// Opens the catalog at `path`, creating it (and its folder) when missing.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir { path: dir.to_owned(), source })?;
        }
        let open_error = |source| Error::Open { path: path.clone(), source };
        let mut conn = Connection::open(&path).map_err(open_error)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_error)?;
        // A new catalog's pages are 16 KiB: its rows are compressed texts of a
        // few KiB, which leave a tenth of 4 KiB pages empty and a fortieth of
        // these. (An existing file keeps the size it has.)
        conn.pragma_update(None, "page_size", PAGE_SIZE).map_err(open_error)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(open_error)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(open_error)?;
        crate::text::register(&conn).map_err(open_error)?;
        let stop = Slot::default();
        stop.install(&mut conn).map_err(open_error)?;
        match schema::migrate(&mut conn).map_err(open_error)? {
            Ok(()) => Ok(Self { conn, path, stop }),
            Err(found) => Err(Error::VersionTooNew { path, found, supported: schema::VERSION }),
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many sessions the catalog holds.
    pub fn len(&self) -> Result<usize> {
        Ok(self.conn.query_row("SELECT count(*) FROM sessions", [], |row| count(row, 0))?)
    }

    /// Whether the catalog holds no session.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// The session with this catalog key.
    pub fn session(&self, key: i64) -> Result<Option<SessionRow>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1");
        Ok(self.conn.query_row(&sql, [key], session_row).optional()?)
    }

    /// The sessions of the agents' files at these paths (for a database, its
    /// sessions of rows), in no order.
    pub fn sessions_at(&self, paths: &[PathBuf]) -> Result<Vec<SessionRow>> {
        // A session of rows is keyed `DATABASE#id`, among the keys between
        // `DATABASE#` and `DATABASE$`. Both halves search the path index
        // (`+s.store` keeps the planner off the store's index, which every
        // file's session shares).
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s
             WHERE s.path IN (SELECT value FROM json_each(?1)) AND +s.store IS NULL
             UNION ALL
             SELECT {SESSION_COLUMNS} FROM json_each(?1) j JOIN sessions s
             ON s.path > j.value || '#' AND s.path < j.value || '$' AND s.path = j.value || '#' || s.session_id
             WHERE +s.store IS NULL"
        );
        let keys: Vec<String> = paths.iter().map(|p| crate::refresh::path_key(p)).collect();
        let keys = serde_json::to_string(&keys).unwrap_or_default();
        let mut statement = self.conn.prepare_cached(&sql)?;
        let rows = statement.query_map([keys], session_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Sessions, newest first (then by path): `params.limit` of them from
    /// `params.offset` on.
    pub fn sessions(&self, params: &ListParams) -> Result<Vec<SessionRow>> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s WHERE {LISTED}
             ORDER BY s.modified_ms DESC, s.path LIMIT ?4 OFFSET ?5"
        );
        let mut statement = self.conn.prepare_cached(&sql)?;
        let rows = statement.query_map(
            params![
                params.source.map(SourceKind::as_str),
                params.cwd,
                params.text.as_deref().filter(|t| !t.is_empty()),
                stored_count(params.limit),
                stored_count(params.offset)
            ],
            session_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many sessions the filters of `params` select in all, whatever its
    /// `limit` and `offset`: what [`sessions`](Self::sessions) pages through.
    pub fn session_count(&self, params: &ListParams) -> Result<usize> {
        let sql = format!("SELECT count(*) FROM sessions s WHERE {LISTED}");
        let mut statement = self.conn.prepare_cached(&sql)?;
        let total = statement.query_row(
            params![
                params.source.map(SourceKind::as_str),
                params.cwd,
                params.text.as_deref().filter(|t| !t.is_empty())
            ],
            |row| count(row, 0),
        )?;
        Ok(total)
    }

    /// The directories the sessions of the agents' files name (not those of
    /// stores), sorted, each once: where agents that keep their sessions
    /// inside the projects are looked for ([`sess_sources::Env::with_session_cwds`]).
    pub fn session_cwds(&self) -> Result<Vec<String>> {
        cwds(&self.conn)
    }

    /// [`session_cwds`](Self::session_cwds) of the catalog at `path`, opened
    /// read-only (nothing is made, migrated or refreshed).
    pub fn session_cwds_at(path: &Path) -> Result<Vec<String>> {
        let open_error = |source| Error::Open { path: path.to_owned(), source };
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(open_error)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_error)?;
        cwds(&conn)
    }

    /// The directories sessions worked in, most recently active first.
    pub fn projects(&self) -> Result<Vec<ProjectRow>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT cwd, count(*), max(modified_ms), group_concat(DISTINCT source) FROM sessions
             WHERE cwd IS NOT NULL GROUP BY cwd ORDER BY max(modified_ms) DESC, cwd",
        )?;
        let rows = statement.query_map([], |row| {
            let sources: String = row.get(3)?;
            let mut sources: Vec<SourceKind> = sources.split(',').filter_map(SourceKind::from_name).collect();
            sources.sort();
            Ok(ProjectRow { cwd: row.get(0)?, sessions: count(row, 1)?, last_modified_ms: row.get(2)?, sources })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

fn cwds(conn: &Connection) -> Result<Vec<String>> {
    let mut statement = conn.prepare_cached(
        "SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL AND cwd != '' AND store IS NULL ORDER BY cwd",
    )?;
    let rows = statement.query_map([], |row| row.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A count stored as an integer.
pub(crate) fn count(row: &Row<'_>, index: usize) -> rusqlite::Result<usize> {
    Ok(usize::try_from(row.get::<_, i64>(index)?).unwrap_or(0))
}

/// A count as SQLite stores it.
pub(crate) fn stored_count(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// A [`SessionRow`] from the columns of [`SESSION_COLUMNS`], from `offset`.
pub(crate) fn session_row(row: &Row<'_>) -> rusqlite::Result<SessionRow> {
    let source: String = row.get(1)?;
    let path: String = row.get(3)?;
    let id: String = row.get(2)?;
    let store: Option<String> = row.get(9)?;
    // A session of rows is keyed `DATABASE#id`.
    let database = path.strip_suffix(id.as_str()).and_then(|p| p.strip_suffix('#')).filter(|_| store.is_none());
    Ok(SessionRow {
        key: row.get(0)?,
        source: SourceKind::from_name(&source).unwrap_or_else(SourceKind::native),
        database_row: database.is_some(),
        path: PathBuf::from(database.unwrap_or(&path)),
        id,
        title: row.get(4)?,
        cwd: row.get(5)?,
        created: row.get(6)?,
        modified_ms: row.get(7)?,
        message_count: count(row, 8)?,
        store,
    })
}
