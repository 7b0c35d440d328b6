//! The real Continue CLI (`@continuedev/cli` 1.5.47 from npm) against a fake
//! chat-completions API (`interop/continue/`).
//!
//! The driver runs `cn` headless seven times (a new session with a read and
//! a `MultiEdit`, `--resume` with a shell command that fails, `/compact`,
//! `--resume` after it, an automatic compaction, `--fork`, and a session
//! moved by `CONTINUE_GLOBAL_DIR`), copies what it wrote after each run, and
//! reports what `sess` must find in the copies (`checks`): for each folder
//! `CONTINUE_GLOBAL_DIR` may name, the sessions' ids and cwds, and their
//! messages: every prompt and answer, tool calls with their status and
//! results, a compaction as its summary. `sess list` and `sess show` must
//! find exactly that. The copies of one run are kept in
//! `fixtures/continue/real-1.5.47/` and checked the same way without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Mismatches, Peer, Rendered, check_live, check_recorded, copy_dir, first_difference, mark, parse, peer_in, repo,
    sess_at, show,
};

fn continue_cli() -> Option<Peer> {
    peer_in(&repo().join("interop/continue"), "continue", "node", "driver.mjs", "@continuedev/cli")
}

#[test]
fn sess_reads_what_the_continue_cli_writes() {
    let Some(peer) = continue_cli() else { return };
    check_live(&peer, &[], "Continue CLI", "version", |root, scenario, mismatches| {
        check(&root.join("recorded"), scenario, mismatches);
    });
}

/// The copies of one driver run, checked against its report without Node.
#[test]
fn sess_reads_the_recorded_continue_cli_sessions() {
    let fixtures = repo().join("fixtures/continue/real-1.5.47");
    let lay_out = |home: &Path| copy_dir(&fixtures, &home.join("recorded"));
    check_recorded(&fixtures, "recorded Continue CLI sessions", 40, lay_out, |home, scenario, m| {
        check(&home.join("recorded"), scenario, m);
    });
}

/// Checks what `sess` makes of each folder of `checks` under `copies`
/// (named by `CONTINUE_GLOBAL_DIR`, with an empty home).
fn check(copies: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    for folder in scenario["checks"].as_array().unwrap() {
        let global = copies.join(folder["dir"].as_str().unwrap());
        let home = tempfile::tempdir().unwrap();
        let sess = |args: &[&str]| {
            let output = sess_at(home.path()).env("CONTINUE_GLOBAL_DIR", &global).args(args).output().unwrap();
            assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
            output.stdout
        };
        let sessions = folder["sessions"].as_array().unwrap();
        let listed = parse(&sess(&["list", "--source", "continue", "--all-projects", "--json"]));
        let listed = listed.as_array().unwrap();
        let mut ids: Vec<&str> = listed.iter().filter_map(|s| s["id"].as_str()).collect();
        let mut expected: Vec<&str> = sessions.iter().filter_map(|s| s["id"].as_str()).collect();
        ids.sort_unstable();
        expected.sort_unstable();
        let dir = &folder["dir"];
        mismatches.check(ids == expected, || format!("{dir}: listed {ids:?}, the Continue CLI made {expected:?}"));
        for session in sessions {
            let id = session["id"].as_str().unwrap();
            let messages = session["messages"].as_array().unwrap();
            if let Some(item) = listed.iter().find(|s| s["id"] == id) {
                let first_prompt = messages.iter().find(|m| m["role"] == "user").map(|m| &m["blocks"][0]["text"]);
                let actual = json!({"cwd": item["cwd"], "title": item["title"], "messageCount": item["messageCount"],
                    "firstMessage": item["firstMessage"], "source": item["source"]});
                let want = json!({"cwd": session["cwd"], "title": null, "messageCount": messages.len(),
                    "firstMessage": first_prompt, "source": "continue"});
                mismatches
                    .check(actual == want, || format!("{dir}: sess list, {id}: {}", first_difference(&actual, &want)));
            }
            let shown = parse(&sess(&["show", id, "--json", "--all"]));
            check_transcript(&shown, session, mismatches);
            let rendered = Rendered::of(id, sess(&["show", id]));
            check_rendering(&rendered, messages, mismatches);
        }
    }
}

/// `sess show ID --json` against the session's messages, each block cut to
/// what the report knows (a tool call's result holds the reported part).
fn check_transcript(shown: &Value, session: &Value, mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"] && shown["source"] == "continue", || {
        format!("sess show {id}: id {} cwd {} source {}", shown["id"], shown["cwd"], shown["source"])
    });
    let expected = session["messages"].as_array().unwrap();
    let messages = shown["messages"].as_array().unwrap();
    mismatches.check(messages.len() == expected.len(), || {
        format!(
            "sess show {id}: {} messages, {} expected: {}",
            messages.len(),
            expected.len(),
            show(&shown["messages"])
        )
    });
    for (n, (message, want)) in messages.iter().zip(expected).enumerate() {
        let wanted = want["blocks"].as_array().unwrap();
        let blocks: Vec<Value> = message["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, b)| match b["type"].as_str() {
                Some("tool_call") => {
                    let result = b["result"].as_str().unwrap_or_default();
                    let part = wanted.get(i).and_then(|w| w["result"].as_str()).filter(|p| result.contains(p));
                    json!({"type": "tool_call", "name": b["name"], "status": b["status"], "result": part.unwrap_or(result)})
                }
                _ => b.clone(),
            })
            .collect();
        let actual = json!({"role": message["role"], "blocks": blocks});
        mismatches
            .check(&actual == want, || format!("sess show {id}, message {n}: {}", first_difference(&actual, want)));
    }
}

/// `sess show ID`: every prompt once, the answers, a line per tool call
/// with its mark.
fn check_rendering(rendered: &Rendered, messages: &[Value], mismatches: &mut Mismatches) {
    for message in messages {
        for block in message["blocks"].as_array().unwrap() {
            match (message["role"].as_str(), block["type"].as_str()) {
                (Some("user"), Some("text")) => rendered.check_prompt(block["text"].as_str().unwrap(), mismatches),
                (_, Some("text")) => rendered.check_line(block["text"].as_str().unwrap(), mismatches),
                (_, Some("tool_call")) => {
                    let line = format!("{} {}", mark(block["status"] == "failed"), block["name"].as_str().unwrap());
                    rendered.check_line(&line, mismatches);
                }
                _ => {}
            }
        }
    }
}
