//! Factory Droid and Prime Agent end to end: `sess list`, `show`, `search`
//! after `index`, `usage` and `archive` over a home laid out as each agent lays
//! it out (Droid's sessions as the real 0.225.2 CLI wrote them, and the
//! hand-written ones; Prime Agent's hand-written), and the files are
//! byte-identical afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use common::{fixture, json_out, sess_at, stderr};

const ALPHA: &str = "01628ddc-721c-484e-af2b-0e59f9158f8f";
const BETA: &str = "d41da6e2-4279-436b-b577-df48f810aed8";
const GAMMA: &str = "5d1c2a9e-7b41-4c1e-9f0a-3e2b8c6d4f10";
const PRIME: &str = "019aa1b2-4c3d-7e5f-8a9b-0c1d2e3f4a5b";
const PRIME_CHILD: &str = "019aa1b2-5d6e-7f80-9a1b-2c3d4e5f6a7b";

/// Copies every file under `from` to `to`, keeping the layout.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file of the agents' folders in `home` with its bytes.
fn agents_files(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    [snapshot(&home.join(".factory")), snapshot(&home.join(".prime"))].concat()
}

/// Every file under `dir` with its bytes, sorted by path.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

/// A home with Droid's sessions (`~/.factory/sessions`) and Prime Agent's
/// (`~/.prime/agent/sessions`).
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join(".factory/sessions");
    copy_tree(&fixture("droid/real-0.225.2/factory-home/sessions"), &sessions);
    copy_tree(&fixture("droid/hand-written/factory-home/sessions"), &sessions);
    copy_tree(
        &fixture("prime-agent/hand-written/prime-home/agent/sessions"),
        &home.path().join(".prime/agent/sessions"),
    );
    home
}

fn listed(home: &Path, args: &[&str]) -> Vec<(String, String, u64)> {
    let list = json_out(&sess_at(home, args, ""));
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
    got
}

#[test]
fn droid_sessions_are_listed_shown_and_searched() {
    let home = home();
    let before = agents_files(home.path());
    let list = ["list", "--source", "droid", "--all-projects", "--json"];
    let tidy = "Tidy the notes: print them, read absent.txt, rename beta to gamma, add a todo file, and ask a helper to count the notes.";
    assert_eq!(
        listed(home.path(), &list),
        [
            (ALPHA.to_owned(), tidy.to_owned(), 4),
            (GAMMA.to_owned(), "Count the notes with a helper".to_owned(), 3),
            (BETA.to_owned(), "Say hello in one short sentence.".to_owned(), 2),
        ]
    );
    assert_eq!(listed(home.path(), &[&list[..], &["--no-catalog"]].concat()), listed(home.path(), &list));
    let shown = json_out(&sess_at(home.path(), &["show", ALPHA, "--all", "--json"], ""));
    assert_eq!(shown["source"], "droid");
    assert_eq!(shown["cwd"], "/home/dev/projects/alpha");
    let calls: Vec<(String, String)> = shown["messages"][1]["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_call")
        .map(|b| (b["name"].as_str().unwrap().to_owned(), b["status"].as_str().unwrap().to_owned()))
        .collect();
    let expected = [
        ("Execute", "succeeded"),
        ("Read", "failed"),
        ("Edit", "succeeded"),
        ("Create", "succeeded"),
        ("Task", "failed"),
    ];
    assert_eq!(calls, expected.map(|(n, s)| (n.to_owned(), s.to_owned())));
    // The Edit call shows as a diff of the file it names.
    let edit = &shown["messages"][1]["blocks"][4];
    assert_eq!(edit["name"], "Edit");
    assert!(edit["diffs"].to_string().contains("gamma"), "{edit}");
    // A subagent's session is shown under its call, not listed.
    let gamma = json_out(&sess_at(home.path(), &["show", GAMMA, "--all", "--json"], ""));
    assert_eq!(gamma["messages"][1]["blocks"][0]["subagent"].as_array().unwrap().len(), 2, "{gamma}");
    let index = sess_at(home.path(), &["index"], "");
    assert!(index.status.success(), "{}", stderr(&index));
    for (query, id) in [("gamma", ALPHA), ("hello", BETA), ("helper", GAMMA)] {
        let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", query, "--json"], ""));
        let found: Vec<(&str, &str)> = hits
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["source"].as_str().unwrap(), h["id"].as_str().unwrap()))
            .collect();
        assert!(found.contains(&("droid", id)), "{query}: {hits}");
    }
    assert!(before == agents_files(home.path()), "a file of the agents changed");
}

#[test]
fn prime_agent_sessions_are_pi_family_with_their_bookkeeping_kept() {
    let home = home();
    let before = snapshot(&home.path().join(".prime"));
    let list = ["list", "--source", "pi", "--all-projects", "--json"];
    let got = listed(home.path(), &list);
    let ids: Vec<&str> = got.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, [PRIME, PRIME_CHILD]);
    assert_eq!(got[0].1, "Summarize the two logs with a helper.");
    // A project's sessions: the flat folder's files whose header names it.
    let in_delta = sess_at(home.path(), &["list", "--source", "pi", "--json", "--cwd", "/home/dev/projects/delta"], "");
    let in_delta: Value = json_out(&in_delta);
    assert_eq!(in_delta.as_array().unwrap().len(), 2, "{in_delta}");
    let shown = json_out(&sess_at(home.path(), &["show", PRIME, "--all", "--json"], ""));
    assert_eq!(shown["source"], "pi");
    let roles: Vec<&str> = shown["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant"], "{shown}");
    let text = shown.to_string();
    assert!(text.contains("The app log has two warnings."), "{text}");
    assert!(text.contains("spawn_task"), "{text}");
    assert!(before == snapshot(&home.path().join(".prime")), "a Prime Agent file changed");
}

#[test]
fn usage_counts_droid_totals_and_prime_agents_own_calls() {
    let home = home();
    let report = json_out(&sess_at(home.path(), &["usage", "--timezone", "UTC", "--json"], ""));
    let breakdowns: Vec<(String, u64, u64)> = report["totals"]["sourceBreakdowns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["source"].as_str().unwrap().to_owned(),
                b["calls"].as_u64().unwrap(),
                b["inputTokens"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    // Droid: one call per session (its settings file's total), the subagent's
    // session too; Prime Agent: the assistant messages as written (the
    // attributions are not counted again), the child's in its own file.
    let droid = breakdowns.iter().find(|(s, _, _)| s == "droid").unwrap();
    assert_eq!(droid.1, 4, "{report}");
    let pi = breakdowns.iter().find(|(s, _, _)| s == "pi").unwrap();
    assert_eq!((pi.1, pi.2), (3, 280), "{report}");
}

#[test]
fn the_archive_keeps_them_with_their_settings_files() {
    let home = home();
    let before = agents_files(home.path());
    let archive = sess_at(home.path(), &["archive", "--json"], "");
    assert!(archive.status.success(), "{}", stderr(&archive));
    let report = json_out(&archive);
    assert_eq!(report["failed"], json!([]), "{report}");
    // Droid's four sessions (a subagent's too) with their settings files, Prime Agent's two.
    assert_eq!((report["sessions"].as_u64(), report["filesStored"].as_u64()), (Some(6), Some(10)), "{report}");
    assert!(before == agents_files(home.path()), "a file of the agents changed");
}
