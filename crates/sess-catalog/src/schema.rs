//! The catalog's tables, versioned by SQLite's `user_version`.
//!
//! - `sessions`: one row per session file, with what a listing shows and what
//!   the next refresh needs to tell an unchanged file (`file_size`,
//!   `file_mtime_ns`) from a grown one (`indexed_bytes`, `head_hash`); and one
//!   per session of a store (`store` is its URL, `path` is `URL#id`, `version`
//!   tells a changed session); and, for a source listed from the catalog,
//!   what `sess list` shows of the session (`listed` = 1, the `list_*`
//!   columns, `first_message`, `parent_session`, `shown_messages`;
//!   `active_ms` is its last message's time, `NULL` when it records none: see
//!   `sess_sources::Listed`); `list_stale` = 1 when the file grew since
//!   they were read (they are read again, whole, when a listing asks).
//! - `docs`: the searchable text, one row per message (`body`) and one per
//!   session with a title of its own (`title`), with the entry it came from;
//!   a body is stored once, compressed when that makes it smaller (see
//!   [`crate::text`]), and read through the view `docs_text`.
//! - `docs_fts`: the FTS5 index over the bodies and titles of the
//!   conversation's documents (every role but `tool`), its content read from
//!   `docs_text`, kept in step by the code that writes `docs` (not by
//!   triggers: a trigger's statement savepoint makes FTS5 flush its pending
//!   terms at every insert, which took half the time of a first build); its
//!   rank is BM25 with titles weighing double. No prefix indexes: they made
//!   the index three and a half times larger, and a prefix query reads the
//!   terms it covers instead.
//! - `tool_fts`: the same over the `tool` documents (what tools answered),
//!   searched after `docs_fts` so that they rank below the conversation. It
//!   keeps which documents hold a word, not where (`detail = none`: a fifth
//!   of the size): a phrase matches tool output that holds all its words.
//!
//! - `usage`: the model calls each session recorded (`sess usage`), one row
//!   per call: when, the model, the tokens of each kind, the cost its agent
//!   recorded, and the hash of the call's `key` where the agent gives one (a later line
//!   of a response replaces its row), and `not_counts`, the token counts it recorded
//!   that are not counts (`sess_sources::Call::not_counts`, joined by `; `), for a
//!   report to say; `part` 0 for the session's main file,
//!   else the `usage_parts` row of the companion file (a subagent's
//!   transcript) it came from.
//! - `usage_parts`: those companion files, with the size and modification
//!   time they had when read, so that an unchanged one is not read again.
//!
//! The catalog is a cache: a database of an older version is emptied and
//! built again (version 2 added `tool_fts`, whose documents the sessions
//! cataloged by version 1 lack; version 3 added `usage`; version 4 stores
//! bodies compressed, indexes them without prefix indexes, and keeps what
//! `sess list` shows and which failures are files that could not be read;
//! version 5 keeps `active_ms`, the last message's time, for every agent's
//! sessions, which version 4 kept for pi-family only, and the token counts
//! that are not counts, `usage.not_counts`; version 6 re-reads every session
//! for what the pi family writes today: pi 1.6's `usage` entries and the title
//! oh-my-pi keeps in its title line; version 7 adds `doc_vectors` and
//! `meta`, the vectors of search by meaning, which the older versions' writes
//! would have left stale; version 8 adds `session_bits`).
//! - `doc_vectors`: for each document of the conversation and of tools, the
//!   int8 vectors of its pieces, one after another (`sess_embed`), made with
//!   the model `meta`'s `model` names; an empty blob for a document with no
//!   vector (blank). Filled by `Catalog::embed`, after a refresh.
//! - `session_bits`: for each session with vectors, the bits
//!   (`sess_embed::binarize`, around `meta`'s `center`, the vectors' mean
//!   when `center_at` pieces had been embedded; `embedded` counts the pieces
//!   made with the model) of every piece of its documents, and the
//!   document of each piece (an i64, little-endian, per piece): one row a
//!   session, so that the first pass of a search reads an eighth of the
//!   bytes in a row per session. Written anew from `doc_vectors` when a
//!   session's documents are embedded; deleted with its documents.
//! - `failures`: files that could not be read (`unreadable` = 1) or are not
//!   sessions, so that they are reported and not read again until they
//!   change.

use rusqlite::Connection;

/// The schema version this build writes.
pub(crate) const VERSION: i64 = 8;

const SCHEMA: &str = "
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
    version TEXT,
    listed INTEGER NOT NULL DEFAULT 0,
    list_id TEXT,
    list_title TEXT,
    list_cwd TEXT,
    list_created TEXT,
    active_ms INTEGER,
    list_count INTEGER,
    first_message TEXT,
    parent_session TEXT,
    shown_messages INTEGER,
    list_stale INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_store ON sessions (store);
-- A listing reads one agent's sessions at a time.
CREATE INDEX sessions_source ON sessions (source, store);
CREATE INDEX sessions_cwd ON sessions (cwd);
CREATE INDEX sessions_modified ON sessions (modified_ms DESC);
CREATE TABLE docs (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions (id),
    entry_id TEXT,
    role TEXT NOT NULL,
    -- TEXT, or zstd-compressed text as a BLOB (see text.rs).
    body NOT NULL,
    title TEXT NOT NULL
);
-- The documents' text, as the full-text indexes read it.
CREATE VIEW docs_text (id, body, title) AS SELECT id, doc_text(body), title FROM docs;
-- With the role, the filters of a search read only this index.
CREATE INDEX docs_session ON docs (session, role);
CREATE VIRTUAL TABLE docs_fts USING fts5 (
    body, title, content = 'docs_text', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
-- A word in a title counts double.
INSERT INTO docs_fts (docs_fts, rank) VALUES ('rank', 'bm25(1.0, 2.0)');
CREATE VIRTUAL TABLE tool_fts USING fts5 (
    body, content = 'docs_text', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2',
    detail = none
);
CREATE TABLE usage (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions (id),
    part INTEGER NOT NULL,
    -- sess_usage::key_hash of the call's key.
    key INTEGER,
    at_ms INTEGER NOT NULL,
    model TEXT,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cache_creation INTEGER NOT NULL,
    cache_read INTEGER NOT NULL,
    reasoning INTEGER NOT NULL,
    cost REAL,
    not_counts TEXT
);
-- A response's later line replaces its row (keys are NULL where the agent gives none, and those never clash).
CREATE UNIQUE INDEX usage_call ON usage (session, part, key);
CREATE TABLE usage_parts (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions (id),
    path TEXT NOT NULL UNIQUE,
    file_size INTEGER NOT NULL,
    file_mtime_ns INTEGER NOT NULL
);
CREATE INDEX usage_parts_session ON usage_parts (session);
CREATE TABLE doc_vectors (
    doc INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions (id),
    vectors BLOB NOT NULL
);
CREATE INDEX doc_vectors_session ON doc_vectors (session);
CREATE TABLE session_bits (
    session INTEGER PRIMARY KEY REFERENCES sessions (id),
    docs BLOB NOT NULL,
    bits BLOB NOT NULL
);
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE failures (
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    file_size INTEGER NOT NULL,
    file_mtime_ns INTEGER NOT NULL,
    reason TEXT NOT NULL,
    unreadable INTEGER NOT NULL DEFAULT 0
);
";

/// What an older version left, dropped before [`SCHEMA`] is made again.
const DROP: &str = "
DROP TABLE IF EXISTS usage;
DROP TABLE IF EXISTS usage_parts;
DROP TABLE IF EXISTS docs_fts;
DROP TABLE IF EXISTS tool_fts;
DROP VIEW IF EXISTS docs_text;
DROP TABLE IF EXISTS docs;
DROP TABLE IF EXISTS sessions;
DROP TABLE IF EXISTS failures;
DROP TABLE IF EXISTS doc_vectors;
DROP TABLE IF EXISTS session_bits;
DROP TABLE IF EXISTS meta;
";

/// Brings the database to [`VERSION`] (an older catalog is emptied, to be
/// built again by the next refresh); returns the version it found when it is
/// newer than this build knows.
pub(crate) fn migrate(conn: &mut Connection) -> rusqlite::Result<Result<(), i64>> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if found > VERSION {
        return Ok(Err(found));
    }
    if found < VERSION {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Another process may have made the tables while this one waited.
        let now: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if now > VERSION {
            return Ok(Err(now));
        }
        if now < VERSION {
            tx.execute_batch(DROP)?;
            tx.execute_batch(SCHEMA)?;
            tx.pragma_update(None, "user_version", VERSION)?;
        }
        tx.commit()?;
    }
    Ok(Ok(()))
}
