//! The schema and its migrations: a `schema_version` table holding one number,
//! and an ordered list of steps, step `n` taking the schema from version `n`
//! to `n + 1`. Each step runs in its own transaction that also records the new
//! version, under a transaction-scoped advisory lock keyed by the schema name,
//! so several processes creating or migrating one schema at once apply each
//! step once and never trip over each other's `CREATE SCHEMA`. A failed step
//! leaves the version before it. Released steps are never edited; a change to
//! the schema is a new step.

use postgres::Client;

use crate::config::quote_ident;
use crate::error::{Context, Error, Result};

/// The schema version this code writes: the number of migration steps.
#[allow(clippy::cast_possible_truncation)] // A handful of steps.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Step `n` migrates version `n` to `n + 1`.
const MIGRATIONS: &[&str] = &[V1];

/// The advisory lock class of migrations (the key is the schema name's hash).
const LOCK_CLASS: i32 = 0x5e55;

/// Seed 001's tables, plus what listing needs kept up to date on write.
const V1: &str = r"
-- A session: the header line and, for oh-my-pi, its title line, both as
-- written; the next insertion order to hand out; and the running totals of
-- sess_store's `SummaryTally`, updated by the statement that appends, so
-- listing reads no entry. Writers of one session serialize on this row.
CREATE TABLE sessions (
    id            text PRIMARY KEY,
    header        text NOT NULL,                -- the header's exact JSON
    title_line    text,                         -- oh-my-pi's title line
    updated_ms    bigint NOT NULL,              -- the last write (a file's mtime)
    next_ord      bigint NOT NULL DEFAULT 0,    -- the `ord` of the next entry
    name          text,                         -- the latest session_info name
    message_count bigint NOT NULL DEFAULT 0,
    first_message text,
    last_activity double precision NOT NULL DEFAULT 0
);

-- A linear run of entries. `id` is the id of its first entry; a fork or a
-- compaction names the segment and seq it branches from. A parent is always
-- created before its children, so `parent_segment_key < key`, which also
-- rules out cycles for the recursive lineage queries.
CREATE TABLE segments (
    key                bigserial PRIMARY KEY,
    session_id         text NOT NULL REFERENCES sessions (id),
    id                 text NOT NULL,
    parent_segment_key bigint REFERENCES segments (key),
    fork_at            bigint,
    origin             text NOT NULL CHECK (origin IN ('new', 'fork', 'compact')),
    UNIQUE (session_id, id),
    CHECK ((parent_segment_key IS NULL) = (fork_at IS NULL)),
    CHECK (parent_segment_key < key)
);
-- Child segments of a segment (descendants, leaves).
CREATE INDEX segments_by_parent ON segments (parent_segment_key, fork_at);

-- An entry: its exact JSON text (not jsonb, which reorders keys) at
-- (segment, seq), and its place `ord` in the session's insertion order, which
-- is the order of a pi-family file. `session_id` repeats the segment's, for
-- the per-session indexes. The primary key decides which of two racing
-- appenders got a seq.
CREATE TABLE entries (
    segment_key bigint NOT NULL REFERENCES segments (key),
    seq         bigint NOT NULL,
    session_id  text NOT NULL,
    ord         bigint NOT NULL,
    entry_id    text NOT NULL,
    parent_id   text,
    type        text,
    json        text COMPRESSION lz4 NOT NULL,
    PRIMARY KEY (segment_key, seq),
    UNIQUE (session_id, ord)
);
-- Entry ids are unique within a session.
CREATE UNIQUE INDEX entries_by_id ON entries (session_id, entry_id);

-- The text each user or assistant message adds to the listing's
-- `all_messages_text`, kept apart so appending never rewrites a growing value.
CREATE TABLE message_texts (
    session_id text NOT NULL,
    ord        bigint NOT NULL,
    text       text NOT NULL,
    PRIMARY KEY (session_id, ord)
);

-- Content-addressed bytes: `hash` is the lowercase hex SHA-256 of `bytes`.
-- Images arrive compressed already, so the server does not try again.
CREATE TABLE blobs (
    hash  text PRIMARY KEY,
    bytes bytea NOT NULL
);
ALTER TABLE blobs ALTER COLUMN bytes SET STORAGE EXTERNAL;

-- Named writers' pointers (seed 001's pod state), swapped by version.
CREATE TABLE cursors (
    name       text PRIMARY KEY,
    session_id text NOT NULL,
    segment_id text NOT NULL,
    last_seq   bigint NOT NULL,
    children   text[] NOT NULL,
    version    bigint NOT NULL
);
";

const CREATE_VERSION_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)";

/// Brings `schema` (created if missing) to [`SCHEMA_VERSION`]. A schema
/// already there is only read; one with a newer version is
/// [`Error::VersionTooNew`] and untouched. `client`'s `search_path` must
/// start with `schema`.
pub(crate) fn migrate(client: &mut Client, schema: &str) -> Result<()> {
    match read_version(client, schema)? {
        Some(found) if found == i64::from(SCHEMA_VERSION) => return Ok(()),
        Some(found) if found > i64::from(SCHEMA_VERSION) => {
            return Err(Error::VersionTooNew { schema: schema.to_owned(), found, supported: SCHEMA_VERSION });
        }
        Some(_) | None => {}
    }
    let quoted = quote_ident(schema);
    loop {
        let mut tx = client.transaction().context("migrating the schema")?;
        tx.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", &[&LOCK_CLASS, &schema])
            .context("waiting for other migrations")?;
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {quoted}")).context("creating the schema")?;
        tx.batch_execute(CREATE_VERSION_TABLE).context("creating the schema_version table")?;
        let found = current_version(&mut tx, schema)?;
        let next = u32::try_from(found).ok().and_then(|v| MIGRATIONS.get(v as usize).map(|step| (v + 1, step)));
        let Some((version, step)) = next else {
            if found < 0 {
                return Err(Error::CorruptRow { table: "schema_version", reason: format!("version {found}") });
            }
            if found > i64::from(SCHEMA_VERSION) {
                return Err(Error::VersionTooNew { schema: schema.to_owned(), found, supported: SCHEMA_VERSION });
            }
            return Ok(());
        };
        let failed = |source| Error::Migration { schema: schema.to_owned(), version, source };
        tx.batch_execute(step).map_err(failed)?;
        let stored = i32::try_from(version).unwrap_or(i32::MAX);
        tx.execute(
            "INSERT INTO schema_version (id, version) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET version = excluded.version",
            &[&stored],
        )
        .map_err(failed)?;
        tx.commit().map_err(failed)?;
    }
}

/// The version recorded in `schema`; `None` before the first migration (no
/// schema, or no `schema_version` table in it).
pub(crate) fn read_version(client: &mut impl postgres::GenericClient, schema: &str) -> Result<Option<i64>> {
    let table = format!("{}.schema_version", quote_ident(schema));
    let exists: bool = client
        .query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])
        .and_then(|row| row.try_get(0))
        .context("reading the schema version")?;
    if !exists {
        return Ok(None);
    }
    current_version(client, schema).map(Some)
}

fn current_version(client: &mut impl postgres::GenericClient, schema: &str) -> Result<i64> {
    let sql = format!("SELECT version FROM {}.schema_version WHERE id = 1", quote_ident(schema));
    let row = client.query_opt(sql.as_str(), &[]).context("reading the schema version")?;
    let version: Option<i32> = row.map(|r| r.try_get(0)).transpose().context("reading the schema version")?;
    Ok(version.map_or(0, i64::from))
}
