//! The pi-family fixtures through the PostgreSQL backend (skipped without
//! `SESS_TEST_PG_URL`; see `support/pg.rs`): each file, imported in bulk and
//! copied entry by entry, reads back byte for byte with the segments and the
//! listing the JSONL backend derives from the file itself.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

#[path = "support/pg.rs"]
mod pg;

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use sess_postgres::PostgresBackend;
use sess_store::{Backend, JsonlBackend};
use sess_testkit::backends::{copy_entry_by_entry, export, jsonl_with};

const FIXTURES: [(&str, &str); 3] = [
    ("pi-mono-0.73.1-main", include_str!("../../../fixtures/pi-family/pi-mono-0.73.1-main.jsonl")),
    (
        "pi-mono-0.73.1-createBranchedSession",
        include_str!("../../../fixtures/pi-family/pi-mono-0.73.1-createBranchedSession.jsonl"),
    ),
    ("oh-my-pi-18.2.3-bun", include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-bun.jsonl")),
];

fn check_same(name: &str, fixture: &str, jsonl: &JsonlBackend, id: &str, postgres: &PostgresBackend) {
    assert_eq!(export(postgres, id), fixture, "{name}: bytes");
    assert_eq!(postgres.segments(id).unwrap(), jsonl.segments(id).unwrap(), "{name}: segments");
    for segment in jsonl.segments(id).unwrap() {
        let ancestors = postgres.ancestors(id, &segment.id).unwrap();
        assert_eq!(ancestors, jsonl.ancestors(id, &segment.id).unwrap(), "{name}: ancestors of {}", segment.id);
        let descendants = postgres.descendants(id, &segment.id).unwrap();
        assert_eq!(descendants, jsonl.descendants(id, &segment.id).unwrap(), "{name}: descendants of {}", segment.id);
    }
    let mut from_file = jsonl.list_sessions().unwrap().remove(0);
    from_file.path = PathBuf::new();
    assert_eq!(postgres.list_sessions().unwrap(), [from_file], "{name}: listing");
}

#[test]
fn fixtures_imported_in_bulk_read_back_byte_for_byte() {
    let Some(server) = pg::server("fixtures_imported_in_bulk_read_back_byte_for_byte") else { return };
    for (name, fixture) in FIXTURES {
        let (jsonl, id) = jsonl_with(fixture);
        let schema = pg::TestSchema::new(&server);
        let postgres = schema.backend();
        let stored = jsonl.session(&id).unwrap();
        let entries = jsonl.read_session(&id).unwrap();
        let mut progress = 0;
        postgres
            .import_session(&stored.header, stored.title_line.as_deref(), &entries, &mut |n| progress += n)
            .unwrap();
        assert_eq!(progress, entries.len() as u64, "{name}: progress");
        check_same(name, fixture, &jsonl, &id, &postgres);
    }
}

#[test]
fn fixtures_copied_entry_by_entry_read_back_byte_for_byte() {
    let Some(server) = pg::server("fixtures_copied_entry_by_entry_read_back_byte_for_byte") else { return };
    for (name, fixture) in FIXTURES {
        let (jsonl, id) = jsonl_with(fixture);
        let schema = pg::TestSchema::new(&server);
        let postgres = schema.backend();
        copy_entry_by_entry(&jsonl, &postgres, &id);
        check_same(name, fixture, &jsonl, &id, &postgres);
    }
}
