//! What the conformance suite does not see of the PostgreSQL backend
//! (skipped without `SESS_TEST_PG_URL`; see `support/pg.rs`): the pool, the
//! plans of the hot lookups, refused writes leaving no trace, damaged rows.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

#[path = "support/pg.rs"]
mod pg;

use std::time::Duration;

use pretty_assertions::assert_eq;
use sess_core::Entry;
use sess_postgres::{Error, PostgresBackend};
use sess_store::{Appended, Backend, Blobs, NewSegment, parse_blob_ref};
use sess_testkit::backends::{header, message};

fn chain(prefix: &str, n: usize) -> Vec<Entry> {
    (0..n)
        .map(|i| {
            let parent = (i > 0).then(|| format!("{prefix}{}", i - 1));
            message(&format!("{prefix}{i}"), parent.as_deref())
        })
        .collect()
}

fn backend_error(error: &sess_store::Error) -> &Error {
    match error {
        sess_store::Error::Backend { kind: "postgres", source } => source.downcast_ref::<Error>().unwrap(),
        other => panic!("not a backend error: {other:?}"),
    }
}

/// Calls nested inside a call each take a connection of their own, new ones
/// resolve tables in the schema too, and a call that finds the pool exhausted
/// fails after the wait.
#[test]
fn every_pooled_connection_works_in_the_schema_and_an_exhausted_pool_times_out() {
    let Some(server) = pg::server("every_pooled_connection_works_in_the_schema") else { return };
    let schema = pg::TestSchema::new(&server);
    let backend =
        PostgresBackend::builder().pool_size(3).pool_wait(Duration::from_millis(200)).connect(&schema.url).unwrap();
    let mut exhausted = None;
    // An import holds its connection mid-COPY while its progress runs: three
    // nested imports hold all three connections, and a fourth call waits.
    backend
        .import_session(&header("one"), None, &chain("a", 1), &mut |_| {
            backend
                .import_session(&header("two"), None, &chain("b", 1), &mut |_| {
                    backend
                        .import_session(&header("three"), None, &chain("c", 1), &mut |_| {
                            exhausted = Some(backend.list_sessions());
                        })
                        .unwrap();
                })
                .unwrap();
        })
        .unwrap();
    let error = exhausted.unwrap().unwrap_err();
    assert!(matches!(backend_error(&error), Error::PoolTimeout { size: 3, .. }), "{error:?}");
    // Each import went through its own connection, into the schema.
    let mut in_schema: Vec<String> =
        schema.schema_client().query("SELECT id FROM sessions", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    in_schema.sort();
    assert_eq!(in_schema, ["one", "three", "two"]);
    assert_eq!(backend.list_sessions().unwrap().len(), 3);
}

/// The length check of an append reads the end of the primary key, and the
/// other per-call lookups are index probes. Sequential scans are priced out
/// (`enable_seqscan = off`) so the test's small tables do not hide a missing
/// index: without a usable one the plan would still scan.
#[test]
fn the_hot_lookups_use_indexes_not_scans() {
    let Some(server) = pg::server("the_hot_lookups_use_indexes_not_scans") else { return };
    let schema = pg::TestSchema::new(&server);
    let backend = schema.backend();
    for s in 0..20 {
        let id = format!("s{s}");
        backend.import_session(&header(&id), None, &chain(&format!("{id}-"), 500), &mut |_| {}).unwrap();
    }
    let mut client = schema.schema_client();
    client.batch_execute("ANALYZE; SET enable_seqscan = off").unwrap();
    for sql in [
        "SELECT e.seq, e.entry_id FROM entries e WHERE e.segment_key = 7 ORDER BY e.seq DESC LIMIT 1",
        "SELECT key FROM segments WHERE session_id = 's3' AND id = 's3-0'",
        "SELECT EXISTS (SELECT 1 FROM entries WHERE session_id = 's3' AND entry_id = 's3-9')",
        "SELECT json FROM entries WHERE session_id = 's3' ORDER BY ord",
        "SELECT key FROM segments WHERE parent_segment_key = 3",
    ] {
        let plan: Vec<String> =
            client.query(&format!("EXPLAIN {sql}"), &[]).unwrap().iter().map(|r| r.get(0)).collect();
        let plan = plan.join("\n");
        assert!(plan.contains("Index") && !plan.contains("Seq Scan"), "{sql}:\n{plan}");
    }
}

#[test]
fn nothing_is_written_when_a_check_fails() {
    let Some(server) = pg::server("nothing_is_written_when_a_check_fails") else { return };
    let schema = pg::TestSchema::new(&server);
    let backend = schema.backend();
    backend.create_session(&header("s"), None).unwrap();
    backend.create_segment("s", &NewSegment::New, &chain("e", 3)).unwrap();
    let mut client = schema.schema_client();
    let mut counts = || -> Vec<i64> {
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM segments), \
                        (SELECT count(*) FROM message_texts), (SELECT next_ord FROM sessions)",
                &[],
            )
            .unwrap();
        (0..4).map(|i| row.get(i)).collect()
    };
    let before = counts();
    // The second entry repeats an id of the session: the first is not kept either.
    let error = backend.append("s", "e0", 3, &[message("d", Some("e2")), message("e0", Some("d"))]).unwrap_err();
    assert!(matches!(error, sess_store::Error::Conflict { .. }), "{error:?}");
    let error = backend.append("s", "e0", 3, &[message("d", Some("e2")), message("d", Some("d"))]).unwrap_err();
    assert!(matches!(error, sess_store::Error::Conflict { .. }), "{error:?}");
    let error = backend.append("nope", "e0", 3, &[message("d", Some("e2"))]).unwrap_err();
    assert!(matches!(error, sess_store::Error::SessionNotFound { .. }), "{error:?}");
    let error = backend.append("s", "nope", 3, &[message("d", Some("e2"))]).unwrap_err();
    assert!(matches!(error, sess_store::Error::SegmentNotFound { .. }), "{error:?}");
    let error = backend.append("s", "e0", 3, &[message("d", Some("e1"))]).unwrap_err();
    assert!(matches!(error, sess_store::Error::InvalidEntry { .. }), "{error:?}");
    let stale = backend.append("s", "e0", 2, &[message("d", Some("e1")), message("x", Some("nope"))]).unwrap();
    assert_eq!(stale, Appended::TailMoved { len: 3 }, "a moved tail is reported before a broken chain");
    let error = backend.create_segment("s", &NewSegment::New, &[message("x", Some("e1"))]).unwrap_err();
    assert!(matches!(error, sess_store::Error::InvalidEntry { .. }), "{error:?}");
    let fork = NewSegment::Fork { parent: "e0".into(), fork_at: 0 };
    let error = backend.create_segment("s", &fork, &[message("x", Some("e0")), message("e1", Some("x"))]).unwrap_err();
    assert!(matches!(error, sess_store::Error::Conflict { .. }), "{error:?}");
    let error = backend.import_session(&header("s"), None, &chain("z", 2), &mut |_| {}).unwrap_err();
    assert!(matches!(error, sess_store::Error::Conflict { .. }), "{error:?}");
    let twice = [message("q", None), message("q", Some("q"))];
    let error = backend.import_session(&header("t"), None, &twice, &mut |_| {}).unwrap_err();
    assert!(matches!(error, sess_store::Error::Conflict { .. }), "{error:?}");
    assert!(matches!(backend.session("t"), Err(sess_store::Error::SessionNotFound { .. })), "the import left nothing");
    assert_eq!(counts(), before);
    assert_eq!(backend.list_sessions().unwrap()[0].message_count, 3);
}

#[test]
fn damaged_rows_are_errors_and_put_repairs_a_blob() {
    let Some(server) = pg::server("damaged_rows_are_errors_and_put_repairs_a_blob") else { return };
    let schema = pg::TestSchema::new(&server);
    let backend = schema.backend();
    let reference = backend.put(b"hello").unwrap();
    let hash = parse_blob_ref(&reference).unwrap().to_owned();
    let mut client = schema.schema_client();
    client.execute("UPDATE blobs SET bytes = 'jello'::bytea", &[]).unwrap();
    let error = backend.get(&reference).unwrap_err();
    let expected = format!("{}#blobs/{hash}", backend.location());
    assert!(matches!(&error, sess_store::Error::CorruptBlob { path } if path.to_str() == Some(&expected)), "{error:?}");
    assert_eq!(backend.put(b"hello").unwrap(), reference);
    assert_eq!(backend.get(&reference).unwrap(), Some(b"hello".to_vec()));

    backend.create_session(&header("s"), None).unwrap();
    backend.create_segment("s", &NewSegment::New, &chain("e", 2)).unwrap();
    client.execute("UPDATE entries SET json = 'not json' WHERE entry_id = 'e1'", &[]).unwrap();
    let error = backend.read_session("s").unwrap_err();
    assert!(matches!(backend_error(&error), Error::CorruptRow { table: "entries", .. }), "{error:?}");
    assert!(error.to_string().starts_with("postgres backend: corrupt row in table `entries`"), "{error}");
}
