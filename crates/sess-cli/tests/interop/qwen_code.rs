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

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use crate::harness::{Mismatches, Peer, first_difference, parse, peer_in, repo, show};

fn qwen_code() -> Option<Peer> {
    peer_in(&repo().join("interop/qwen-code"), "qwen-code", "node", "driver.mjs", "@qwen-code/qwen-code")
}

#[test]
fn sess_reads_what_qwen_code_writes() {
    let Some(peer) = qwen_code() else { return };
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let scenario = peer.run(dir.path(), &[dir.path().to_str().unwrap()]);
    assert_eq!(scenario["unexpectedRequests"], 0, "the fake API got requests it has no script for");
    let ran = started.elapsed();
    let mut mismatches = Mismatches::new(0);
    check(dir.path(), &scenario, &mut mismatches);
    eprintln!(
        "interop qwen-code: Qwen Code {} wrote {} sessions in {} runs ({:.1} s); {} comparisons ({:.1} s in all)",
        scenario["qwenVersion"].as_str().unwrap_or("?"),
        scenario["sessions"].as_array().map_or(0, Vec::len),
        scenario["runs"].as_array().map_or(0, Vec::len),
        ran.as_secs_f64(),
        mismatches.compared,
        started.elapsed().as_secs_f64(),
    );
    mismatches.finish("interop qwen-code");
}

/// The files of one driver run (`interop/qwen-code/fixtures.mjs`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_qwen_code_sessions() {
    let fixtures = repo().join("fixtures/qwen-code/real-0.24.4");
    let scenario = parse(&std::fs::read(fixtures.join("scenario.json")).unwrap());
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures.join("qwen-home"), &dir.path().join(".qwen"));
    let mut mismatches = Mismatches::new(0);
    check(dir.path(), &scenario, &mut mismatches);
    assert!(mismatches.compared > 50, "{} comparisons", mismatches.compared);
    mismatches.finish("recorded qwen-code sessions");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Runs `sess` with `home` as `$HOME` (so `home/.qwen` is the Qwen home).
fn sess(home: &Path, args: &[&str]) -> Vec<u8> {
    let output = Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(args)
        .env("HOME", home)
        .env_remove("QWEN_HOME")
        .env_remove("QWEN_RUNTIME_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .output()
        .unwrap();
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// A session's turns, those a fork copied first.
fn turns(session: &Value) -> Vec<&Value> {
    session["inherited"].as_array().unwrap().iter().chain(session["turns"].as_array().unwrap()).collect()
}

/// Checks what `sess` makes of the Qwen home under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions = scenario["sessions"].as_array().unwrap();
    let reported_home = Path::new(scenario["qwenHome"].as_str().unwrap());
    let relative = |path: &str| -> PathBuf {
        let path = Path::new(path);
        path.strip_prefix(reported_home).or_else(|_| path.strip_prefix(home.join(".qwen"))).unwrap_or(path).to_owned()
    };

    // The listing of every project.
    let listed = parse(&sess(home, &["list", "--source", "qwen", "--all-projects", "--json"]));
    let listed = listed.as_array().unwrap();
    let mut ids: Vec<&str> = listed.iter().filter_map(|s| s["id"].as_str()).collect();
    let mut expected_ids: Vec<&str> = sessions.iter().filter_map(|s| s["id"].as_str()).collect();
    ids.sort_unstable();
    expected_ids.sort_unstable();
    mismatches.check(ids == expected_ids, || format!("listed ids {ids:?}, Qwen Code made {expected_ids:?}"));
    for session in sessions {
        let id = session["id"].as_str().unwrap();
        let Some(item) = listed.iter().find(|s| s["id"] == id) else { continue };
        let turns = turns(session);
        let first_prompt = &turns[0]["prompt"];
        let title = if session["title"].is_string() { &session["title"] } else { first_prompt };
        let expected = json!({
            "source": "qwen",
            "path": relative(session["path"].as_str().unwrap()),
            "cwd": session["cwd"],
            "title": title,
            "messageCount": expected_messages(&turns).len(),
            "firstMessage": first_prompt,
            "parentSession": session["forkedFrom"],
        });
        let actual = json!({
            "source": item["source"],
            "path": relative(item["path"].as_str().unwrap()),
            "cwd": item["cwd"],
            "title": item["title"],
            "messageCount": item["messageCount"],
            "firstMessage": item["firstMessage"],
            "parentSession": item["parentSession"],
        });
        mismatches
            .check(actual == expected, || format!("sess list, session {id}: {}", first_difference(&actual, &expected)));
    }

    // The listing of each project.
    for cwd in scenario["projects"].as_object().unwrap().values() {
        let cwd = cwd.as_str().unwrap();
        let listed = parse(&sess(home, &["list", "--source", "qwen", "--cwd", cwd, "--json"]));
        let mut ids: Vec<&str> = listed.as_array().unwrap().iter().filter_map(|s| s["id"].as_str()).collect();
        let mut expected: Vec<&str> =
            sessions.iter().filter(|s| s["cwd"] == cwd).filter_map(|s| s["id"].as_str()).collect();
        ids.sort_unstable();
        expected.sort_unstable();
        mismatches.check(ids == expected, || format!("sess list --cwd {cwd}: {ids:?}, Qwen Code made {expected:?}"));
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
    let shown = parse(&sess(home, &["show", id, "--json", "--all"]));
    mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"] && shown["source"] == "qwen", || {
        format!("sess show {id}: id {} cwd {}, Qwen Code {}", shown["id"], shown["cwd"], session["cwd"])
    });
    let turns = turns(session);
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
    let text = String::from_utf8(sess(home, &["show", id])).unwrap();
    for turn in turns {
        let prompt = turn["prompt"].as_str().unwrap();
        // The first line is the title.
        let times = text.lines().skip(1).filter(|l| l.trim() == prompt).count();
        mismatches.check(times == 1, || format!("sess show {id}: the prompt {prompt:?} is shown {times} times"));
        for block in turn["blocks"].as_array().unwrap() {
            let line = match block["type"].as_str() {
                Some("text") => block["text"].as_str().unwrap().to_owned(),
                Some("error") => {
                    let wanted = block["contains"].as_str().unwrap();
                    mismatches
                        .check(text.contains(wanted), || format!("sess show {id}: no error {wanted:?} in\n{text}"));
                    continue;
                }
                Some("tool_call") => {
                    let mark = if block["fails"] == true { "✗" } else { "✓" };
                    format!("{mark} {}", block["name"].as_str().unwrap())
                }
                _ => continue,
            };
            mismatches.check(text.lines().any(|l| l.trim_start().starts_with(&line)), || {
                format!("sess show {id}: no line {line:?} in\n{text}")
            });
        }
    }
    for injected in ["<system-reminder", "This is the Qwen Code", "Resume the prior task", "--- Content from"] {
        mismatches.check(!text.contains(injected), || format!("sess show {id} shows {injected:?}:\n{text}"));
    }
}
