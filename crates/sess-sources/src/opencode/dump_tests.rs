#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use rusqlite::Connection;

use super::*;
use crate::opencode::test_db::{add_message, add_part, add_session, writer};
use crate::opencode::{OpenCode, load_session};
use crate::source::{Growth, Source};

/// The session of the fixture that ran a subagent (`task`), and the
/// subagent's.
const PARENT: &str = "ses_dcf361fbbffe4jmEBz9N5vGbpJ";
const CHILD: &str = "ses_dcf361819ffeRcX4G4sgijCzlM";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode/real-1.18.33/opencode.db")
}

fn table<'a>(dump: &'a RowDump, name: &str) -> &'a TableRows {
    dump.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}"))
}

/// The values of `column` in the rows of `name`.
fn column<'a>(dump: &'a RowDump, name: &str, column: &str) -> Vec<&'a Cell> {
    let table = table(dump, name);
    let at = table.columns.iter().position(|c| c == column).unwrap();
    table.rows.iter().map(|row| &row[at]).collect()
}

fn text(id: &str) -> Cell {
    Cell::Text(id.to_owned())
}

/// A count from the original database, by a query of its own.
fn count(sql: &str) -> usize {
    let conn = Connection::open_with_flags(fixture(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let sql = sql.replace("{ids}", &format!("'{PARENT}', '{CHILD}'"));
    conn.query_row(&sql, [], |row| row.get::<_, i64>(0)).unwrap().try_into().unwrap()
}

#[test]
fn every_session_read_from_a_copy_of_its_rows_is_the_same() {
    let db = Db::open(&fixture()).unwrap();
    let sessions = db.sessions().unwrap();
    assert_eq!(sessions.len(), 7);
    let dir = tempfile::tempdir().unwrap();
    for record in sessions {
        let dump = OpenCode.rows(&fixture(), &record.id).unwrap();
        let copy = dir.path().join(format!("{}.db", record.id));
        dump.write_database(&copy).unwrap();
        let original = load_session(&fixture(), &record.id).unwrap();
        let subagent_turns = original
            .messages
            .iter()
            .flat_map(|m| &m.blocks)
            .any(|block| matches!(block, crate::transcript::Block::ToolCall(call) if !call.subagent.is_empty()));
        assert_eq!(subagent_turns, record.id == PARENT, "{}: the copy must hold the subagent's rows too", record.id);
        assert!(!original.messages.is_empty() || record.parent_id.is_some(), "{}", record.id);
        assert_eq!(OpenCode.load_row(&copy, &record.id).unwrap(), original, "{}", record.id);
        // The copy holds the same rows, read back the same way.
        assert_eq!(OpenCode.rows(&copy, &record.id).unwrap(), dump, "{}", record.id);
        let json = serde_json::to_string(&dump).unwrap();
        assert_eq!(serde_json::from_str::<RowDump>(&json).unwrap(), dump, "{}", record.id);
    }
}

#[test]
fn the_rows_are_the_sessions_and_its_subagents_in_every_table_keyed_by_a_session() {
    let dump = OpenCode.rows(&fixture(), PARENT).unwrap();
    let names: Vec<&str> = dump.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "event_sequence",
            "event",
            "message",
            "part",
            "session_context_epoch",
            "session_input",
            "session_message",
            "session",
            "todo",
            "session_share"
        ]
    );
    assert_eq!(column(&dump, "session", "id"), [&text(PARENT), &text(CHILD)], "rowid order");
    assert_eq!(column(&dump, "session", "parent_id"), [&Cell::Null, &text(PARENT)]);
    let session = table(&dump, "session");
    assert_eq!(session.columns.len(), 29, "{:?}", session.columns);
    assert_eq!(column(&dump, "session", "cost"), [&Cell::Real(0.0), &Cell::Real(0.0)]);
    assert_eq!(table(&dump, "message").rows.len(), count("select count(*) from message where session_id in ({ids})"));
    assert_eq!(table(&dump, "part").rows.len(), count("select count(*) from part where session_id in ({ids})"));
    assert_eq!(table(&dump, "event").rows.len(), count("select count(*) from event where aggregate_id in ({ids})"));
    assert!(column(&dump, "event_sequence", "aggregate_id").iter().all(|id| [text(PARENT), text(CHILD)].contains(id)));
    assert!(table(&dump, "todo").rows.is_empty());
    assert_eq!(table(&dump, "todo").columns.len(), 7);

    // The subagent's own rows hold nothing of its parent's.
    let child = OpenCode.rows(&fixture(), CHILD).unwrap();
    assert_eq!(column(&child, "session", "id"), [&text(CHILD)]);
    assert!(column(&child, "message", "session_id").iter().all(|id| **id == text(CHILD)));
}

#[test]
fn a_missing_session_is_not_found_and_files_have_no_rows() {
    assert!(matches!(OpenCode.rows(&fixture(), "ses_nope"), Err(Error::NotFound { .. })));
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex/codex-basic-rollout.jsonl");
    assert!(matches!(crate::codex::Codex.rows(&file, "x"), Err(Error::Database { .. })));
    assert_eq!(OpenCode.growth(&fixture()), Growth::Whole);
}

#[test]
fn parts_of_the_sessions_messages_come_along_and_reading_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, path) = writer(dir.path(), false);
    add_session(&conn, "ses_a", None);
    add_session(&conn, "ses_b", None);
    add_message(&conn, "ses_a", "msg_1", 1, r#"{"role":"user"}"#);
    add_part(&conn, "ses_a", "msg_1", "prt_1", r#"{"type":"text","text":"hi"}"#);
    // A part filed under another session, of a message of this one.
    add_part(&conn, "ses_b", "msg_1", "prt_2", r#"{"type":"text","text":"stray"}"#);
    add_message(&conn, "ses_b", "msg_2", 1, r#"{"role":"user"}"#);
    add_part(&conn, "ses_b", "msg_2", "prt_3", r#"{"type":"text","text":"other"}"#);
    conn.execute_batch(
        "create table kv (session_id text, k text, v, primary key (session_id, k)) without rowid;
         insert into kv values ('ses_a', 'z', x'00ff'), ('ses_a', 'a', 1.5), ('ses_b', 'a', null);",
    )
    .unwrap();
    drop(conn);
    let before: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    let dump = OpenCode.rows(&path, "ses_a").unwrap();
    assert_eq!(column(&dump, "part", "id"), [&text("prt_1"), &text("prt_2")]);
    assert_eq!(column(&dump, "message", "id"), [&text("msg_1")]);
    assert_eq!(
        table(&dump, "kv").rows,
        [vec![text("ses_a"), text("a"), Cell::Real(1.5)], vec![text("ses_a"), text("z"), Cell::Blob(vec![0, 255])]],
        "key order"
    );
    let after: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(after, before);
}
