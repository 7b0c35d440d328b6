//! [`PostgresBackend`]: the [`Backend`] over a pool of connections.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use postgres::Row;
use postgres::error::SqlState;
use sess_core::segment::Origin;
use sess_core::{Entry, SessionHeader};
use sess_store::discovery::SummaryTally;
use sess_store::{
    Appended, Backend, Blobs, Clock, Cursor, NewSegment, SegmentInfo, SessionSummary, StoredSession, SystemClock,
    check_cursor_name, parse_blob_ref,
};

use crate::config;
use crate::error::{Context, Error, Result};
use crate::pool::{Pool, Pooled};
use crate::schema;

mod import;
mod lineage;
mod write;

type StoreResult<T> = sess_store::Result<T>;
type StoreError = sess_store::Error;

/// PostgreSQL's `synchronous_commit` for the backend's connections: whether a
/// commit waits for its WAL record to reach the disk before a call returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SynchronousCommit {
    /// `on`: a call returns once its commit is flushed, so an acknowledged
    /// write survives a server crash. The default.
    #[default]
    On,
    /// `off`: a call returns before the flush. The database never becomes
    /// inconsistent, but a server crash can lose the commits of the last
    /// moments (up to three `wal_writer_delay`s, 600 ms by default).
    Off,
}

impl SynchronousCommit {
    fn setting(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::Off => "off",
        }
    }
}

/// Options for connecting a [`PostgresBackend`]; [`PostgresBackend::builder`]
/// makes one.
#[derive(Clone, Debug)]
pub struct Builder {
    pool_size: usize,
    pool_wait: Duration,
    synchronous_commit: SynchronousCommit,
    statement_timeout: Duration,
    clock: Arc<dyn Clock>,
}

/// How long one statement may run (or wait for a lock) before the server
/// cancels it, unless [`Builder::statement_timeout`] or the URL's `options`
/// say otherwise.
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

impl Default for Builder {
    fn default() -> Self {
        Self {
            pool_size: 4,
            pool_wait: Duration::from_secs(30),
            synchronous_commit: SynchronousCommit::default(),
            statement_timeout: DEFAULT_STATEMENT_TIMEOUT,
            clock: Arc::new(SystemClock),
        }
    }
}

impl Builder {
    /// The most connections the backend opens (at least 1); 4 by default.
    /// They open as calls need them, and each call uses one.
    #[must_use]
    pub fn pool_size(mut self, size: usize) -> Self {
        self.pool_size = size.max(1);
        self
    }

    /// How long a call waits for a free connection when all are busy before it
    /// fails with [`Error::PoolTimeout`]; 30 s by default.
    #[must_use]
    pub fn pool_wait(mut self, wait: Duration) -> Self {
        self.pool_wait = wait;
        self
    }

    /// Whether commits wait for the disk; [`SynchronousCommit::On`] by default.
    #[must_use]
    pub fn synchronous_commit(mut self, synchronous_commit: SynchronousCommit) -> Self {
        self.synchronous_commit = synchronous_commit;
        self
    }

    /// How long one statement may run, or wait for a lock, before the server
    /// cancels it and the call fails: [`DEFAULT_STATEMENT_TIMEOUT`] (30 s) by
    /// default, in whole milliseconds (at least one), `Duration::ZERO` for no
    /// limit. A
    /// `statement_timeout` in the URL's `options` (`-cstatement_timeout=…`)
    /// takes precedence. A bulk
    /// [`import_session`](sess_store::Backend::import_session), whose time
    /// grows with the session, runs without it.
    #[must_use]
    pub fn statement_timeout(mut self, timeout: Duration) -> Self {
        self.statement_timeout = timeout;
        self
    }

    /// Where the time of a session's last write comes from; the system clock
    /// by default. It is the listing's last-resort `modified_ms`, as a file's
    /// modification time is for the JSONL backend.
    #[must_use]
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Connects to `url` (libpq's `postgres://user@host:port/database?…`;
    /// `options=-csearch_path=NAME` chooses the schema, `public` otherwise),
    /// creates the schema and its tables if needed and migrates an older
    /// schema. Fails with [`Error::VersionTooNew`] on a schema written by a
    /// newer `sess`. Connections are plain TCP or Unix sockets (no TLS).
    ///
    /// Opening a connection takes at most the URL's `connect_timeout` per host
    /// ([`DEFAULT_CONNECT_TIMEOUT`](crate::DEFAULT_CONNECT_TIMEOUT), 10 s,
    /// when absent or `0`), startup and authentication included: after it,
    /// [`Error::ConnectTimeout`] names the server.
    pub fn connect(self, url: &str) -> Result<PostgresBackend> {
        let target = config::parse(url)?;
        let mut setup = format!("SET synchronous_commit TO {}", self.synchronous_commit.setting());
        if !target.sets_statement_timeout {
            // Whole milliseconds; a limit under one is one, not none.
            let timeout = self.statement_timeout;
            let ms = if timeout.is_zero() { 0 } else { timeout.as_millis().max(1) };
            setup = format!("{setup}; SET statement_timeout TO {ms}");
        }
        let location = format!("{}/{}", target.server, target.schema);
        let pool = Pool::new(target, setup, self.pool_size, self.pool_wait);
        {
            let mut conn = pool.get()?;
            schema::migrate(&mut conn.client, &pool.target().schema)?;
        }
        Ok(PostgresBackend { pool, clock: self.clock, location })
    }
}

/// Sessions in one PostgreSQL schema (seed 001's tables: `sessions`,
/// `segments`, `entries`, plus `blobs` and `cursors`), shared by any number of
/// writers in any number of processes and machines.
///
/// Every [`Backend`] call is atomic: one statement, or one transaction. An
/// append is a single statement that checks the segment's length and tail,
/// takes the next insertion orders from the session's row and inserts the
/// entries; the `(segment_key, seq)` primary key decides which of two racing
/// appenders got the seqs, and the other is answered
/// [`Appended::TailMoved`] with nothing written. Entries keep their exact JSON
/// text and their insertion order, so a pi-family file copied in and back out
/// is identical. Calls borrow a connection from a small pool, so threads
/// sharing one backend run concurrently.
///
/// [`SessionSummary::path`] is empty for sessions listed from a database: a
/// session is not a file here.
pub struct PostgresBackend {
    pool: Pool,
    clock: Arc<dyn Clock>,
    /// `user@host:port/database/schema`, for messages.
    location: String,
}

impl std::fmt::Debug for PostgresBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresBackend").field("location", &self.location).finish_non_exhaustive()
    }
}

impl PostgresBackend {
    /// Options for connecting.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Connects to `url` with the default options; see [`Builder::connect`].
    pub fn connect(url: &str) -> Result<Self> {
        Builder::default().connect(url)
    }

    /// The schema that holds the tables.
    pub fn schema(&self) -> &str {
        &self.pool.target().schema
    }

    /// `user@host:port/database/schema`: where the sessions are, without the
    /// password.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The schema version in the database (after connecting,
    /// [`SCHEMA_VERSION`](crate::SCHEMA_VERSION)).
    pub fn schema_version(&self) -> Result<i64> {
        let mut conn = self.pool.get()?;
        Ok(schema::read_version(&mut conn.client, self.schema())?.unwrap_or(0))
    }

    /// A connection from the pool.
    fn conn(&self) -> StoreResult<Pooled<'_>> {
        Ok(self.pool.get()?)
    }

    /// Runs the prepared `sql` with `params` on a pooled connection.
    fn query(
        &self,
        operation: &'static str,
        sql: &'static str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> StoreResult<Vec<Row>> {
        let mut conn = self.conn()?;
        let conn = &mut *conn;
        let statement = conn.statements.get(&mut conn.client, sql).context(operation)?;
        Ok(conn.client.query(&statement, params).context(operation)?)
    }
}

impl Blobs for PostgresBackend {
    fn put(&self, bytes: &[u8]) -> StoreResult<String> {
        let hash = sess_store::blob_hash(bytes);
        // A corrupt copy (damaged in the database) is replaced, as the file store does.
        self.query(
            "storing a blob",
            "INSERT INTO blobs (hash, bytes) VALUES ($1, $2) \
             ON CONFLICT (hash) DO UPDATE SET bytes = excluded.bytes WHERE blobs.bytes <> excluded.bytes",
            &[&hash, &bytes],
        )?;
        Ok(sess_store::blob_ref(&hash))
    }

    fn get(&self, reference: &str) -> StoreResult<Option<Vec<u8>>> {
        const OPERATION: &str = "reading a blob";
        let hash =
            parse_blob_ref(reference).ok_or_else(|| StoreError::InvalidBlobRef { reference: reference.to_owned() })?;
        let rows = self.query(OPERATION, "SELECT bytes FROM blobs WHERE hash = $1", &[&hash])?;
        let Some(row) = rows.first() else { return Ok(None) };
        let bytes: Vec<u8> = row.try_get(0).context(OPERATION)?;
        if sess_store::blob_hash(&bytes) != hash {
            return Err(Error::CorruptBlob { location: self.location.clone(), hash: hash.to_owned() }.into());
        }
        Ok(Some(bytes))
    }

    fn location(&self) -> String {
        format!("`{}`", self.location)
    }
}

impl Backend for PostgresBackend {
    fn dyn_backend(&self) -> &dyn Backend {
        self
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn create_session(&self, header: &SessionHeader, title_line: Option<&str>) -> StoreResult<()> {
        let now = self.clock.now_ms();
        let rows = self.query(
            "creating a session",
            "INSERT INTO sessions (id, header, title_line, updated_ms) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (id) DO NOTHING RETURNING 1",
            &[&header.id(), &header.json(), &title_line, &now],
        )?;
        if rows.is_empty() {
            return Err(StoreError::Conflict { what: format!("session {} exists", header.id()) });
        }
        Ok(())
    }

    fn session(&self, id: &str) -> StoreResult<StoredSession> {
        const OPERATION: &str = "reading a session";
        let rows = self.query(OPERATION, "SELECT header, title_line FROM sessions WHERE id = $1", &[&id])?;
        let row = rows.first().ok_or_else(|| StoreError::SessionNotFound { query: id.to_owned() })?;
        let header: String = row.try_get(0).context(OPERATION)?;
        let title_line: Option<String> = row.try_get(1).context(OPERATION)?;
        let header = SessionHeader::parse(&header).ok_or_else(|| corrupt_header(id))?;
        Ok(StoredSession { header, title_line })
    }

    fn list_sessions(&self) -> StoreResult<Vec<SessionSummary>> {
        const OPERATION: &str = "listing sessions";
        let rows = self.query(
            OPERATION,
            "SELECT s.id, s.header, s.name, s.message_count, s.first_message, s.last_activity, s.updated_ms, \
                    (SELECT string_agg(m.text, ' ' ORDER BY m.ord) FROM message_texts m WHERE m.session_id = s.id) \
             FROM sessions s",
            &[],
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let id: String = row.try_get(0).context(OPERATION)?;
            let header: String = row.try_get(1).context(OPERATION)?;
            let tally = SummaryTally {
                name: row.try_get(2).context(OPERATION)?,
                message_count: from_int(row.try_get(3).context(OPERATION)?, "sessions")?,
                first_message: row.try_get(4).context(OPERATION)?,
                last_activity: row.try_get(5).context(OPERATION)?,
            };
            let updated_ms: i64 = row.try_get(6).context(OPERATION)?;
            let all: Option<String> = row.try_get(7).context(OPERATION)?;
            let summary = tally
                .summarize(&header, all.unwrap_or_default(), PathBuf::new(), || Some(updated_ms))
                .ok_or_else(|| corrupt_header(&id))?;
            out.push(summary);
        }
        out.sort_by(|a, b| b.modified_ms.cmp(&a.modified_ms).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    fn segments(&self, session: &str) -> StoreResult<Vec<SegmentInfo>> {
        const OPERATION: &str = "reading segments";
        let rows = self.query(
            OPERATION,
            "SELECT g.id, g.origin, p.id, g.fork_at, \
                    (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1) \
             FROM sessions s \
             LEFT JOIN segments g ON g.session_id = s.id \
             LEFT JOIN segments p ON p.key = g.parent_segment_key \
             WHERE s.id = $1 ORDER BY g.key",
            &[&session],
        )?;
        if rows.is_empty() {
            return Err(StoreError::SessionNotFound { query: session.to_owned() });
        }
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            // A session without segments is one row of nulls.
            if let Some(info) = segment_info(row, 0, OPERATION)? {
                out.push(info);
            }
        }
        Ok(out)
    }

    fn read_segment(&self, session: &str, segment: &str, range: Range<u64>) -> StoreResult<Vec<Entry>> {
        const OPERATION: &str = "reading a segment";
        let start = i64::try_from(range.start).unwrap_or(i64::MAX);
        let end = i64::try_from(range.end).unwrap_or(i64::MAX);
        let rows = self.query(
            OPERATION,
            "SELECT g.key IS NOT NULL, e.json FROM sessions s \
             LEFT JOIN segments g ON g.session_id = s.id AND g.id = $2 \
             LEFT JOIN entries e ON e.segment_key = g.key AND e.seq >= $3 AND e.seq < $4 \
             WHERE s.id = $1 ORDER BY e.seq",
            &[&session, &segment, &start, &end],
        )?;
        let first = rows.first().ok_or_else(|| StoreError::SessionNotFound { query: session.to_owned() })?;
        if !first.try_get::<_, bool>(0).context(OPERATION)? {
            return Err(StoreError::SegmentNotFound { segment: segment.to_owned() });
        }
        collect_entries(&rows, 1, OPERATION)
    }

    fn read_session(&self, session: &str) -> StoreResult<Vec<Entry>> {
        const OPERATION: &str = "reading a session's entries";
        let rows = self.query(
            OPERATION,
            "SELECT e.json FROM sessions s LEFT JOIN entries e ON e.session_id = s.id \
             WHERE s.id = $1 ORDER BY e.ord",
            &[&session],
        )?;
        if rows.is_empty() {
            return Err(StoreError::SessionNotFound { query: session.to_owned() });
        }
        collect_entries(&rows, 0, OPERATION)
    }

    fn create_segment(&self, session: &str, start: &NewSegment, entries: &[Entry]) -> StoreResult<SegmentInfo> {
        let now = self.clock.now_ms();
        write::create_segment(&mut *self.conn()?, now, session, start, entries)
    }

    fn append(&self, session: &str, segment: &str, expected_len: u64, entries: &[Entry]) -> StoreResult<Appended> {
        let now = self.clock.now_ms();
        write::append(&mut *self.conn()?, now, session, segment, expected_len, entries)
    }

    fn ancestors(&self, session: &str, segment: &str) -> StoreResult<Vec<SegmentInfo>> {
        lineage::ancestors(&mut *self.conn()?, session, segment)
    }

    fn descendants(&self, session: &str, segment: &str) -> StoreResult<Vec<SegmentInfo>> {
        lineage::descendants(&mut *self.conn()?, session, segment)
    }

    fn import_session(
        &self,
        header: &SessionHeader,
        title_line: Option<&str>,
        entries: &[Entry],
        progress: &mut dyn FnMut(u64),
    ) -> StoreResult<()> {
        let now = self.clock.now_ms();
        import::import_session(&mut *self.conn()?, now, header, title_line, entries, progress)
    }

    fn cursor(&self, name: &str) -> StoreResult<Option<Cursor>> {
        const OPERATION: &str = "reading a cursor";
        check_cursor_name(name)?;
        let rows = self.query(
            OPERATION,
            "SELECT session_id, segment_id, last_seq, children, version FROM cursors WHERE name = $1",
            &[&name],
        )?;
        let Some(row) = rows.first() else { return Ok(None) };
        Ok(Some(Cursor {
            session: row.try_get(0).context(OPERATION)?,
            segment: row.try_get(1).context(OPERATION)?,
            last_seq: from_int(row.try_get(2).context(OPERATION)?, "cursors")?,
            children: row.try_get(3).context(OPERATION)?,
            version: from_int(row.try_get(4).context(OPERATION)?, "cursors")?,
        }))
    }

    fn swap_cursor(&self, name: &str, expected: Option<u64>, new: &Cursor) -> StoreResult<Option<Cursor>> {
        const OPERATION: &str = "swapping a cursor";
        check_cursor_name(name)?;
        let last_seq = i64::try_from(new.last_seq).map_err(|_| StoreError::InvalidEntry {
            reason: format!("cursor `{name}`: seq {} is too large", new.last_seq),
        })?;
        let rows = match expected {
            None => self.query(
                OPERATION,
                "INSERT INTO cursors (name, session_id, segment_id, last_seq, children, version) \
                 VALUES ($1, $2, $3, $4, $5, 1) ON CONFLICT (name) DO NOTHING RETURNING version",
                &[&name, &new.session, &new.segment, &last_seq, &new.children],
            )?,
            Some(version) => {
                // A version past what is stored cannot match.
                let Ok(version) = i64::try_from(version) else { return Ok(None) };
                self.query(
                    OPERATION,
                    "UPDATE cursors SET session_id = $2, segment_id = $3, last_seq = $4, children = $5, \
                            version = version + 1 \
                     WHERE name = $1 AND version = $6 RETURNING version",
                    &[&name, &new.session, &new.segment, &last_seq, &new.children, &version],
                )?
            }
        };
        let Some(row) = rows.first() else { return Ok(None) };
        let version = from_int(row.try_get(0).context(OPERATION)?, "cursors")?;
        Ok(Some(Cursor { version, ..new.clone() }))
    }
}

/// The [`SegmentInfo`] in the columns of `row` from `at` on: id, origin,
/// parent id, `fork_at` and last seq; `None` when the id is null (an outer join
/// that found no segment).
fn segment_info(row: &Row, at: usize, operation: &'static str) -> StoreResult<Option<SegmentInfo>> {
    let Some(id) = row.try_get::<_, Option<String>>(at).context(operation)? else { return Ok(None) };
    let origin: String = row.try_get(at + 1).context(operation)?;
    let parent: Option<String> = row.try_get(at + 2).context(operation)?;
    let fork_at: Option<i64> = row.try_get(at + 3).context(operation)?;
    let last_seq: Option<i64> = row.try_get(at + 4).context(operation)?;
    let parent = match parent.zip(fork_at) {
        Some((parent, at)) => Some((parent, from_int(at, "segments")?)),
        None => None,
    };
    let len = from_int::<u64>(last_seq.unwrap_or(-1) + 1, "entries")?;
    Ok(Some(SegmentInfo { id, origin: parse_origin(&origin)?, parent, len }))
}

fn parse_origin(text: &str) -> Result<Origin> {
    Origin::from_name(text)
        .ok_or_else(|| Error::CorruptRow { table: "segments", reason: format!("unknown origin `{text}`") })
}

/// The entries whose JSON is in column `at` of `rows`, skipping nulls (an
/// outer join that found none).
fn collect_entries(rows: &[Row], at: usize, operation: &'static str) -> StoreResult<Vec<Entry>> {
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(json) = row.try_get::<_, Option<&str>>(at).context(operation)? else { continue };
        let entry = Entry::parse(json)
            .map_err(|e| Error::CorruptRow { table: "entries", reason: format!("stored entry does not parse: {e}") })?;
        out.push(entry);
    }
    Ok(out)
}

fn corrupt_header(session: &str) -> Error {
    Error::CorruptRow { table: "sessions", reason: format!("the header of session {session} is not a session header") }
}

/// A stored count or seq; negative or oversized is a corrupt row.
fn from_int<T: TryFrom<i64>>(n: i64, table: &'static str) -> Result<T> {
    T::try_from(n).map_err(|_| Error::CorruptRow { table, reason: format!("{n} is out of range") })
}

/// A count or seq as a `bigint`, saturating (no stored value reaches it).
fn to_int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Whether `error` is a unique violation, and of which constraint.
fn unique_violation(error: &postgres::Error) -> Option<&str> {
    let db = error.as_db_error()?;
    (db.code() == &SqlState::UNIQUE_VIOLATION).then(|| db.constraint().unwrap_or_default())
}
