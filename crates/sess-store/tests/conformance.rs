//! The backend conformance suite on the JSONL backend, over files and in memory.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::sync::Arc;

use sess_store::{Backend, FileStorage, JsonlBackend, MemoryStorage};

mod files {
    use super::*;

    fn make() -> Arc<dyn Backend> {
        // Kept for the life of the test process; the OS cleans the temp dir.
        let dir = tempfile::tempdir().unwrap().keep();
        Arc::new(JsonlBackend::new(Arc::new(FileStorage), dir.join("sessions")))
    }

    sess_testkit::conformance_tests!(make());
}

mod memory {
    use super::*;

    fn make() -> Arc<dyn Backend> {
        Arc::new(JsonlBackend::new(Arc::new(MemoryStorage::new()), "/agent/sessions"))
    }

    sess_testkit::conformance_tests!(make());
}
