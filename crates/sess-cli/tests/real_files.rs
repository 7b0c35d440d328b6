//! Files shaped like the ones real users have, read right by every verb: a
//! Claude Code 1.0.x session whose subagent (`Task`) turns are in the main
//! file, a Codex 0.146 rollout with null fields, and a Claude Code file whose
//! first lines carry no `uuid` or `sessionId`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{fixture, json_out, place, sess_at, stderr, stdout};

/// The session id of `claude-code/claude-1.0.98-task-sidechains.jsonl`.
const SIDECHAINS: &str = "5f0c3a2e-7b1d-4c8e-9a46-2d1e0b9c7f31";
/// The only prompt the user typed in it (the first came from a slash command).
const TYPED: &str = "Yes, add a test for CartRow.";
/// The prompts the main agent gave its two subagents.
const TASK_A: &str = "Search /home/dev/shop/src for every place a price";
const TASK_B: &str = "Read the tests under /home/dev/shop/test";

/// A scratch home with the 1.0.98 session where Claude Code keeps it.
fn home_with_sidechains() -> (tempfile::TempDir, std::path::PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(format!(".claude/projects/-home-dev-shop/{SIDECHAINS}.jsonl"));
    place(&fixture("claude-code/claude-1.0.98-task-sidechains.jsonl"), &path, 5);
    (home, path)
}

/// The text blocks of every message with this role.
fn texts_of(messages: &Value, role: &str) -> Vec<String> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == role)
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap().to_owned())
        .collect()
}

/// The tool calls of the top-level messages.
fn calls(transcript: &Value) -> Vec<&Value> {
    transcript["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .filter(|b| b["type"] == "tool_call")
        .collect()
}

#[test]
fn claude_subagent_turns_are_folded_under_their_task_call_never_prompts_or_titles() {
    let (home, path) = home_with_sidechains();
    let show = json_out(&sess_at(home.path(), &["show", "--json", "--all", path.to_str().unwrap()], ""));
    assert_eq!(texts_of(&show["messages"], "user"), [TYPED], "only what the user typed is theirs");
    assert_eq!(show["title"], TYPED);
    let tasks: Vec<_> = calls(&show).into_iter().filter(|c| c["name"] == "Task").collect();
    assert_eq!(tasks.len(), 2);
    for (task, prompt, tools) in [(tasks[0], TASK_A, vec!["Grep"]), (tasks[1], TASK_B, vec!["Glob", "Read"])] {
        let subagent = &task["subagent"];
        let first = &subagent[0];
        assert_eq!(first["role"], "user", "{task}");
        assert!(first["blocks"][0]["text"].as_str().unwrap().starts_with(prompt), "{task}");
        // The subagent's own tool calls are completed inside it, not in the main conversation.
        let inner: Vec<_> = subagent
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["blocks"].as_array().unwrap())
            .filter(|b| b["type"] == "tool_call")
            .map(|b| (b["name"].as_str().unwrap(), b["status"].as_str().unwrap()))
            .collect();
        assert_eq!(inner, tools.iter().map(|t| (*t, "succeeded")).collect::<Vec<_>>(), "{task}");
        assert_eq!(task["status"], "succeeded");
    }
    let main: Vec<_> = calls(&show).iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(main, ["Task", "Task", "Edit"], "the subagents' calls are not the main agent's");

    // On a terminal: folded under the call.
    let text = stdout(&sess_at(home.path(), &["show", path.to_str().unwrap()], ""));
    assert!(text.contains("✓ Task  Find price formatting\n    subagent: 2 messages, 1 tool call"), "{text}");
    assert!(!text.contains(&format!("\n  {TASK_B}")), "{text}");

    // The listing and the catalog agree.
    let list = json_out(&sess_at(home.path(), &["list", "--all-projects", "--json"], ""));
    let item = &list[0];
    assert_eq!((item["id"].as_str(), item["title"].as_str()), (Some(SIDECHAINS), Some(TYPED)), "{item}");
    assert_eq!(item["firstMessage"], TYPED);
    assert_eq!(item["messageCount"].as_u64(), Some(show["messages"].as_array().unwrap().len() as u64));
    let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", "--json", "Intl.NumberFormat"], ""));
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits[0]["role"], "subagent", "{hits}");
    let hits = json_out(&sess_at(home.path(), &["search", "--all-projects", "--json", "CartRow test"], ""));
    assert_eq!((hits[0]["role"].as_str(), hits[0]["title"].as_str()), (Some("user"), Some(TYPED)), "{hits}");
}

#[test]
fn codex_lines_with_null_or_unknown_fields_are_read_not_dropped() {
    let home = tempfile::tempdir().unwrap();
    let path = fixture("codex/codex-0.146-null-image.jsonl");
    let out = sess_at(home.path(), &["show", "--json", path.to_str().unwrap()], "");
    assert_eq!(stderr(&out), "", "no line is skipped");
    let show = json_out(&out);
    let messages = show["messages"].as_array().unwrap();
    let kinds = |m: &Value| -> Vec<String> {
        m["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| match b["type"].as_str().unwrap() {
                "unknown" => format!("unknown {}", b["what"].as_str().unwrap()),
                other => other.to_owned(),
            })
            .collect()
    };
    let shown: Vec<_> = messages.iter().map(|m| (m["role"].as_str().unwrap(), kinds(m))).collect();
    assert_eq!(
        shown,
        [
            ("user", vec!["text".to_owned(), "unknown input_image".to_owned()]),
            ("assistant", vec!["thinking".to_owned(), "tool_call".to_owned(), "text".to_owned()]),
            ("system", vec!["unknown response_item image_generation_call".to_owned()]),
        ]
    );
    // What was not understood is kept as written.
    assert_eq!(messages[0]["blocks"][1]["raw"], serde_json::json!({"type": "input_image", "image_url": null}));
    assert_eq!(messages[2]["blocks"][0]["raw"]["revised_prompt"], "A thumbnail centred in its frame");

    let text = stdout(&sess_at(home.path(), &["show", path.to_str().unwrap()], ""));
    assert!(text.contains("  [not understood: input_image, 39 B of JSON]\n"), "{text}");
    assert!(text.contains("[not understood: response_item image_generation_call, "), "{text}");
}

/// Shows `file` by path and lists it from a Claude Code home: both read it,
/// or neither does.
fn show_and_list(file: &Path) -> (std::process::Output, Value) {
    let home = tempfile::tempdir().unwrap();
    let placed = home.path().join(".claude/projects/-home-dev-monorepo").join(file.file_name().unwrap());
    place(file, &placed, 5);
    let show = sess_at(home.path(), &["show", "--json", placed.to_str().unwrap()], "");
    let list = json_out(&sess_at(home.path(), &["list", "--all-projects", "--json"], ""));
    (show, list)
}

#[test]
fn show_and_list_agree_on_what_a_claude_session_is() {
    // Claude Code 2.0 starts a file with a file-history snapshot, which has
    // no `uuid` or `sessionId`; here it fills the first 16 KiB.
    let (show, list) = show_and_list(&fixture("claude-code/claude-2.0.14-snapshot-first.jsonl"));
    let transcript = json_out(&show);
    assert_eq!(transcript["source"], "claude");
    assert_eq!(transcript["title"], "Bump every package to TypeScript 5.6 and fix what breaks.");
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["messageCount"], 2);

    // A file no agent wrote is no session, wherever it is.
    let scratch = tempfile::tempdir().unwrap();
    let junk = scratch.path().join("0a0b0c0d-notes.jsonl");
    std::fs::write(&junk, "{\"a\":1}\n{\"b\":[2]}\n").unwrap();
    let (show, list) = show_and_list(&junk);
    assert_eq!(show.status.code(), Some(2));
    assert!(stderr(&show).contains("is not a session of any agent"), "{}", stderr(&show));
    assert_eq!(list, serde_json::json!([]));
}
