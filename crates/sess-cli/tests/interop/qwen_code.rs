//! The real Qwen Code CLI (`@qwen-code/qwen-code` 0.24.4 from npm) against a
//! fake chat-completions API (`interop/qwen-code/`).
//!
//! The driver runs `qwen` non-interactively in three projects (a prompt with
//! thinking, `--resume`, `--fork-session`, `--continue /compress`, tool calls
//! that succeed and fail, a request that fails, an image, a subagent) and over
//! ACP (a title from the fast model, a rewind, a rename), and reports what
//! each session should hold. `sess list` and `sess show` must find exactly
//! that in the files Qwen Code wrote: the ids, cwds, forks, titles and message
//! counts; every prompt once, with no injected context; thinking; tool calls
//! paired with their results and failed where they should; the subagent's
//! turns under its call; a compression as its summary; a rewind as a notice;
//! a failed request as its error. The files of one run are kept in
//! `fixtures/qwen-code/real-0.24.4/` and checked the same way without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Folder, Mismatches, Peer, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, copy_dir,
    first_difference, inherited_and_own_turns, mark, peer_in, repo, sess_json, show,
};

fn qwen_code() -> Option<Peer> {
    peer_in(&repo().join("interop/qwen-code"), "qwen-code", "node", "driver.mjs", "@qwen-code/qwen-code")
}

#[test]
fn sess_reads_what_qwen_code_writes() {
    let Some(peer) = qwen_code() else { return };
    check_live(&peer, &[], "Qwen Code", "qwenVersion", check);
}

/// The files of one driver run (`interop/qwen-code/fixtures.mjs`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_qwen_code_sessions() {
    let fixtures = repo().join("fixtures/qwen-code/real-0.24.4");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("qwen-home"), &home.join(".qwen"));
    check_recorded(&fixtures, "recorded qwen-code sessions", 50, lay_out, check);
}

/// Checks what `sess` makes of the Qwen home under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions: Vec<&Value> = scenario["sessions"].as_array().unwrap().iter().collect();
    let folder = Folder::new(scenario, "qwenHome", home.join(".qwen"));

    // The listing of every project, and of each project.
    let listed = check_listed_ids(home, "qwen", "Qwen Code", &sessions, &scenario["projects"], mismatches);
    for session in &sessions {
        let expected = || {
            let turns = inherited_and_own_turns(session);
            let first_prompt = &turns[0]["prompt"];
            let title = if session["title"].is_string() { &session["title"] } else { first_prompt };
            json!({
                "source": "qwen",
                "path": folder.relative(session["path"].as_str().unwrap()),
                "cwd": session["cwd"],
                "title": title,
                "messageCount": expected_messages(&turns).len(),
                "firstMessage": first_prompt,
                "parentSession": session["forkedFrom"],
            })
        };
        check_listed_entry(&listed, session["id"].as_str().unwrap(), expected, |k, v| folder.shown(k, v), mismatches);
    }

    for session in sessions {
        check_transcript(home, session, mismatches);
    }
}

/// The messages `turns` should give, each as `{role, blocks}` with blocks cut
/// to what the scenario knows: a compression's summary before the turn it
/// preceded, each turn's prompt (with the files it references and their
/// images) and answer, a rewind's notice after the turns it took back.
fn expected_messages(turns: &[&Value]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rewound = 0;
    for turn in turns {
        if rewound > 0 && turn["rewound"] != true {
            let text = format!("Rewound {rewound} prompt{}", if rewound == 1 { "" } else { "s" });
            out.push(json!({"role": "system", "blocks": [{"type": "text", "text": text}]}));
            rewound = 0;
        }
        if let Some(summary) = turn["compactedBefore"].as_str() {
            let snapshot = &summary[summary.find("<state_snapshot>").unwrap_or(0)..];
            out.push(json!({"role": "system", "blocks": [{"type": "summary", "text": snapshot}]}));
        }
        let mut prompt = vec![json!({"type": "text", "text": turn["prompt"]})];
        let images = turn["images"].as_array().unwrap();
        if !images.is_empty() {
            prompt.push(json!({"type": "context", "title": "Referenced files"}));
            prompt.extend(images.iter().map(|_| json!({"type": "image", "mediaType": "image/jpeg"})));
        }
        out.push(json!({"role": "user", "blocks": prompt}));
        let answer: Vec<Value> = turn["blocks"]
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
        out.push(json!({"role": "assistant", "blocks": answer}));
        if turn["rewound"] == true {
            rewound += 1;
        }
    }
    out
}

/// A shown message cut to what [`expected_messages`] knows: a tool call's
/// result is the expected part when it holds it, an error's text likewise,
/// a context block its title.
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
                Some("context") => json!({"type": "context", "title": b["title"]}),
                Some("image") => json!({"type": "image", "mediaType": b["mediaType"]}),
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
    mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"] && shown["source"] == "qwen", || {
        format!("sess show {id}: id {} cwd {}, Qwen Code {}", shown["id"], shown["cwd"], session["cwd"])
    });
    let turns = inherited_and_own_turns(session);
    let expected = expected_messages(&turns);
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
    // Each subagent's turns, under the call that started it.
    for sub in session["subagents"].as_array().unwrap() {
        let call = messages.iter().flat_map(|m| m["blocks"].as_array().unwrap()).find(|b| b["id"] == sub["callId"]);
        let folded = call.and_then(|c| c["subagent"].as_array()).cloned().unwrap_or_default();
        let sub_turns: Vec<&Value> = sub["turns"].as_array().unwrap().iter().collect();
        let expected = expected_messages(&sub_turns);
        let actual: Vec<Value> = folded.iter().zip(&expected).map(|(m, w)| cut(m, w)).collect();
        mismatches.check(actual == expected, || {
            format!(
                "sess show {id}, subagent {}: {}",
                sub["callId"],
                first_difference(&json!(actual), &json!(expected))
            )
        });
    }
    check_rendering(home, id, &turns, mismatches);
}

/// `sess show ID`: every prompt once, the answers, a line per tool call with
/// its mark, the errors, and no injected context.
fn check_rendering(home: &Path, id: &str, turns: &[&Value], mismatches: &mut Mismatches) {
    let rendered = Rendered::show(home, id);
    for turn in turns {
        rendered.check_prompt(turn["prompt"].as_str().unwrap(), mismatches);
        for block in turn["blocks"].as_array().unwrap() {
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
    let injected = ["<system-reminder", "This is the Qwen Code", "Resume the prior task", "--- Content from"];
    rendered.check_hidden(&injected, mismatches);
}
