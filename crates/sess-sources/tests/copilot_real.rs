//! Golden tests over the sessions the real GitHub Copilot CLI 1.0.102 wrote
//! (`interop/copilot` ran it against a fake Chat Completions API; the files
//! are kept in `fixtures/copilot/real-1.0.102/copilot-home`, with the driver's
//! report, `scenario.json`, the run's folder scrubbed to `/home/dev`).
//!
//! The transcripts are checked against what the fake model was scripted to
//! do: every prompt, answer, reasoning, tool call (with its input, its status
//! and what it gave back), error, compaction summary, attachment and subagent
//! turn, in order, and nothing else; rewound prompts are gone.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

mod common;

use std::path::{Path, PathBuf};

use common::{read_json, usage_totals};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sess_sources::{Block, Message, Role, Scope, ToolStatus, Transcript, copilot};

fn fixture() -> PathBuf {
    common::fixture("copilot/real-1.0.102")
}

fn scenario() -> Value {
    read_json(&fixture().join("scenario.json"))
}

fn home() -> PathBuf {
    fixture().join("copilot-home")
}

fn events(id: &str) -> PathBuf {
    home().join("session-state").join(id).join("events.jsonl")
}

/// The 1×1 PNG the driver attached.
const DOT_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A message as JSON without ids and times, its calls without times.
fn plain(message: &Message) -> Value {
    let mut value = serde_json::to_value(message).unwrap();
    let map = value.as_object_mut().unwrap();
    map.remove("id");
    map.remove("timestamp");
    for block in map["blocks"].as_array_mut().unwrap() {
        if block["type"] == "tool_call" {
            let call = block.as_object_mut().unwrap();
            call.remove("startedAt");
            call.remove("endedAt");
            if let Some(sub) = call.get_mut("subagent") {
                for m in sub.as_array_mut().unwrap() {
                    m.as_object_mut().unwrap().remove("id");
                    m.as_object_mut().unwrap().remove("timestamp");
                    for b in m["blocks"].as_array_mut().unwrap() {
                        b.as_object_mut().unwrap().remove("startedAt");
                        b.as_object_mut().unwrap().remove("endedAt");
                    }
                }
            }
        }
    }
    value
}

/// The messages `turns` of the scenario should give, as [`plain`] JSON.
/// A call fails when the script says so or its command exits non-zero; a
/// successful call's result is what Copilot sent back to the model.
fn expected(turns: &Value, results: &Value) -> Vec<Value> {
    let mut messages = Vec::new();
    for turn in turns.as_array().unwrap() {
        if let Some(summary) = turn["compactedBefore"].as_str() {
            messages.push(json!({"role": "system", "blocks": [{"type": "summary", "text": summary}]}));
        }
        let mut prompt = vec![json!({"type": "text", "text": turn["prompt"]})];
        for _ in turn["attachments"].as_array().into_iter().flatten() {
            prompt.push(json!({"type": "image", "mediaType": "image/png", "data": DOT_PNG}));
        }
        messages.push(json!({"role": "user", "blocks": prompt}));
        let mut answer = Vec::new();
        for block in turn["blocks"].as_array().unwrap() {
            answer.push(match block["type"].as_str().unwrap() {
                "thinking" | "text" => json!({"type": block["type"], "text": block["text"]}),
                "error" => json!({"type": "error", "text": format!("400 {}", block["contains"].as_str().unwrap())}),
                "tool_call" => {
                    let id = block["id"].as_str().unwrap();
                    let fails = block["fails"] == true || block["exitCode"].as_i64().is_some_and(|c| c != 0);
                    let mut call = json!({"type": "tool_call", "id": id, "name": block["name"], "input": block["input"],
                        "status": if fails { "failed" } else { "succeeded" }, "result": results[id]});
                    if block["fails"] == true {
                        // What Copilot records of a failure is shorter than what it tells the model.
                        call.as_object_mut().unwrap().remove("result");
                    }
                    if let Some(sub) = block.get("turns") {
                        call["subagent"] = Value::Array(expected(sub, results));
                    }
                    call
                }
                other => panic!("unexpected block {other}"),
            });
        }
        messages.push(json!({"role": "assistant", "blocks": answer}));
    }
    messages
}

/// Checks the session `s` of the scenario and returns its transcript.
fn check(s: &Value, results: &Value) -> Transcript {
    let id = s["id"].as_str().unwrap();
    let transcript = copilot::load(&events(id)).unwrap();
    assert!(transcript.issues.is_empty(), "{id}: {:?}", transcript.issues);
    assert_eq!(transcript.id, id);
    assert_eq!(transcript.cwd.as_deref(), s["cwd"].as_str());
    assert_eq!(transcript.title.as_deref(), s["title"].as_str());
    let mut actual: Vec<Value> = transcript.messages.iter().map(plain).collect();
    // The result of a failed call is Copilot's error message: checked apart.
    for (message, original) in actual.iter_mut().zip(&transcript.messages) {
        for (block, original) in message["blocks"].as_array_mut().unwrap().iter_mut().zip(&original.blocks) {
            if let Block::ToolCall(call) = original
                && call.status == ToolStatus::Failed
                && !results[&call.id].as_str().unwrap().contains("exit code")
            {
                let error = block.as_object_mut().unwrap().remove("result").unwrap();
                assert!(!error.as_str().unwrap().is_empty(), "{}: no error text", call.id);
            }
        }
    }
    assert_eq!(actual, expected(&s["turns"], results), "{id}");
    let all = serde_json::to_string(&actual).unwrap();
    for rewound in s["rewound"].as_array().unwrap() {
        assert!(!all.contains(rewound.as_str().unwrap()), "{id}: {rewound} was rewound");
    }
    transcript
}

#[test]
fn transcripts_are_what_the_fake_model_was_scripted_to_do() {
    let scenario = scenario();
    let sessions = scenario["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    for s in sessions {
        check(s, &scenario["toolResults"]);
    }
}

#[test]
fn the_failures_say_why() {
    let scenario = scenario();
    let alpha = check(&scenario["sessions"][0], &scenario["toolResults"]);
    let failed: Vec<(String, Option<String>)> = alpha
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(c) if c.status == ToolStatus::Failed => Some((c.id.clone(), c.result.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(failed.len(), 3);
    assert_eq!(failed[0].0, "call_cat");
    assert!(failed[0].1.as_deref().unwrap().contains("No such file or directory"));
    assert_eq!(failed[1], ("call_view".to_owned(), Some("Path does not exist".to_owned())));
    assert_eq!(failed[2].0, "call_patch_bad");
    assert!(failed[2].1.as_deref().unwrap().starts_with("Failed to apply patch"));
}

#[test]
fn listing_says_what_sess_show_shows() {
    let scenario = scenario();
    let listing = copilot::list(&home(), Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    assert_eq!(listing.sessions.len(), 2);
    for s in scenario["sessions"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        let info = listing.sessions.iter().find(|info| info.id == id).unwrap();
        let transcript = copilot::load(&events(id)).unwrap();
        assert_eq!(info.path, events(id));
        assert_eq!(info.title.as_deref(), s["title"].as_str());
        assert_eq!(info.cwd.as_deref(), s["cwd"].as_str());
        assert_eq!(info.message_count, transcript.messages.len());
        assert_eq!(info.first_message.as_deref(), s["turns"][0]["prompt"].as_str());
        assert!(info.created.as_deref().is_some_and(|c| c.starts_with("20")), "{:?}", info.created);
    }
    let alpha = scenario["projects"]["alpha"].as_str().unwrap();
    let only = copilot::list(&home(), Scope::Project(Path::new(alpha)));
    assert_eq!(
        only.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        [scenario["sessions"][0]["id"].as_str().unwrap()]
    );
}

#[test]
fn detection_and_the_source() {
    let scenario = scenario();
    let source = copilot::SOURCE.source();
    for s in scenario["sessions"].as_array().unwrap() {
        let path = events(s["id"].as_str().unwrap());
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            sess_sources::detect(&path, &bytes[..bytes.len().min(sess_sources::DETECT_BYTES)]),
            Some(copilot::SOURCE)
        );
        let indexed = source.index(&path, &bytes).unwrap();
        assert_eq!(indexed.title.as_deref(), s["title"].as_str());
        assert_eq!(indexed.title_explicit, s["named"] == true);
        let checked = source.verify(&path).unwrap().unwrap();
        assert!(checked.findings.is_empty());
        assert_eq!(checked.entries, bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count());
    }
    let first = &scenario["sessions"][0];
    let turns = first["turns"].as_array().unwrap();
    let alpha = copilot::load(&events(first["id"].as_str().unwrap())).unwrap();
    // Four prompts, four answers and the compaction's summary.
    assert_eq!(alpha.messages.len(), 2 * turns.len() + 1);
    assert_eq!(alpha.messages.iter().filter(|m| m.role == Role::System).count(), 1);
}

#[test]
fn a_session_is_made_of_its_events_and_its_workspace_yaml() {
    #![allow(clippy::disallowed_methods)] // The flat layout is made for the test.
    use sess_sources::{Growth, Source as _};
    let found = copilot::find_session_files(&home()).files;
    assert_eq!(found.len(), 2);
    for (id, main) in &found {
        assert_eq!(copilot::Copilot.growth(main), Growth::Lines, "{id}");
        let workspace = main.with_file_name("workspace.yaml");
        assert_eq!(copilot::Copilot.companions(main), std::slice::from_ref(&workspace), "{id}");
        assert_eq!(copilot::Copilot.growth(&workspace), Growth::Whole);
    }
    // The flat layout of older releases: `<id>.jsonl`, and `<id>/workspace.yaml` when there is one.
    let (id, events) = &found[0];
    let dir = tempfile::tempdir().unwrap();
    let flat = dir.path().join("session-state").join(format!("{id}.jsonl"));
    std::fs::create_dir_all(flat.parent().unwrap()).unwrap();
    std::fs::copy(events, &flat).unwrap();
    assert!(copilot::Copilot.companions(&flat).is_empty());
    let workspace = flat.with_extension("").join("workspace.yaml");
    std::fs::create_dir_all(workspace.parent().unwrap()).unwrap();
    std::fs::copy(events.with_file_name("workspace.yaml"), &workspace).unwrap();
    assert_eq!(copilot::Copilot.companions(&flat), [workspace]);
}

/// Each session's calls: its usage records (a subagent's among them) and its
/// compaction's request. The totals were counted with Python: each
/// `session.usage_record`'s `data.usage` and each
/// `session.compaction_complete`'s `compactionTokensUsed`, input less the
/// cache reads and writes.
#[test]
fn each_model_request_counts_once() {
    use sess_sources::Source as _;
    // (calls, input, cache read, cache write, output, reasoning)
    for (id, expected, models) in [
        // Eight requests, the model changed for one, and a compaction's.
        ("06b9b199-0526-4d82-8dae-2b3b31a183d1", (9, 9000, 0, 0, 180, 0), ["gpt-4.1", "gpt-4o"].as_slice()),
        // Three requests and the subagent's two (the failed request made none).
        ("16729d8b-29e4-456c-84c4-852e4d5a9056", (5, 5000, 0, 0, 100, 0), ["gpt-4o"].as_slice()),
    ] {
        let path = events(id);
        let usage = copilot::Copilot.index(&path, &std::fs::read(&path).unwrap()).unwrap().usage;
        assert_eq!(usage_totals(&usage), expected, "{id}");
        let mut seen: Vec<&str> = usage.iter().map(|c| c.model.as_deref().unwrap()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, models, "{id}");
        assert!(usage.iter().all(|c| c.key.is_some() && c.cost.is_none()), "{id}");
    }
}

/// Issue 26, item 10, on the real CLI's files: commands the user ran with `!`
/// (`interop/copilot/user-commands.mjs` runs them through
/// `shell.executeUserRequested`, which the interactive CLI's `!` calls) are
/// user messages holding the call, with the output Copilot returned and
/// whether the command succeeded, between the prompts around them. The real
/// records carry no `tool.execution_start`, and a failed command's output is
/// its `error.message`.
#[test]
fn the_commands_the_user_ran_are_user_messages_holding_their_calls() {
    let fixture = common::fixture("copilot/real-1.0.102-user-commands");
    let scenario = read_json(&fixture.join("scenario.json"));
    let session = &scenario["sessions"][0];
    let id = session["id"].as_str().unwrap();
    let path = fixture.join("copilot-home/session-state").join(id).join("events.jsonl");
    let transcript = copilot::load(&path).unwrap();
    assert!(transcript.issues.is_empty(), "{:?}", transcript.issues);
    let [look, after] = [0, 1].map(|i| session["turns"][i].clone());
    let ran: Vec<Value> = scenario["userCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            json!({"role": "user", "blocks": [{
                "type": "tool_call",
                "id": c["result"]["toolCallId"],
                "name": "local_shell",
                "input": {"command": c["command"], "description": format!("Execute shell command: {}", c["command"].as_str().unwrap())},
                "status": if c["success"] == true { "succeeded" } else { "failed" },
                "result": c["result"]["output"],
            }]})
        })
        .collect();
    let prompt = |turn: &Value| json!({"role": "user", "blocks": [{"type": "text", "text": turn["prompt"]}]});
    let answer =
        |turn: &Value| json!({"role": "assistant", "blocks": [{"type": "text", "text": turn["blocks"][0]["text"]}]});
    let mut want = vec![prompt(&look), answer(&look)];
    want.extend(ran);
    want.extend([prompt(&after), answer(&after)]);
    let got: Vec<Value> = transcript.messages.iter().map(plain).collect();
    assert_eq!(got, want);
    // One command succeeded and one exited 1, as the script meant.
    let statuses: Vec<_> = scenario["userCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["exitCode"].clone(), c["success"].clone()))
        .collect();
    assert_eq!(statuses, [(json!(0), json!(true)), (json!(1), json!(false))]);
}
