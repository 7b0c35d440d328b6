use std::path::Path;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use sess_core::segment::{Origin, derive};
use sess_store::{SteppingClock, append_or_fork};

use sess_testkit::backends::{copy_entry_by_entry, export, header, jsonl_with, message};

use super::*;
use crate::SCHEMA_VERSION;

const PI_MONO: &str = include_str!("../../../fixtures/pi-family/pi-mono-0.73.1-main.jsonl");
const PI_MONO_BRANCHED: &str = include_str!("../../../fixtures/pi-family/pi-mono-0.73.1-createBranchedSession.jsonl");
const OH_MY_PI: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-bun.jsonl");

/// A session `s` whose one segment `a` holds `a`, `b`, `c`.
fn three(backend: &SqliteBackend) {
    backend.create_session(&header("s"), None).unwrap();
    let entries = [message("a", None), message("b", Some("a")), message("c", Some("b"))];
    backend.create_segment("s", &NewSegment::New, &entries).unwrap();
}

/// A raw connection to the file, as another program would open it.
fn raw(path: &Path) -> Connection {
    Connection::open(path).unwrap()
}

fn downcast(error: &StoreError) -> &Error {
    match error {
        StoreError::Backend { kind: "sqlite", source } => source.downcast_ref::<Error>().unwrap(),
        other => panic!("not a backend error: {other:?}"),
    }
}

#[test]
fn a_fresh_database_gets_the_latest_schema_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let backend = SqliteBackend::open(dir.path().join("s.db")).unwrap();
    assert_eq!(backend.schema_version().unwrap(), i64::from(SCHEMA_VERSION));
    let conn = backend.conn();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    let synchronous: i64 = conn.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
    let foreign_keys: bool = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
    assert_eq!((mode.as_str(), synchronous, foreign_keys), ("wal", 1, true));
}

#[test]
fn full_synchronous_mode_can_be_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let backend = SqliteBackend::builder().synchronous(Synchronous::Full).open(dir.path().join("s.db")).unwrap();
    let synchronous: i64 = backend.conn().query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
    assert_eq!(synchronous, 2);
}

#[test]
fn reopening_is_a_no_op() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    three(&SqliteBackend::open(&path).unwrap());
    let schema = |conn: &Connection| -> Vec<String> {
        let mut statement = conn.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").unwrap();
        statement.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let before = schema(&raw(&path));
    let data_version = |conn: &Connection| -> i64 { conn.query_row("PRAGMA data_version", [], |r| r.get(0)).unwrap() };
    let watcher = raw(&path);
    let seen = data_version(&watcher);
    let reopened = SqliteBackend::open(&path).unwrap();
    assert_eq!(data_version(&watcher), seen, "reopening wrote nothing");
    assert_eq!(schema(&raw(&path)), before);
    assert_eq!(reopened.schema_version().unwrap(), i64::from(SCHEMA_VERSION));
    assert_eq!(reopened.read_session("s").unwrap().len(), 3);
}

#[test]
fn a_newer_schema_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    three(&SqliteBackend::open(&path).unwrap());
    let newer = i64::from(SCHEMA_VERSION) + 1;
    raw(&path).execute("UPDATE schema_version SET version = ?1", [newer]).unwrap();
    let error = SqliteBackend::open(&path).unwrap_err();
    assert!(
        matches!(error, Error::VersionTooNew { found, supported } if found == newer && supported == SCHEMA_VERSION),
        "{error:?}"
    );
    let version: i64 = raw(&path).query_row("SELECT version FROM schema_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, newer);
}

#[test]
fn a_failed_migration_step_leaves_the_version_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    // A table the first step creates already exists: the step fails, and
    // nothing of it (nor the version) is kept.
    raw(&path).execute_batch("CREATE TABLE blobs (x)").unwrap();
    let error = SqliteBackend::open(&path).unwrap_err();
    assert!(matches!(error, Error::Migration { version: 1, .. }), "{error:?}");
    let names: Vec<String> = {
        let conn = raw(&path);
        let mut statement = conn.prepare("SELECT name FROM sqlite_master ORDER BY name").unwrap();
        statement.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(names, ["blobs"], "no table of the step and no version were kept");
}

#[test]
fn a_corrupt_blob_is_an_error_and_put_repairs_it() {
    let backend = SqliteBackend::in_memory().unwrap();
    let reference = backend.put(b"hello").unwrap();
    let hash = parse_blob_ref(&reference).unwrap().to_owned();
    backend.conn().execute("UPDATE blobs SET bytes = ?1", [b"jello".to_vec()]).unwrap();
    let error = backend.get(&reference).unwrap_err();
    let expected = PathBuf::from(format!(":memory:#blobs/{hash}"));
    assert!(matches!(&error, StoreError::CorruptBlob { path } if *path == expected), "{error:?}");
    assert_eq!(backend.put(b"hello").unwrap(), reference);
    assert_eq!(backend.get(&reference).unwrap(), Some(b"hello".to_vec()));
}

#[test]
fn invalid_blob_references_are_refused() {
    let backend = SqliteBackend::in_memory().unwrap();
    let upper = format!("blob:sha256:{}", "A".repeat(64));
    for reference in ["", "blob:sha256:../../etc/passwd", "sha256:00", upper.as_str()] {
        let error = backend.get(reference).unwrap_err();
        assert!(matches!(&error, StoreError::InvalidBlobRef { reference: r } if r == reference), "{error:?}");
    }
}

#[test]
fn a_corrupt_entry_row_is_a_backend_error() {
    let backend = SqliteBackend::in_memory().unwrap();
    three(&backend);
    backend.conn().execute("UPDATE entries SET json = 'not json' WHERE entry_id = 'b'", []).unwrap();
    let error = backend.read_session("s").unwrap_err();
    assert!(matches!(downcast(&error), Error::CorruptRow { table: "entries", .. }), "{error:?}");
    assert!(error.to_string().starts_with("sqlite backend: corrupt row in table `entries`"), "{error}");
}

#[test]
fn appends_and_tail_checks_use_indexes_not_scans() {
    let backend = SqliteBackend::in_memory().unwrap();
    let conn = backend.conn();
    let plan = |sql: &str| -> String {
        let mut statement = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = statement.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
    };
    for sql in [
        "SELECT seq FROM entries WHERE segment_key = 1 ORDER BY seq DESC LIMIT 1",
        "SELECT ord FROM entries WHERE session_id = 's' ORDER BY ord DESC LIMIT 1",
        "SELECT EXISTS (SELECT 1 FROM segments WHERE parent_segment_key = 1 AND fork_at = 2)",
        "SELECT EXISTS (SELECT 1 FROM entries WHERE session_id = 's' AND entry_id = 'a')",
        "SELECT key FROM segments WHERE session_id = 's' AND id = 'a'",
    ] {
        let plan = plan(sql);
        let scans_a_table = ["entries", "segments", "sessions"].iter().any(|t| plan.contains(&format!("SCAN {t}")));
        assert!(plan.contains("USING") && !scans_a_table, "{sql}: {plan}");
    }
}

#[test]
fn nothing_is_written_when_a_check_fails() {
    let backend = SqliteBackend::in_memory().unwrap();
    three(&backend);
    let counts = || -> (i64, i64, i64) {
        let conn = backend.conn();
        let count = |table: &str| conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0)).unwrap();
        (count("entries"), count("segments"), count("message_texts"))
    };
    let before = counts();
    // The second entry repeats an id of the session: the first is not kept either.
    let error = backend.append("s", "a", 3, &[message("d", Some("c")), message("a", Some("d"))]).unwrap_err();
    assert!(matches!(error, StoreError::Conflict { .. }), "{error:?}");
    let error = backend.append("s", "a", 3, &[message("d", Some("c")), message("d", Some("d"))]).unwrap_err();
    assert!(matches!(error, StoreError::Conflict { .. }), "{error:?}");
    let error = backend.append("nope", "a", 3, &[message("d", Some("c"))]).unwrap_err();
    assert!(matches!(error, StoreError::SessionNotFound { .. }), "{error:?}");
    let error = backend.append("s", "nope", 3, &[message("d", Some("c"))]).unwrap_err();
    assert!(matches!(error, StoreError::SegmentNotFound { .. }), "{error:?}");
    let error = backend.create_segment("s", &NewSegment::New, &[message("x", Some("b"))]).unwrap_err();
    assert!(matches!(error, StoreError::InvalidEntry { .. }), "{error:?}");
    assert_eq!(counts(), before);
    assert_eq!(backend.list_sessions().unwrap()[0].message_count, 3);
}

#[test]
fn pi_family_files_copy_in_and_out_byte_for_byte_with_the_same_segments_and_summary() {
    for fixture in [PI_MONO, PI_MONO_BRANCHED, OH_MY_PI] {
        let (jsonl, id) = jsonl_with(fixture);
        let sqlite = SqliteBackend::in_memory().unwrap();
        copy_entry_by_entry(&jsonl, &sqlite, &id);

        assert_eq!(export(&sqlite, &id), fixture);
        assert_eq!(sqlite.segments(&id).unwrap(), jsonl.segments(&id).unwrap());

        let mut from_file = jsonl.list_sessions().unwrap().remove(0);
        from_file.path = PathBuf::new();
        assert_eq!(sqlite.list_sessions().unwrap(), [from_file]);
    }
}

#[test]
fn listing_falls_back_to_the_last_write_and_sorts_newest_first() {
    let backend = SqliteBackend::builder().clock(Arc::new(SteppingClock::new(1_000))).open_in_memory().unwrap();
    // No message time and no parsable header time: the last write's time.
    let untimed = SessionHeader::parse(r#"{"type":"session","version":3,"id":"u","cwd":"/p"}"#).unwrap();
    backend.create_session(&untimed, None).unwrap();
    backend.create_session(&header("s"), Some(r#"{"type":"title"}"#)).unwrap();
    backend.create_segment("u", &NewSegment::New, &[message("a", None)]).unwrap();
    let listed = backend.list_sessions().unwrap();
    let summary: Vec<_> =
        listed.iter().map(|s| (s.id.as_str(), s.modified_ms, s.path.as_os_str().is_empty())).collect();
    // `u`'s message has an ISO entry time; `s` has its header's.
    assert_eq!(summary, [("u", 1_767_225_601_000, true), ("s", 1_767_225_600_000, true)]);
    let entries = [Entry::parse(r#"{"type":"label","id":"l","parentId":null}"#).unwrap()];
    let bare = SessionHeader::parse(r#"{"type":"session","id":"v"}"#).unwrap();
    backend.create_session(&bare, None).unwrap();
    backend.create_segment("v", &NewSegment::New, &entries).unwrap();
    let v = backend.list_sessions().unwrap().into_iter().find(|s| s.id == "v").unwrap();
    assert_eq!((v.modified_ms, v.first_message.as_str(), v.message_count), (1_004, "(no messages)", 0));
    assert_eq!(backend.session("s").unwrap().title_line.as_deref(), Some(r#"{"type":"title"}"#));
}

/// Writers on their own connections (as separate processes would be), all
/// starting at the same tail: every entry lands once, every writer's chain is
/// unbroken, and each fork records the entry it branched from.
#[test]
fn writers_on_separate_connections_fork_and_lose_nothing() {
    const WRITERS: usize = 6;
    const APPENDS: usize = 30;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    three(&SqliteBackend::open(&path).unwrap());
    let start = Arc::new(std::sync::Barrier::new(WRITERS));
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (path, start) = (path.clone(), start.clone());
            std::thread::spawn(move || {
                let backend = SqliteBackend::open(&path).unwrap();
                start.wait();
                let (mut segment, mut len, mut parent) = ("a".to_owned(), 3, "c".to_owned());
                let mut forks = Vec::new();
                for n in 0..APPENDS {
                    let id = format!("w{w}-{n}");
                    let placed = append_or_fork(&backend, "s", &segment, len, &[message(&id, Some(&parent))]).unwrap();
                    if let Some(from) = placed.forked_from.clone() {
                        forks.push((placed.segment.clone(), from));
                    }
                    (segment, len, parent) = (placed.segment, placed.first_seq + 1, id);
                }
                forks
            })
        })
        .collect();
    let forks: Vec<_> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    // All start expecting `a` to have 3 entries: the first to append stays on
    // `a`, every other one forks under `c`, then each owns its segment.
    assert_eq!(forks.len(), WRITERS - 1);
    assert!(forks.iter().all(|(_, from)| *from == ("a".to_owned(), 2)), "{forks:?}");

    let backend = SqliteBackend::open(&path).unwrap();
    let entries = backend.read_session("s").unwrap();
    assert_eq!(entries.len(), 3 + WRITERS * APPENDS);
    for w in 0..WRITERS {
        for n in 1..APPENDS {
            let child = entries.iter().find(|e| e.id().as_str() == format!("w{w}-{n}")).unwrap();
            assert_eq!(child.parent_id().unwrap().as_str(), format!("w{w}-{}", n - 1));
        }
    }
    let segments = backend.segments("s").unwrap();
    assert_eq!(segments.iter().filter(|s| s.origin == Origin::Fork).count(), forks.len());
    for (segment, from) in &forks {
        let info = segments.iter().find(|s| s.id == *segment).unwrap();
        assert_eq!(info.parent.as_ref(), Some(from));
    }
    let derived = derive(&entries);
    assert_eq!(derived.segments.len(), segments.len(), "the lineage matches the entries' own tree");
    for (info, segment) in segments.iter().zip(&derived.segments) {
        assert_eq!(info.len, segment.entries.len() as u64);
        assert_eq!(info.id, entries[segment.entries[0]].id().as_str());
    }
    assert_eq!(backend.list_sessions().unwrap()[0].message_count, entries.len());
}

#[test]
fn an_import_that_fails_part_way_leaves_nothing_of_the_session() {
    let backend = SqliteBackend::in_memory().unwrap();
    // The third run (a branch under `a`) repeats the id `b`: the import fails
    // after the first segment would have been stored.
    let entries = [
        message("a", None),
        message("b", Some("a")),
        message("c", Some("b")),
        message("d", Some("a")),
        message("b", Some("d")),
    ];
    let failed = backend.import_session(&header("s"), None, &entries, &mut |_| {});
    assert!(matches!(failed, Err(StoreError::Conflict { .. })), "{failed:?}");
    assert!(matches!(backend.session("s"), Err(StoreError::SessionNotFound { .. })));
    assert_eq!(backend.list_sessions().unwrap().len(), 0);
    // Nothing blocks a later import of the session.
    backend.import_session(&header("s"), None, &entries[..4], &mut |_| {}).unwrap();
    assert_eq!(backend.read_session("s").unwrap().len(), 4);
}
