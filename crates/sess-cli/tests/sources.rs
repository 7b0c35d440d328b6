//! `sess list` and `sess show` across agents: pi-family, Claude Code and Codex
//! sessions in their usual folders under a scratch home.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{
    CLAUDE_BASIC, CLAUDE_COMPACT, CODEX_BASIC, CODEX_FORK, Home, PI_MAIN, fixture, json_out, sess_at, stderr, stdout,
};

fn ids(items: &Value) -> Vec<(&str, &str)> {
    items.as_array().unwrap().iter().map(|i| (i["source"].as_str().unwrap(), i["id"].as_str().unwrap())).collect()
}

#[test]
fn list_shows_every_agent_newest_first() {
    let home = Home::new();
    let items = home.json(&["list", "--all-projects", "--json"]);
    // Newest first by their own last messages, whatever their files' times
    // (issue 26, item 10).
    assert_eq!(
        ids(&items),
        [
            ("pi", PI_MAIN),
            ("codex", CODEX_FORK),
            ("claude", CLAUDE_COMPACT),
            ("codex", CODEX_BASIC),
            ("claude", CLAUDE_BASIC),
        ]
    );
    for item in items.as_array().unwrap() {
        for key in ["source", "id", "path", "cwd", "title", "modified", "messageCount"] {
            assert!(item.get(key).is_some(), "{key} missing in {item}");
        }
        assert!(Path::new(item["path"].as_str().unwrap()).is_file());
        assert!(item["messageCount"].as_u64().unwrap() > 0, "{item}");
    }
    let claude = &items[2];
    assert_eq!(claude["cwd"], "/Users/bob/work/app_v2.1");
    let codex = &items[3];
    assert_eq!(codex["title"], "parsekit: day/month bug", "the newest index entry names the thread");
    assert_eq!(items[0]["agent"], "pi-mono");
}

#[test]
fn list_by_source_and_by_project() {
    let home = Home::new();
    let claude = home.json(&["list", "--all-projects", "--json", "--source", "claude"]);
    assert_eq!(ids(&claude), [("claude", CLAUDE_COMPACT), ("claude", CLAUDE_BASIC)]);
    let codex = home.json(&["list", "--all-projects", "--json", "--source", "codex", "--limit", "1"]);
    assert_eq!(ids(&codex), [("codex", CODEX_FORK)]);
    let project = home.json(&["list", "--json", "--cwd", "/home/alice/src/parsekit"]);
    assert_eq!(ids(&project), [("codex", CODEX_FORK), ("codex", CODEX_BASIC)]);
    let project = home.json(&["list", "--json", "--cwd", "/Users/bob/work/app_v2.1"]);
    assert_eq!(ids(&project), [("claude", CLAUDE_COMPACT)]);
    let text = stdout(&home.run(&["list", "--cwd", "/nowhere"]));
    assert_eq!(text, "no sessions for `/nowhere`\n");
}

#[test]
fn list_of_an_empty_home_is_empty_not_an_error() {
    let home = tempfile::tempdir().unwrap();
    let out = sess_at(home.path(), &["list", "--all-projects", "--json"], "");
    assert_eq!(json_out(&out), Value::Array(Vec::new()));
    assert_eq!(stderr(&out), "");
}

#[test]
fn show_finds_a_session_by_id_prefix_in_any_agent() {
    let home = Home::new();
    let claude = home.json(&["show", "8d4e1f", "--json"]);
    assert_eq!(claude["source"], "claude");
    assert_eq!(claude["id"], CLAUDE_COMPACT);
    assert_eq!(claude["cwd"], "/Users/bob/work/app_v2.1");
    assert_eq!(claude["truncated"], 0);
    let codex = home.json(&["show", "0199c4f0", "--json"]);
    assert_eq!((codex["source"].as_str(), codex["title"].as_str()), (Some("codex"), Some("Day-first flag")));
    let pi = home.json(&["show", "01a22b45", "--json"]);
    assert_eq!((pi["source"].as_str(), pi["title"].as_str()), (Some("pi"), Some("Demo session name")));
    for transcript in [&claude, &codex, &pi] {
        for message in transcript["messages"].as_array().unwrap() {
            assert!(["user", "assistant", "system"].contains(&message["role"].as_str().unwrap()));
            for block in message["blocks"].as_array().unwrap() {
                match block["type"].as_str().unwrap() {
                    "text" | "thinking" | "error" | "summary" => assert!(block["text"].is_string(), "{block}"),
                    "context" => assert!(block["title"].is_string() && block["text"].is_string()),
                    "tool_call" => {
                        assert!(block["id"].is_string() && block["name"].is_string(), "{block}");
                        let status = block["status"].as_str().unwrap();
                        assert!(["running", "pending", "succeeded", "failed"].contains(&status));
                    }
                    "image" => {}
                    other => panic!("unexpected block type {other}"),
                }
            }
        }
    }
}

#[test]
fn show_reports_ambiguous_and_unknown_ids() {
    let home = Home::new();
    let out = home.run(&["show", "0199c"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("`0199c` matches 2 sessions"), "{err}");
    assert!(err.contains(CODEX_BASIC) && err.contains(CODEX_FORK), "{err}");
    let out = home.run(&["show", "ffffffff"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no session of any agent has an id starting with `ffffffff`"), "{}", stderr(&out));
    assert!(stderr(&out).contains("hint: "), "{}", stderr(&out));
}

#[test]
fn show_reads_any_agents_file_by_path() {
    for (path, source) in [
        ("claude-code/claude-basic-toolcall.jsonl", "claude"),
        ("codex/codex-basic-rollout.jsonl", "codex"),
        ("pi-family/oh-my-pi-18.2.3-bun.jsonl", "pi"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let path = fixture(path);
        let transcript = json_out(&sess_at(home.path(), &["show", "--json", path.to_str().unwrap()], ""));
        assert_eq!(transcript["source"], source, "{}", path.display());
        assert!(!transcript["messages"].as_array().unwrap().is_empty());
    }
}

#[test]
fn show_refuses_a_file_no_agent_wrote() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("notes.jsonl");
    fs::write(&file, "{\"a\":1}\n").unwrap();
    let out = sess_at(home.path(), &["show", file.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a session of any agent"), "{}", stderr(&out));
    let out = sess_at(home.path(), &["show", "missing.jsonl"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.jsonl"), "{}", stderr(&out));
}

/// A Claude Code session of `prompts` question/answer pairs.
fn long_claude_session(dir: &Path, prompts: usize) -> PathBuf {
    let mut text = String::new();
    let mut parent = Value::Null;
    for i in 0..prompts {
        for (kind, content) in [("user", format!("question {i}")), ("assistant", format!("answer {i}"))] {
            let uuid = format!("00000000-0000-4000-8000-{:012}", text.len());
            let message = if kind == "user" {
                serde_json::json!({"role": "user", "content": content})
            } else {
                serde_json::json!({"role": "assistant", "model": "m", "id": format!("msg_{i}"), "type": "message",
                    "content": [{"type": "text", "text": content}]})
            };
            let line = serde_json::json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s",
                "cwd": "/p", "timestamp": "2026-08-21T14:00:00.000Z", "isSidechain": false, "message": message});
            text.push_str(&line.to_string());
            text.push('\n');
            parent = Value::String(uuid);
        }
    }
    let path = dir.join("11111111-2222-4333-8444-555555555555.jsonl");
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn show_keeps_the_newest_300_messages_unless_asked_for_all() {
    let home = tempfile::tempdir().unwrap();
    let path = long_claude_session(home.path(), 200);
    let path = path.to_str().unwrap();
    let kept = json_out(&sess_at(home.path(), &["show", "--json", path], ""));
    assert_eq!(kept["truncated"], 100);
    assert_eq!(kept["messages"].as_array().unwrap().len(), 300);
    assert_eq!(kept["messages"][0]["blocks"][0]["text"], "question 50");
    let all = json_out(&sess_at(home.path(), &["show", "--json", "--all", path], ""));
    assert_eq!((all["truncated"].as_u64(), all["messages"].as_array().unwrap().len()), (Some(0), 400));
    let text = stdout(&sess_at(home.path(), &["show", path], ""));
    assert!(text.contains("100 older messages not shown (--all shows every message)"), "{text}");
}

#[test]
fn show_on_a_pipe_is_plain_text_with_roles_and_tool_statuses() {
    let home = Home::new();
    let out = home.run(&["show", CLAUDE_BASIC]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}'), "no colour on a pipe");
    assert!(text.lines().any(|l| l.starts_with("user  2026-")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("assistant  2026-")), "{text}");
    assert!(text.contains("  ✓ "), "a succeeded tool call: {text}");
    assert!(text.contains("  ✗ "), "a failed tool call: {text}");
    // The truncated last line of the fixture is reported, not fatal.
    assert!(stderr(&out).contains("truncated last line"), "{}", stderr(&out));
}

#[test]
fn show_at_a_pi_leaf() {
    let home = Home::new();
    let at = home.json(&["show", PI_MAIN, "--json", "--leaf", "19238abe"]);
    let texts: Vec<&str> = at["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert_eq!(texts, ["hello", "hi there", "second question", "second answer"]);
    let out = home.run(&["show", PI_MAIN, "--leaf", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has no entry `nope`"), "{}", stderr(&out));
    let out = home.run(&["show", CLAUDE_BASIC, "--leaf", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--leaf works on pi-family sessions"), "{}", stderr(&out));
}

/// How many messages `sess show --all` shows of `session`.
fn shown(home: &Home, session: &str) -> usize {
    home.json(&["show", "--all", "--json", session])["messages"].as_array().unwrap().len()
}

/// For Claude Code and Codex, `messageCount` is what `sess show --all` shows,
/// and the listed id is one `sess show` finds — also for a rollout whose
/// `session_meta` names another id than its file name (a copied or renamed
/// rollout).
#[test]
fn list_counts_what_show_all_shows_for_claude_and_codex() {
    const RENAMED: &str = "0199c3a1-aaaa-7bbb-8ccc-dddddddddddd";
    let home = Home::new();
    let basic = fs::read_to_string(fixture("codex/codex-basic-rollout.jsonl")).unwrap();
    let copied = basic.replacen(CODEX_BASIC, "0199c3a1-5f2e-7d40-9b1a-000000000000", 1);
    let renamed = home.path().join(format!(".codex/sessions/2026/08/21/rollout-2026-08-21T09-00-00-{RENAMED}.jsonl"));
    fs::create_dir_all(renamed.parent().unwrap()).unwrap();
    fs::write(&renamed, copied).unwrap();

    let mut items = Vec::new();
    for source in ["claude", "codex"] {
        items.extend(home.json(&["list", "--all-projects", "--json", "--source", source]).as_array().unwrap().clone());
    }
    assert_eq!(items.len(), 5, "{items:?}");
    assert!(items.iter().any(|i| i["id"] == RENAMED), "the id sess show finds: {items:?}");
    for item in &items {
        let id = item["id"].as_str().unwrap();
        assert_eq!(item["messageCount"].as_u64(), Some(shown(&home, id) as u64), "{item}");
        assert!(item.get("shownMessages").is_none(), "{item}");
    }
}

/// A pi-family session's `messageCount` is pi's own count (message entries on
/// every branch); `shownMessages` is what `sess show --all` shows (the leaf's
/// path).
#[test]
fn a_pi_sessions_listing_has_pis_count_and_the_shown_count() {
    let home = Home::new();
    let items = home.json(&["list", "--all-projects", "--json", "--source", "pi"]);
    let item = &items[0];
    assert_eq!(item["id"], PI_MAIN);
    assert_eq!(item["messageCount"], 10, "{item}");
    assert_eq!(item["shownMessages"].as_u64(), Some(shown(&home, PI_MAIN) as u64), "{item}");
    assert_eq!(item["shownMessages"], 6, "{item}");
    // The same for the session in a store.
    let store = format!("dir:{}", home.path().join(".pi/agent/sessions").display());
    let stored = home.json(&["--store", &store, "list", "--all-projects", "--json"]);
    assert_eq!(
        (&stored[0]["id"], &stored[0]["messageCount"], &stored[0]["shownMessages"]),
        (&item["id"], &item["messageCount"], &item["shownMessages"])
    );
}

/// A pi session whose last message was stamped before its header (pi-mono
/// reports that message's time) lists `modified` no earlier than `created`;
/// without a name its first prompt is its title, as for the other agents.
#[test]
fn a_pi_listing_is_never_modified_before_created_and_is_titled_by_its_first_prompt() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".pi/agent/sessions/--work-p--/s.jsonl");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(
        &file,
        concat!(
            r#"{"type":"session","version":3,"id":"early-msg","timestamp":"2026-11-30T00:53:00.000Z","cwd":"/work/p"}"#,
            "\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T00:42:00.000Z","message":{"role":"user","content":"fix the build please","timestamp":1795999320000}}"#,
            "\n",
        ),
    )
    .unwrap();
    let items = json_out(&sess_at(home.path(), &["list", "--all-projects", "--json"], ""));
    let item = &items[0];
    assert_eq!(item["created"], "2026-11-30T00:53:00.000Z");
    assert_eq!(item["modified"], "2026-11-30T00:53:00.000Z", "{item}");
    assert_eq!(item["title"], "fix the build please", "{item}");
    assert_eq!(item["firstMessage"], "fix the build please");
}
