//! The real Aider (`aider-chat` 0.86.2 from the Python package index, in a venv) against a fake
//! chat-completions API (`interop/aider/`).
//!
//! The driver runs `aider` four times: a chat of six inputs in a git
//! repository's subfolder (prompts, a `/run` that works and one that fails,
//! a SEARCH/REPLACE block that applies and one that does not, which Aider
//! reports back to the model, and a shell command the model proposes), the
//! same chat resumed with `--restore-chat-history` (summarized first), a run
//! in a folder without git, and one with its history moved by
//! `--chat-history-file`. `sess list` and `sess show` must find each run as
//! a session of its history: its cwd, its prompts and the scripted answers,
//! each `/run` as a call, each block as an edit call that succeeded or
//! failed as it did on the file, Aider's error, the resumed run's parent;
//! and `sess usage` a call per answer Aider counted (all but its own summary
//! request). The files of one run are kept in `fixtures/aider/real-0.86.2/`
//! and checked the same way without Python.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{Mismatches, Peer, check_live, check_recorded, copy_dir, first_difference, peer_at, repo, show};

fn aider() -> Option<Peer> {
    let dir = repo().join("interop/aider");
    peer_at(&dir, "aider", "node", "driver.mjs", &dir.join("venv/bin/aider"))
}

#[test]
fn sess_reads_what_aider_writes() {
    let Some(peer) = aider() else { return };
    check_live(&peer, &[], "Aider", "aiderVersion", check);
}

/// The files of one driver run (`interop/aider/fixtures.mjs`), checked
/// against its report without Python.
#[test]
fn sess_reads_the_recorded_aider_sessions() {
    let fixtures = repo().join("fixtures/aider/real-0.86.2");
    let lay_out = |home: &Path| {
        for dir in ["repo", "plain", "moved"] {
            copy_dir(&fixtures.join(dir), &home.join(dir));
        }
    };
    check_recorded(&fixtures, "recorded aider sessions", 30, lay_out, check);
}

/// A path of the report (under its home) as it is under `home` now.
fn now(scenario: &Value, home: &Path, path: &str) -> String {
    let reported = Path::new(scenario["home"].as_str().unwrap());
    match Path::new(path).strip_prefix(reported) {
        Ok(rest) => home.join(rest).to_string_lossy().into_owned(),
        Err(_) => path.to_owned(),
    }
}

/// `sess` in `home`, whose project folders are `named`.
fn sess_json(home: &Path, named: &[PathBuf], args: &[&str]) -> Value {
    let output = crate::harness::sess_at(home)
        .env("SESS_PROJECT_DIRS", std::env::join_paths(named).unwrap())
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    crate::harness::parse(&output.stdout)
}

/// One run as the report says it went: its prompts (the lines of its input,
/// or its `--message`), the folder `sess` names as its cwd (the one Aider
/// printed, or the history's folder without git), and its history.
struct Run {
    name: String,
    prompts: Vec<String>,
    cwd: String,
    restored: bool,
}

fn runs(scenario: &Value, home: &Path) -> Vec<Run> {
    scenario["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| {
            let args: Vec<&str> = run["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
            let after = |flag: &str| args.iter().position(|a| *a == flag).map(|i| args[i + 1].to_owned());
            let mut prompts: Vec<String> =
                run["input"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect();
            prompts.extend(after("--message"));
            let ran_in = run["cwd"].as_str().unwrap();
            let cwd = match (args.contains(&"--no-git"), after("--chat-history-file")) {
                (true, Some(file)) => now(scenario, home, Path::new(&file).parent().unwrap().to_str().unwrap()),
                (true, None) => now(scenario, home, ran_in),
                // Aider printed the folder it ran in: as written, under the report's home.
                (false, _) => ran_in.to_owned(),
            };
            Run {
                name: run["name"].as_str().unwrap().to_owned(),
                prompts,
                cwd,
                restored: args.contains(&"--restore-chat-history"),
            }
        })
        .collect()
}

/// The messages a run's prompts should give, each cut to `{role, blocks}`
/// with the blocks' types and what the script fixes: Aider's opening, then
/// per prompt the user's input (a `/run` as a call) and the model's answer
/// (a SEARCH/REPLACE block as an edit call, which applies when its SEARCH
/// text is in `greet`, and else is reported back to the model, whose answer
/// to the report is one more message).
fn expected_messages(prompts: &[String], script: &Value, greet: &mut String) -> Vec<Value> {
    let mut out = vec![json!({"role": "system", "blocks": [{"type": "context"}]})];
    for prompt in prompts {
        if let Some(command) = prompt.strip_prefix("/run ") {
            let call =
                json!({"type": "tool_call", "name": "run", "input": {"command": command}, "status": "succeeded"});
            out.push(json!({"role": "user", "blocks": [call]}));
            continue;
        }
        out.push(json!({"role": "user", "blocks": [{"type": "text", "text": prompt}]}));
        let answer = script[prompt.as_str()].as_str().unwrap();
        let Some((prose, block)) = answer.split_once("<<<<<<< SEARCH\n") else {
            out.push(json!({"role": "assistant", "blocks": [{"type": "text", "text": answer.trim()}]}));
            continue;
        };
        let (search, rest) = block.split_once("=======\n").unwrap();
        let replace = rest.split_once(">>>>>>> REPLACE").unwrap().0;
        let mut lines: Vec<&str> = prose.trim_end().lines().collect();
        lines.pop(); // the fence
        let file = lines.pop().unwrap();
        let applies = greet.contains(search);
        if applies {
            *greet = greet.replacen(search, replace, 1);
        }
        let status = if applies { "succeeded" } else { "failed" };
        let input = json!({"path": file, "search": search, "replace": replace});
        let text = lines.join("\n").trim().to_owned();
        out.push(json!({"role": "assistant", "blocks": [
            {"type": "text", "text": text},
            {"type": "tool_call", "name": "edit", "input": input, "status": status},
        ]}));
        if !applies {
            let reflected = script["# 1 SEARCH/REPLACE block failed to match!…"].as_str().unwrap();
            out.push(json!({"role": "assistant", "blocks": [{"type": "text", "text": reflected}]}));
        }
    }
    out
}

/// A shown message cut to what [`expected_messages`] knows: as many blocks
/// as expected (Aider's output after them apart), each with the keys the
/// expected one has.
fn cut(message: &Value, expected: &Value) -> Value {
    let wanted = expected["blocks"].as_array().unwrap();
    let blocks: Vec<Value> = message["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| !(b["type"] == "error" || (b["type"] == "context" && message["role"] != "system")))
        .zip(wanted)
        .map(|(b, want)| {
            Value::Object(want.as_object().unwrap().keys().map(|k| (k.clone(), b[k.as_str()].clone())).collect())
        })
        .collect();
    json!({"role": message["role"], "blocks": blocks})
}

/// Checks what `sess` makes of the histories under `home` against the
/// driver's report `scenario` (whose paths may be under another home).
fn check(home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let named = [home.join("repo/sub"), home.join("plain"), home.join("moved/chat.md")];
    let runs = runs(scenario, home);
    let listed = sess_json(home, &named, &["list", "--source", "aider", "--all-projects", "--json"]);
    let mut listed: Vec<Value> = listed.as_array().unwrap().clone();
    listed.sort_by_key(|s| s["created"].as_str().unwrap_or_default().to_owned());
    mismatches.check(listed.len() == runs.len(), || {
        format!("{} runs listed, {} made: {}", listed.len(), runs.len(), show(&json!(listed)))
    });

    let script = &scenario["script"];
    let mut greet = "hello world\n".to_owned();
    let mut previous: Option<&str> = None;
    for (run, item) in runs.iter().zip(&listed) {
        let id = item["id"].as_str().unwrap();
        let expected = expected_messages(&run.prompts, script, &mut greet);
        let wanted = json!({
            "cwd": run.cwd,
            "firstMessage": run.prompts[0],
            "messageCount": expected.len(),
            "parentSession": if run.restored { json!(previous) } else { Value::Null },
        });
        let actual = json!({
            "cwd": item["cwd"],
            "firstMessage": item["firstMessage"],
            "messageCount": item["messageCount"],
            "parentSession": item["parentSession"],
        });
        let name = &run.name;
        mismatches.check(actual == wanted, || format!("sess list, run {name}: {}", first_difference(&actual, &wanted)));

        let shown = sess_json(home, &named, &["show", id, "--all", "--json"]);
        let messages = shown["messages"].as_array().unwrap();
        mismatches.check(messages.len() == expected.len(), || {
            format!(
                "sess show {id} ({name}): {} messages, {} expected: {}",
                messages.len(),
                expected.len(),
                show(&shown["messages"])
            )
        });
        for (n, (message, want)) in messages.iter().zip(&expected).enumerate() {
            let actual = cut(message, want);
            mismatches.check(&actual == want, || {
                format!("sess show {id} ({name}), message {n}: {}", first_difference(&actual, want))
            });
        }
        previous = Some(id);
    }
    let greet_after = scenario["greetAfter"].as_str().unwrap();
    mismatches.check(greet == greet_after, || format!("the edits give {greet:?}, Aider left {greet_after:?}"));

    // A call per answer Aider counted: every request but its summaries.
    let answered = scenario["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["prompt"].as_str().is_some_and(|p| p.starts_with("# USER") || p.starts_with("# ASSISTANT")))
        .count();
    let report = sess_json(home, &named, &["usage", "--timezone", "UTC", "--json"]);
    let calls: u64 = report["totals"]["sourceBreakdowns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["source"] == "aider")
        .filter_map(|b| b["calls"].as_u64())
        .sum();
    mismatches.check(usize::try_from(calls).unwrap() == answered, || {
        format!("sess usage: {calls} Aider calls, {answered} answers")
    });
}
