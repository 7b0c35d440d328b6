//! Aider end to end: its chat histories, found in the folders another agent's
//! sessions name (up to their git root) and in the folders the user names,
//! listed one run a session, shown, searched after `sess index`, counted by
//! `sess usage` and archived; the histories are left as they were. The
//! histories are those the real Aider 0.86.2 wrote (`fixtures/aider/`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use common::{SessRun, fixture, json_out, stderr};

/// A home with a git repository `work/repo` whose history Aider wrote from
/// `work/repo/sub`, a folder `work/plain` without git, a history moved to
/// `moved/chat.md`, and a Claude Code session that worked in `work/repo/sub`
/// (which is how `sess` finds the repository). `work/plain` is found only
/// when named.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    fs::create_dir_all(work.join("repo/.git")).unwrap();
    fs::create_dir_all(work.join("repo/sub")).unwrap();
    fs::create_dir_all(work.join("plain")).unwrap();
    fs::create_dir_all(home.path().join("moved")).unwrap();
    let real = "aider/real-0.86.2";
    fs::copy(fixture(&format!("{real}/repo/.aider.chat.history.md")), work.join("repo/.aider.chat.history.md"))
        .unwrap();
    fs::copy(fixture(&format!("{real}/plain/.aider.chat.history.md")), work.join("plain/.aider.chat.history.md"))
        .unwrap();
    fs::copy(fixture(&format!("{real}/moved/chat.md")), home.path().join("moved/chat.md")).unwrap();
    let claude = home.path().join(".claude/projects/-work-repo-sub");
    fs::create_dir_all(&claude).unwrap();
    let session = fs::read_to_string(fixture("claude-code/claude-basic-toolcall.jsonl")).unwrap();
    let cwd = work.join("repo/sub").to_string_lossy().into_owned();
    fs::write(
        claude.join("3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c01.jsonl"),
        session.replace("/home/alice/src/todo-api", &cwd),
    )
    .unwrap();
    home
}

fn histories(home: &Path) -> Vec<PathBuf> {
    ["work/repo/.aider.chat.history.md", "work/plain/.aider.chat.history.md", "moved/chat.md"]
        .iter()
        .map(|p| home.join(p))
        .collect()
}

/// `sess ARGS` in `home`, in UTC, with `named` as `$SESS_PROJECT_DIRS`.
fn sess(home: &Path, args: &[&str], named: &[PathBuf]) -> std::process::Output {
    let mut run = SessRun::new(home, args).env("TZ", "UTC");
    if !named.is_empty() {
        run = run.env("SESS_PROJECT_DIRS", std::env::join_paths(named).unwrap());
    }
    run.output()
}

/// `(first message, cwd, message count, parent)` of each listed session,
/// oldest first.
fn listed(list: &Value) -> Vec<(String, String, u64, bool)> {
    let mut items: Vec<&Value> = list.as_array().unwrap().iter().collect();
    items.sort_by_key(|s| s["created"].as_str().unwrap().to_owned());
    items
        .iter()
        .map(|s| {
            (
                s["firstMessage"].as_str().unwrap().to_owned(),
                s["cwd"].as_str().unwrap().to_owned(),
                s["messageCount"].as_u64().unwrap(),
                s["parentSession"].is_string(),
            )
        })
        .collect()
}

#[test]
fn runs_are_listed_from_the_folders_other_agents_and_the_user_name() {
    let home = home();
    let before: Vec<Vec<u8>> = histories(home.path()).iter().map(|p| fs::read(p).unwrap()).collect();
    let args = ["list", "--source", "aider", "--all-projects", "--json"];

    // Found through the Claude Code session's folder alone: the repository's two runs.
    let list = json_out(&sess(home.path(), &args, &[]));
    let repo = [
        ("Say hello in one short sentence.".to_owned(), "/home/dev/repo/sub".to_owned(), 12, false),
        ("Summarize what you did in one line.".to_owned(), "/home/dev/repo/sub".to_owned(), 3, true),
    ];
    assert_eq!(listed(&list), repo);
    let items = list.as_array().unwrap();
    assert!(items.iter().all(|s| s["source"] == "aider" && s["title"].is_null()), "{list}");
    let first = items.iter().find(|s| s["created"] == "2026-12-02T02:51:47.000Z").unwrap();
    assert!(first["id"].as_str().unwrap().starts_with("20261202T025147-"), "{first}");
    let resumed = items.iter().find(|s| s["parentSession"].is_string()).unwrap();
    assert_eq!(resumed["parentSession"], first["id"]);

    // Read from the catalog or from the files, the listing is the same.
    let files = sess(home.path(), &[&args[..], &["--no-catalog"]].concat(), &[]);
    assert_eq!(listed(&json_out(&files)), repo);

    // The folder and the moved history the user names, by variable and by flag.
    let plain = home.path().join("work/plain");
    let moved = home.path().join("moved/chat.md");
    let by_var = json_out(&sess(home.path(), &args, &[plain.clone(), moved.clone()]));
    let moved_arg = moved.to_string_lossy().into_owned();
    let by_flag = json_out(&sess(home.path(), &[&["--project-dir", &moved_arg][..], &args[..]].concat(), &[plain]));
    for list in [&by_var, &by_flag] {
        let got = listed(list);
        assert_eq!(got.len(), 4, "{list}");
        assert_eq!(got[..2], repo);
        assert_eq!(got[2].0, "Say hello from a folder without git.");
        assert_eq!(got[2].1, home.path().join("work/plain").to_string_lossy());
        assert_eq!(got[3].0, "Say hello with the history moved.");
    }
    // Once the catalog holds their sessions, their folders are known without
    // naming them; a moved history (not named as Aider names it) is found
    // only when named.
    assert_eq!(listed(&json_out(&sess(home.path(), &args, &[]))).len(), 3);
    let after: Vec<Vec<u8>> = histories(home.path()).iter().map(|p| fs::read(p).unwrap()).collect();
    assert!(before == after, "a history changed");
}

#[test]
fn a_run_shows_its_turns_commands_and_edits() {
    let home = home();
    let list = json_out(&sess(home.path(), &["list", "--source", "aider", "--all-projects", "--json"], &[]));
    let id =
        list.as_array().unwrap().iter().find(|s| s["messageCount"] == 12).unwrap()["id"].as_str().unwrap().to_owned();
    let output = sess(home.path(), &["show", &id, "--all", "--json"], &[]);
    let shown = json_out(&output);
    assert_eq!(shown["source"], "aider", "{}", stderr(&output));
    assert_eq!(shown["cwd"], "/home/dev/repo/sub");
    let roles: Vec<&str> = shown["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "user",
            "user",
            "user",
            "assistant",
            "user",
            "assistant",
            "assistant",
            "user",
            "assistant"
        ]
    );
    let calls: Vec<(Value, Value, Value)> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .filter(|b| b["type"] == "tool_call")
        .map(|b| (b["name"].clone(), b["status"].clone(), b["input"].clone()))
        .collect();
    assert_eq!(
        calls,
        [
            (json!("run"), json!("succeeded"), json!({"command": "echo hi"})),
            (json!("run"), json!("succeeded"), json!({"command": "cat missing.txt"})),
            (
                json!("edit"),
                json!("succeeded"),
                json!({"path": "greet.txt", "search": "hello world\n", "replace": "goodbye world\n"})
            ),
            (
                json!("edit"),
                json!("failed"),
                json!({"path": "greet.txt", "search": "hello moon\n", "replace": "hello sun\n"})
            ),
        ]
    );
    // The text view: the prompt, the answer, the edit as a diff.
    let text = String::from_utf8(sess(home.path(), &["show", &id, "--all"], &[]).stdout).unwrap();
    for wanted in ["Say hello in one short sentence.", "Hello from the fake model!", "-hello world", "+goodbye world"] {
        assert!(text.contains(wanted), "{wanted:?} not in\n{text}");
    }
    // The history named by its path: its last run.
    let path = home.path().join("work/repo/.aider.chat.history.md");
    let newest = json_out(&sess(home.path(), &["show", path.to_str().unwrap(), "--all", "--json"], &[]));
    assert_eq!(newest["messages"][1]["blocks"][0]["text"], "Summarize what you did in one line.");
}

#[test]
fn the_catalog_usage_and_archive_read_the_runs() {
    let home = home();
    let before: Vec<Vec<u8>> = histories(home.path()).iter().map(|p| fs::read(p).unwrap()).collect();
    let index = sess(home.path(), &["index"], &[]);
    assert!(index.status.success(), "{}", stderr(&index));
    let hits = json_out(&sess(home.path(), &["search", "--all-projects", "goodbye", "--json"], &[]));
    assert!(hits.as_array().unwrap().iter().any(|h| h["source"] == "aider"), "{hits}");

    let report = json_out(&sess(home.path(), &["usage", "--timezone", "UTC", "--json"], &[]));
    let aider: Vec<&Value> =
        report["totals"]["sourceBreakdowns"].as_array().unwrap().iter().filter(|b| b["source"] == "aider").collect();
    // Five answers in the first run, one in the resumed one.
    assert_eq!(aider[0]["calls"], 6, "{report}");

    let archive = json_out(&sess(home.path(), &["archive", "--json"], &[]));
    assert_eq!(archive["failed"], json!([]), "{archive}");
    let url = format!("sqlite:{}", home.path().join(".local/share/sess/archive.sqlite").display());
    let archived = json_out(&sess(home.path(), &["--store", &url, "list", "--json"], &[]));
    let ids: Vec<&str> = archived
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["source"] == "aider")
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{archived}");
    // An archived run reads as the run itself.
    for id in ids {
        let mut kept = json_out(&sess(home.path(), &["--store", &url, "show", id, "--all", "--json"], &[]));
        let mut original = json_out(&sess(home.path(), &["show", id, "--all", "--json"], &[]));
        kept.as_object_mut().unwrap().remove("path");
        original.as_object_mut().unwrap().remove("path");
        assert_eq!(kept, original, "{id}");
    }
    let after: Vec<Vec<u8>> = histories(home.path()).iter().map(|p| fs::read(p).unwrap()).collect();
    assert!(before == after, "a history changed");
}
