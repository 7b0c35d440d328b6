//! `sess index` and `sess search` over a scratch home where pi-mono, Claude
//! Code and Codex keep sessions.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{CLAUDE_BASIC, CODEX_BASIC, CODEX_FORK, Home, PI_MAIN, stderr, stdout};

fn hits(items: &Value) -> Vec<(&str, &str)> {
    items.as_array().unwrap().iter().map(|i| (i["source"].as_str().unwrap(), i["id"].as_str().unwrap())).collect()
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                pending.push(entry.path());
            } else {
                files.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn index_builds_then_refreshes_without_reading_unchanged_files() {
    let home = Home::new();
    let agents = [".pi", ".claude", ".codex"].map(|d| snapshot(&home.path().join(d)));
    let first = home.json(&["index", "--json"]);
    assert_eq!((first["files"].as_u64(), first["added"].as_u64()), (Some(5), Some(5)), "{first}");
    assert_eq!(first["sessions"].as_u64(), Some(5));
    assert!(first["messages"].as_u64().unwrap() > 10);
    assert!(home.path().join(".local/share/sess/catalog.sqlite").is_file());
    let again = home.json(&["index", "--json"]);
    assert_eq!((again["unchanged"].as_u64(), again["added"].as_u64()), (Some(5), Some(0)));
    // The agents' files are as they were.
    assert_eq!([".pi", ".claude", ".codex"].map(|d| snapshot(&home.path().join(d))), agents);

    let text = stdout(&home.run(&["index"]));
    assert!(text.starts_with("5 sessions in `"), "{text}");
    assert!(text.contains("5 unchanged"), "{text}");
}

#[test]
fn search_finds_each_agents_messages_with_their_entries() {
    let home = Home::new();
    let found = home.json(&["search", "--all-projects", "--json", "\"alternative question\""]);
    assert_eq!(hits(&found), [("pi", PI_MAIN)]);
    let hit = &found[0];
    assert!(hit["entryId"].as_str().is_some_and(|e| !e.is_empty()), "{hit}");
    assert!(hit["path"].as_str().unwrap().ends_with("main.jsonl"));
    let [start, end] = [0, 1].map(|i| usize::try_from(hit["matches"][0][i].as_u64().unwrap()).unwrap());
    assert_eq!(&hit["snippet"].as_str().unwrap()[start..end], "alternative question");

    assert_eq!(hits(&home.json(&["search", "--all-projects", "--json", "uptime"])), [("claude", CLAUDE_BASIC)]);
    // The fork copied the history it continues into its own file: both match.
    let codex = home.json(&["search", "--all-projects", "--json", "test_parse_dates"]);
    let mut found = hits(&codex);
    found.sort_unstable();
    assert_eq!(found, [("codex", CODEX_BASIC), ("codex", CODEX_FORK)]);
    let only_claude = home.json(&["search", "--all-projects", "--json", "--source", "claude", "test_parse_dates"]);
    assert_eq!(hits(&only_claude), []);
}

#[test]
fn search_defaults_to_the_current_project_and_points_elsewhere() {
    let home = Home::new();
    let out = home.run(&["search", "uptime"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("no hits for `uptime` in `"), "{text}");
    assert!(text.contains("1 sessions in other projects match: `sess search --all-projects uptime`"), "{text}");

    let there = home.json(&["search", "--cwd", "/home/dev/demo-project", "--json", "hello"]);
    assert_eq!(hits(&there), [("pi", PI_MAIN)]);
    let text = stdout(&home.run(&["search", "--cwd", "/home/dev/demo-project", "hello"]));
    assert!(text.contains(&format!("sess show {PI_MAIN} --leaf ")), "{text}");
}

#[test]
fn search_without_refresh_sees_only_the_catalog() {
    let home = Home::new();
    let catalog = home.path().join("elsewhere/catalog.sqlite");
    let catalog = catalog.to_str().unwrap();
    assert_eq!(
        hits(&home.json(&["search", "--all-projects", "--json", "--no-refresh", "--catalog", catalog, "uptime"])),
        []
    );
    assert_eq!(hits(&home.json(&["search", "--all-projects", "--json", "--catalog", catalog, "uptime"])).len(), 1);
}

#[test]
fn a_query_with_no_words_is_an_error() {
    let home = Home::new();
    let out = home.run(&["search", "--all-projects", "\"\" *"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has no words to search for"), "{}", stderr(&out));
}
