//! The backend conformance suite on the SQLite backend: on a fresh database
//! file, and in memory (one connection shared by the suite's threads).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::sync::Arc;

use sess_sqlite::SqliteBackend;
use sess_store::Backend;

mod file {
    use super::*;

    fn make() -> Arc<dyn Backend> {
        // Kept for the life of the test process; the OS cleans the temp dir.
        let dir = tempfile::tempdir().unwrap().keep();
        Arc::new(SqliteBackend::open(dir.join("sessions.db")).unwrap())
    }

    sess_testkit::conformance_tests!(make());
}

mod memory {
    use super::*;

    fn make() -> Arc<dyn Backend> {
        Arc::new(SqliteBackend::in_memory().unwrap())
    }

    sess_testkit::conformance_tests!(make());
}
