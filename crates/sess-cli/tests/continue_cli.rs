//! The Continue CLI end to end: `sess list`, `show`, `search` after `index`,
//! `usage` and `archive` over a home laid out as the CLI lays it out
//! (`~/.continue/sessions/`, and a folder `CONTINUE_GLOBAL_DIR` names), from
//! the files the real CLI 1.5.47 wrote (`fixtures/continue/real-1.5.47/`).
//! The files are read without being changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use common::{copy_dir, fixture, json_out, sess_at, stderr};

const FIRST: &str = "7ec94f9e-2ee6-4aa0-9d3d-d893482c6cbe";
const FORK: &str = "5fc86abd-41fb-4032-ab0e-44ea9f0f6f32";

/// A home whose `~/.continue/sessions/` holds the session after its resumed
/// turn (with its tool calls) and the fork.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join(".continue/sessions");
    copy_dir(&fixture("continue/real-1.5.47/steps/2-resume/continue-home/sessions"), &sessions);
    let fork = format!("{FORK}.json");
    fs::copy(fixture(&format!("continue/real-1.5.47/continue-home/sessions/{fork}")), sessions.join(&fork)).unwrap();
    home
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
    out.sort();
    out
}

fn calls(shown: &Value) -> Vec<&Value> {
    shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .filter(|b| b["type"] == "tool_call")
        .collect()
}

#[test]
fn sessions_list_show_their_calls_and_the_edit_as_a_diff() {
    let home = home();
    let before = files(&home.path().join(".continue"));
    let list = json_out(&sess_at(home.path(), &["list", "--source", "continue", "--all-projects", "--json"], ""));
    let mut got: Vec<(&str, &str, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["cwd"].as_str().unwrap(), s["messageCount"].as_u64().unwrap()))
        .collect();
    got.sort_unstable();
    assert_eq!(got, [(FORK, "/home/dev/project", 6), (FIRST, "/home/dev/project", 7)]);
    let in_project =
        json_out(&sess_at(home.path(), &["list", "--source", "continue", "--cwd", "/home/dev/project", "--json"], ""));
    assert_eq!(in_project.as_array().unwrap().len(), 2);

    let output = sess_at(home.path(), &["show", FIRST, "--all", "--json"], "");
    let shown = json_out(&output);
    assert_eq!(shown["source"], "continue", "{}", stderr(&output));
    let found: Vec<(&str, &str)> =
        calls(&shown).iter().map(|c| (c["name"].as_str().unwrap(), c["status"].as_str().unwrap())).collect();
    assert_eq!(found, [("Read", "succeeded"), ("MultiEdit", "succeeded"), ("Bash", "failed")]);
    assert_eq!(
        calls(&shown)[1]["diffs"],
        json!([{
            "path": "/home/dev/project/notes.txt", "newFile": false, "added": 1, "removed": 1,
            "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": [
                {"kind": "remove", "text": "second note"}, {"kind": "add", "text": "edited note"},
            ]}],
        }])
    );
    let text = String::from_utf8(sess_at(home.path(), &["show", FIRST], "").stdout).unwrap();
    assert!(text.contains("✗ Bash"), "{text}");
    let fork = json_out(&sess_at(home.path(), &["show", FORK, "--all", "--json"], ""));
    assert_eq!(fork["messages"][0]["blocks"][0]["type"], "summary", "{fork}");
    assert_eq!(files(&home.path().join(".continue")), before, "a file changed");
}

#[test]
fn a_moved_folder_is_read_where_continue_global_dir_names_it() {
    let home = tempfile::tempdir().unwrap();
    let moved = home.path().join("elsewhere");
    copy_dir(&fixture("continue/real-1.5.47/moved"), &moved);
    let output = common::sess_command(home.path())
        .env("CONTINUE_GLOBAL_DIR", &moved)
        .args(["list", "--source", "continue", "--all-projects", "--json"])
        .output()
        .unwrap();
    let list = json_out(&output);
    assert_eq!(list[0]["firstMessage"], "Say hello from the moved folder.", "{list}");
    assert_eq!(list.as_array().unwrap().len(), 1);
}

#[test]
fn the_catalog_search_usage_and_archive_read_them_and_leave_them_as_they_were() {
    let home = home();
    let before = files(&home.path().join(".continue"));
    let args = ["list", "--source", "continue", "--all-projects", "--json"];
    let from_catalog = sess_at(home.path(), &args, "");
    let from_files = sess_at(home.path(), &[&args[..], &["--no-catalog"]].concat(), "");
    assert_eq!(from_catalog.stdout, from_files.stdout);
    let index = sess_at(home.path(), &["index"], "");
    assert!(index.status.success(), "{}", stderr(&index));
    let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", "missing.txt", "--json"], ""));
    let found: Vec<(&str, &str)> =
        hits.as_array().unwrap().iter().map(|h| (h["source"].as_str().unwrap(), h["id"].as_str().unwrap())).collect();
    assert!(found.contains(&("continue", FIRST)), "{hits}");

    // One call a session: its `usage`, which counts every request it made.
    let report = json_out(&sess_at(home.path(), &["usage", "--timezone", "UTC", "--json"], ""));
    let breakdown = report["totals"]["sourceBreakdowns"].as_array().unwrap();
    let continue_cli = breakdown.iter().find(|b| b["source"] == "continue").unwrap();
    assert_eq!(continue_cli["calls"], 2, "{report}");
    assert_eq!(continue_cli["outputTokens"], 121 + 9, "{report}");

    let archive = sess_at(home.path(), &["archive", "--json"], "");
    assert!(archive.status.success(), "{}", stderr(&archive));
    let report = json_out(&archive);
    assert_eq!(report["sessions"], 2, "{report}");
    assert_eq!(report["failed"], json!([]), "{report}");
    assert_eq!(files(&home.path().join(".continue")), before, "a file changed");
}
