//! The real GitHub Copilot CLI (`@github/copilot` 1.0.102 from npm) against
//! a fake Chat Completions API (`interop/copilot/`).
//!
//! The driver runs `copilot -p` in two projects, resumes (on another model,
//! with tool calls that succeed and fail), compacts, rewinds and renames a
//! session through the SDK the package bundles, attaches an image, runs a
//! subagent and a turn whose model request fails, and reports what each
//! session should hold. `sess list` and `sess show` must find exactly that in
//! the `session-state` folder Copilot wrote: the ids, cwds, titles and message
//! counts; every prompt once, with its image; reasoning as thinking; tool
//! calls paired with their results and failed where they should (a command
//! that exits non-zero included); the answers; the subagent's turns under its
//! call; the compaction as its summary; the failed request as its error; and
//! no trace of the rewound turn. The sessions of one run are kept in
//! `fixtures/copilot/real-1.0.102/` and checked the same way without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Folder, Mismatches, Peer, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, copy_dir,
    first_difference, mark, peer_in, repo, sess_json, show,
};

fn copilot() -> Option<Peer> {
    peer_in(&repo().join("interop/copilot"), "copilot", "node", "driver.mjs", "@github/copilot")
}

#[test]
fn sess_reads_what_copilot_writes() {
    let Some(peer) = copilot() else { return };
    check_live(&peer, &[], "Copilot CLI", "copilotVersion", check);
}

/// The sessions of one driver run (`interop/copilot/fixtures.mjs`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_copilot_sessions() {
    let fixtures = repo().join("fixtures/copilot/real-1.0.102");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("copilot-home"), &home.join(".copilot"));
    check_recorded(&fixtures, "recorded copilot sessions", 40, lay_out, check);
}

/// How many messages the turns make: a prompt and an answer each, and a
/// summary before a prompt that follows a compaction.
fn message_count(turns: &[Value]) -> usize {
    2 * turns.len() + turns.iter().filter(|t| t["compactedBefore"].is_string()).count()
}

/// Checks what `sess` makes of the Copilot home under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions: Vec<&Value> = scenario["sessions"].as_array().unwrap().iter().collect();
    let folder = Folder::new(scenario, "copilotHome", home.join(".copilot"));

    // The listing of every project, and of each project.
    let listed = check_listed_ids(home, "copilot", "Copilot", &sessions, &scenario["projects"], mismatches);
    for session in &sessions {
        let expected = || {
            let turns = session["turns"].as_array().unwrap();
            json!({
                "source": "copilot",
                "path": folder.relative(session["path"].as_str().unwrap()),
                "cwd": session["cwd"],
                "title": session["title"],
                "messageCount": message_count(turns),
                "firstMessage": turns[0]["prompt"],
            })
        };
        check_listed_entry(&listed, session["id"].as_str().unwrap(), expected, |k, v| folder.shown(k, v), mismatches);
    }

    for session in sessions {
        check_transcript(home, session, &scenario["toolResults"], mismatches);
    }
}

/// `sess show ID --json` and `sess show ID` against the session's turns.
fn check_transcript(home: &Path, session: &Value, results: &Value, mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    let shown = sess_json(home, &["show", id, "--json"]);
    mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"] && shown["title"] == session["title"], || {
        format!(
            "sess show {id}: id {} cwd {} title {}, Copilot {} {}",
            shown["id"], shown["cwd"], shown["title"], session["cwd"], session["title"]
        )
    });
    let turns = session["turns"].as_array().unwrap();
    let messages = shown["messages"].as_array().unwrap();
    mismatches.check(messages.len() == message_count(turns), || {
        format!("sess show {id}: {} messages for {} turns: {}", messages.len(), turns.len(), show(&shown["messages"]))
    });
    check_messages(&format!("sess show {id}"), messages, turns, results, mismatches);
    check_rendering(home, session, mismatches);
}

/// `messages` against `turns`: a compaction's summary, then each prompt with
/// its images and the answer.
fn check_messages(what: &str, messages: &[Value], turns: &[Value], results: &Value, mismatches: &mut Mismatches) {
    let mut next = messages.iter();
    for (n, turn) in turns.iter().enumerate() {
        if let Some(summary) = turn["compactedBefore"].as_str() {
            let Some(notice) = next.next() else { break };
            let actual = json!({"role": notice["role"], "blocks": notice["blocks"]});
            let expected = json!({"role": "system", "blocks": [{"type": "summary", "text": summary}]});
            mismatches
                .check(actual == expected, || format!("{what}, turn {n}: {}", first_difference(&actual, &expected)));
        }
        let (Some(prompt), Some(answer)) = (next.next(), next.next()) else { break };
        let mut expected = vec![json!({"type": "text", "text": turn["prompt"]})];
        for _ in turn["attachments"].as_array().into_iter().flatten() {
            expected.push(json!({"type": "image", "mediaType": "image/png"}));
        }
        let actual: Vec<Value> = prompt["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("image") if b["data"].is_string() => json!({"type": "image", "mediaType": b["mediaType"]}),
                _ => b.clone(),
            })
            .collect();
        let (actual, expected) =
            (json!({"role": prompt["role"], "blocks": actual}), json!({"role": "user", "blocks": expected}));
        mismatches.check(actual == expected, || {
            format!("{what}, turn {n}, prompt: {}", first_difference(&actual, &expected))
        });
        let (actual, expected) = answer_and_expected(answer, turn, results);
        mismatches.check(actual == expected, || {
            format!("{what}, turn {n}, answer: {}", first_difference(&actual, &expected))
        });
        for (block, want) in answer["blocks"].as_array().unwrap().iter().zip(turn["blocks"].as_array().unwrap()) {
            if let Some(sub) = want["turns"].as_array() {
                let got = block["subagent"].as_array().cloned().unwrap_or_default();
                mismatches.check(got.len() == message_count(sub), || {
                    format!(
                        "{what}, turn {n}: the subagent of {} has {} messages: {}",
                        want["id"],
                        got.len(),
                        show(&block["subagent"])
                    )
                });
                check_messages(&format!("{what}, subagent of {}", want["id"]), &got, sub, results, mismatches);
            }
        }
    }
}

/// The answer as shown and as expected from the turn: thinking, text, tool
/// calls with their status and result, errors. A call fails when the script
/// says so or when its command exits non-zero; a call that succeeds has the
/// result Copilot sent back to the model, one that fails an error message.
fn answer_and_expected(answer: &Value, turn: &Value, results: &Value) -> (Value, Value) {
    let blocks = answer["blocks"].as_array().unwrap();
    let expected_blocks = turn["blocks"].as_array().unwrap();
    let mut actual = Vec::new();
    let mut expected = Vec::new();
    for (i, want) in expected_blocks.iter().enumerate() {
        let got = blocks.get(i).cloned().unwrap_or(Value::Null);
        match want["type"].as_str() {
            Some("tool_call") => {
                let exits = want["exitCode"].as_i64().is_some_and(|c| c != 0);
                let fails = want["fails"] == true || exits;
                let status = if fails { "failed" } else { "succeeded" };
                let result = got["result"].as_str().unwrap_or("");
                let told = results[want["id"].as_str().unwrap()].as_str().unwrap_or("");
                // A failed call's record holds Copilot's error, shorter than what the model was told.
                let says = if want["fails"] == true { !result.is_empty() } else { result == told };
                expected.push(json!({"type": "tool_call", "id": want["id"], "name": want["name"], "input": want["input"], "status": status, "result": true}));
                actual.push(json!({"type": got["type"], "id": got["id"], "name": got["name"], "input": got["input"], "status": got["status"], "result": says}));
            }
            Some("error") => {
                let wanted = want["contains"].as_str().unwrap();
                expected.push(json!({"type": "error", "text": wanted}));
                let text = got["text"].as_str().unwrap_or("");
                actual.push(json!({"type": got["type"], "text": if text.contains(wanted) { wanted } else { text }}));
            }
            _ => {
                expected.push(want.clone());
                actual.push(got);
            }
        }
    }
    actual.extend(blocks.iter().skip(expected_blocks.len()).cloned());
    (json!({"role": answer["role"], "blocks": actual}), json!({"role": "assistant", "blocks": expected}))
}

/// `sess show ID`: the title, every prompt once, the answers, a line per tool
/// call with its mark, the errors, no system prompt, and nothing rewound.
fn check_rendering(home: &Path, session: &Value, mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    let rendered = Rendered::show(home, id);
    let text = &rendered.text;
    mismatches.check(text.lines().next() == session["title"].as_str(), || {
        format!("sess show {id}: not titled {}:\n{text}", session["title"])
    });
    for turn in session["turns"].as_array().unwrap() {
        rendered.check_prompt(turn["prompt"].as_str().unwrap(), mismatches);
        for block in turn["blocks"].as_array().unwrap() {
            match block["type"].as_str() {
                Some("text") => {
                    // A long answer is wrapped.
                    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
                    let answer = block["text"].as_str().unwrap();
                    mismatches.check(words(text).contains(&words(answer)), || {
                        format!("sess show {id}: no answer {answer:?} in\n{text}")
                    });
                }
                Some("error") => rendered.check_error(block["contains"].as_str().unwrap(), mismatches),
                Some("tool_call") => {
                    let fails = block["fails"] == true || block["exitCode"].as_i64().is_some_and(|c| c != 0);
                    let input = &block["input"];
                    let what = ["command", "path", "description"]
                        .iter()
                        .find_map(|key| input[key].as_str())
                        .or_else(|| input.as_str())
                        .unwrap_or("");
                    let what = what.lines().next().unwrap_or("");
                    rendered.check_line(
                        &format!("{} {}  {what}", mark(fails), block["name"].as_str().unwrap()),
                        mismatches,
                    );
                }
                _ => {}
            }
        }
    }
    for rewound in session["rewound"].as_array().into_iter().flatten() {
        let rewound = rewound.as_str().unwrap();
        mismatches.check(!text.contains(rewound), || format!("sess show {id} shows the rewound {rewound:?}:\n{text}"));
    }
    rendered.check_hidden(&["You are the GitHub Copilot CLI", "<current_datetime>", "Image file at path"], mismatches);
}

fn copilot_user_commands() -> Option<Peer> {
    peer_in(&repo().join("interop/copilot"), "copilot", "node", "user-commands.mjs", "@github/copilot")
}

/// Issue 26, item 10: the commands a user runs with `!` in the real CLI
/// (`user-commands.mjs`) are user messages holding their calls in `sess show`.
#[test]
fn sess_shows_the_commands_the_user_ran_in_copilot() {
    let Some(peer) = copilot_user_commands() else { return };
    check_live(&peer, &[], "Copilot CLI", "copilotVersion", check_user_commands);
}

/// The same, on the files of one run (`fixtures/copilot/real-1.0.102-user-commands/`).
#[test]
fn sess_shows_the_recorded_commands_the_user_ran_in_copilot() {
    let fixtures = repo().join("fixtures/copilot/real-1.0.102-user-commands");
    let lay_out = |home: &Path| copy_dir(&fixtures.join("copilot-home"), &home.join(".copilot"));
    check_recorded(&fixtures, "recorded copilot user commands", 4, lay_out, check_user_commands);
}

/// `sess show` of the session: its first prompt and answer, then each command
/// the user ran as a user message holding its `local_shell` call, with the
/// output and status Copilot returned, then the second prompt and answer.
fn check_user_commands(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let session = &scenario["sessions"][0];
    let id = session["id"].as_str().unwrap();
    let shown = sess_json(home, &["show", id, "--json"]);
    let messages = shown["messages"].as_array().unwrap();
    let commands = scenario["userCommands"].as_array().unwrap();
    mismatches.check(messages.len() == 4 + commands.len(), || format!("sess show {id}: {}", show(&shown["messages"])));
    let text = |m: &Value| (m["role"].clone(), m["blocks"][0]["text"].clone());
    let turns = session["turns"].as_array().unwrap();
    let around = [(0, &turns[0]), (2 + commands.len(), &turns[1])];
    for (at, turn) in around {
        let want = [
            Some((json!("user"), turn["prompt"].clone())),
            Some((json!("assistant"), turn["blocks"][0]["text"].clone())),
        ];
        let got = [messages.get(at).map(text), messages.get(at + 1).map(text)];
        mismatches.check(got == want, || format!("sess show {id}: {got:?} for {want:?}"));
    }
    for (i, command) in commands.iter().enumerate() {
        let message = messages.get(2 + i).cloned().unwrap_or_default();
        let call = &message["blocks"][0];
        let status = if command["success"] == true { "succeeded" } else { "failed" };
        mismatches.check(
            message["role"] == "user"
                && message["blocks"].as_array().map(Vec::len) == Some(1)
                && call["type"] == "tool_call"
                && call["id"] == command["result"]["toolCallId"]
                && call["name"] == "local_shell"
                && call["input"]["command"] == command["command"]
                && call["status"] == status
                && call["result"] == command["result"]["output"],
            || format!("sess show {id}: {} for the command {command}", show(&message)),
        );
    }
}
