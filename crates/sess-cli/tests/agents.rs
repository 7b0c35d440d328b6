//! Every read verb on every agent's session: `tree`, `verify`, `context` and
//! `segments` tell Claude Code and Codex files apart as `sess show` does,
//! and every verb takes the same ids.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::{Home, fixture, json_out, ok, sess, stderr, stdout};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The ids of `node` and of its descendants, depth first.
fn ids_below(node: &Value, into: &mut Vec<String>) {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        into.push(node["id"].as_str().unwrap().to_owned());
        stack.extend(node["children"].as_array().unwrap().iter().rev());
    }
}

/// `claude-compact-branch.jsonl` was written by hand in Claude Code's format:
/// the prompt on line 8 was edited, so its line hangs under line 4 beside
/// the first answer's branch (lines 6–7), and a `/compact` boundary (line 12)
/// continues from its `logicalParentUuid`. Its last line is cut on purpose.
#[test]
fn tree_shows_the_branches_of_a_claude_session() {
    let path = fixture("claude-code/claude-compact-branch.jsonl");
    let output = sess(&["tree", path_str(&path)]);
    let text = ok(&output);
    let id = |n: u32| format!("c0ffee00-0002-4b00-9000-{n:012}");
    assert!(text.contains(&format!("├─ {}  user: Drop the min-width.\n", id(5))), "{text}");
    assert!(text.contains(&format!("└─ {}  user: Actually, switch the card to CSS grid instead.\n", id(7))), "{text}");
    assert!(text.contains(&format!("{}  system: compact_boundary  ◆ compaction\n", id(11))), "{text}");
    assert!(text.trim_end().ends_with(&format!("{}  user: [Request interrupted by user]  ← leaf", id(20))), "{text}");
    assert!(stderr(&output).contains("line 25: truncated last line"), "{}", stderr(&output));
    assert!(!stderr(&output).contains("not a session file"), "{}", stderr(&output));

    let tree = json_out(&sess(&["tree", "--json", path_str(&path)]));
    assert_eq!(tree["source"], "claude");
    assert_eq!(tree["leafId"], id(20).as_str());
    let roots = tree["roots"].as_array().unwrap();
    assert_eq!(roots.len(), 1);
    // Down the chain to the branch point.
    let mut node = &roots[0];
    while node["children"].as_array().unwrap().len() == 1 {
        node = &node["children"][0];
    }
    assert_eq!(node["id"], id(4).as_str());
    let branches: Vec<&str> = node["children"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(branches, [id(5), id(7)]);
    let mut all = Vec::new();
    ids_below(&roots[0], &mut all);
    assert_eq!(all.len(), 20, "every line with a uuid is a node once");
}

/// A Claude Code 1.0.x file holds a subagent's turns as `isSidechain` lines
/// of their own chain (written by hand here, in that format).
#[test]
fn tree_marks_sidechain_turns_and_takes_the_leaf_from_the_main_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("5e1dec4a-0000-4000-8000-000000000000.jsonl");
    let line = |uuid: &str, parent: Option<&str>, sidechain: bool, role: &str, text: &str| {
        json!({
            "parentUuid": parent, "isSidechain": sidechain, "userType": "external", "cwd": "/w",
            "sessionId": "5e1dec4a-0000-4000-8000-000000000000", "version": "1.0.98", "type": role,
            "message": {"role": role, "content": text}, "uuid": uuid, "timestamp": "2025-08-30T10:00:00.000Z",
        })
        .to_string()
    };
    let lines = [
        line("aaaaaaaa-1", None, false, "user", "Find the cards with the bug."),
        line("bbbbbbbb-1", None, true, "user", "Search the stylesheets for min-width."),
        line("bbbbbbbb-2", Some("bbbbbbbb-1"), true, "assistant", "signup.css:14 and reset.css:9."),
        line("aaaaaaaa-2", Some("aaaaaaaa-1"), false, "assistant", "Two cards have it."),
        line("bbbbbbbb-3", Some("bbbbbbbb-2"), true, "assistant", "Done searching."),
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let text = ok(&sess(&["tree", path_str(&path)]));
    assert_eq!(
        text,
        "├─ aaaaaaaa-1  user: Find the cards with the bug.\n\
         │  aaaaaaaa-2  assistant: Two cards have it.  ← leaf\n\
         └─ bbbbbbbb-1  user: Search the stylesheets for min-width.  [sidechain]\n\
         \x20  bbbbbbbb-2  assistant: signup.css:14 and reset.css:9.  [sidechain]\n\
         \x20  bbbbbbbb-3  assistant: Done searching.  [sidechain]\n"
    );
}

#[test]
fn tree_shows_a_codex_rollout_as_its_line_of_turns() {
    let path = fixture("codex/codex-fork-rollback-compact.jsonl");
    let output = sess(&["tree", path_str(&path)]);
    let text = ok(&output);
    assert!(stderr(&output).contains("line 29: truncated last line"), "{}", stderr(&output));
    assert_eq!(
        text,
        "Codex thread 0199c4f0-11aa-7b22-8c33-d44e55f66a77, forked from 0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81\n\
         turn 1  Why is test_parse_dates failing?\n\
         turn 2  Instead, auto-detect day-first vs month-first.  ↺ rolled back\n\
         turn 3  Add a --day-first CLI flag.\n\
         \x20       ◆ context compacted\n\
         turn 4  Also update the README  ✗ aborted  ← leaf\n"
    );
    let turns = json_out(&sess(&["tree", "--json", path_str(&path)]));
    assert_eq!(turns["source"], "codex");
    assert_eq!(turns["forkedFrom"], "0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81");
    assert_eq!(turns["leafTurn"], 4);
    let rolled: Vec<bool> = turns["turns"].as_array().unwrap().iter().map(|t| t["rolledBack"] == true).collect();
    assert_eq!(rolled, [false, true, false, false]);
    assert_eq!(turns["compactions"], json!([{"afterTurn": 3, "id": "19"}]));
}

/// `sess` with `CLAUDE_CONFIG_DIR` and `CODEX_HOME` naming the folders the
/// real Claude Code 2.1.332 and Codex 0.171.0 wrote, and an empty home.
fn sess_on_real_files(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(args)
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", fixture("claude-code/real-2.1.332/claude-config"))
        .env("CODEX_HOME", fixture("codex/real-0.171.0/codex-home"))
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("XDG_DATA_HOME")
        .current_dir(home)
        .output()
        .unwrap()
}

#[test]
fn every_read_verb_takes_the_ids_sess_list_shows() {
    let home = tempfile::tempdir().unwrap();
    let listed = json_out(&sess_on_real_files(home.path(), &["list", "--all-projects", "--json"]));
    assert!(listed.as_array().unwrap().iter().any(|s| s["id"] == "84c88be2-8608-4a2c-a633-35054ca480e2"));
    let tree = json_out(&sess_on_real_files(home.path(), &["tree", "--json", "84c88be2"]));
    assert_eq!(tree["source"], "claude");
    assert!(tree["roots"][0]["id"].as_str().unwrap().starts_with("3a95087a-"), "{tree}");
    let turns = json_out(&sess_on_real_files(home.path(), &["tree", "--json", "01a22bd9-1882"]));
    assert_eq!(turns["source"], "codex");
    assert!(!turns["turns"].as_array().unwrap().is_empty());

    let home = Home::new();
    for (prefix, source) in [("8d4e1f", "claude"), ("0199c4f0", "codex"), ("01a22b45", "pi")] {
        let text = ok(&home.run(&["tree", prefix]));
        assert!(!text.is_empty(), "{source}");
    }
    // A writing verb finds the session by its id too, and refuses it.
    let output = home.run(&["label", "8d4e1f", "x", "a label"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("is a Claude Code session; sess writes only pi-family sessions"),
        "{}",
        stderr(&output)
    );
    let output = home.run(&["tree", "ffffffff"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no session of any agent has an id starting with `ffffffff`"),
        "{}",
        stderr(&output)
    );
}

/// `context` and `segments` have no faithful meaning for Claude Code and
/// Codex sessions: they say so, whether the session is named by path or id.
#[test]
fn context_and_segments_refuse_other_agents_sessions() {
    let home = Home::new();
    for (verb, prefix, agent) in [("context", "8d4e1f", "Claude Code"), ("segments", "0199c4f0", "Codex")] {
        let output = home.run(&[verb, prefix]);
        assert_eq!(output.status.code(), Some(2), "{verb}");
        assert_eq!(
            stderr(&output),
            format!(
                "error: `sess {verb}` works on pi-family sessions; `{prefix}` is a {agent} session (try `sess show`)\n"
            )
        );
    }
    let path = fixture("claude-code/claude-basic-toolcall.jsonl");
    for verb in ["context", "segments"] {
        let output = sess(&[verb, path_str(&path)]);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(
            stderr(&output),
            format!(
                "error: `sess {verb}` works on pi-family sessions; `{}` is a Claude Code session (try `sess show`)\n",
                path.display()
            )
        );
    }
}

/// A Claude Code file damaged by hand: a uuid written twice, a parent that
/// is not in the file, and a last line cut by a crash.
#[test]
fn verify_checks_a_claude_file_by_claude_codes_rules() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d4a6ed00-0000-4000-8000-000000000000.jsonl");
    let line = |uuid: &str, parent: Option<&str>, text: &str| {
        json!({
            "parentUuid": parent, "isSidechain": false, "type": "user", "uuid": uuid,
            "sessionId": "d4a6ed00-0000-4000-8000-000000000000", "timestamp": "2026-08-21T14:00:00.000Z",
            "message": {"role": "user", "content": text},
        })
        .to_string()
    };
    let text = [
        line("u-1", None, "first"),
        line("u-2", Some("u-1"), "second"),
        line("u-1", Some("u-2"), "first again"),
        line("u-3", Some("ghost"), "orphan"),
        "{\"parentUuid\":\"u-3\",\"type\":\"assistant\",\"uuid\":\"u-4\",\"mess".to_owned(),
    ]
    .join("\n");
    fs::write(&path, text).unwrap();
    let output = sess(&["verify", path_str(&path)]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        format!(
            "`{}`: 3 problems (Claude Code, 3 entries)\n\
             \x20 line 3: error: uuid u-1 is also used on line 1\n\
             \x20 line 4: error: parentUuid ghost is not a line of this file\n\
             \x20 line 5: error: truncated last line (an interrupted write); line skipped\n",
            path.display()
        )
    );
    let report = json_out_any(&sess(&["verify", "--json", path_str(&path)]));
    assert_eq!(report[0]["agent"], "claude");
    let codes: Vec<&str> =
        report[0]["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["duplicate-id", "dangling-parent", "truncated-line"]);
}

/// Standard output as JSON, whatever the exit code.
fn json_out_any(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The fixtures cut on purpose (a crash mid-write) are the only findings; a
/// file of an agent with no check of its own is checked by what its reader
/// skipped, never as a pi-family session.
#[test]
fn verify_of_every_fixture_reports_only_real_damage() {
    let output = sess(&["verify", "--json", path_str(&fixture(""))]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let reports = json_out_any(&output);
    let mut damaged = Vec::new();
    for report in reports.as_array().unwrap() {
        let path = report["path"].as_str().unwrap();
        for finding in report["findings"].as_array().unwrap() {
            if finding["severity"] == "error" {
                damaged.push((
                    Path::new(path).file_name().unwrap().to_str().unwrap().to_owned(),
                    finding["code"].as_str().unwrap().to_owned(),
                ));
            }
        }
        let agent = report["agent"].as_str().unwrap();
        let expected = if path.contains("/claude-code/") {
            "claude"
        } else if path.contains("/codex/") {
            "codex"
        } else if path.contains("/copilot/") {
            "copilot"
        } else if path.contains("/qwen-code/") {
            "qwen"
        } else if path.contains("/gemini/") {
            "gemini"
        } else if path.contains("/goose/") {
            "goose"
        } else if path.contains("/fixtures/droid/") {
            "droid"
        } else if path.contains("/fixtures/cursor/") {
            "cursor"
        } else {
            "pi"
        };
        assert_eq!(agent, expected, "{path}");
    }
    let cut = |name: &str| (name.to_owned(), "truncated-line".to_owned());
    assert_eq!(
        damaged,
        [
            cut("claude-basic-toolcall.jsonl"),
            cut("claude-compact-branch.jsonl"),
            cut("codex-basic-rollout.jsonl"),
            cut("codex-fork-rollback-compact.jsonl"),
            // Cursor's older flat transcript: a line that is not JSON, and the
            // last line cut (fixtures/cursor/hand-written/README.md).
            ("7e1f0c2a-0000-4000-8000-0000000000a2.jsonl".to_owned(), "invalid-json".to_owned()),
            cut("7e1f0c2a-0000-4000-8000-0000000000a2.jsonl"),
        ]
    );
    assert_eq!(
        stderr(&output),
        format!(
            "warning: `{}` is not a session of any agent; skipped\n",
            fixture("codex/codex-session_index.jsonl").display()
        )
    );
}

/// An agent whose files are neither a tree of lines nor a line of turns (the
/// Copilot CLI's events) has no tree: `sess tree` says so once instead of
/// reading its events as pi-family entries.
#[test]
fn tree_refuses_a_session_that_has_no_tree() {
    let events =
        fixture("copilot/real-1.0.102/copilot-home/session-state/16729d8b-29e4-456c-84c4-852e4d5a9056/events.jsonl");
    let output = sess(&["tree", path_str(&events)]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("is a Copilot CLI session, which has no tree to draw (try `sess show`)"), "{err}");
}
