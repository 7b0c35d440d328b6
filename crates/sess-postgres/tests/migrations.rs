//! Schema creation and migration on a real server (skipped without
//! `SESS_TEST_PG_URL`; see `support/pg.rs`): a fresh schema gets every table,
//! reconnecting changes nothing, a newer schema is refused and left alone, and
//! several connectors creating one schema at once all succeed.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

#[path = "support/pg.rs"]
mod pg;

use std::sync::{Arc, Barrier};

use pretty_assertions::assert_eq;
use sess_core::{Entry, SessionHeader};
use sess_postgres::{Error, PostgresBackend, SCHEMA_VERSION};
use sess_store::{Backend, NewSegment};

use pg::TestSchema;

fn tables(schema: &TestSchema) -> Vec<String> {
    let rows = schema
        .client()
        .query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
            &[&schema.name],
        )
        .unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

fn one_session(backend: &PostgresBackend) {
    backend.create_session(&SessionHeader::new("s", "2026-01-01T00:00:00.000Z", "/p", None), None).unwrap();
    let entry = Entry::parse(r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#)
        .unwrap();
    backend.create_segment("s", &NewSegment::New, &[entry]).unwrap();
}

#[test]
fn a_fresh_schema_gets_every_table_at_the_latest_version() {
    let Some(server) = pg::server("a_fresh_schema_gets_every_table_at_the_latest_version") else { return };
    let schema = TestSchema::new(&server);
    let backend = schema.backend();
    assert_eq!(backend.schema(), schema.name);
    assert_eq!(backend.schema_version().unwrap(), i64::from(SCHEMA_VERSION));
    assert_eq!(
        tables(&schema),
        ["blobs", "cursors", "entries", "message_texts", "schema_version", "segments", "sessions"]
    );
    let compression: String = schema
        .client()
        .query_one(
            "SELECT attcompression::text FROM pg_attribute \
             WHERE attrelid = to_regclass(quote_ident($1) || '.entries') AND attname = 'json'",
            &[&schema.name],
        )
        .unwrap()
        .get(0);
    assert_eq!(compression, "l", "entry JSON is compressed with lz4");
}

#[test]
fn reconnecting_changes_nothing() {
    let Some(server) = pg::server("reconnecting_changes_nothing") else { return };
    let schema = TestSchema::new(&server);
    one_session(&schema.backend());
    let snapshot = || -> Vec<(String, u32, String)> {
        // Each table's identity and the transaction that last wrote the version.
        let mut client = schema.client();
        let mut out: Vec<(String, u32, String)> = client
            .query(
                "SELECT c.relname::text, c.oid::oid, '' FROM pg_class c \
                 JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 ORDER BY c.relname",
                &[&schema.name],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
        let xmin: String = client
            .query_one(&format!("SELECT xmin::text FROM \"{}\".schema_version", schema.name), &[])
            .unwrap()
            .get(0);
        out.push(("schema_version xmin".to_owned(), 0, xmin));
        out
    };
    let before = snapshot();
    let again = schema.backend();
    assert_eq!(snapshot(), before);
    assert_eq!(again.schema_version().unwrap(), i64::from(SCHEMA_VERSION));
    assert_eq!(again.read_session("s").unwrap().len(), 1);
}

#[test]
fn a_newer_schema_is_refused_and_left_alone() {
    let Some(server) = pg::server("a_newer_schema_is_refused_and_left_alone") else { return };
    let schema = TestSchema::new(&server);
    one_session(&schema.backend());
    let newer = i32::try_from(SCHEMA_VERSION).unwrap() + 1;
    schema.schema_client().execute("UPDATE schema_version SET version = $1", &[&newer]).unwrap();
    let error = PostgresBackend::connect(&schema.url).unwrap_err();
    assert!(
        matches!(&error, Error::VersionTooNew { schema: s, found, supported }
            if *s == schema.name && *found == i64::from(newer) && *supported == SCHEMA_VERSION),
        "{error:?}"
    );
    assert!(error.to_string().contains(&schema.name), "{error}");
    let version: i32 = schema.schema_client().query_one("SELECT version FROM schema_version", &[]).unwrap().get(0);
    assert_eq!(version, newer);
    assert_eq!(tables(&schema).len(), 7);
}

#[test]
fn a_failed_step_leaves_the_version_before_it() {
    let Some(server) = pg::server("a_failed_step_leaves_the_version_before_it") else { return };
    let schema = TestSchema::new(&server);
    // A table the first step creates already exists: the step fails, and
    // nothing of it (nor the version) is kept.
    let mut client = schema.client();
    client.batch_execute(&format!("CREATE SCHEMA \"{0}\"; CREATE TABLE \"{0}\".blobs (x int)", schema.name)).unwrap();
    let error = PostgresBackend::connect(&schema.url).unwrap_err();
    assert!(matches!(error, Error::Migration { version: 1, .. }), "{error:?}");
    // The step's transaction also created `schema_version`: none of it is kept.
    assert_eq!(tables(&schema), ["blobs"], "no table of the step and no version were kept");
    client.batch_execute(&format!("DROP TABLE \"{}\".blobs", schema.name)).unwrap();
    assert_eq!(PostgresBackend::connect(&schema.url).unwrap().schema_version().unwrap(), i64::from(SCHEMA_VERSION));
}

#[test]
fn connectors_creating_one_schema_at_once_all_succeed() {
    const CONNECTORS: usize = 6;
    let Some(server) = pg::server("connectors_creating_one_schema_at_once_all_succeed") else { return };
    let schema = TestSchema::new(&server);
    let start = Arc::new(Barrier::new(CONNECTORS));
    let threads: Vec<_> = (0..CONNECTORS)
        .map(|_| {
            let (url, start) = (schema.url.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                PostgresBackend::connect(&url).map(|b| b.schema_version().unwrap())
            })
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap().unwrap(), i64::from(SCHEMA_VERSION));
    }
    assert_eq!(tables(&schema).len(), 7);
    one_session(&schema.backend());
}

#[test]
fn bad_urls_and_unreachable_servers_are_errors_without_the_password() {
    // No server needed: these fail before or at connecting.
    let error = PostgresBackend::connect("postgres://me:hunter2@127.0.0.1:1/db?options=-csearch_path%3Dx").unwrap_err();
    assert!(matches!(error, Error::Connect { .. }), "{error:?}");
    assert!(!error.to_string().contains("hunter2") && error.to_string().contains("me@127.0.0.1:1/db"), "{error}");
    let error =
        PostgresBackend::connect("postgres://me:hunter2@host/db?options=-csearch_path%3D%22%24user%22").unwrap_err();
    assert!(matches!(error, Error::InvalidUrl { .. }), "{error:?}");
    assert!(!error.to_string().contains("hunter2"), "{error}");
}
