//! The real Factory Droid CLI (`@factory/cli-linux-x64` 0.225.2 from npm, its
//! native binary) against a fake chat-completions API, as a "bring your own
//! key" custom model (`interop/droid/`).
//!
//! The driver runs `droid exec` in two projects: one run of two prompts
//! (Droid's multi-turn `--input-format stream-json`) with thinking, a shell
//! command that succeeds, a read that fails, an edit, a file created and a
//! subagent that cannot start, and a one-prompt run; it reports what each
//! session should hold. `sess list` and `sess show` must find exactly that in
//! the files Droid wrote: the ids, cwds, titles and message counts; every
//! prompt once, with the context Droid sends the model folded under it;
//! thinking; tool calls paired with their results and failed where they
//! should; the edits as diffs. The files of one run are kept in
//! `fixtures/droid/real-0.225.2/` and checked the same way without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Folder, Mismatches, Peer, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, copy_dir,
    first_difference, mark, peer_in, repo, sess_json, show,
};

fn droid() -> Option<Peer> {
    peer_in(&repo().join("interop/droid"), "droid", "node", "driver.mjs", "@factory/cli-linux-x64")
}

#[test]
fn sess_reads_what_droid_writes() {
    let Some(peer) = droid() else { return };
    check_live(&peer, &[], "Factory Droid", "version", check);
}

/// The files of one driver run (`interop/droid/fixtures.mjs`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_droid_sessions() {
    let fixtures = repo().join("fixtures/droid/real-0.225.2");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("factory-home"), &home.join(".factory"));
    check_recorded(&fixtures, "recorded droid sessions", 20, lay_out, check);
}

/// Checks what `sess` makes of the Factory folder under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions: Vec<&Value> = scenario["sessions"].as_array().unwrap().iter().collect();
    let folder = Folder::new(scenario, "home", home.join(".factory"));
    let listed = check_listed_ids(home, "droid", "Factory Droid", &sessions, &scenario["projects"], mismatches);
    for session in &sessions {
        let turns = session["turns"].as_array().unwrap();
        let expected = || {
            json!({
                "source": "droid",
                "path": folder.relative(session["file"].as_str().unwrap()),
                "cwd": session["cwd"],
                "title": turns[0]["prompt"],
                "messageCount": turns.len() * 2,
                "firstMessage": turns[0]["prompt"],
            })
        };
        check_listed_entry(&listed, session["id"].as_str().unwrap(), expected, |k, v| folder.shown(k, v), mismatches);
        check_transcript(home, session, mismatches);
    }
}

/// The messages a session's turns should give, cut to what the report
/// knows: each prompt (the first with Droid's context after it), then the
/// answer's thinking, text and tool calls with their status, then its text.
fn expected_messages(turns: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for (n, turn) in turns.iter().enumerate() {
        let mut prompt = vec![json!({"type": "text", "text": turn["prompt"]})];
        if n == 0 {
            prompt.push(json!({"type": "context"}));
        }
        out.push(json!({"role": "user", "blocks": prompt}));
        let mut answer: Vec<Value> =
            turn["thinking"].as_array().unwrap().iter().map(|t| json!({"type": "thinking", "text": t})).collect();
        for call in turn["tools"].as_array().unwrap() {
            let status = if call["expect"] == "fail" { "failed" } else { "succeeded" };
            answer.push(json!({"type": "tool_call", "id": call["id"], "name": call["tool"], "status": status}));
        }
        answer.push(json!({"type": "text", "text": turn["answer"]}));
        out.push(json!({"role": "assistant", "blocks": answer}));
    }
    out
}

/// A shown message cut to the blocks [`expected_messages`] knows: context
/// once (its blocks are many), the scripted text and thinking, and each tool
/// call's id, name and status; the text the model sent beside its calls is
/// left out.
fn cut(message: &Value, scripted_texts: &[&str]) -> Value {
    let mut blocks: Vec<Value> = Vec::new();
    for b in message["blocks"].as_array().unwrap() {
        match b["type"].as_str() {
            Some("context") => {
                if !blocks.iter().any(|k| k["type"] == "context") {
                    blocks.push(json!({"type": "context"}));
                }
            }
            Some("tool_call") => {
                blocks.push(json!({"type": "tool_call", "id": b["id"], "name": b["name"], "status": b["status"]}));
            }
            Some("text")
                if message["role"] == "assistant"
                    && !scripted_texts.contains(&b["text"].as_str().unwrap_or_default()) => {}
            _ => blocks.push(b.clone()),
        }
    }
    // The answer's final text comes after its calls.
    if message["role"] == "assistant" {
        let (texts, rest): (Vec<Value>, Vec<Value>) = blocks.into_iter().partition(|b| b["type"] == "text");
        blocks = rest.into_iter().chain(texts).collect();
    }
    json!({"role": message["role"], "blocks": blocks})
}

/// `sess show ID --json` and `sess show ID` against the session's turns.
fn check_transcript(home: &Path, session: &Value, mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    let shown = sess_json(home, &["show", id, "--json", "--all"]);
    mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"] && shown["source"] == "droid", || {
        format!("sess show {id}: id {} cwd {}, Droid {}", shown["id"], shown["cwd"], session["cwd"])
    });
    let turns = session["turns"].as_array().unwrap();
    let expected = expected_messages(turns);
    let answers: Vec<&str> = turns.iter().filter_map(|t| t["answer"].as_str()).collect();
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
        let actual = cut(message, &answers);
        mismatches
            .check(&actual == want, || format!("sess show {id}, message {n}: {}", first_difference(&actual, want)));
    }
    // Each edited file shows as a diff of the call that edited it.
    let diffed: Vec<&str> = messages
        .iter()
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .filter(|b| b["diffs"].as_array().is_some_and(|d| !d.is_empty()))
        .filter_map(|b| b["input"]["file_path"].as_str())
        .collect();
    for file in session["edits"].as_array().into_iter().flatten() {
        let name = Path::new(file.as_str().unwrap()).file_name().unwrap().to_str().unwrap();
        mismatches
            .check(diffed.iter().any(|path| path.ends_with(name)), || format!("sess show {id}: no diff of {file}"));
    }
    let rendered = Rendered::show(home, id);
    for turn in turns {
        // A prompt longer than a line is wrapped: its start begins a line.
        let prompt = turn["prompt"].as_str().unwrap();
        match prompt.char_indices().nth(60) {
            Some((cut, _)) => rendered.check_line(&prompt[..cut], mismatches),
            None => rendered.check_prompt(prompt, mismatches),
        }
        rendered.check_line(turn["answer"].as_str().unwrap(), mismatches);
        for call in turn["tools"].as_array().unwrap() {
            let line = format!("{} {}", mark(call["expect"] == "fail"), call["tool"].as_str().unwrap());
            rendered.check_line(&line, mismatches);
        }
    }
    rendered.check_hidden(&["<system-reminder"], mismatches);
}
