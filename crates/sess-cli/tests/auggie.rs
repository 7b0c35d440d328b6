//! Auggie end to end: `sess list`, `show`, `search` after `index` and
//! `usage` over a home laid out as the CLI lays it out
//! (`~/.augment/sessions/`, and a folder `SESS_AUGGIE_CACHE_DIR` names), from
//! the hand-written sessions of `fixtures/auggie/hand-written/`. The files
//! are read without being changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use common::{copy_dir, fixture, json_out, sess_at, stderr};

const FIRST: &str = "5b0e7c1a-2f4d-4e8b-9a63-1c2d3e4f5a6b";
const COMPACTED: &str = "8d9e0f1a-3b4c-4d5e-8f60-7a8b9c0d1e2f";

/// A home whose `~/.augment/sessions/` holds the fixtures' sessions.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_dir(&fixture("auggie/hand-written/augment-home/.augment"), &home.path().join(".augment"));
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
fn sessions_list_and_show_their_calls_and_edits_as_diffs() {
    let home = home();
    let before = files(&home.path().join(".augment"));
    let list = json_out(&sess_at(home.path(), &["list", "--source", "auggie", "--all-projects", "--json"], ""));
    let mut got: Vec<(&str, &str, &str, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap(),
                s["cwd"].as_str().unwrap(),
                s["title"].as_str().unwrap(),
                s["messageCount"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort_unstable();
    assert_eq!(
        got,
        [(FIRST, "/home/dev/project", "Edit notes.txt", 7), (COMPACTED, "/home/dev/other", "My renamed session", 5)]
    );
    let in_project =
        json_out(&sess_at(home.path(), &["list", "--source", "auggie", "--cwd", "/home/dev/project", "--json"], ""));
    assert_eq!(in_project.as_array().unwrap().len(), 1);

    let output = sess_at(home.path(), &["show", FIRST, "--all", "--json"], "");
    let shown = json_out(&output);
    assert_eq!(shown["source"], "auggie", "{}", stderr(&output));
    let found: Vec<(&str, &str)> =
        calls(&shown).iter().map(|c| (c["name"].as_str().unwrap(), c["status"].as_str().unwrap())).collect();
    assert_eq!(
        found,
        [
            ("view", "succeeded"),
            ("str-replace-editor", "succeeded"),
            ("launch-process", "failed"),
            ("save-file", "succeeded"),
        ]
    );
    assert_eq!(
        calls(&shown)[1]["diffs"],
        json!([{
            "path": "notes.txt", "newFile": false, "added": 1, "removed": 1,
            "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": [
                {"kind": "remove", "text": "second note"}, {"kind": "add", "text": "edited note"},
            ]}],
        }])
    );
    assert_eq!(calls(&shown)[3]["diffs"][0]["newFile"], true, "{shown}");
    let text = String::from_utf8(sess_at(home.path(), &["show", FIRST], "").stdout).unwrap();
    assert!(text.contains("✗ launch-process"), "{text}");
    let compacted = json_out(&sess_at(home.path(), &["show", COMPACTED, "--all", "--json"], ""));
    assert_eq!(compacted["messages"][0]["blocks"][0]["type"], "summary", "{compacted}");
    assert_eq!(files(&home.path().join(".augment")), before, "a file changed");
}

#[test]
fn a_moved_folder_is_read_where_augment_cache_dir_names_it() {
    let home = tempfile::tempdir().unwrap();
    let moved = home.path().join("elsewhere");
    copy_dir(&fixture("auggie/hand-written/moved"), &moved);
    let output = common::sess_command(home.path())
        .env("SESS_AUGGIE_CACHE_DIR", &moved)
        .args(["list", "--source", "auggie", "--all-projects", "--json"])
        .output()
        .unwrap();
    let list = json_out(&output);
    assert_eq!(list[0]["firstMessage"], "Say hello from the moved folder.", "{list}");
    assert_eq!(list.as_array().unwrap().len(), 1);
}

#[test]
fn the_catalog_search_and_usage_read_them_and_leave_them_as_they_were() {
    let home = home();
    let before = files(&home.path().join(".augment"));
    let args = ["list", "--source", "auggie", "--all-projects", "--json"];
    let from_catalog = sess_at(home.path(), &args, "");
    let from_files = sess_at(home.path(), &[&args[..], &["--no-catalog"]].concat(), "");
    assert_eq!(from_catalog.stdout, from_files.stdout);
    let index = sess_at(home.path(), &["index"], "");
    assert!(index.status.success(), "{}", stderr(&index));
    let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", "missing.txt", "--json"], ""));
    let found: Vec<(&str, &str)> =
        hits.as_array().unwrap().iter().map(|h| (h["source"].as_str().unwrap(), h["id"].as_str().unwrap())).collect();
    assert!(found.contains(&("auggie", FIRST)), "{hits}");
    let after = json_out(&sess_at(home.path(), &args, ""));
    assert_eq!(after, json_out(&from_files), "the catalog lists them as the files do");

    // One call a response with a token usage node.
    let report = json_out(&sess_at(home.path(), &["usage", "--timezone", "UTC", "--json"], ""));
    let breakdown = report["totals"]["sourceBreakdowns"].as_array().unwrap();
    let auggie = breakdown.iter().find(|b| b["source"] == "auggie").unwrap();
    assert_eq!(auggie["calls"], 6, "{report}");
    assert_eq!(auggie["outputTokens"], 40 + 60 + 20 + 70 + 25 + 10, "{report}");
    assert_eq!(files(&home.path().join(".augment")), before, "a file changed");
}
