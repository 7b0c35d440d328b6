//! The real Codex CLI (`@openai/codex` 0.171.0 from npm) against a fake
//! Responses API (`interop/codex/`).
//!
//! The driver runs `codex exec` in two projects, `resume <id>`, `resume
//! --last` (which compacts first), `fork <id>`, a prompt with an image and
//! a resumed turn whose model request fails, and reports what each
//! session should hold. `sess list` and `sess show` must find exactly that in
//! the rollouts Codex wrote: the ids, cwds, forks, titles and message counts;
//! every prompt once, with no injected context; reasoning as thinking; tool
//! calls paired with their outputs and failed where they should; the answers;
//! a compaction as its summary; a failed model request as its error.
//! The rollouts of one run are kept in `fixtures/codex/real-0.171.0/` and
//! checked the same way without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Folder, Mismatches, Peer, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, copy_dir,
    first_difference, inherited_and_own_turns, mark, peer_in, repo, sess_json, show,
};

fn codex() -> Option<Peer> {
    peer_in(&repo().join("interop/codex"), "codex", "node", "driver.mjs", "@openai/codex")
}

#[test]
fn sess_reads_what_codex_writes() {
    let Some(peer) = codex() else { return };
    check_live(&peer, &[], "Codex", "codexVersion", check);
}

/// The rollouts of one driver run (`interop/codex/fixtures.mjs`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_codex_rollouts() {
    let fixtures = repo().join("fixtures/codex/real-0.171.0");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("codex-home"), &home.join(".codex"));
    check_recorded(&fixtures, "recorded codex rollouts", 50, lay_out, check);
}

fn strings(value: &Value) -> Vec<&str> {
    value.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

/// Checks what `sess` makes of the Codex home under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions: Vec<&Value> = scenario["sessions"].as_array().unwrap().iter().collect();
    let folder = Folder::new(scenario, "codexHome", home.join(".codex"));

    // The listing of every project, and of each project.
    let listed = check_listed_ids(home, "codex", "Codex", &sessions, &scenario["projects"], mismatches);
    for session in &sessions {
        let expected = || {
            let turns = inherited_and_own_turns(session);
            let messages = 2 * turns.len() + turns.iter().filter(|t| t["compactedBefore"].is_string()).count();
            let own_first_prompt = &session["turns"][0]["prompt"];
            json!({
                "source": "codex",
                "path": folder.relative(session["path"].as_str().unwrap()),
                "cwd": session["cwd"],
                "title": own_first_prompt,
                "messageCount": messages,
                "firstMessage": own_first_prompt,
                "parentSession": session["forkedFrom"],
            })
        };
        check_listed_entry(&listed, session["id"].as_str().unwrap(), expected, |k, v| folder.shown(k, v), mismatches);
    }

    for session in sessions {
        check_transcript(home, session, mismatches);
    }
}

/// `sess show ID --json` and `sess show ID` against the session's turns.
fn check_transcript(home: &Path, session: &Value, mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    let shown = sess_json(home, &["show", id, "--json"]);
    mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"], || {
        format!("sess show {id}: id {} cwd {}, Codex {}", shown["id"], shown["cwd"], session["cwd"])
    });
    let turns = inherited_and_own_turns(session);
    let messages = shown["messages"].as_array().unwrap();
    let compactions = turns.iter().filter(|t| t["compactedBefore"].is_string()).count();
    mismatches.check(messages.len() == 2 * turns.len() + compactions, || {
        format!("sess show {id}: {} messages for {} turns: {}", messages.len(), turns.len(), show(&shown["messages"]))
    });
    let mut next = messages.iter();
    for (n, turn) in turns.iter().enumerate() {
        // A compaction before the prompt: a system message with its summary.
        if let Some(summary) = turn["compactedBefore"].as_str() {
            let Some(notice) = next.next() else { break };
            let block = &notice["blocks"][0];
            let ok = notice["role"] == "system"
                && notice["blocks"].as_array().map(Vec::len) == Some(1)
                && block["type"] == "summary"
                && block["text"].as_str().is_some_and(|t| t.contains(summary));
            mismatches.check(ok, || format!("sess show {id}, turn {n}: not the compaction summary: {}", show(notice)));
        }
        let (Some(prompt), Some(answer)) = (next.next(), next.next()) else { break };
        // The prompt, once, after its images; nothing injected.
        let mut expected: Vec<Value> =
            strings(&turn["images"]).iter().map(|_| json!({"type": "image", "mediaType": "image/png"})).collect();
        expected.push(json!({"type": "text", "text": turn["prompt"]}));
        let actual: Vec<Value> = prompt["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("image") => json!({"type": "image", "mediaType": b["mediaType"]}),
                _ => b.clone(),
            })
            .collect();
        let (actual, expected) =
            (json!({"role": prompt["role"], "blocks": actual}), json!({"role": "user", "blocks": expected}));
        mismatches.check(actual == expected, || {
            format!("sess show {id}, turn {n}, prompt: {}", first_difference(&actual, &expected))
        });
        let (actual, expected) = answer_and_expected(answer, turn);
        mismatches.check(actual == expected, || {
            format!("sess show {id}, turn {n}, answer: {}", first_difference(&actual, &expected))
        });
    }
    check_rendering(home, id, &turns, mismatches);
}

/// The answer as shown and as expected from the turn: thinking, tool calls
/// with their status and (part of their) output, errors, text.
fn answer_and_expected(answer: &Value, turn: &Value) -> (Value, Value) {
    let blocks = answer["blocks"].as_array().unwrap();
    let expected_blocks = turn["blocks"].as_array().unwrap();
    let mut actual = Vec::new();
    let mut expected = Vec::new();
    for (i, want) in expected_blocks.iter().enumerate() {
        let got = blocks.get(i).cloned().unwrap_or(Value::Null);
        if want["type"] == "tool_call" {
            let status = if want["fails"] == true { "failed" } else { "succeeded" };
            expected.push(json!({"type": "tool_call", "id": want["id"], "name": want["name"], "input": want["input"], "status": status, "output": want["output"]}));
            let result = got["result"].as_str().unwrap_or("");
            let wanted = want["output"].as_str().unwrap();
            let output = if result.contains(wanted) { json!(wanted) } else { json!(result) };
            actual.push(json!({"type": got["type"], "id": got["id"], "name": got["name"], "input": got["input"], "status": got["status"], "output": output}));
        } else if want["type"] == "error" {
            let wanted = want["contains"].as_str().unwrap();
            expected.push(json!({"type": "error", "text": wanted}));
            let text = got["text"].as_str().unwrap_or("");
            actual.push(json!({"type": got["type"], "text": if text.contains(wanted) { wanted } else { text }}));
        } else {
            expected.push(want.clone());
            actual.push(got);
        }
    }
    actual.extend(blocks.iter().skip(expected_blocks.len()).cloned());
    (json!({"role": answer["role"], "blocks": actual}), json!({"role": "assistant", "blocks": expected}))
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
                    let what = block["input"]["cmd"].as_str().unwrap_or_else(|| block["input"].as_str().unwrap_or(""));
                    let what = what.lines().next().unwrap_or("");
                    let line = format!("{} {}  {what}", mark(block["fails"] == true), block["name"].as_str().unwrap());
                    rendered.check_line(&line, mismatches);
                }
                _ => {}
            }
        }
    }
    let injected = [
        "<environment_context",
        "AGENTS.md",
        "Beta rules",
        "<permissions instructions",
        "<skills_instructions",
        "<image",
    ];
    rendered.check_hidden(&injected, mismatches);
}
