//! The catalog's tables, versioned by SQLite's `user_version`.
//!
//! - `sessions`: one row per session file, with what a listing shows and what
//!   the next refresh needs to tell an unchanged file (`file_size`,
//!   `file_mtime_ns`) from a grown one (`indexed_bytes`, `head_hash`); and one
//!   per session of a store (`store` is its URL, `path` is `URL#id`, `version`
//!   tells a changed session).
//! - `docs`: the searchable text, one row per message (`body`) and one per
//!   session with a title of its own (`title`), with the entry it came from.
//! - `docs_fts`: the FTS5 index over `docs.body` and `docs.title`, kept in step
//!   by the code that writes `docs` (not by triggers: a trigger's statement
//!   savepoint makes FTS5 flush its pending terms at every insert, which took
//!   half the time of a first build); its rank is BM25 with titles weighing
//!   double.
//! - `failures`: files that could not be read, so that they are reported and
//!   not read again until they change.

use rusqlite::Connection;

/// The schema version this build writes.
pub(crate) const VERSION: i64 = 1;

const V1: &str = "
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    path TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    title TEXT,
    title_explicit INTEGER NOT NULL,
    cwd TEXT,
    created TEXT,
    modified_ms INTEGER NOT NULL,
    message_count INTEGER NOT NULL,
    file_size INTEGER NOT NULL,
    file_mtime_ns INTEGER NOT NULL,
    indexed_bytes INTEGER NOT NULL,
    indexed_lines INTEGER NOT NULL DEFAULT 0,
    head_hash INTEGER NOT NULL,
    store TEXT,
    version TEXT
);
CREATE INDEX sessions_store ON sessions (store);
CREATE INDEX sessions_cwd ON sessions (cwd);
CREATE INDEX sessions_modified ON sessions (modified_ms DESC);
CREATE TABLE docs (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions (id),
    entry_id TEXT,
    role TEXT NOT NULL,
    body TEXT NOT NULL,
    title TEXT NOT NULL
);
CREATE INDEX docs_session ON docs (session);
CREATE VIRTUAL TABLE docs_fts USING fts5 (
    body, title, content = 'docs', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3 4'
);
-- A word in a title counts double.
INSERT INTO docs_fts (docs_fts, rank) VALUES ('rank', 'bm25(1.0, 2.0)');
CREATE TABLE failures (
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    file_size INTEGER NOT NULL,
    file_mtime_ns INTEGER NOT NULL,
    reason TEXT NOT NULL
);
";

/// Brings the database to [`VERSION`]; returns the version it found when it is
/// newer than this build knows.
pub(crate) fn migrate(conn: &mut Connection) -> rusqlite::Result<Result<(), i64>> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if found > VERSION {
        return Ok(Err(found));
    }
    if found < 1 {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Another process may have created the tables while this one waited.
        let now: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if now < 1 {
            tx.execute_batch(V1)?;
            tx.pragma_update(None, "user_version", VERSION)?;
        }
        tx.commit()?;
    }
    Ok(Ok(()))
}
