//! The one gate of every PostgreSQL test, and fresh schemas to run them in.
//!
//! The tests need a server: `SESS_TEST_PG_URL` names it (a libpq URL whose
//! user may create schemas). Without it a test prints that it skipped and
//! passes, unless `SESS_REQUIRE_PG=1`, when it fails naming the variable.
//! Each test works in its own schema, `sess_test_<random>`, chosen with
//! `options=-csearch_path=…` and dropped when the test is done.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)] // Test code; not every file uses every helper.

use std::ops::Range;
use std::sync::Arc;

use sess_core::{Entry, SessionHeader};
use sess_postgres::PostgresBackend;
use sess_store::{Appended, Backend, Blobs, Cursor, NewSegment, SegmentInfo, SessionSummary, StoredSession};

/// The variable naming the server.
pub(crate) const URL_VAR: &str = "SESS_TEST_PG_URL";
/// The variable that turns a skip into a failure.
pub(crate) const REQUIRE_VAR: &str = "SESS_REQUIRE_PG";

/// The server's URL, or `None` after printing that `test` skipped. Panics
/// when there is none and `SESS_REQUIRE_PG=1`.
pub(crate) fn server(test: &str) -> Option<String> {
    match std::env::var(URL_VAR) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ if std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1") => {
            panic!("{URL_VAR} is not set, and {REQUIRE_VAR}=1 requires the PostgreSQL tests to run")
        }
        _ => {
            eprintln!(
                "skipped {test}: {URL_VAR} is not set (a PostgreSQL URL, e.g. postgres://postgres@127.0.0.1:5432/test)"
            );
            None
        }
    }
}

/// Whether the PostgreSQL tests run here (see [`server`]).
pub(crate) fn enabled(test: &str) -> bool {
    server(test).is_some()
}

/// A fresh schema on the server, dropped (with everything in it) on drop.
pub(crate) struct TestSchema {
    server: String,
    /// The schema's name.
    pub(crate) name: String,
    /// The server's URL selecting the schema.
    pub(crate) url: String,
}

impl TestSchema {
    /// A new schema name on `server` (the schema itself is created by the
    /// first backend that connects).
    pub(crate) fn new(server: &str) -> Self {
        let name = format!("sess_test_{}", uuid::Uuid::new_v4().simple());
        let separator = if server.contains('?') { '&' } else { '?' };
        let url = format!("{server}{separator}options=-csearch_path%3D{name}");
        Self { server: server.to_owned(), name, url }
    }

    /// A plain client on the server (no schema chosen).
    pub(crate) fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.server, postgres::NoTls).unwrap()
    }

    /// A client whose `search_path` is the schema.
    pub(crate) fn schema_client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).unwrap()
    }

    /// A backend on the schema with the default options.
    pub(crate) fn backend(&self) -> PostgresBackend {
        PostgresBackend::connect(&self.url).unwrap()
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        // Best effort: a schema left behind is harmless, and a failing drop
        // must not hide the test's own failure.
        if let Ok(mut client) = postgres::Client::connect(&self.server, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.name));
        }
    }
}

/// A backend in a fresh schema that drops the schema when it is dropped, for
/// the conformance suite (which only sees `Arc<dyn Backend>`). Every method
/// forwards to the [`PostgresBackend`], overridden defaults included.
pub(crate) struct ScopedBackend {
    // Dropped first: its connections close before the schema is dropped.
    backend: PostgresBackend,
    _schema: TestSchema,
}

/// A backend in a fresh schema of the server of `SESS_TEST_PG_URL`. Call it
/// only after the gate passed.
pub(crate) fn scoped_backend() -> Arc<dyn Backend> {
    let server = std::env::var(URL_VAR).expect("the gate passed");
    let schema = TestSchema::new(&server);
    Arc::new(ScopedBackend { backend: schema.backend(), _schema: schema })
}

impl Blobs for ScopedBackend {
    fn put(&self, bytes: &[u8]) -> sess_store::Result<String> {
        self.backend.put(bytes)
    }
    fn get(&self, reference: &str) -> sess_store::Result<Option<Vec<u8>>> {
        self.backend.get(reference)
    }
    fn location(&self) -> String {
        Blobs::location(&self.backend)
    }
}

impl Backend for ScopedBackend {
    fn kind(&self) -> &'static str {
        self.backend.kind()
    }
    fn create_session(&self, header: &SessionHeader, title_line: Option<&str>) -> sess_store::Result<()> {
        self.backend.create_session(header, title_line)
    }
    fn session(&self, id: &str) -> sess_store::Result<StoredSession> {
        self.backend.session(id)
    }
    fn list_sessions(&self) -> sess_store::Result<Vec<SessionSummary>> {
        self.backend.list_sessions()
    }
    fn segments(&self, session: &str) -> sess_store::Result<Vec<SegmentInfo>> {
        self.backend.segments(session)
    }
    fn read_segment(&self, session: &str, segment: &str, range: Range<u64>) -> sess_store::Result<Vec<Entry>> {
        self.backend.read_segment(session, segment, range)
    }
    fn read_session(&self, session: &str) -> sess_store::Result<Vec<Entry>> {
        self.backend.read_session(session)
    }
    fn create_segment(&self, session: &str, start: &NewSegment, entries: &[Entry]) -> sess_store::Result<SegmentInfo> {
        self.backend.create_segment(session, start, entries)
    }
    fn append(
        &self,
        session: &str,
        segment: &str,
        expected_len: u64,
        entries: &[Entry],
    ) -> sess_store::Result<Appended> {
        self.backend.append(session, segment, expected_len, entries)
    }
    fn ancestors(&self, session: &str, segment: &str) -> sess_store::Result<Vec<SegmentInfo>> {
        self.backend.ancestors(session, segment)
    }
    fn descendants(&self, session: &str, segment: &str) -> sess_store::Result<Vec<SegmentInfo>> {
        self.backend.descendants(session, segment)
    }
    fn import_session(
        &self,
        header: &SessionHeader,
        title_line: Option<&str>,
        entries: &[Entry],
        progress: &mut dyn FnMut(u64),
    ) -> sess_store::Result<()> {
        self.backend.import_session(header, title_line, entries, progress)
    }
    fn dyn_backend(&self) -> &dyn Backend {
        self
    }
    fn cursor(&self, name: &str) -> sess_store::Result<Option<Cursor>> {
        self.backend.cursor(name)
    }
    fn swap_cursor(&self, name: &str, expected: Option<u64>, new: &Cursor) -> sess_store::Result<Option<Cursor>> {
        self.backend.swap_cursor(name, expected, new)
    }
}
