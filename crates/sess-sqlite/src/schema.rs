//! The schema and its migrations: a `schema_version` table holding one number,
//! and an ordered list of steps, step `n` taking the database from version `n`
//! to `n + 1`. Each step runs in its own `BEGIN IMMEDIATE` transaction that
//! also records the new version, so a failed step leaves the version before it
//! and two processes opening a fresh file at once apply each step once.
//! Released steps are never edited; a change to the schema is a new step.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::{Context, Error, Result};

/// The schema version this code writes: the number of migration steps.
#[allow(clippy::cast_possible_truncation)] // A handful of steps.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Step `n` migrates version `n` to `n + 1`.
const MIGRATIONS: &[&str] = &[V1];

/// Seed 001's tables, plus what listing needs kept up to date on write.
const V1: &str = r"
-- A session: the header line and, for oh-my-pi, its title line, both as
-- written; and the running totals of sess_store's `SummaryTally`, updated in
-- the transaction that appends, so listing reads no entry.
CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    header        TEXT NOT NULL,              -- the header's exact JSON
    title_line    TEXT,                       -- oh-my-pi's title line
    updated_ms    INTEGER NOT NULL,           -- the last write (a file's mtime)
    name          TEXT,                       -- the latest session_info name
    message_count INTEGER NOT NULL DEFAULT 0,
    first_message TEXT,
    last_activity REAL NOT NULL DEFAULT 0
);

-- A linear run of entries. `id` is the id of its first entry; a fork or a
-- compaction names the segment and seq it branches from.
CREATE TABLE segments (
    key                INTEGER PRIMARY KEY,
    session_id         TEXT NOT NULL REFERENCES sessions(id),
    id                 TEXT NOT NULL,
    parent_segment_key INTEGER REFERENCES segments(key),
    fork_at            INTEGER,
    origin             TEXT NOT NULL CHECK (origin IN ('new', 'fork', 'compact')),
    UNIQUE (session_id, id),
    CHECK ((parent_segment_key IS NULL) = (fork_at IS NULL))
);
-- Child segments of a segment at a seq (leaves, descendants).
CREATE INDEX segments_by_parent ON segments (parent_segment_key, fork_at);

-- An entry: its exact JSON text at (segment, seq), and its place `ord` in the
-- session's insertion order, which is the order of a pi-family file.
CREATE TABLE entries (
    segment_key INTEGER NOT NULL REFERENCES segments(key),
    seq         INTEGER NOT NULL,
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    ord         INTEGER NOT NULL,
    entry_id    TEXT NOT NULL,
    parent_id   TEXT,
    type        TEXT,
    json        TEXT NOT NULL,
    PRIMARY KEY (segment_key, seq),
    UNIQUE (session_id, ord)
);
-- Entry ids are unique within a session.
CREATE UNIQUE INDEX entries_by_id ON entries (session_id, entry_id);

-- The text each user or assistant message adds to the listing's
-- `all_messages_text`, kept apart so appending never rewrites a growing value.
CREATE TABLE message_texts (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    ord        INTEGER NOT NULL,
    text       TEXT NOT NULL,
    PRIMARY KEY (session_id, ord)
) WITHOUT ROWID;

-- Content-addressed bytes: `hash` is the lowercase hex SHA-256 of `bytes`.
CREATE TABLE blobs (
    hash  TEXT PRIMARY KEY,
    bytes BLOB NOT NULL
);

-- Named writers' pointers (seed 001's pod state), swapped by version.
CREATE TABLE cursors (
    name       TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    segment_id TEXT NOT NULL,
    last_seq   INTEGER NOT NULL,
    children   TEXT NOT NULL,                 -- a JSON array of session ids
    version    INTEGER NOT NULL
);
";

const CREATE_VERSION_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)";

/// Brings the database to [`SCHEMA_VERSION`]. A database already there is only
/// read; one with a newer version is [`Error::VersionTooNew`] and untouched.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    match read_version(conn)? {
        Some(found) if found == i64::from(SCHEMA_VERSION) => return Ok(()),
        Some(found) if found > i64::from(SCHEMA_VERSION) => {
            return Err(Error::VersionTooNew { found, supported: SCHEMA_VERSION });
        }
        Some(_) | None => {}
    }
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).context("migrating the schema")?;
        tx.execute_batch(CREATE_VERSION_TABLE).context("creating the schema_version table")?;
        let found = current_version(&tx)?;
        let next = u32::try_from(found).ok().and_then(|v| MIGRATIONS.get(v as usize).map(|step| (v + 1, step)));
        let Some((version, step)) = next else {
            if found < 0 {
                return Err(Error::CorruptRow { table: "schema_version", reason: format!("version {found}") });
            }
            if found > i64::from(SCHEMA_VERSION) {
                return Err(Error::VersionTooNew { found, supported: SCHEMA_VERSION });
            }
            return Ok(());
        };
        tx.execute_batch(step).map_err(|source| Error::Migration { version, source })?;
        tx.execute("INSERT OR REPLACE INTO schema_version (id, version) VALUES (1, ?1)", [version])
            .map_err(|source| Error::Migration { version, source })?;
        tx.commit().map_err(|source| Error::Migration { version, source })?;
    }
}

/// The schema version recorded in the database; `None` before the first migration.
pub(crate) fn read_version(conn: &Connection) -> Result<Option<i64>> {
    let exists: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version')",
            [],
            |r| r.get(0),
        )
        .context("reading the schema version")?;
    if !exists {
        return Ok(None);
    }
    current_version(conn).map(Some)
}

fn current_version(conn: &Connection) -> Result<i64> {
    let version = conn
        .query_row("SELECT version FROM schema_version WHERE id = 1", [], |r| r.get(0))
        .optional()
        .context("reading the schema version")?;
    Ok(version.unwrap_or(0))
}
