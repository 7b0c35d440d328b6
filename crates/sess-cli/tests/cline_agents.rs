//! Cline (its CLI's sessions and its VS Code extension's task folders) and
//! Roo Code (the same task folders under its own extension id), end to end:
//! `sess list`, `show`, `search` after `index`, `usage` and `archive` over a home laid
//! out as the agents lay it out, from the fixtures (the CLI's written by the
//! real Cline CLI 3.0.65, the extensions' by hand). Their files are read
//! without being changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use common::{fixture, json_out, sess_at, stderr};

/// Every file under `dir`, by its path relative to `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { stack.push(path) } else { out.push(path.strip_prefix(dir).unwrap().to_owned()) }
        }
    }
    out.sort();
    out
}

/// Copies the fixture folder `from` into `to`.
fn copy_tree(from: &Path, to: &Path) {
    for file in files_under(from) {
        if file.extension().is_some_and(|e| e == "py" || e == "md") {
            continue;
        }
        fs::create_dir_all(to.join(&file).parent().unwrap()).unwrap();
        fs::copy(from.join(&file), to.join(&file)).unwrap();
    }
}

/// A home with the Cline CLI's sessions in `~/.cline`, Cline's tasks in the
/// user folders of VS Code and Cursor, and Roo Code's in VS Code's.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture("cline/real-3.0.65/home"), home.path());
    copy_tree(&fixture("cline/hand-written"), &home.path().join(".config"));
    copy_tree(&fixture("roo/hand-written"), &home.path().join(".config"));
    home
}

/// Every file of the agents in `home`, with its bytes.
fn snapshot(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for dir in [".cline", ".config"] {
        for file in files_under(&home.join(dir)) {
            let path = home.join(dir).join(file);
            files.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
    files
}

fn listed(home: &Path, source: &str) -> Vec<(String, String, u64)> {
    let list = json_out(&sess_at(home, &["list", "--source", source, "--all-projects", "--json"], ""));
    let mut got: Vec<(String, String, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["cwd"].as_str().unwrap_or_default().to_owned(),
                s["messageCount"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    got
}

fn triples(items: &[(&str, &str, u64)]) -> Vec<(String, String, u64)> {
    items.iter().map(|(a, b, n)| ((*a).to_owned(), (*b).to_owned(), *n)).collect()
}

#[test]
fn cline_and_roo_code_list_their_sessions_and_show_one() {
    let home = home();
    let before = snapshot(home.path());
    assert_eq!(
        listed(home.path(), "cline"),
        triples(&[
            ("1764583200000", "/home/user/work/alpha", 8),
            ("1764586800000", "/home/user/work/beta", 5),
            ("1764590400000", "", 0),
            ("1796610431144_ilp6c", "/home/dev/projects/alpha", 6),
            ("1796610442252_mv71u", "/home/dev/projects/alpha", 2),
            ("1796610452091_l0k44", "/home/dev/projects/beta", 4),
            ("1796610489255_4jj8x", "/home/dev/projects/beta", 4),
        ])
    );
    assert_eq!(
        listed(home.path(), "roo"),
        triples(&[("0b4e2c1a-5d6f-4a8b-9c0d-1e2f3a4b5c6d", "/home/user/work/gamma", 6)])
    );
    for (id, source, messages) in
        [("1764583200000", "cline", 8), ("1796610431144_ilp6c", "cline", 6), ("0b4e2c1a", "roo", 6)]
    {
        let output = sess_at(home.path(), &["show", id, "--all", "--json"], "");
        let shown: Value = json_out(&output);
        assert_eq!(shown["source"], source, "{id}: {}", stderr(&output));
        assert_eq!(shown["messages"].as_array().unwrap().len(), messages, "{id}");
    }
    // The prompt as the person typed it, not the extension's wrapper.
    let shown = json_out(&sess_at(home.path(), &["show", "1764583200000", "--all", "--json"], ""));
    assert_eq!(shown["messages"][0]["blocks"][0]["text"], "Fix the greeting in src/app.py");
    // The real CLI session's edit shows as a diff.
    let shown = sess_at(home.path(), &["show", "1796610431144_ilp6c", "--all", "--json"], "");
    assert!(String::from_utf8_lossy(&shown.stdout).contains("second note, edited"));
    assert!(before == snapshot(home.path()), "a file changed");
}

#[test]
fn usage_counts_each_request_and_search_finds_them_after_index() {
    let home = home();
    let before = snapshot(home.path());
    let report = json_out(&sess_at(home.path(), &["usage", "--timezone", "UTC", "--json"], ""));
    let mut got: Vec<(String, u64)> = report["totals"]["sourceBreakdowns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["source"].as_str().unwrap().to_owned(), b["calls"].as_u64().unwrap()))
        .collect();
    got.sort();
    // Cline: the first task's 4 requests that counted tokens, the older
    // task's 2, and the CLI's 5 + 2 + 2 model calls; Roo Code: 3 requests.
    assert_eq!(got, [("cline".to_owned(), 15), ("roo".to_owned(), 3)], "{report}");
    let index = sess_at(home.path(), &["index"], "");
    assert!(index.status.success(), "{}", stderr(&index));
    for (query, source, id) in [
        ("greeting", "cline", "1764583200000"),
        ("notes", "cline", "1796610431144_ilp6c"),
        ("caller", "roo", "0b4e2c1a-5d6f-4a8b-9c0d-1e2f3a4b5c6d"),
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
    // The archive keeps every session but the one whose conversation was cut
    // off, which it reports.
    let archive = sess_at(home.path(), &["archive", "--json"], "");
    let report = json_out(&archive);
    assert_eq!(
        (report["sessions"].as_u64(), report["failed"].as_array().map(Vec::len)),
        (Some(8), Some(0)),
        "{report}"
    );
    let unreadable = report["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1, "{report}");
    assert!(unreadable[0][0].as_str().unwrap().contains("1764590400000"), "{report}");
    for source in ["cline", "roo"] {
        let args = ["list", "--source", source, "--all-projects", "--json"];
        let from_catalog = sess_at(home.path(), &args, "");
        let from_files = sess_at(home.path(), &[&args[..], &["--no-catalog"]].concat(), "");
        assert_eq!(from_catalog.stdout, from_files.stdout, "{source}");
    }
    assert!(before == snapshot(home.path()), "a file changed");
}
