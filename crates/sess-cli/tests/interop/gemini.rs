//! The real Gemini CLI (`@google/gemini-cli` 0.61.0 from npm) against a fake
//! Gemini API (`interop/gemini/`).
//!
//! The driver runs `gemini -p` in two projects: resumed by id and with
//! `latest` (in a later minute, which leaves a second, empty file with the
//! session's id prefix), tool calls that succeed and fail, an image and a
//! text file attached with `@`, a request that fails, a compression, a
//! subagent, and the interactive UI for `/rewind` and an error it records;
//! then `--list-sessions` has the model title each session. `sess list` and
//! `sess show` must find exactly that: the ids (one per session, no empty
//! file, no subagent), cwds, titles and message counts; every prompt once,
//! with its attachments and without the CLI's session context; thoughts as
//! thinking; tool calls with their results, failed where they should, and the
//! subagent's turns under its call; the compression's summary where it
//! happened; the rewind and the turns the CLI took back as notices. The files
//! of one run are kept in `fixtures/gemini/real-0.61.0/` and checked the same
//! way without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Folder, Mismatches, Peer, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, copy_dir,
    first_difference, mark, peer_in, repo, sess_json, show,
};

/// The notice for a turn the CLI took back out of the conversation.
const WITHDRAWN: &str = "Gemini CLI took this turn back out of the conversation";

fn gemini() -> Option<Peer> {
    peer_in(&repo().join("interop/gemini"), "gemini", "node", "driver.mjs", "@google/gemini-cli")
}

#[test]
fn sess_reads_what_gemini_writes() {
    let Some(peer) = gemini() else { return };
    check_live(&peer, &[], "Gemini CLI", "geminiVersion", check);
}

/// The files of one driver run (`interop/gemini/fixtures.mjs`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_gemini_sessions() {
    let fixtures = repo().join("fixtures/gemini/real-0.61.0");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("home"), home);
    check_recorded(&fixtures, "recorded gemini sessions", 40, lay_out, check);
}

/// Checks what `sess` makes of the Gemini dir under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions: Vec<&Value> = scenario["sessions"].as_array().unwrap().iter().collect();
    let folder = Folder::new(scenario, "geminiHome", home.join(".gemini"));

    // The listing of every project (one entry per session, the file with
    // the conversation), and of each project.
    let listed = check_listed_ids(home, "gemini", "the CLI", &sessions, &scenario["projects"], mismatches);
    for session in &sessions {
        let expected = || {
            json!({
                "source": "gemini",
                "path": folder.relative(session["path"].as_str().unwrap()),
                "cwd": session["cwd"],
                "title": session["expectedTitle"],
                "messageCount": expected_messages(session).len(),
                "firstMessage": session["turns"][0]["prompt"],
            })
        };
        check_listed_entry(&listed, session["id"].as_str().unwrap(), expected, |k, v| folder.shown(k, v), mismatches);
    }

    for session in sessions {
        check_transcript(home, session, mismatches);
    }
}

/// The messages a session's turns should show, each as `{role, blocks}`
/// with the blocks as [`comparable`] makes them.
fn expected_messages(session: &Value) -> Vec<Value> {
    let mut messages = Vec::new();
    for turn in session["turns"].as_array().unwrap() {
        let mut prompt = vec![json!({"type": "text", "text": turn["prompt"]})];
        for (name, text) in turn["files"].as_object().into_iter().flatten() {
            prompt.push(json!({"type": "context", "contains": format!("@{name}:\n{}", text.as_str().unwrap())}));
        }
        for _ in turn["images"].as_array().into_iter().flatten() {
            prompt.push(json!({"type": "image", "mediaType": "image/png"}));
        }
        messages.push(json!({"role": "user", "blocks": prompt}));
        if turn["withdrawn"] == true {
            messages.push(json!({"role": "system", "blocks": [{"type": "text", "contains": WITHDRAWN}]}));
        }
        // The answer, split by the compression's summary where it happened.
        let split = turn["compressedBefore"].as_u64().unwrap_or(u64::MAX);
        let mut answer = Vec::new();
        for block in turn["blocks"].as_array().unwrap() {
            if block["step"].as_u64() == Some(split) && !answer.is_empty() {
                messages.push(json!({"role": "assistant", "blocks": std::mem::take(&mut answer)}));
                let summary = json!({"type": "summary", "contains": turn["summary"]});
                messages.push(json!({"role": "system", "blocks": [summary]}));
            }
            match block["type"].as_str() {
                Some("error") if turn["errorRecorded"] == true => {
                    answer.push(json!({"type": "error", "contains": block["contains"]}));
                }
                Some("error") => {}
                Some("tool_call") => answer.push(expected_call(block, &turn["subagent"])),
                _ => answer.push(block_without_step(block)),
            }
        }
        if !answer.is_empty() {
            messages.push(json!({"role": "assistant", "blocks": answer}));
        }
        if turn["errorRecorded"] == true {
            // The UI's notice after the error it records.
            messages.push(json!({"role": "system", "blocks": [{"type": "text"}]}));
        }
        if turn["rewound"] == true {
            let notice = format!("Rewound to before “{}”", turn["prompt"].as_str().unwrap());
            messages.push(json!({"role": "system", "blocks": [{"type": "text", "text": notice}]}));
        }
    }
    messages
}

fn block_without_step(block: &Value) -> Value {
    let mut block = block.clone();
    block.as_object_mut().unwrap().remove("step");
    block
}

/// A scripted call as sess should show it: the CLI's id (`<tool>__<id>`),
/// its arguments, its status, what its result holds, and the turns of the
/// turn's `subagent` when it is the call that ran it.
fn expected_call(block: &Value, subagent: &Value) -> Value {
    let name = block["name"].as_str().unwrap();
    let mut call = json!({
        "type": "tool_call",
        "id": format!("{name}__{}", block["id"].as_str().unwrap()),
        "name": name,
        "input": block["args"],
        "status": if block["fails"] == true { "failed" } else { "succeeded" },
        "resultContains": block["output"],
    });
    if name == "invoke_agent" && subagent.is_object() {
        call["subagent"] = json!(expected_messages(&json!({"turns": subagent["turns"]})));
    }
    call
}

/// A shown block as the expected one is written: a `contains` kept when the
/// shown text holds it, a tool call's result as `resultContains`.
fn comparable(got: &Value, want: &Value) -> Value {
    let mut block = json!({"type": got["type"]});
    for (key, wanted) in want.as_object().unwrap() {
        let value = match key.as_str() {
            "contains" => {
                let text = got["text"].as_str().unwrap_or_default();
                if wanted.as_str().is_some_and(|w| text.contains(w)) { wanted.clone() } else { got["text"].clone() }
            }
            "resultContains" => {
                let result = got["result"].as_str().unwrap_or_default();
                if wanted.as_str().is_some_and(|w| result.contains(w)) { wanted.clone() } else { got["result"].clone() }
            }
            "subagent" => {
                let wanted = wanted.as_array().unwrap();
                let shown = got["subagent"].as_array().cloned().unwrap_or_default();
                json!(shown.iter().enumerate().map(|(i, m)| comparable_message(m, wanted.get(i))).collect::<Vec<_>>())
            }
            _ => got[key].clone(),
        };
        block[key] = value;
    }
    block
}

fn comparable_message(got: &Value, want: Option<&Value>) -> Value {
    let wanted = want.and_then(|w| w["blocks"].as_array()).cloned().unwrap_or_default();
    let blocks = got["blocks"].as_array().cloned().unwrap_or_default();
    let blocks: Vec<Value> =
        blocks.iter().enumerate().map(|(i, b)| wanted.get(i).map_or_else(|| b.clone(), |w| comparable(b, w))).collect();
    json!({"role": got["role"], "blocks": blocks})
}

/// `sess show ID --json` and `sess show ID` against the session's turns.
fn check_transcript(home: &Path, session: &Value, mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    let shown = sess_json(home, &["show", id, "--json"]);
    let head = json!({"id": shown["id"], "cwd": shown["cwd"], "title": shown["title"]});
    let wanted = json!({"id": id, "cwd": session["cwd"], "title": session["expectedTitle"]});
    mismatches.check(head == wanted, || format!("sess show {id}: {}", first_difference(&head, &wanted)));
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
    for (n, (got, want)) in messages.iter().zip(&expected).enumerate() {
        let actual = comparable_message(got, Some(want));
        mismatches
            .check(actual == *want, || format!("sess show {id}, message {n}: {}", first_difference(&actual, want)));
    }
    check_rendering(home, id, session, mismatches);
}

/// `sess show ID`: every prompt once, the answers, a line per tool call with
/// its mark, and none of the CLI's session context.
fn check_rendering(home: &Path, id: &str, session: &Value, mismatches: &mut Mismatches) {
    let rendered = Rendered::show(home, id);
    for turn in session["turns"].as_array().unwrap() {
        rendered.check_prompt(turn["prompt"].as_str().unwrap(), mismatches);
        for block in turn["blocks"].as_array().unwrap() {
            match block["type"].as_str() {
                Some("text") => rendered.check_line(block["text"].as_str().unwrap(), mismatches),
                Some("tool_call") => {
                    let line = format!("{} {}", mark(block["fails"] == true), block["name"].as_str().unwrap());
                    rendered.check_line(&line, mismatches);
                }
                _ => {}
            }
        }
    }
    rendered.check_hidden(&["<session_context", "Content from referenced files", "Got it. Thanks"], mismatches);
}

fn gemini_commands() -> Option<Peer> {
    peer_in(&repo().join("interop/gemini"), "gemini", "node", "commands.mjs", "@google/gemini-cli")
}

/// Issue 26, item 10: `/init` typed into the real CLI (`commands.mjs`: `-p`
/// in project gamma, the interactive UI in project delta) and the CLI's own
/// "Please continue." after the tool's turn, as `sess show` shows them.
#[test]
fn sess_labels_the_slash_command_and_the_clis_continuation() {
    let Some(peer) = gemini_commands() else { return };
    check_live(&peer, &[], "Gemini CLI", "geminiVersion", check_commands);
}

/// The same, on the files of one run (`fixtures/gemini/real-0.61.0-commands/`).
#[test]
fn sess_labels_the_recorded_slash_command_and_continuation() {
    let fixtures = repo().join("fixtures/gemini/real-0.61.0-commands");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("home"), home);
    check_recorded(&fixtures, "recorded gemini commands", 1, lay_out, check_commands);
}

/// Each session: `/init` with its expansion as "Expanded /init", the call and
/// the model's text, then the continuation (a notice in the UI's session; in
/// `-p`'s, which records it as a typed one, a prompt), then the answer.
fn check_commands(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    for session in scenario["sessions"].as_array().unwrap() {
        let id = session["id"].as_str().unwrap();
        let shown = sess_json(home, &["show", id, "--json"]);
        let ui = session["cwd"].as_str().unwrap().ends_with("/delta");
        let rows: Vec<Value> = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            // The notice the UI shows when `/init` creates GEMINI.md.
            .filter(|m| {
                !(ui && m["role"] == "system"
                    && m["blocks"][0]["text"] == "Empty GEMINI.md created. Now analyzing the project to populate it.")
            })
            .map(|m| {
                let blocks = m["blocks"].as_array().unwrap();
                json!([
                    m["role"],
                    blocks
                        .iter()
                        .map(|b| b["title"].as_str().or(b["text"].as_str()).or(b["name"].as_str()))
                        .collect::<Vec<_>>()
                ])
            })
            .collect();
        let init = &session["turns"][0];
        let continuation = if ui {
            json!(["system", ["The CLI asked the model to go on (“Please continue.”)"]])
        } else {
            json!(["user", ["Please continue."]])
        };
        let want = [
            json!(["user", ["/init", "Expanded /init"]]),
            json!(["assistant", [init["blocks"][0]["name"], init["blocks"][1]["text"]]]),
            continuation,
            json!(["assistant", [session["turns"][1]["blocks"][0]["text"]]]),
        ];
        mismatches.check(rows == want, || format!("sess show {id}: {}", first_difference(&json!(rows), &json!(want))));
    }
}
