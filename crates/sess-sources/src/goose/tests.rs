#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::transcript::Role::{Assistant as A, System as S, User as U};
use crate::transcript::{Block, Role, ToolStatus};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/goose/hand-written/sessions")
}

/// A home whose Goose data folder holds the fixtures.
fn home() -> (tempfile::TempDir, Env) {
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join(".local/share/goose/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for name in ["sessions.db", "a1b2c3d4.jsonl"] {
        std::fs::copy(fixtures().join(name), sessions.join(name)).unwrap();
    }
    let env = Env::new(home.path(), std::iter::empty::<(String, OsString)>());
    (home, env)
}

fn calls(transcript: &Transcript) -> Vec<(String, ToolStatus, Option<String>)> {
    transcript
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(call) => Some((call.name.clone(), call.status, call.result.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_database_session_reads_as_its_turns_calls_and_summary() {
    let transcript = SOURCE.source().load_row(&fixtures().join("sessions.db"), "20251201_1").unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Greeting fix"));
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/projects/alpha"));
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [U, A, A, A, A, S, U, A, A, S]);
    assert_eq!(transcript.messages[0].blocks, [Block::text("Make the greeting say hello world")]);
    assert_eq!(transcript.messages[0].timestamp.as_deref(), Some("2025-12-01T10:00:00.000Z"));
    assert_eq!(transcript.messages[1].blocks[0], Block::Thinking { text: "Look at the file first.".into() });
    assert_eq!(
        calls(&transcript),
        [
            ("developer__shell".into(), ToolStatus::Succeeded, Some("print('hi')\n".into())),
            ("developer__text_editor".into(), ToolStatus::Succeeded, Some("The file has been edited.".into())),
            ("developer__shell".into(), ToolStatus::Failed, Some("python3: can't open file 'test_hello.py'".into())),
            ("developer__text_editor".into(), ToolStatus::Succeeded, Some("Wrote hello.py".into())),
            ("unknown tool".into(), ToolStatus::Failed, Some("Could not interpret tool use parameters".into())),
        ]
    );
    let Block::ToolCall(first) = &transcript.messages[1].blocks[2] else { panic!("a call") };
    assert_eq!(first.started_at.as_deref(), Some("2025-12-01T10:00:05.000Z"));
    assert_eq!(first.ended_at.as_deref(), Some("2025-12-01T10:00:06.000Z"));
    assert_eq!(
        transcript.messages[5].blocks,
        [Block::Summary { text: "Summary: the greeting in hello.py was changed to hello world.".into() }]
    );
    assert_eq!(transcript.messages[9].blocks, [Block::text("Context compacted")]);
    // The row whose content is cut is reported, not shown.
    assert_eq!(transcript.issues.len(), 1, "{:?}", transcript.issues);
}

#[test]
fn the_listing_shows_user_sessions_of_the_database_and_the_older_files() {
    let (_home, env) = home();
    let listing = SOURCE.source().list(&env, Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut sessions: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.title.as_deref(), s.cwd.as_deref(), s.message_count, s.created.as_deref()))
        .collect();
    sessions.sort_unstable();
    assert_eq!(
        sessions,
        [
            (
                "20251201_1",
                Some("Greeting fix"),
                Some("/home/dev/projects/alpha"),
                10,
                Some("2025-12-01T10:00:00.000Z")
            ),
            ("a1b2c3d4", Some("Old chat"), Some("/home/dev/projects/beta"), 2, Some("2025-11-30T10:00:00.000Z")),
        ]
    );
    let db_session = listing.sessions.iter().find(|s| s.id == "20251201_1").unwrap();
    assert_eq!(db_session.modified_ms, 1_764_583_200_000 + 3_610_000);
    let found = SOURCE.source().find(&env);
    assert_eq!(found.rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["20251201_1"]);
    assert_eq!(found.files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), ["a1b2c3d4"]);
    let alpha = SOURCE.source().list(&env, Scope::Project(Path::new("/home/dev/projects/beta")));
    assert_eq!(alpha.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["a1b2c3d4"]);
}

#[test]
fn a_file_whose_id_the_database_has_is_listed_once() {
    let (home, env) = home();
    let sessions = home.path().join(".local/share/goose/sessions");
    std::fs::copy(sessions.join("a1b2c3d4.jsonl"), sessions.join("20251201_1.jsonl")).unwrap();
    let listing = SOURCE.source().list(&env, Scope::All);
    assert_eq!(listing.sessions.len(), 2);
    assert!(!SOURCE.source().find(&env).files.iter().any(|f| f.0 == "20251201_1"));
}

#[test]
fn usage_is_the_ledger_of_the_session_and_its_subagents_without_the_cache_in_input() {
    let indexed = SOURCE.source().index_row(&fixtures().join("sessions.db"), "20251201_1").unwrap();
    let got: Vec<_> =
        indexed.usage.iter().map(|c| (c.input, c.output, c.cache_read, c.cache_creation, c.cost)).collect();
    assert_eq!(
        got,
        [
            (200, 80, 1000, 0, Some(0.0031)),
            (100, 60, 1100, 200, Some(0.0042)),
            (900, 40, 0, 0, Some(0.0025)),
            (300, 10, 0, 0, Some(0.0008)),
        ]
    );
    assert_eq!(indexed.usage[0].model.as_deref(), Some("gpt-4o"));
    assert_eq!(indexed.usage[0].timestamp.as_deref(), Some("2025-12-01T10:00:05.000Z"));
    assert!(indexed.title_explicit);
}

#[test]
fn without_a_ledger_the_session_totals_are_one_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    std::fs::copy(fixtures().join("sessions.db"), &path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("drop table usage_ledger").unwrap();
    drop(conn);
    let usage = SOURCE.source().index_row(&path, "20251201_1").unwrap().usage;
    let got: Vec<_> = usage.iter().map(|c| (c.input, c.output, c.model.as_deref())).collect();
    // The parent's and the subagent's totals.
    assert_eq!(got, [(999, 99, Some("gpt-4o")), (999, 99, Some("gpt-4o"))]);
}

#[test]
fn an_older_file_reads_with_its_metadata_call() {
    let path = fixtures().join("a1b2c3d4.jsonl");
    let indexed = SOURCE.source().index(&path, &std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(indexed.session_id, "a1b2c3d4");
    assert_eq!(indexed.message_count, 2);
    assert_eq!(indexed.usage.iter().map(|c| (c.input, c.output)).collect::<Vec<_>>(), [(240, 60)]);
    assert!(SOURCE.source().load(&fixtures().join("sessions.db")).is_err());
    let checked = SOURCE.source().verify(&path).unwrap().unwrap();
    assert_eq!((checked.entries, checked.findings.len()), (3, 0));
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, b"{\"working_dir\":\"/w\",\"description\":\"d\"}\n{\"role\":").unwrap();
    assert_eq!(SOURCE.source().verify(&cut).unwrap().unwrap().findings.len(), 1);
}

#[test]
fn goose_files_are_recognised_by_name_and_metadata_line() {
    let db = fixtures().join("sessions.db");
    let head = std::fs::read(&db).unwrap();
    assert_eq!(crate::detect(&db, &head[..4096]), Some(SOURCE));
    assert_eq!(crate::detect(Path::new("/x/other.db"), &head[..4096]), None);
    let file = fixtures().join("a1b2c3d4.jsonl");
    assert_eq!(crate::detect(&file, &std::fs::read(&file).unwrap()), Some(SOURCE));
}

#[test]
fn the_archived_rows_read_back_as_the_same_session() {
    let db = fixtures().join("sessions.db");
    let dump = SOURCE.source().rows(&db, "20251201_1").unwrap();
    let names: Vec<&str> = dump.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["sessions", "messages", "usage_ledger"]);
    assert_eq!(dump.tables[0].rows.len(), 2, "the session and its subagent's");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.db");
    dump.write_database(&copy).unwrap();
    let original = SOURCE.source().load_row(&db, "20251201_1").unwrap();
    assert_eq!(SOURCE.source().load_row(&copy, "20251201_1").unwrap(), original);
    assert_eq!(SOURCE.source().index_row(&copy, "20251201_1").unwrap().usage.len(), 4);
    assert!(SOURCE.source().rows(&db, "nope").is_err());
}

#[test]
fn the_text_editor_says_what_it_changed() {
    let transcript = SOURCE.source().load_row(&fixtures().join("sessions.db"), "20251201_1").unwrap();
    let edits: Vec<_> = transcript
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| if let Block::ToolCall(call) = b { Some(call) } else { None })
        .flat_map(|call| SOURCE.source().edits(call))
        .map(|edit| edit.path)
        .collect();
    assert_eq!(edits, ["/home/dev/projects/alpha/hello.py", "/home/dev/projects/alpha/hello.py"]);
    let call = crate::ToolCall::running("1", "developer__shell", json!({"command": "ls"}));
    assert!(SOURCE.source().edits(&call).is_empty());
}

#[test]
fn goose_path_root_moves_the_data_folder() {
    let vars = [("GOOSE_PATH_ROOT".to_owned(), OsString::from("/g"))];
    let env = Env::new("/home/u", vars);
    assert_eq!(session_dirs(&env), [PathBuf::from("/g/data/sessions")]);
    let env = Env::new("/home/u", [("XDG_DATA_HOME".to_owned(), OsString::from("/d"))]);
    assert_eq!(session_dirs(&env), [PathBuf::from("/d/goose/sessions"), PathBuf::from("/home/u/.goose/sessions")]);
}
