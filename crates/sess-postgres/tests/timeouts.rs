//! Nothing waits without end: a server that accepts and never answers fails
//! the connect after the URL's `connect_timeout` (no server needed), and a read
//! stuck behind a lock fails after the statement timeout (skipped without
//! `SESS_TEST_PG_URL`; see `support/pg.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

#[path = "support/pg.rs"]
mod pg;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use sess_core::SessionHeader;
use sess_postgres::{Error, PostgresBackend};
use sess_store::Backend;

use pg::TestSchema;

/// Runs `call` on a thread and returns its answer, or panics if there is none
/// within `limit` (the thread is left behind).
fn within<T: Send + 'static>(limit: Duration, call: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(call());
    });
    receiver.recv_timeout(limit).expect("no answer in time")
}

#[test]
fn a_server_that_accepts_and_never_answers_fails_the_connect_naming_the_host() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // Every connection stays open and silent until the test process ends.
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let url = format!("postgres://me:hunter2@127.0.0.1:{port}/db?connect_timeout=1");
    let started = Instant::now();
    let error = within(Duration::from_secs(10), move || PostgresBackend::connect(&url).unwrap_err());
    assert!(started.elapsed() >= Duration::from_secs(1), "gave up before the timeout");
    assert!(matches!(error, Error::ConnectTimeout { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(&format!("me@127.0.0.1:{port}/db")) && !message.contains("hunter2"), "{message}");
}

#[test]
fn a_read_waiting_on_a_lock_fails_after_the_statement_timeout() {
    let Some(server) = pg::server("a_read_waiting_on_a_lock_fails_after_the_statement_timeout") else { return };
    let schema = TestSchema::new(&server);
    let backend =
        PostgresBackend::builder().statement_timeout(Duration::from_millis(300)).connect(&schema.url).unwrap();
    backend.create_session(&SessionHeader::new("s1", "2026-01-01T00:00:00.000Z", "/p", None), None).unwrap();

    let mut locker = schema.schema_client();
    let mut lock = locker.transaction().unwrap();
    lock.batch_execute("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE").unwrap();
    let listed = within(Duration::from_secs(10), move || {
        let listed = backend.list_sessions().map(|l| l.len());
        (listed, backend)
    });
    lock.rollback().unwrap();
    let (listed, backend) = listed;
    let error = listed.unwrap_err();
    let mut chain = error.to_string();
    let mut cause = std::error::Error::source(&error);
    while let Some(next) = cause {
        chain = format!("{chain}: {next}");
        cause = next.source();
    }
    assert!(chain.contains("canceling statement due to statement timeout"), "{chain}");
    // The lock gone, the same backend reads again.
    assert_eq!(backend.list_sessions().unwrap().len(), 1);
}
