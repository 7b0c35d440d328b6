//! The real OpenCode (the native binary of `opencode-ai`: 1.18.33, whose
//! sessions are rows of `opencode.db`, and 1.1.65, whose sessions are JSON
//! files under `storage/`) against a fake Chat Completions API
//! (`interop/opencode/`).
//!
//! The driver runs `opencode run` in two projects, `--session` and
//! `--continue` (which compacts automatically), `--fork`, a prompt with an
//! image, a resumed turn whose model request fails and a `task` call (a
//! subagent's session), then `/summarize` and `/revert` through
//! `opencode serve`, and reports what each session should hold. `sess list`
//! and `sess show` must find exactly that: the ids, cwds, titles and message
//! counts (a subagent's session is not listed); every prompt once, text
//! OpenCode added as context; reasoning as thinking; tool calls with their
//! results, failed where they should; the answers; a compaction as its
//! summary; an undo as its notice; a failed request as its error; the
//! subagent's turn under its `task` call. The sessions of one run of each
//! version are kept in `fixtures/opencode/real-*/` and checked the same way
//! without Node.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{
    Mismatches, Peer, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, copy_dir,
    first_difference, inherited_and_own_turns, mark, peer_in, repo, sess_json,
};

/// What `sess` shows before the messages an /undo took back.
const UNDONE: &str = "Undone (/undo): the messages from here on were reverted";

/// An agent of OpenCode's family, as the checks name it: OpenCode, or Kilo
/// (`interop/kilo.rs`), which the same scenario runs.
pub(crate) struct Family {
    /// Its source's name (`--source`).
    pub(crate) source: &'static str,
    /// Its name in messages.
    pub(crate) maker: &'static str,
    /// The title of the text it adds to a prompt, as `sess` shows it.
    pub(crate) added: &'static str,
}

const OPENCODE: Family = Family { source: "opencode", maker: "OpenCode", added: "Added by OpenCode" };

fn opencode(legacy: bool) -> Option<Peer> {
    let (dir, name) =
        if legacy { ("interop/opencode/legacy", "opencode 1.1") } else { ("interop/opencode", "opencode") };
    let driver = if legacy { "../driver.mjs" } else { "driver.mjs" };
    peer_in(&repo().join(dir), name, "node", driver, "opencode-linux-x64")
}

#[test]
fn sess_reads_what_opencode_writes() {
    let Some(peer) = opencode(false) else { return };
    check_live(&peer, &[], "OpenCode", "opencodeVersion", |home, scenario, mismatches| {
        check(&OPENCODE, home, scenario, mismatches);
    });
}

#[test]
fn sess_reads_what_opencode_1_1_writes() {
    let Some(peer) = opencode(true) else { return };
    check_live(&peer, &["--legacy"], "OpenCode", "opencodeVersion", |home, scenario, mismatches| {
        check(&OPENCODE, home, scenario, mismatches);
    });
}

/// The sessions of one driver run of each version
/// (`interop/opencode/fixtures.py`), checked against its report without Node.
#[test]
fn sess_reads_the_recorded_opencode_sessions() {
    for version in ["1.18.33", "1.1.65"] {
        let fixtures = repo().join("fixtures/opencode").join(format!("real-{version}"));
        let lay_out = |home: &Path| {
            let data = home.join(".local/share/opencode");
            std::fs::create_dir_all(&data).unwrap();
            if fixtures.join("opencode.db").exists() {
                std::fs::copy(fixtures.join("opencode.db"), data.join("opencode.db")).unwrap();
            } else {
                copy_dir(&fixtures.join("storage"), &data.join("storage"));
            }
        };
        check_recorded(
            &fixtures,
            &format!("recorded opencode {version} sessions"),
            50,
            lay_out,
            |home, scenario, m| {
                check(&OPENCODE, home, scenario, m);
            },
        );
    }
}

/// Checks what `sess` makes of the data `agent` (OpenCode or Kilo) left
/// under `home` against the driver's report `scenario`.
pub(crate) fn check(agent: &Family, home: &Path, scenario: &Value, mismatches: &mut Mismatches) {
    let sessions = scenario["sessions"].as_array().unwrap();
    let top: Vec<&Value> = sessions.iter().filter(|s| s["parentId"].is_null()).collect();

    let listed = check_listed_ids(home, agent.source, agent.maker, &top, &scenario["projects"], mismatches);
    let shown = |key: &str, value: &Value| match key {
        "firstMessage" => json!(value.as_str().map(str::trim_end)),
        _ => value.clone(),
    };
    for session in &top {
        let expected = || {
            json!({
                "source": agent.source,
                "cwd": session["cwd"],
                "title": expected_title(session),
                "messageCount": expected_messages(agent, session).len(),
                "firstMessage": inherited_and_own_turns(session)[0]["prompt"],
            })
        };
        check_listed_entry(&listed, session["id"].as_str().unwrap(), expected, shown, mismatches);
    }

    for session in &top {
        let id = session["id"].as_str().unwrap();
        let shown = sess_json(home, &["show", id, "--json"]);
        let title = expected_title(session);
        mismatches.check(shown["id"] == id && shown["cwd"] == session["cwd"] && shown["title"] == title, || {
            format!("sess show {id}: id {} cwd {} title {}", shown["id"], shown["cwd"], shown["title"])
        });
        let actual: Vec<Value> = shown["messages"].as_array().unwrap().iter().map(view).collect();
        let (actual, expected) = (json!(actual), json!(expected_messages(agent, session)));
        mismatches.check(actual == expected, || format!("sess show {id}: {}", first_difference(&actual, &expected)));
        check_details(agent, session, &shown, sessions, mismatches);
        check_rendering(home, id, session, mismatches);
    }
}

/// The title `sess` gives a session: the agent's, unless it is still the
/// placeholder `New session - <time>` (which Kilo's `run` leaves), then the
/// first prompt.
fn expected_title(session: &Value) -> Value {
    let title = session["title"].as_str().unwrap_or_default();
    let placeholder = title.strip_prefix("New session - ").is_some_and(|time| !time.contains(' '));
    if placeholder { inherited_and_own_turns(session)[0]["prompt"].clone() } else { session["title"].clone() }
}

/// A shown message in short: its role and blocks (a tool call's id, name,
/// input and whether it failed; an error is `error`, its text checked on its
/// own; texts without trailing line breaks, which OpenCode 1.1's `run` adds).
/// A user message's blocks are sorted: OpenCode puts an attachment's parts
/// before the prompt (1.18) or after it (1.1).
fn view(message: &Value) -> Value {
    let mut blocks: Vec<Value> = message["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| match b["type"].as_str().unwrap() {
            "text" => json!({"text": b["text"].as_str().unwrap().trim_end()}),
            "thinking" => json!({"thinking": b["text"]}),
            "summary" => json!({"summary": b["text"]}),
            "context" => json!({"context": b["title"]}),
            "image" => json!({"image": b["mediaType"]}),
            "error" => json!("error"),
            "tool_call" => json!({"tool": [b["id"], b["name"], b["input"], b["status"] == "failed"]}),
            other => json!({ other: b }),
        })
        .collect();
    if message["role"] == "user" {
        blocks.sort_by_key(ToString::to_string);
    }
    json!({"role": message["role"], "blocks": blocks})
}

/// The messages the report says a session has, in [`view`]'s terms.
fn expected_messages(agent: &Family, session: &Value) -> Vec<Value> {
    let inherited = session["inherited"].as_array().unwrap().len();
    let own = session["turns"].as_array().unwrap().len();
    let reverted = session["revertedFrom"].get("prompt").and_then(Value::as_str);
    let compacted = |after: usize| -> Vec<Value> {
        session["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["afterTurns"].as_u64() == Some(after as u64))
            .map(|c| json!({"role": "system", "blocks": [{"summary": c["summary"]}]}))
            .collect()
    };
    let mut messages = Vec::new();
    for (i, turn) in inherited_and_own_turns(session).into_iter().enumerate() {
        if i >= inherited {
            messages.extend(compacted(i - inherited));
            if reverted == turn["prompt"].as_str() {
                messages.push(json!({"role": "system", "blocks": [{"text": UNDONE}]}));
            }
        }
        let mut user = Vec::new();
        if turn["synthetic"] == true {
            user.push(json!({"context": agent.added}));
        } else {
            for _ in turn["images"].as_array().unwrap() {
                // How OpenCode read the file (two texts of its own), the image.
                user.extend([json!({"context": agent.added}), json!({"context": agent.added})]);
                user.push(json!({"image": "image/png"}));
            }
            user.push(json!({"text": turn["prompt"]}));
        }
        user.sort_by_key(ToString::to_string);
        messages.push(json!({"role": "user", "blocks": user}));
        let answer: Vec<Value> = turn["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| match b["type"].as_str().unwrap() {
                "text" => json!({"text": b["text"]}),
                "thinking" => json!({"thinking": b["text"]}),
                "error" => json!("error"),
                _ => json!({"tool": [b["id"], b["name"], b["input"], b["fails"]]}),
            })
            .collect();
        messages.push(json!({"role": "assistant", "blocks": answer}));
    }
    messages.extend(compacted(own));
    messages
}

/// What [`view`] leaves out: tool results, error texts, and the subagent's
/// messages under a `task` call.
fn check_details(agent: &Family, session: &Value, shown: &Value, sessions: &[Value], mismatches: &mut Mismatches) {
    let id = session["id"].as_str().unwrap();
    let scripted: Vec<&Value> =
        inherited_and_own_turns(session).into_iter().flat_map(|t| t["blocks"].as_array().unwrap()).collect();
    let blocks: Vec<&Value> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .collect();
    for (want, got) in scripted.iter().zip(blocks) {
        let (wanted, text) = match want["type"].as_str() {
            Some("tool_call") => (want["output"].as_str().unwrap(), got["result"].as_str().unwrap_or("")),
            Some("error") => (want["contains"].as_str().unwrap(), got["text"].as_str().unwrap_or("")),
            _ => continue,
        };
        mismatches.check(text.contains(wanted), || format!("sess show {id}: {text:?} lacks {wanted:?}"));
        if want["name"] == "task" {
            let child = sessions.iter().find(|s| s["parentId"] == session["id"]);
            let actual: Vec<Value> = got["subagent"].as_array().into_iter().flatten().map(view).collect();
            let expected = child.map(|child| expected_messages(agent, child)).unwrap_or_default();
            let (actual, expected) = (json!(actual), json!(expected));
            mismatches.check(actual == expected, || {
                format!("sess show {id}, the subagent: {}", first_difference(&actual, &expected))
            });
        }
    }
}

/// `sess show ID`: every prompt typed once, the answers, and a line per tool
/// call with its mark.
fn check_rendering(home: &Path, id: &str, session: &Value, mismatches: &mut Mismatches) {
    let rendered = Rendered::show(home, id);
    for turn in inherited_and_own_turns(session).into_iter().filter(|t| t["synthetic"] != true) {
        let prompt = turn["prompt"].as_str().unwrap();
        // A long prompt wraps: its first words start a line.
        let start: String = prompt.chars().take(40).collect();
        let times = rendered.text.lines().skip(1).filter(|l| l.trim_start().starts_with(start.trim_end())).count();
        mismatches.check(times == 1, || format!("sess show {id}: the prompt {prompt:?} is shown {times} times"));
        for block in turn["blocks"].as_array().unwrap() {
            let line = match block["type"].as_str() {
                Some("text") => block["text"].as_str().unwrap().to_owned(),
                Some("tool_call") => format!("{} {}", mark(block["fails"] == true), block["name"].as_str().unwrap()),
                _ => continue,
            };
            // A long answer wraps: its first words start a line.
            let start: String = line.chars().take(40).collect();
            rendered.check_line(start.trim_end(), mismatches);
        }
    }
}
