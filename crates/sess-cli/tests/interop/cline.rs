//! The real Cline CLI (npm `cline` 3.0.65, its linux-x64 binary) against a
//! fake chat-completions API (`interop/cline/`).
//!
//! The driver runs `cline --json PROMPT` in two projects (thinking, commands
//! that succeed and fail, a read that fails, a file written and edited, a
//! request that fails, a compaction whose summary the model wrote) and
//! resumes a session in the CLI's terminal UI (`cline --id`, in tmux), and
//! reports what each session should hold. `sess list` and `sess show` must
//! find exactly that in the files the CLI wrote: the ids, cwds, titles and
//! message counts; every prompt once, without the CLI's `<user_input>`
//! wrapper; thinking; tool calls paired with their results and failed where
//! they should; a failed request as its error; a compaction as its summary.
//! The files of one run are kept in `fixtures/cline/real-3.0.65/` and checked
//! the same way without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Folder, Mismatches, Peer, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, copy_dir,
    first_difference, mark, peer_in, repo, sess_json, show,
};

fn cline() -> Option<Peer> {
    peer_in(&repo().join("interop/cline"), "cline", "node", "driver.mjs", "cline")
}

#[test]
fn sess_reads_what_cline_writes() {
    let Some(peer) = cline() else { return };
    check_live(&peer, &[], "Cline CLI", "clineVersion", check);
}

/// The files of one driver run (`interop/cline/fixtures.mjs`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_cline_sessions() {
    let fixtures = repo().join("fixtures/cline/real-3.0.65");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("home"), home);
    check_recorded(&fixtures, "recorded cline sessions", 30, lay_out, check);
}

/// Checks what `sess` makes of the Cline home under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions: Vec<&Value> = scenario["sessions"].as_array().unwrap().iter().collect();
    let folder = Folder::new(scenario, "clineDir", home.join(".cline"));
    let listed = check_listed_ids(home, "cline", "Cline", &sessions, &scenario["projects"], mismatches);
    for session in &sessions {
        let expected = || {
            let first_prompt = &session["turns"][0]["prompt"];
            json!({
                "source": "cline",
                "path": folder.relative(session["path"].as_str().unwrap()),
                "cwd": session["cwd"],
                "title": first_prompt,
                "messageCount": expected_messages(session).len(),
                "firstMessage": first_prompt,
            })
        };
        check_listed_entry(&listed, session["id"].as_str().unwrap(), expected, |k, v| folder.shown(k, v), mismatches);
    }
    for session in sessions {
        check_transcript(home, session, mismatches);
    }
}

/// The messages a session should show, each as `{role, blocks}` with blocks
/// cut to what the scenario knows: each prompt, then an assistant message per
/// model call, and the compaction's summary after the call it came after.
fn expected_messages(session: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for turn in session["turns"].as_array().unwrap() {
        out.push(json!({"role": "user", "blocks": [{"type": "text", "text": turn["prompt"]}]}));
        for (n, step) in turn["steps"].as_array().unwrap().iter().enumerate() {
            let blocks: Vec<Value> = step
                .as_array()
                .unwrap()
                .iter()
                .map(|b| match b["type"].as_str() {
                    Some("tool_call") => {
                        let status = if b["fails"] == true { "failed" } else { "succeeded" };
                        json!({"type": "tool_call", "id": b["id"], "name": b["name"], "input": b["input"], "status": status, "result": b["output"]})
                    }
                    Some("error") => json!({"type": "error", "text": b["contains"]}),
                    _ => b.clone(),
                })
                .collect();
            out.push(json!({"role": "assistant", "blocks": blocks}));
            if session["compaction"]["afterStep"] == n {
                out.push(json!({"role": "system", "blocks": [{"type": "summary", "text": session["compaction"]["summary"]}]}));
            }
        }
    }
    out
}

/// A shown message cut to what [`expected_messages`] knows: a tool call's
/// result is the expected part when it holds it, an error's text likewise, a
/// summary the model's when it starts with it.
fn cut(message: &Value, expected: &Value) -> Value {
    let wanted = expected["blocks"].as_array().cloned().unwrap_or_default();
    let blocks: Vec<Value> = message["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let want = wanted.get(i).unwrap_or(&Value::Null);
            let holds = |key: &str| {
                let text = b[key].as_str().unwrap_or_default();
                match want[key].as_str() {
                    Some(part) if text.contains(part) => json!(part),
                    _ => json!(text),
                }
            };
            match b["type"].as_str() {
                Some("tool_call") => json!({"type": "tool_call", "id": b["id"], "name": b["name"], "input": b["input"], "status": b["status"], "result": holds("result")}),
                Some("error") => json!({"type": "error", "text": holds("text")}),
                // The CLI adds the files it read and changed after the
                // summary the model wrote.
                Some("summary") => {
                    let text = b["text"].as_str().unwrap_or_default();
                    match want["text"].as_str() {
                        Some(summary) if text.starts_with(summary) => json!({"type": "summary", "text": summary}),
                        _ => b.clone(),
                    }
                }
                _ => b.clone(),
            }
        })
        .collect();
    json!({"role": message["role"], "blocks": blocks})
}

/// `sess show ID --json` and `sess show ID` against the session's turns.
fn check_transcript(home: &Path, session: &Value, mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    let shown = sess_json(home, &["show", id, "--json", "--all"]);
    mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"] && shown["source"] == "cline", || {
        format!("sess show {id}: id {} cwd {}, Cline {}", shown["id"], shown["cwd"], session["cwd"])
    });
    let expected = expected_messages(session);
    let messages = shown["messages"].as_array().unwrap();
    mismatches.check(messages.len() == expected.len(), || {
        format!(
            "sess show {id}: {} messages, {} expected: {}",
            messages.len(),
            expected.len(),
            show(&shown["messages"])
        )
    });
    for (n, (message, want)) in messages.iter().zip(&expected).enumerate() {
        let actual = cut(message, want);
        mismatches
            .check(&actual == want, || format!("sess show {id}, message {n}: {}", first_difference(&actual, want)));
    }
    let rendered = Rendered::show(home, id);
    for turn in session["turns"].as_array().unwrap() {
        rendered.check_prompt(turn["prompt"].as_str().unwrap(), mismatches);
        for block in turn["steps"].as_array().unwrap().iter().flat_map(|s| s.as_array().unwrap()) {
            match block["type"].as_str() {
                Some("text") => rendered.check_line(block["text"].as_str().unwrap(), mismatches),
                Some("error") => rendered.check_error(block["contains"].as_str().unwrap(), mismatches),
                Some("tool_call") => {
                    let line = format!("{} {}", mark(block["fails"] == true), block["name"].as_str().unwrap());
                    rendered.check_line(&line, mismatches);
                }
                _ => {}
            }
        }
    }
    rendered.check_hidden(&["<user_input", "You are Cline"], mismatches);
}
