//! A session path that names no file: every verb says so in the same words,
//! exits 2, and writes nothing (only `sess append` starts a new session).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

mod common;

use common::{Home, stderr};

#[test]
fn every_verb_says_a_missing_file_does_not_exist_and_writes_nothing() {
    let home = Home::new();
    let missing = home.path().join("typo.jsonl");
    let path = missing.to_str().unwrap();
    let target = home.path().join("copy.sqlite");
    let store = format!("sqlite:{}", target.display());
    let verbs: [&[&str]; 11] = [
        &["show", path],
        &["tree", path],
        &["context", path],
        &["segments", path],
        &["verify", path],
        &["label", path, "abc", "a-label"],
        &["rename", path, "a title"],
        &["fork", path, "--at", "turn:1"],
        &["fork", path, "--at", "turn:1", "--new-session"],
        &["migrate", path],
        &["copy", path, &store],
    ];
    for args in verbs {
        let output = home.run(args);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().next(), Some(format!("error: `{path}` does not exist").as_str()), "{args:?}: {err}");
        // Said once: no cause repeats it.
        assert_eq!(err.matches("does not exist").count(), 1, "{args:?}: {err}");
        assert!(!missing.exists(), "{args:?} made the file");
        assert!(!target.exists(), "{args:?} made the copy's target");
    }
}

#[test]
fn append_starts_a_new_session_at_a_path_that_does_not_exist() {
    let home = Home::new();
    let path = home.path().join("new.jsonl");
    let output = common::sess_at(
        home.path(),
        &["append", path.to_str().unwrap()],
        r#"{"type":"message","message":{"role":"user","content":"hi"}}"#,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(path.exists());
}
