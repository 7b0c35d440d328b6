//! Goose, Crush and Zed, the agents that keep sessions as rows of SQLite
//! databases, end to end: `sess list`, `show` and `usage` over a home laid
//! out as each agent lays it out, from the hand-written fixtures (the agents
//! cannot run here). The databases are read without being changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use common::{fixture, json_out, sess_at, stderr};

/// A home where Goose, Crush (one project, `work/alpha`) and Zed keep the
/// fixtures' sessions.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let goose = home.path().join(".local/share/goose/sessions");
    fs::create_dir_all(&goose).unwrap();
    for name in ["sessions.db", "a1b2c3d4.jsonl"] {
        fs::copy(fixture(&format!("goose/hand-written/sessions/{name}")), goose.join(name)).unwrap();
    }
    let project = home.path().join("work/alpha");
    fs::create_dir_all(project.join(".crush")).unwrap();
    fs::copy(fixture("crush/hand-written/alpha/.crush/crush.db"), project.join(".crush/crush.db")).unwrap();
    let crush = home.path().join(".local/share/crush");
    fs::create_dir_all(&crush).unwrap();
    let projects = json!({"projects": [{"path": project, "data_dir": ".crush"}]});
    fs::write(crush.join("projects.json"), projects.to_string()).unwrap();
    let zed = home.path().join(".local/share/zed/threads");
    fs::create_dir_all(&zed).unwrap();
    fs::copy(fixture("zed/hand-written/threads/threads.db"), zed.join("threads.db")).unwrap();
    home
}

fn listed(home: &Path, source: &str) -> Vec<(String, String)> {
    let list = json_out(&sess_at(home, &["list", "--source", source, "--all-projects", "--json"], ""));
    let mut got: Vec<(String, String)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap().to_owned(), s["title"].as_str().unwrap_or_default().to_owned()))
        .collect();
    got.sort();
    got
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

#[test]
fn each_agent_lists_its_sessions_and_shows_one() {
    let home = home();
    let before: Vec<Vec<u8>> = ["goose/hand-written/sessions/sessions.db", "zed/hand-written/threads/threads.db"]
        .iter()
        .map(|f| fs::read(fixture(f)).unwrap())
        .collect();
    assert_eq!(listed(home.path(), "goose"), pairs(&[("20251201_1", "Greeting fix"), ("a1b2c3d4", "Old chat")]));
    assert_eq!(
        listed(home.path(), "crush"),
        pairs(&[
            ("5f0c1a6e-1b2f-4c39-9a51-0a1b2c3d4e5f", "Hello world greeting"),
            ("9a8b7c6d-0000-4000-8000-000000000002", "What does main do?"),
        ])
    );
    assert_eq!(
        listed(home.path(), "zed"),
        pairs(&[
            ("5b3f6a1c-0000-4000-8000-000000000001", "Greeting in main.rs"),
            ("5b3f6a1c-0000-4000-8000-000000000002", "Explain the build"),
            ("5b3f6a1c-0000-4000-8000-000000000004", "Broken"),
        ])
    );
    for (id, source, messages) in [
        ("20251201_1", "goose", 10),
        ("a1b2c3d4", "goose", 2),
        ("5f0c1a6e", "crush", 9),
        ("5b3f6a1c-0000-4000-8000-000000000001", "zed", 5),
    ] {
        let output = sess_at(home.path(), &["show", id, "--all", "--json"], "");
        let shown: Value = json_out(&output);
        assert_eq!(shown["source"], source, "{id}: {}", stderr(&output));
        assert_eq!(shown["messages"].as_array().unwrap().len(), messages, "{id}");
    }
    // The Goose session's edit shows as a diff of the file it names.
    let shown = json_out(&sess_at(home.path(), &["show", "20251201_1", "--all", "--json"], ""));
    let text = shown.to_string();
    assert!(text.contains("developer__text_editor"), "{text}");
    let after: Vec<Vec<u8>> = ["goose/hand-written/sessions/sessions.db", "zed/hand-written/threads/threads.db"]
        .iter()
        .map(|f| fs::read(fixture(f)).unwrap())
        .collect();
    assert_eq!(before, after);
    let names: Vec<String> = fs::read_dir(home.path().join(".local/share/goose/sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with("-wal") || n.ends_with("-shm")), "{names:?}");
}

#[test]
fn usage_counts_each_agents_calls() {
    let home = home();
    let report = json_out(&sess_at(home.path(), &["usage", "--timezone", "UTC", "--json"], ""));
    let mut got: Vec<(String, u64)> = report["totals"]["sourceBreakdowns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["source"].as_str().unwrap().to_owned(), b["calls"].as_u64().unwrap()))
        .collect();
    got.sort();
    // Goose: 4 ledger rows and the older file's one; Crush: a call per session
    // and subagent that counted tokens (the second session counted none);
    // Zed: a call per request (the older thread's empty one left out).
    let expected = [("crush", 2), ("goose", 5), ("zed", 3)];
    assert_eq!(got, expected.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect::<Vec<_>>(), "{report}");
}

#[test]
fn the_catalog_search_and_archive_read_them_and_leave_them_as_they_were() {
    let home = home();
    let databases = [
        ".local/share/goose/sessions/sessions.db",
        "work/alpha/.crush/crush.db",
        ".local/share/zed/threads/threads.db",
    ];
    let before: Vec<Vec<u8>> = databases.iter().map(|d| fs::read(home.path().join(d)).unwrap()).collect();
    for source in ["goose", "crush", "zed"] {
        let args = ["list", "--source", source, "--all-projects", "--json"];
        let from_catalog = sess_at(home.path(), &args, "");
        let from_files = sess_at(home.path(), &[&args[..], &["--no-catalog"]].concat(), "");
        assert_eq!(from_catalog.stdout, from_files.stdout, "{source}");
    }
    let index = sess_at(home.path(), &["index"], "");
    assert!(index.status.success(), "{}", stderr(&index));
    for (query, source, id) in [
        ("Makefile", "zed", "5b3f6a1c-0000-4000-8000-000000000002"),
        ("exclamation", "goose", "20251201_1"),
        ("README", "crush", "5f0c1a6e-1b2f-4c39-9a51-0a1b2c3d4e5f"),
    ] {
        let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", query, "--json"], ""));
        let found: Vec<(&str, &str)> = hits
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["source"].as_str().unwrap(), h["id"].as_str().unwrap()))
            .collect();
        assert!(found.contains(&(source, id)), "{query}: {hits}");
    }
    let archive = sess_at(home.path(), &["archive", "--json"], "");
    assert!(archive.status.success(), "{}", stderr(&archive));
    let report = json_out(&archive);
    assert_eq!(report["sessions"], 7, "{report}");
    assert_eq!(report["failed"], json!([]), "{report}");
    let after: Vec<Vec<u8>> = databases.iter().map(|d| fs::read(home.path().join(d)).unwrap()).collect();
    assert!(before == after, "a database changed");
}
