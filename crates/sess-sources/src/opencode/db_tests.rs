#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fs;

use tempfile::TempDir;

use super::*;
use crate::opencode::test_db::{add_message, add_part, add_session, writer};

fn names(dir: &TempDir) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

#[test]
fn reads_what_is_still_in_the_write_ahead_log_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, path) = writer(dir.path(), true);
    add_session(&conn, "ses_a", None);
    add_message(&conn, "ses_a", "msg_1", 10, r#"{"role":"user"}"#);
    add_part(&conn, "ses_a", "msg_1", "prt_1", r#"{"type":"text","text":"hi"}"#);
    let before = names(&dir);
    assert_eq!(before, ["opencode.db", "opencode.db-shm", "opencode.db-wal"]);
    let wal_len = fs::metadata(dir.path().join("opencode.db-wal")).unwrap().len();
    assert!(wal_len > 0, "the rows are in the log");

    let db = Db::open(&path).unwrap();
    let sessions = db.sessions().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].id, "ses_a");
    assert_eq!((sessions[0].created, sessions[0].updated), (Some(1), Some(2)));
    let raw = db.messages("ses_a").unwrap();
    assert_eq!(raw.messages.len(), 1);
    assert_eq!(raw.messages[0].parts[0].data["text"], "hi");
    drop(db);
    assert_eq!(names(&dir), before);
    assert_eq!(fs::metadata(dir.path().join("opencode.db-wal")).unwrap().len(), wal_len, "the log is not written");
}

#[test]
fn a_wal_database_nobody_has_open_is_read_without_creating_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, path) = writer(dir.path(), true);
    add_session(&conn, "ses_a", Some(r#"{"messageID":"msg_2","snapshot":"x"}"#));
    conn.pragma_update(None, "wal_checkpoint", "truncate").unwrap();
    drop(conn);
    assert_eq!(names(&dir), ["opencode.db"], "the last connection removes the log");

    let db = Db::open(&path).unwrap();
    let sessions = db.sessions().unwrap();
    assert_eq!(sessions[0].revert_message.as_deref(), Some("msg_2"));
    assert!(db.session("ses_missing").unwrap().is_none());
    drop(db);
    assert_eq!(names(&dir), ["opencode.db"]);
}

#[test]
fn a_writers_lock_is_waited_for_then_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, path) = writer(dir.path(), false);
    add_session(&conn, "ses_a", None);
    conn.execute_batch(
        "begin exclusive; insert into session values ('ses_b', 'g', null, 's', '/p', 'T', 'v', null, 1, 1, null);",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let err = Db::open(&path).and_then(|db| db.sessions()).unwrap_err();
    assert!(matches!(&err, Error::Database { path: p, message } if *p == path && message.contains("locked")), "{err}");
    assert!(started.elapsed() >= BUSY_TIMEOUT, "it waited");
    conn.execute_batch("commit").unwrap();
    let sessions = Db::open(&path).unwrap().sessions().unwrap();
    assert_eq!(sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["ses_a", "ses_b"]);
}

#[test]
fn rows_that_are_not_json_objects_are_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, path) = writer(dir.path(), false);
    add_session(&conn, "ses_a", None);
    add_message(&conn, "ses_a", "msg_2", 20, r#"{"role":"assistant"}"#);
    add_message(&conn, "ses_a", "msg_1", 10, "{not json");
    add_message(&conn, "ses_a", "msg_3", 20, r#"{"role":"user"}"#);
    add_part(&conn, "ses_a", "msg_2", "prt_2", "[1]");
    add_part(&conn, "ses_a", "msg_2", "prt_1", r#"{"type":"text","text":"a"}"#);
    add_part(&conn, "ses_a", "msg_1", "prt_3", r#"{"type":"text","text":"lost with its message"}"#);
    let raw = Db::open(&path).unwrap().messages("ses_a").unwrap();
    let ids: Vec<&str> = raw.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["msg_2", "msg_3"], "by time, then id");
    assert_eq!(raw.messages[0].parts.len(), 1);
    let issues: Vec<String> = raw.issues.iter().map(|i| format!("{} {}", i.line, i.kind)).collect();
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(issues[0].starts_with("1 ") && issues[0].contains("message msg_1"), "{issues:?}");
    assert!(issues[1].contains("part prt_2") && issues[1].contains("not a JSON object"), "{issues:?}");
}

#[test]
fn what_is_not_a_database_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    assert!(matches!(Db::open(&path), Err(Error::NotFound { .. })));
    fs::write(&path, "not a database at all, but long enough for a header").unwrap();
    let err = Db::open(&path).and_then(|db| db.sessions()).unwrap_err();
    assert!(matches!(err, Error::Database { .. }), "{err}");
    assert!(matches!(Db::open(dir.path()), Err(Error::NotASessionFile { .. })));
    assert_eq!(names(&dir), ["opencode.db"]);
}
