#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::fs;
use std::path::PathBuf;

use super::*;
use crate::opencode::test_db::{add_message, add_part, add_session_in, writer};
use crate::source::{Source, SourceKind};

/// An environment whose home is `home` (the data folder under it).
fn env(home: &Path) -> Env {
    Env::new(home, std::iter::empty::<(String, OsString)>())
}

/// A data folder with a database of five sessions (one a subagent's, one
/// archived, one titled only by its placeholder) and, in `storage/`, a copy
/// of one of them and a session only the files have.
fn data(home: &Path) -> PathBuf {
    let data = home.join(".local/share/opencode");
    fs::create_dir_all(&data).unwrap();
    let (conn, db) = writer(&data, false);
    add_session_in(&conn, "ses_a", None, "/p/alpha", "Alpha", None);
    add_session_in(&conn, "ses_b", None, "/p/beta", "New session - 2026-12-01T08:39:02.037Z", None);
    add_session_in(&conn, "ses_child", Some("ses_a"), "/p/alpha", "Count (@general subagent)", None);
    add_session_in(&conn, "ses_old", None, "/p/alpha", "Archived", Some(9));
    for (session, prompt) in [("ses_a", "hello"), ("ses_b", "first words"), ("ses_old", "old")] {
        add_message(&conn, session, &format!("msg_{session}_1"), 1, r#"{"role":"user"}"#);
        add_part(&conn, session, &format!("msg_{session}_1"), &format!("prt_{session}_1"), &text(prompt));
        add_message(&conn, session, &format!("msg_{session}_2"), 2, r#"{"role":"assistant"}"#);
        add_part(&conn, session, &format!("msg_{session}_2"), &format!("prt_{session}_2"), &text("answer"));
    }
    let storage = data.join("storage");
    for (project, id, directory) in [("global", "ses_a", "/p/alpha"), ("proj", "ses_files", "/p/alpha")] {
        let dir = storage.join("session").join(project);
        fs::create_dir_all(&dir).unwrap();
        let session = serde_json::json!({"id": id, "title": "From files", "directory": directory,
                                         "time": {"created": 5, "updated": 6}});
        fs::write(dir.join(format!("{id}.json")), session.to_string()).unwrap();
    }
    let messages = storage.join("message/ses_files");
    fs::create_dir_all(&messages).unwrap();
    fs::write(messages.join("msg_1.json"), r#"{"id":"msg_1","role":"user","time":{"created":5}}"#).unwrap();
    fs::write(messages.join("msg_2.json"), "{cut").unwrap();
    let parts = storage.join("part/msg_1");
    fs::create_dir_all(&parts).unwrap();
    fs::write(parts.join("prt_1.json"), text("from the files")).unwrap();
    db
}

fn text(text: &str) -> String {
    serde_json::json!({"type": "text", "text": text}).to_string()
}

#[test]
fn lists_the_databases_sessions_then_the_files_it_lacks() {
    let home = tempfile::tempdir().unwrap();
    let db = data(home.path());
    let listing = list(&env(home.path()), Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut facts: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.title.as_deref(), s.cwd.as_deref(), s.message_count, s.modified_ms, s.path.clone()))
        .collect();
    facts.sort_by(|a, b| a.0.cmp(b.0));
    let file = home.path().join(".local/share/opencode/storage/session/proj/ses_files.json");
    // Dated by their last messages, not by `time_updated` (issue 26, item 10).
    assert_eq!(
        facts,
        [
            ("ses_a", Some("Alpha"), Some("/p/alpha"), 2, 2, db.clone()),
            ("ses_b", Some("first words"), Some("/p/beta"), 2, 2, db.clone()),
            ("ses_files", Some("From files"), Some("/p/alpha"), 1, 5, file.clone()),
        ]
    );
    let alpha = list(&env(home.path()), Scope::Project(Path::new("/p/alpha")));
    let mut ids: Vec<&str> = alpha.sessions.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["ses_a", "ses_files"]);

    let found = find_session_files(&env(home.path()));
    let rows: Vec<(&str, i64)> = found.rows.iter().map(|r| (r.id.as_str(), r.version)).collect();
    assert_eq!(rows, [("ses_a", 7), ("ses_b", 7)]);
    assert!(found.rows.iter().all(|r| r.database == db));
    assert_eq!(found.files, [("ses_files".to_owned(), file)]);
}

#[test]
fn loads_a_session_by_its_id_in_the_database_or_by_its_file() {
    let home = tempfile::tempdir().unwrap();
    let db = data(home.path());
    let child = load_session(&db, "ses_child").unwrap();
    assert_eq!((child.title.as_deref(), child.messages.len()), (Some("Count (@general subagent)"), 0));
    let alpha = load_session(&db, "ses_a").unwrap();
    assert_eq!(alpha.id, "ses_a");
    assert_eq!(alpha.messages.len(), 2);
    assert_eq!(alpha.messages[0].timestamp.as_deref(), Some("1970-01-01T00:00:00.001Z"));
    assert!(matches!(load_session(&db, "ses_nope"), Err(Error::NotFound { .. })));
    // The database itself is no one session: it is named by a session's id.
    assert!(matches!(load(&db), Err(Error::NotARecord { .. })));

    let file = home.path().join(".local/share/opencode/storage/session/proj/ses_files.json");
    let files = load(&file).unwrap();
    assert_eq!(files.first_prompt(), Some("from the files"));
    assert_eq!(files.issues.len(), 1, "the cut message file is reported: {:?}", files.issues);
    let stray = home.path().join("ses_stray.json");
    fs::write(&stray, r#"{"id":"ses_stray"}"#).unwrap();
    assert!(matches!(load(&stray), Err(Error::NotARecord { .. })));
}

#[test]
fn detects_its_databases_and_session_files() {
    let home = tempfile::tempdir().unwrap();
    let db = data(home.path());
    let head = fs::read(&db).unwrap();
    let detect = |path: &Path, bytes: &[u8]| crate::detect(path, bytes).map(SourceKind::as_str);
    assert_eq!(detect(&db, &head[..100]), Some("opencode"));
    assert_eq!(detect(Path::new("/x/catalog.db"), &head[..100]), None);
    let session = br#"{
  "id": "ses_dcf36b1b3ffeuV797d5ddiaan0",
  "slug": "quick-tiger","#;
    assert_eq!(detect(Path::new("/s/ses_dcf36b1b3ffeuV797d5ddiaan0.json"), session), Some("opencode"));
    assert_eq!(detect(Path::new("/s/notes.json"), session), None);
}

#[test]
fn roots_are_the_data_folder_and_a_database_outside_it() {
    let home = tempfile::tempdir().unwrap();
    let db = data(home.path());
    let data = home.path().join(".local/share/opencode");
    assert_eq!(OpenCode.roots(&env(home.path())), std::slice::from_ref(&data));
    let elsewhere = home.path().join("elsewhere.db");
    fs::copy(&db, &elsewhere).unwrap();
    let vars = [("OPENCODE_DB".to_owned(), elsewhere.clone().into_os_string())];
    assert_eq!(OpenCode.roots(&Env::new(home.path(), vars)), [data, elsewhere]);
}

#[test]
fn a_database_given_as_a_session_asks_for_a_session() {
    let home = tempfile::tempdir().unwrap();
    let db = data(home.path());
    let err = load(&db).unwrap_err();
    assert!(matches!(&err, Error::NotARecord { message, .. } if message.contains("name one of its sessions")), "{err}");
}
