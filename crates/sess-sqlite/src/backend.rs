//! [`SqliteBackend`]: the [`Backend`] over one SQLite connection.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};
use sess_core::segment::Origin;
use sess_core::{Entry, SessionHeader};
use sess_store::discovery::SummaryTally;
use sess_store::{
    Appended, Backend, Blobs, Clock, Cursor, NewSegment, ReplayStep, SegmentInfo, SessionSummary, StoredSession,
    SystemClock, check_cursor_name, parse_blob_ref, replay_moved, replay_steps,
};

use crate::error::{Context, Error, Result};
use crate::schema;

mod write;

type StoreResult<T> = sess_store::Result<T>;
type StoreError = sess_store::Error;

/// SQLite's `synchronous` setting in WAL mode: when a commit reaches the disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Synchronous {
    /// `NORMAL`: a commit is in the write-ahead log (the OS has it) when a call
    /// returns, so it survives the process crashing; the log is synced at
    /// checkpoints, so after an OS crash or power loss the last commits may be
    /// rolled back. The database stays consistent either way. The default for
    /// a local store (about 18 µs per commit, `reference/backends.md` §4.3).
    #[default]
    Normal,
    /// `FULL`: every commit syncs the log before the call returns, so it
    /// survives power loss on a device that honours flushes (about 240 µs per
    /// commit there).
    Full,
}

impl Synchronous {
    fn pragma(self) -> &'static str {
        match self {
            Self::Normal => "NORMAL",
            Self::Full => "FULL",
        }
    }
}

/// Options for opening a [`SqliteBackend`]; [`SqliteBackend::builder`] makes one.
#[derive(Clone, Debug)]
pub struct Builder {
    synchronous: Synchronous,
    busy_timeout: Duration,
    clock: Arc<dyn Clock>,
}

impl Default for Builder {
    fn default() -> Self {
        Self { synchronous: Synchronous::default(), busy_timeout: Duration::from_secs(5), clock: Arc::new(SystemClock) }
    }
}

impl Builder {
    /// When commits reach the disk; [`Synchronous::Normal`] by default.
    #[must_use]
    pub fn synchronous(mut self, synchronous: Synchronous) -> Self {
        self.synchronous = synchronous;
        self
    }

    /// How long a write waits for another connection (another process, or
    /// another backend on the same file) to finish its transaction before it
    /// fails; 5 s by default.
    #[must_use]
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
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

    /// Opens the database file at `path`, creating it and its schema if
    /// needed, in WAL mode; migrates an older schema. Fails with
    /// [`Error::VersionTooNew`] on a database written by a newer `sess`.
    pub fn open(self, path: impl AsRef<Path>) -> Result<SqliteBackend> {
        let path = path.as_ref().to_owned();
        let conn = Connection::open(&path).map_err(|source| Error::Open { path: path.clone(), source })?;
        self.finish(conn, path, true)
    }

    /// A private database in memory, gone when the backend is dropped.
    pub fn open_in_memory(self) -> Result<SqliteBackend> {
        let path = PathBuf::from(":memory:");
        let conn = Connection::open_in_memory().map_err(|source| Error::Open { path: path.clone(), source })?;
        self.finish(conn, path, false)
    }

    fn finish(self, mut conn: Connection, path: PathBuf, wal: bool) -> Result<SqliteBackend> {
        let open_error = |source| Error::Open { path: path.clone(), source };
        conn.busy_timeout(self.busy_timeout).map_err(open_error)?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(open_error)?;
        if wal && !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::NotWal { path, mode });
        }
        conn.pragma_update(None, "synchronous", self.synchronous.pragma()).map_err(open_error)?;
        conn.pragma_update(None, "foreign_keys", true).map_err(open_error)?;
        schema::migrate(&mut conn)?;
        Ok(SqliteBackend { conn: Mutex::new(conn), path, clock: self.clock })
    }
}

/// Sessions in one SQLite database (seed 001's tables: `sessions`, `segments`,
/// `entries`, plus `blobs` and `cursors`).
///
/// Every [`Backend`] call is one transaction; writes take the database's write
/// lock at once (`BEGIN IMMEDIATE`), so writers in several threads, backends
/// and processes on the same file serialize, and a stale append is answered
/// [`Appended::TailMoved`] with nothing written. Entries keep their exact JSON
/// text and their insertion order, so a pi-family file copied in and back out
/// is identical. One backend holds one connection; its calls take turns.
///
/// [`SessionSummary::path`] is empty for sessions listed from a database: a
/// session is not a file here.
#[derive(Debug)]
pub struct SqliteBackend {
    conn: Mutex<Connection>,
    path: PathBuf,
    clock: Arc<dyn Clock>,
}

impl SqliteBackend {
    /// Options for opening a database.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Opens (creating if needed) the database file at `path` with the default
    /// options; see [`Builder::open`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Builder::default().open(path)
    }

    /// A private in-memory database with the default options.
    pub fn in_memory() -> Result<Self> {
        Builder::default().open_in_memory()
    }

    /// The database file (`:memory:` for an in-memory database).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the database (after opening, [`SCHEMA_VERSION`](crate::SCHEMA_VERSION)).
    pub fn schema_version(&self) -> Result<i64> {
        Ok(schema::read_version(&self.conn())?.unwrap_or(0))
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic inside a call dropped its transaction, which rolled it back.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `read` in a read transaction: one consistent snapshot.
    fn read<T>(&self, operation: &'static str, read: impl FnOnce(&Connection) -> StoreResult<T>) -> StoreResult<T> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred).context(operation)?;
        read(&tx)
    }

    /// Runs `write` in a write transaction, committed when it succeeds and
    /// rolled back when it fails.
    fn write<T>(
        &self,
        operation: &'static str,
        write: impl FnOnce(&mut Transaction<'_>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.conn();
        let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).context(operation)?;
        let out = write(&mut tx)?;
        tx.commit().context(operation)?;
        Ok(out)
    }
}

impl Blobs for SqliteBackend {
    fn put(&self, bytes: &[u8]) -> StoreResult<String> {
        let hash = sess_store::blob_hash(bytes);
        self.write("storing a blob", |tx| {
            // A corrupt copy (damaged on disk) is replaced, as the file store does.
            tx.prepare_cached(
                "INSERT INTO blobs (hash, bytes) VALUES (?1, ?2) \
                 ON CONFLICT (hash) DO UPDATE SET bytes = excluded.bytes WHERE bytes <> excluded.bytes",
            )
            .and_then(|mut s| s.execute((&hash, bytes)))
            .context("storing a blob")?;
            Ok(())
        })?;
        Ok(sess_store::blob_ref(&hash))
    }

    fn get(&self, reference: &str) -> StoreResult<Option<Vec<u8>>> {
        let hash =
            parse_blob_ref(reference).ok_or_else(|| StoreError::InvalidBlobRef { reference: reference.to_owned() })?;
        let bytes: Option<Vec<u8>> = self.read("reading a blob", |conn| {
            Ok(conn
                .prepare_cached("SELECT bytes FROM blobs WHERE hash = ?1")
                .and_then(|mut s| s.query_row([hash], |r| r.get(0)).optional())
                .context("reading a blob")?)
        })?;
        match bytes {
            Some(bytes) if sess_store::blob_hash(&bytes) != hash => {
                Err(Error::CorruptBlob { database: self.path.clone(), hash: hash.to_owned() }.into())
            }
            found => Ok(found),
        }
    }
}

impl Backend for SqliteBackend {
    fn dyn_backend(&self) -> &dyn Backend {
        self
    }

    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn create_session(&self, header: &SessionHeader, title_line: Option<&str>) -> StoreResult<()> {
        let now = self.clock.now_ms();
        self.write("creating a session", |tx| insert_session(tx, header, title_line, now))
    }

    /// The session and all its entries in one transaction: an import that
    /// fails or is interrupted part way leaves nothing of the session.
    fn import_session(
        &self,
        header: &SessionHeader,
        title_line: Option<&str>,
        entries: &[Entry],
        progress: &mut dyn FnMut(u64),
    ) -> StoreResult<()> {
        let now = self.clock.now_ms();
        let session = header.id();
        self.write("importing a session", |tx| {
            insert_session(tx, header, title_line, now)?;
            for step in replay_steps(entries, 0) {
                let run = &entries[step.entries()];
                match &step {
                    ReplayStep::Create { start, .. } => {
                        write::create_segment(tx, now, session, start, run)?;
                    }
                    ReplayStep::Append { segment, expected_len, .. } => {
                        if let Appended::TailMoved { len } =
                            write::append(tx, now, session, segment, *expected_len, run)?
                        {
                            return Err(replay_moved(session, segment, len));
                        }
                    }
                }
                progress(run.len() as u64);
            }
            Ok(())
        })
    }

    fn session(&self, id: &str) -> StoreResult<StoredSession> {
        self.read("reading a session", |conn| {
            let row: Option<(String, Option<String>)> = conn
                .prepare_cached("SELECT header, title_line FROM sessions WHERE id = ?1")
                .and_then(|mut s| s.query_row([id], |r| Ok((r.get(0)?, r.get(1)?))).optional())
                .context("reading a session")?;
            let (header, title_line) = row.ok_or_else(|| StoreError::SessionNotFound { query: id.to_owned() })?;
            let header = SessionHeader::parse(&header).ok_or_else(|| corrupt_header(id))?;
            Ok(StoredSession { header, title_line })
        })
    }

    fn list_sessions(&self) -> StoreResult<Vec<SessionSummary>> {
        const OPERATION: &str = "listing sessions";
        self.read(OPERATION, |conn| {
            let mut texts: HashMap<String, String> = HashMap::new();
            let mut statement = conn
                .prepare("SELECT session_id, text FROM message_texts ORDER BY session_id, ord")
                .context(OPERATION)?;
            let mut rows = statement.query([]).context(OPERATION)?;
            while let Some(row) = rows.next().context(OPERATION)? {
                let session: String = row.get(0).context(OPERATION)?;
                let text: String = row.get(1).context(OPERATION)?;
                let all = texts.entry(session).or_default();
                if !all.is_empty() {
                    all.push(' ');
                }
                all.push_str(&text);
            }
            let mut statement = conn
                .prepare(
                    "SELECT id, header, name, message_count, first_message, last_activity, updated_ms FROM sessions",
                )
                .context(OPERATION)?;
            let mut rows = statement.query([]).context(OPERATION)?;
            let mut out = Vec::new();
            while let Some(row) = rows.next().context(OPERATION)? {
                let id: String = row.get(0).context(OPERATION)?;
                let header: String = row.get(1).context(OPERATION)?;
                let tally = SummaryTally {
                    name: row.get(2).context(OPERATION)?,
                    message_count: from_int(row.get(3).context(OPERATION)?, "sessions")?,
                    first_message: row.get(4).context(OPERATION)?,
                    last_activity: row.get(5).context(OPERATION)?,
                };
                let updated_ms: i64 = row.get(6).context(OPERATION)?;
                let all = texts.remove(&id).unwrap_or_default();
                let summary = tally
                    .summarize(&header, all, PathBuf::new(), || Some(updated_ms))
                    .ok_or_else(|| corrupt_header(&id))?;
                out.push(summary);
            }
            out.sort_by(|a, b| b.modified_ms.cmp(&a.modified_ms).then_with(|| a.id.cmp(&b.id)));
            Ok(out)
        })
    }

    fn segments(&self, session: &str) -> StoreResult<Vec<SegmentInfo>> {
        self.read("reading segments", |conn| segments(conn, session))
    }

    fn read_segment(&self, session: &str, segment: &str, range: Range<u64>) -> StoreResult<Vec<Entry>> {
        const OPERATION: &str = "reading a segment";
        self.read(OPERATION, |conn| {
            require_session(conn, session)?;
            let key = segment_key(conn, session, segment)?;
            let start = i64::try_from(range.start).unwrap_or(i64::MAX);
            let end = i64::try_from(range.end).unwrap_or(i64::MAX);
            let mut statement = conn
                .prepare_cached(
                    "SELECT json FROM entries WHERE segment_key = ?1 AND seq >= ?2 AND seq < ?3 ORDER BY seq",
                )
                .context(OPERATION)?;
            let jsons = statement.query_map((key, start, end), |r| r.get(0)).context(OPERATION)?;
            collect_entries(jsons, OPERATION)
        })
    }

    fn read_session(&self, session: &str) -> StoreResult<Vec<Entry>> {
        const OPERATION: &str = "reading a session's entries";
        self.read(OPERATION, |conn| {
            require_session(conn, session)?;
            let mut statement = conn
                .prepare_cached("SELECT json FROM entries WHERE session_id = ?1 ORDER BY ord")
                .context(OPERATION)?;
            let jsons = statement.query_map([session], |r| r.get(0)).context(OPERATION)?;
            collect_entries(jsons, OPERATION)
        })
    }

    fn create_segment(&self, session: &str, start: &NewSegment, entries: &[Entry]) -> StoreResult<SegmentInfo> {
        let now = self.clock.now_ms();
        self.write("creating a segment", |tx| write::create_segment(tx, now, session, start, entries))
    }

    fn append(&self, session: &str, segment: &str, expected_len: u64, entries: &[Entry]) -> StoreResult<Appended> {
        let now = self.clock.now_ms();
        self.write("appending entries", |tx| write::append(tx, now, session, segment, expected_len, entries))
    }

    fn cursor(&self, name: &str) -> StoreResult<Option<Cursor>> {
        check_cursor_name(name)?;
        self.read("reading a cursor", |conn| cursor(conn, name))
    }

    fn swap_cursor(&self, name: &str, expected: Option<u64>, new: &Cursor) -> StoreResult<Option<Cursor>> {
        const OPERATION: &str = "swapping a cursor";
        check_cursor_name(name)?;
        let children = serde_json::to_string(&new.children)
            .map_err(|e| StoreError::InvalidEntry { reason: format!("cursor `{name}`: {e}") })?;
        self.write(OPERATION, |tx| {
            if cursor(tx, name)?.map(|c| c.version) != expected {
                return Ok(None);
            }
            let version = expected.map_or(1, |v| v + 1);
            tx.prepare_cached(
                "INSERT OR REPLACE INTO cursors (name, session_id, segment_id, last_seq, children, version) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut s| {
                s.execute((name, &new.session, &new.segment, to_int(new.last_seq)?, &children, to_int(version)?))
            })
            .context(OPERATION)?;
            Ok(Some(Cursor { version, ..new.clone() }))
        })
    }
}

/// The segments of `session`, in the order they were created.
fn segments(conn: &Connection, session: &str) -> StoreResult<Vec<SegmentInfo>> {
    const OPERATION: &str = "reading segments";
    require_session(conn, session)?;
    let mut statement = conn
        .prepare_cached(
            "SELECT s.id, s.origin, p.id, s.fork_at, \
                    (SELECT e.seq FROM entries e WHERE e.segment_key = s.key ORDER BY e.seq DESC LIMIT 1) \
             FROM segments s LEFT JOIN segments p ON p.key = s.parent_segment_key \
             WHERE s.session_id = ?1 ORDER BY s.key",
        )
        .context(OPERATION)?;
    let rows = statement
        .query_map([session], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, Option<i64>>(4)?,
            ))
        })
        .context(OPERATION)?;
    let mut out = Vec::new();
    for row in rows {
        let (id, origin, parent, fork_at, last_seq) = row.context(OPERATION)?;
        let parent = match parent.zip(fork_at) {
            Some((parent, at)) => Some((parent, from_int(at, "segments")?)),
            None => None,
        };
        let len = from_int::<u64>(last_seq.unwrap_or(-1) + 1, "entries")?;
        out.push(SegmentInfo { id, origin: parse_origin(&origin)?, parent, len });
    }
    Ok(out)
}

fn parse_origin(text: &str) -> Result<Origin> {
    Origin::from_name(text)
        .ok_or_else(|| Error::CorruptRow { table: "segments", reason: format!("unknown origin `{text}`") })
}

fn cursor(conn: &Connection, name: &str) -> StoreResult<Option<Cursor>> {
    const OPERATION: &str = "reading a cursor";
    let row: Option<(String, String, i64, String, i64)> = conn
        .prepare_cached("SELECT session_id, segment_id, last_seq, children, version FROM cursors WHERE name = ?1")
        .and_then(|mut s| {
            s.query_row([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).optional()
        })
        .context(OPERATION)?;
    let Some((session, segment, last_seq, children, version)) = row else { return Ok(None) };
    let children = serde_json::from_str(&children)
        .map_err(|e| Error::CorruptRow { table: "cursors", reason: format!("cursor `{name}`: children: {e}") })?;
    Ok(Some(Cursor {
        session,
        segment,
        last_seq: from_int(last_seq, "cursors")?,
        children,
        version: from_int(version, "cursors")?,
    }))
}

/// The row of a new session; a conflict if the id exists.
fn insert_session(conn: &Connection, header: &SessionHeader, title_line: Option<&str>, now: i64) -> StoreResult<()> {
    if session_exists(conn, header.id())? {
        return Err(StoreError::Conflict { what: format!("session {} exists", header.id()) });
    }
    conn.prepare_cached("INSERT INTO sessions (id, header, title_line, updated_ms) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute((header.id(), header.json(), title_line, now)))
        .context("creating a session")?;
    Ok(())
}

fn session_exists(conn: &Connection, session: &str) -> StoreResult<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?1)")
        .and_then(|mut s| s.query_row([session], |r| r.get(0)))
        .context("looking up a session")?)
}

fn require_session(conn: &Connection, session: &str) -> StoreResult<()> {
    if session_exists(conn, session)? { Ok(()) } else { Err(StoreError::SessionNotFound { query: session.to_owned() }) }
}

/// The key of segment `segment` of `session`.
fn segment_key(conn: &Connection, session: &str, segment: &str) -> StoreResult<i64> {
    let key = conn
        .prepare_cached("SELECT key FROM segments WHERE session_id = ?1 AND id = ?2")
        .and_then(|mut s| s.query_row([session, segment], |r| r.get(0)).optional())
        .context("looking up a segment")?;
    key.ok_or_else(|| StoreError::SegmentNotFound { segment: segment.to_owned() })
}

fn collect_entries(
    jsons: impl Iterator<Item = rusqlite::Result<String>>,
    operation: &'static str,
) -> StoreResult<Vec<Entry>> {
    let mut out = Vec::new();
    for json in jsons {
        let json = json.context(operation)?;
        let entry = Entry::parse(&json)
            .map_err(|e| Error::CorruptRow { table: "entries", reason: format!("stored entry does not parse: {e}") })?;
        out.push(entry);
    }
    Ok(out)
}

fn corrupt_header(session: &str) -> Error {
    Error::CorruptRow { table: "sessions", reason: format!("the header of session {session} is not a session header") }
}

/// A count or seq as SQLite stores it.
fn to_int<T: TryInto<i64> + Copy + std::fmt::Display>(n: T) -> rusqlite::Result<i64> {
    n.try_into().map_err(|_| rusqlite::Error::ToSqlConversionFailure(format!("{n} is too large to store").into()))
}

/// A stored count or seq; negative or oversized is a corrupt row.
fn from_int<T: TryFrom<i64>>(n: i64, table: &'static str) -> Result<T> {
    T::try_from(n).map_err(|_| Error::CorruptRow { table, reason: format!("{n} is out of range") })
}

#[cfg(test)]
#[path = "backend_tests.rs"]
mod tests;
