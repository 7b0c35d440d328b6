//! Kilo Code's CLI end to end: `sess list`, `show`, `search` after `index`,
//! `usage` and `archive` over a home where the Kilo CLI keeps the real
//! fixture's `kilo.db` and OpenCode its `opencode.db`: each source lists its
//! own sessions only, and both databases are read without being changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::Path;

use serde_json::Value;

use common::{fixture, json_out, sess_at, stderr};

const KILO_DB: &str = ".local/share/kilo/kilo.db";
const OPENCODE_DB: &str = ".local/share/opencode/opencode.db";

fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for (from, to) in [("kilo/real-7.7.9/kilo.db", KILO_DB), ("opencode/real-1.18.33/opencode.db", OPENCODE_DB)] {
        let to = home.path().join(to);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(fixture(from), to).unwrap();
    }
    home
}

/// The driver's report of the run the Kilo fixture comes from.
fn scenario() -> Value {
    serde_json::from_slice(&fs::read(fixture("kilo/real-7.7.9/scenario.json")).unwrap()).unwrap()
}

fn listed(home: &Path, source: &str) -> Vec<Value> {
    let output = sess_at(home, &["list", "--source", source, "--all-projects", "--json"], "");
    assert!(output.status.success(), "{}", stderr(&output));
    json_out(&output).as_array().unwrap().clone()
}

fn ids(listed: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = listed.iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect();
    ids.sort();
    ids
}

#[test]
fn kilo_and_opencode_each_list_their_own_and_show_reads_kilos() {
    let home = home();
    let before = (fs::read(home.path().join(KILO_DB)).unwrap(), fs::read(home.path().join(OPENCODE_DB)).unwrap());
    let scenario = scenario();
    let mut expected: Vec<String> = scenario["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["parentId"].is_null())
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    expected.sort();
    let kilo = listed(home.path(), "kilo");
    assert_eq!(ids(&kilo), expected);
    assert!(kilo.iter().all(|s| s["source"] == "kilo"), "{kilo:?}");
    let opencode = listed(home.path(), "opencode");
    assert!(!opencode.is_empty() && opencode.iter().all(|s| s["source"] == "opencode"), "{opencode:?}");
    assert!(ids(&opencode).iter().all(|id| !expected.contains(id)));
    let all = listed(home.path(), "all");
    assert_eq!(all.len(), kilo.len() + opencode.len());

    let work = scenario["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["turns"][0]["prompt"].as_str().unwrap().starts_with("Check the workspace"))
        .unwrap();
    let id = work["id"].as_str().unwrap();
    let output = sess_at(home.path(), &["show", id, "--all", "--json"], "");
    let shown = json_out(&output);
    assert_eq!(shown["source"], "kilo", "{}", stderr(&output));
    assert_eq!(shown["cwd"], work["cwd"]);
    let text = shown.to_string();
    for wanted in ["call_echo", "call_missing", "notes.txt", "first note"] {
        assert!(text.contains(wanted), "{wanted}: {text}");
    }
    let plain = sess_at(home.path(), &["show", id], "");
    assert!(plain.status.success(), "{}", stderr(&plain));

    let after = (fs::read(home.path().join(KILO_DB)).unwrap(), fs::read(home.path().join(OPENCODE_DB)).unwrap());
    assert!(before == after, "a database changed");
    let names: Vec<String> = fs::read_dir(home.path().join(".local/share/kilo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["kilo.db"], "files beside the database");
}

#[test]
fn the_catalog_search_usage_and_archive_read_kilos_database_and_leave_it_as_it_was() {
    let home = home();
    let before = fs::read(home.path().join(KILO_DB)).unwrap();
    let args = ["list", "--source", "kilo", "--all-projects", "--json"];
    let from_catalog = sess_at(home.path(), &args, "");
    let from_files = sess_at(home.path(), &[&args[..], &["--no-catalog"]].concat(), "");
    assert_eq!(from_catalog.stdout, from_files.stdout);

    let index = sess_at(home.path(), &["index"], "");
    assert!(index.status.success(), "{}", stderr(&index));
    let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", "haiku", "--json"], ""));
    let sources: Vec<&str> = hits.as_array().unwrap().iter().map(|h| h["source"].as_str().unwrap()).collect();
    assert!(sources.contains(&"kilo"), "{hits}");

    let report = json_out(&sess_at(home.path(), &["usage", "--timezone", "UTC", "--json"], ""));
    let kilo = report["totals"]["sourceBreakdowns"].as_array().unwrap().iter().find(|b| b["source"] == "kilo");
    let calls = kilo.and_then(|b| b["calls"].as_u64()).unwrap_or(0);
    assert!(calls >= 10, "{report}");

    let archive = sess_at(home.path(), &["archive", "--json"], "");
    assert!(archive.status.success(), "{}", stderr(&archive));
    let report = json_out(&archive);
    assert_eq!(report["failed"], serde_json::json!([]), "{report}");
    assert_eq!(fs::read(home.path().join(KILO_DB)).unwrap(), before, "the database changed");
}
