//! Cursor end to end: `sess list`, `show`, `search`, `usage`, `export` and
//! `archive` over a home laid out as the IDE and the CLI lay it out, from the
//! hand-written fixtures (Cursor needs an account and cannot run here). The
//! files are read without being changed, and the keys Cursor keeps beside
//! the sessions never appear in anything `sess` prints or keeps.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use common::{copy_dir, fixture, json_out, sess_at, stderr};

/// The key the fixtures hold where Cursor keeps its encryption keys.
const KEY: &str = "K3y-Must-Never-Show-0f9e8d7c";
const GREETING: &str = "c0a1b2c3-0000-4000-8000-000000000001";
const NESTED: &str = "7e1f0c2a-0000-4000-8000-0000000000a1";
const FLAT: &str = "7e1f0c2a-0000-4000-8000-0000000000a2";
const STORE: &str = "3c9d2e10-0000-4000-8000-0000000000b1";

/// A home where the IDE keeps its database and the CLI its transcripts (of a
/// project at `work/alpha`, which exists) and stores.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_dir(&fixture("cursor/hand-written/User"), &home.path().join(".config/Cursor/User"));
    let project = home.path().join("work/alpha");
    fs::create_dir_all(&project).unwrap();
    let slug: String =
        project.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let from = fixture("cursor/hand-written/dot-cursor");
    copy_dir(&from.join("chats"), &home.path().join(".cursor/chats"));
    copy_dir(
        &from.join("projects/home-dev-projects-alpha/agent-transcripts"),
        &home.path().join(".cursor/projects").join(slug.trim_start_matches('-')).join("agent-transcripts"),
    );
    home
}

/// Every file under `dir` with its bytes, sorted.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = fs::read(&path).unwrap();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

fn cursor_files(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    [files(&home.join(".config/Cursor")), files(&home.join(".cursor"))].concat()
}

/// The output of `sess ARGS`, which must succeed, with no key in it.
fn run(home: &Path, args: &[&str]) -> String {
    let output = sess_at(home, args, "");
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    let text = [output.stdout.as_slice(), output.stderr.as_slice()].concat();
    assert_no_key(&text, &format!("{args:?}"));
    String::from_utf8(output.stdout).unwrap()
}

fn assert_no_key(bytes: &[u8], what: &str) {
    let hex = KEY.bytes().fold(String::new(), |mut out, b| {
        use std::fmt::Write as _;
        let _ = write!(out, "{b:02x}");
        out
    });
    for needle in [KEY.as_bytes(), hex.as_bytes()] {
        assert!(!bytes.windows(needle.len()).any(|w| w == needle), "{what} shows a key");
    }
}

#[test]
fn sessions_list_show_search_and_count_without_a_change_or_a_key() {
    let home = home();
    let before = cursor_files(home.path());
    let list: Value =
        serde_json::from_str(&run(home.path(), &["list", "--source", "cursor", "--all-projects", "--json"])).unwrap();
    let mut got: Vec<(String, String, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let title = s["title"].as_str().unwrap_or_default().to_owned();
            (s["id"].as_str().unwrap().to_owned(), title, s["messageCount"].as_u64().unwrap())
        })
        .collect();
    got.sort();
    let expected = [
        ("0b6e2f10-0000-4000-8000-0000000000d1", "Why does the build fail?", 2),
        (STORE, "Explain the build", 4),
        (NESTED, "Add a README and check the tests", 7),
        (FLAT, "What is in src?", 3),
        (GREETING, "Greeting fix", 6),
        ("c0a1b2c3-0000-4000-8000-000000000002", "What does the Makefile do?", 2),
        ("c0a1b2c3-0000-4000-8000-000000000005", "Damaged", 0),
    ];
    assert_eq!(got, expected.iter().map(|(i, t, n)| ((*i).to_owned(), (*t).to_owned(), *n)).collect::<Vec<_>>());
    // The transcript's cwd is the project its slug names.
    let nested = list.as_array().unwrap().iter().find(|s| s["id"] == NESTED).unwrap();
    assert_eq!(nested["cwd"], home.path().join("work/alpha").to_string_lossy().as_ref());
    let from_files = run(home.path(), &["list", "--source", "cursor", "--all-projects", "--json", "--no-catalog"]);
    assert_eq!(serde_json::from_str::<Value>(&from_files).unwrap(), list);

    for (id, messages) in [(GREETING, 6), (NESTED, 7), (STORE, 4)] {
        let shown: Value = serde_json::from_str(&run(home.path(), &["show", id, "--all", "--json"])).unwrap();
        assert_eq!(shown["source"], "cursor", "{id}");
        assert_eq!(shown["messages"].as_array().unwrap().len(), messages, "{id}");
        run(home.path(), &["show", id, "--all"]);
        for format in ["markdown", "json", "html"] {
            run(home.path(), &["export", "--format", format, id]);
        }
    }
    let shown = run(home.path(), &["show", NESTED, "--all", "--json"]);
    assert!(shown.contains("All 3 tests pass."), "the subagent's transcript is under its call: {shown}");

    run(home.path(), &["index"]);
    for (query, id) in [("greeting", GREETING), ("README", NESTED), ("Makefile", STORE)] {
        let hits: Value =
            serde_json::from_str(&run(home.path(), &["search", "--all-projects", query, "--json"])).unwrap();
        let found: Vec<(&str, &str)> = hits
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["source"].as_str().unwrap(), h["id"].as_str().unwrap()))
            .collect();
        assert!(found.contains(&("cursor", id)), "{query}: {hits}");
    }
    let report: Value = serde_json::from_str(&run(home.path(), &["usage", "--timezone", "UTC", "--json"])).unwrap();
    let cursor =
        report["totals"]["sourceBreakdowns"].as_array().unwrap().iter().find(|b| b["source"] == "cursor").unwrap();
    assert_eq!(cursor["calls"], 3, "{report}");

    let archive = json_out(&sess_at(home.path(), &["archive", "--json"], ""));
    assert_eq!(archive["failed"], serde_json::json!([]), "{archive}");
    assert_eq!(archive["sessions"], 7, "{archive}");
    // Nothing `sess` keeps (the catalog, the archive) holds a key.
    for (path, bytes) in files(home.path()) {
        if !path.starts_with(home.path().join(".cursor")) && !path.starts_with(home.path().join(".config/Cursor")) {
            assert_no_key(&bytes, &path.display().to_string());
        }
    }
    let store = format!("sqlite:{}", home.path().join(".local/share/sess/archive.sqlite").display());
    for id in [GREETING, NESTED, STORE] {
        let archived: Value =
            serde_json::from_str(&run(home.path(), &["--store", &store, "show", "--all", "--json", id])).unwrap();
        let original: Value = serde_json::from_str(&run(home.path(), &["show", "--all", "--json", id])).unwrap();
        assert_eq!(archived["messages"], original["messages"], "{id}");
    }
    assert!(cursor_files(home.path()) == before, "a file of Cursor's changed");
}
