//! Kilo Code end to end: `sess list`, `show`, `search` after `index`,
//! `usage` and `archive` over a home where the Kilo CLI keeps the real
//! fixture's `kilo.db` and OpenCode its `opencode.db`: each source lists its
//! own sessions only, and both databases are read without being changed;
//! with the legacy VS Code extension's task folder beside them, `--source
//! kilo` lists and shows both kinds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::Path;

use serde_json::Value;

use common::{copy_dir, fixture, json_out, sess_at, stderr};

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

/// The hand-written task of Kilo Code's legacy extension.
const TASK: &str = "7c1d9e2a-3b4f-4c5d-8e6f-0a1b2c3d4e5f";
const EXTENSION: &str = ".config/Code/User/globalStorage/kilocode.kilo-code";

#[test]
fn the_legacy_extensions_tasks_are_listed_and_shown_beside_the_clis_sessions() {
    let home = home();
    let storage = home.path().join(EXTENSION);
    copy_dir(&fixture("kilo/hand-written/Code/User/globalStorage/kilocode.kilo-code"), &storage);
    let task_file = storage.join("tasks").join(TASK).join("api_conversation_history.json");
    let before = (fs::read(&task_file).unwrap(), fs::read(home.path().join(KILO_DB)).unwrap());

    let kilo = listed(home.path(), "kilo");
    assert!(kilo.iter().all(|s| s["source"] == "kilo"), "{kilo:?}");
    let from_database = scenario()["sessions"].as_array().unwrap().iter().filter(|s| s["parentId"].is_null()).count();
    assert_eq!(kilo.len(), from_database + 1, "{kilo:?}");
    let task = kilo.iter().find(|s| s["id"] == TASK).expect("the extension's task is listed");
    assert_eq!(task["cwd"], "/home/user/work/delta");
    assert!(task.to_string().contains("Add a changelog to the delta project"), "{task}");
    // Neither Cline nor Roo Code lists it.
    assert!(listed(home.path(), "roo").is_empty());
    assert!(listed(home.path(), "cline").is_empty());

    let output = sess_at(home.path(), &["show", TASK, "--all", "--json"], "");
    let shown = json_out(&output);
    assert_eq!(shown["source"], "kilo", "{}", stderr(&output));
    assert_eq!(shown["cwd"], "/home/user/work/delta");
    let text = shown.to_string();
    for wanted in ["write_to_file", "CHANGELOG.md", "ENOENT", "Use today's date in the heading"] {
        assert!(text.contains(wanted), "{wanted}: {text}");
    }
    let by_path = sess_at(home.path(), &["show", task_file.to_str().unwrap(), "--json"], "");
    assert_eq!(json_out(&by_path)["source"], "kilo", "{}", stderr(&by_path));

    let index = sess_at(home.path(), &["index"], "");
    assert!(index.status.success(), "{}", stderr(&index));
    let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", "changelog", "--json"], ""));
    assert!(hits.as_array().unwrap().iter().any(|h| h["source"] == "kilo"), "{hits}");

    let after = (fs::read(&task_file).unwrap(), fs::read(home.path().join(KILO_DB)).unwrap());
    assert!(before == after, "a file changed");
}
