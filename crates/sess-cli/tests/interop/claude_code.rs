//! Claude Code 2.1.332: the real CLI (its native binary, from npm) run against
//! a fake Messages API (`interop/claude-code`).
//!
//! The driver runs the CLI in an ASCII, a CJK, an emoji and two over-200-unit
//! cwds (`--resume`, `--fork-session`, `/compact`, a subagent, a background
//! command, refused, failing and succeeding tool calls, an API error), and
//! reports what the CLI did as seen from outside its files: the session ids it
//! printed, the prompts, every answer the model gave and every tool result the
//! CLI sent back. `sess list` and `sess show` must agree with that, block by
//! block. The same checks run, without Node, over the files of one run kept
//! in `fixtures/claude-code/real-2.1.332`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Instant;

use serde_json::{Value, json};
use sess_sources::claude::project_dir_name;

use crate::harness::{Mismatches, Peer, parse, peer_in, repo, sess_at, show, skipped};

/// The pinned version (`interop/claude-code/package.json`).
const VERSION: &str = "2.1.332";

/// The pinned CLI's driver, or `None` after saying why it is skipped (the
/// usage comparison runs it too).
pub(crate) fn claude_code(home: &Path) -> Option<Peer> {
    let peer =
        peer_in(&repo().join("interop/claude-code"), "claude-code", "node", "driver.mjs", "@anthropic-ai/claude-code")?;
    match peer.try_run(home, &["version"]) {
        Ok(out) if String::from_utf8_lossy(&out).trim() == VERSION => Some(peer),
        Ok(out) => skipped(
            "claude-code",
            &format!("Claude Code {} is installed, not {VERSION}", String::from_utf8_lossy(&out).trim()),
        ),
        Err(err) => skipped("claude-code", &format!("the Claude Code CLI does not run here: {}", err.trim())),
    }
}

#[test]
fn sess_reads_what_claude_code_writes() {
    let dir = tempfile::tempdir().unwrap();
    // The CLI records the real path of its cwd.
    let root = dir.path().canonicalize().unwrap();
    let Some(peer) = claude_code(&root) else { return };
    let started = Instant::now();
    let report = peer.try_run(&root, &[root.to_str().unwrap()]).unwrap_or_else(|err| panic!("driver failed: {err}"));
    let ran = started.elapsed();
    let report = parse(&report);
    let config = PathBuf::from(report["configDir"].as_str().unwrap());
    let checks = check(&report, &config, &root.join("home"));
    eprintln!(
        "interop claude-code {}: {} sessions, {} checks; the CLI ran in {:.1} s, sess checked in {:.1} s",
        report["claudeCode"],
        report["sessions"].as_array().unwrap().len(),
        checks.compared,
        ran.as_secs_f64(),
        started.elapsed().as_secs_f64() - ran.as_secs_f64()
    );
    checks.finish("claude-code");
}

/// The real Claude Code with `sess mcp` as its MCP server
/// (`interop/claude-code/mcp-driver.mjs`): a first session notes some words;
/// in a second one the fake model calls `search_sessions` for them, and the
/// tool's answer — as the CLI sent it back to the model, and as its new
/// transcript shows it — names the first session.
#[test]
fn claude_code_searches_its_history_through_sess_mcp() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    if claude_code(&root).is_none() {
        return;
    }
    let Some(peer) = peer_in(
        &repo().join("interop/claude-code"),
        "claude-code",
        "node",
        "mcp-driver.mjs",
        "@anthropic-ai/claude-code",
    ) else {
        return;
    };
    let report = peer
        .try_run(&root, &[root.to_str().unwrap(), env!("CARGO_BIN_EXE_sess")])
        .unwrap_or_else(|err| panic!("mcp driver failed: {err}"));
    let report = parse(&report);
    let noted = report["noted"]["id"].as_str().unwrap();
    let named = format!("claude {noted}");
    let results = report["toolResults"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{report}");
    assert_eq!(results[0]["isError"], false, "{report}");
    let answer = results[0]["content"][0]["text"].as_str().unwrap();
    assert!(answer.contains(&named) && answer.contains("[[quokka]]"), "{answer}");

    let asked = report["asked"]["path"].as_str().unwrap();
    let shown: Value =
        serde_json::from_slice(&crate::harness::sess(&["show", "--all", "--json", asked]).stdout).unwrap();
    let call = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .find(|b| b["type"] == "tool_call" && b["name"] == report["tool"])
        .unwrap_or_else(|| panic!("no {} call in {}", report["tool"], show(&shown)));
    assert_eq!(call["status"], "succeeded", "{call}");
    assert!(call["result"].as_str().unwrap().contains(&named), "{call}");
    eprintln!("interop claude-code {}: search_sessions through sess mcp named {noted}", report["claudeCode"]);
}

/// The files one driver run left, kept as data: checked the same way without
/// Node (their paths are those of the run, under `/tmp/sess-claude-code`).
#[test]
fn sess_reads_the_files_claude_code_wrote() {
    let fixture = repo().join(format!("fixtures/claude-code/real-{VERSION}"));
    let report = parse(&std::fs::read(fixture.join("report.json")).unwrap());
    let home = tempfile::tempdir().unwrap();
    let checks = check(&report, &fixture.join("claude-config"), home.path());
    assert!(checks.compared > 100, "only {} checks", checks.compared);
    checks.finish("claude-code fixtures");
}

/// Runs `sess` with `home` as `$HOME` and `config` as `$CLAUDE_CONFIG_DIR`.
fn sess(home: &Path, config: &Path, args: &[&str]) -> Output {
    sess_at(home).env("CLAUDE_CONFIG_DIR", config).args(args).output().unwrap()
}

fn sess_json(home: &Path, config: &Path, args: &[&str]) -> Value {
    let output = sess(home, config, args);
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    parse(&output.stdout)
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_else(|| panic!("no string {key} in {}", show(value)))
}

/// Checks sess against a driver report whose config folder is now `config`.
fn check(report: &Value, config: &Path, home: &Path) -> Mismatches {
    let mut checks = Mismatches::default();
    let sessions = report["sessions"].as_array().unwrap();
    let expected: BTreeMap<&str, Vec<Message>> =
        sessions.iter().map(|s| (text(s, "id"), expected_messages(report, s))).collect();
    check_folders(sessions, &mut checks);
    check_listings(report, &expected, config, home, &mut checks);
    check_transcripts(sessions, &expected, config, home, &mut checks);
    checks
}

/// The project folders the CLI made are the ones sess looks in.
fn check_folders(sessions: &[Value], checks: &mut Mismatches) {
    for s in sessions {
        let (cwd, folder) = (text(s, "cwd"), text(s, "projectDir"));
        let name = project_dir_name(cwd);
        let ok = if name.len() <= 200 {
            folder == name
        } else {
            // Cut at 200 units, then `-` and a hash of the path in base 36.
            folder.len() > 201
                && folder.starts_with(&name[..200])
                && folder.as_bytes()[200] == b'-'
                && folder[201..].bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        };
        checks.check(ok, || format!("{cwd}: the CLI made project folder {folder}, sess computes {name}"));
        let literal = match text(s, "scenario") {
            "cjk" | "cjk-fork" => Some("-x-------"), // `/プロジェクト`: one `-` per character
            "emoji-subagent" | "emoji-background" => Some("-x-app---"), // `🚀`: two
            "ascii" | "ascii-api-error" => Some("-x-demo-app-v2"),
            _ => None,
        };
        if let Some(end) = literal {
            checks.check(folder.ends_with(end), || format!("{cwd}: project folder {folder} does not end with {end}"));
        }
    }
}

/// `sess list`: every session and nothing else (no subagent) across
/// projects, with its path, cwd, title, first prompt and message count; by
/// cwd, the sessions of that directory.
fn check_listings(
    report: &Value,
    expected: &BTreeMap<&str, Vec<Message>>,
    config: &Path,
    home: &Path,
    checks: &mut Mismatches,
) {
    let sessions = report["sessions"].as_array().unwrap();
    let recorded_config = Path::new(text(report, "configDir"));
    let file_of = |s: &Value| config.join(Path::new(text(s, "path")).strip_prefix(recorded_config).unwrap());
    let listed = sess_json(home, config, &["list", "--source", "claude", "--all-projects", "--json"]);
    let listed: BTreeMap<String, Value> =
        listed.as_array().unwrap().iter().map(|item| (text(item, "id").to_owned(), item.clone())).collect();
    let ids: BTreeSet<&str> = sessions.iter().map(|s| text(s, "id")).collect();
    checks.check(listed.keys().map(String::as_str).collect::<BTreeSet<_>>() == ids, || {
        format!("sess list --all-projects lists {:?}, the CLI made {ids:?}", listed.keys())
    });
    let subagent_files: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|f| f.contains("/subagents/"))
        .collect();
    let transcripts = subagent_files.iter().filter(|f| Path::new(f).extension().is_some_and(|e| e == "jsonl"));
    checks.check(transcripts.count() > 0, || "the CLI wrote no subagent file".to_owned());
    for file in &subagent_files {
        let stem = Path::new(file).file_stem().unwrap().to_string_lossy().into_owned();
        checks.check(!listed.contains_key(&stem), || format!("subagent file {file} is listed"));
    }
    for s in sessions {
        let id = text(s, "id");
        let Some(item) = listed.get(id) else { continue };
        let runs = s["runs"].as_array().unwrap();
        let first_prompt = text(&runs[0], "prompt");
        let title = s["name"].as_str().unwrap_or(first_prompt);
        let want = json!({
            "source": "claude",
            "path": file_of(s).to_str().unwrap(),
            "cwd": text(s, "cwd"),
            "title": title,
            "firstMessage": first_prompt,
            "messageCount": expected[id].len(),
        });
        for (key, value) in want.as_object().unwrap() {
            checks.check(item[key] == *value, || format!("sess list: {id} {key} {}, expected {value}", item[key]));
        }
    }

    // By cwd: the sessions of that directory (two long ones share their folder prefix).
    let cwds: BTreeSet<&str> = sessions.iter().map(|s| text(s, "cwd")).collect();
    for cwd in &cwds {
        let listed = sess_json(home, config, &["list", "--source", "claude", "--cwd", cwd, "--json"]);
        let found: BTreeSet<&str> = listed.as_array().unwrap().iter().map(|i| text(i, "id")).collect();
        let wanted: BTreeSet<&str> =
            sessions.iter().filter(|s| text(s, "cwd") == *cwd).map(|s| text(s, "id")).collect();
        checks.check(found == wanted, || format!("sess list --cwd {cwd}: {found:?}, the CLI made {wanted:?} there"));
    }
    let parent = Path::new(text(&report["cwds"], "ascii")).parent().unwrap().to_str().unwrap().to_owned();
    let none = sess_json(home, config, &["list", "--source", "claude", "--cwd", &parent, "--json"]);
    checks.check(none == json!([]), || format!("sess list --cwd {parent} (no session) lists {}", show(&none)));
}

/// `sess show`: each transcript, block by block, and its text rendering.
fn check_transcripts(
    sessions: &[Value],
    expected: &BTreeMap<&str, Vec<Message>>,
    config: &Path,
    home: &Path,
    checks: &mut Mismatches,
) {
    for s in sessions {
        let id = text(s, "id");
        let shown = sess_json(home, config, &["show", id, "--json"]);
        let title = s["name"].as_str().unwrap_or_else(|| text(&s["runs"][0], "prompt"));
        for (key, value) in [("id", id), ("cwd", text(s, "cwd")), ("title", title), ("source", "claude")] {
            checks.check(shown[key] == value, || format!("sess show {id}: {key} {}, expected {value:?}", shown[key]));
        }
        compare_messages(id, shown["messages"].as_array().unwrap(), &expected[id], checks);
        let raw = shown.to_string();
        for hidden in ["<system-reminder>", "<task-notification>", "<local-command-caveat>", "dataviz"] {
            checks.check(!raw.contains(hidden), || format!("sess show {id}: shows {hidden}"));
        }
        let rendered = sess(home, config, &["show", id]);
        let rendered = String::from_utf8_lossy(&rendered.stdout);
        checks.check(rendered.starts_with(title), || format!("sess show {id}: starts {:?}", rendered.lines().next()));
        for want in &expected[id] {
            for block in &want.blocks {
                let Want::Block(block) = block else { continue };
                let line = match text(block, "type") {
                    "tool_call" => {
                        let mark = if block["status"] == "failed" { "✗" } else { "✓" };
                        format!("{mark} {}  ", text(block, "name"))
                    }
                    "thinking" => format!("│ {}", text(block, "text")),
                    _ => block["text"].as_str().unwrap_or_default().lines().next().unwrap_or_default().to_owned(),
                };
                checks.check(rendered.contains(&line), || format!("sess show {id} (text) has no line {line:?}"));
            }
        }
        for hidden in ["<system-reminder>", "<task-notification>", "<local-command-caveat>"] {
            checks.check(!rendered.contains(hidden), || format!("sess show {id} (text): shows {hidden}"));
        }
    }
    let first = text(&sessions[0], "id");
    let by_prefix = sess_json(home, config, &["show", &first[..8], "--json"]);
    checks.check(by_prefix["id"] == first, || format!("sess show {} finds {}", &first[..8], by_prefix["id"]));
}

/// One message as expected: its role and blocks.
#[derive(Debug)]
struct Message {
    role: &'static str,
    blocks: Vec<Want>,
}

/// One block as expected.
#[derive(Debug)]
enum Want {
    /// This block, in `sess show --json`'s shape (a tool call's times aside).
    Block(Value),
    /// A block of this type whose text has this in it (text the CLI words).
    Containing(&'static str, String),
}

/// The messages sess should show for a session of the report.
///
/// - A run's prompt is a user message; `/compact` gives the summary (with
///   the model's summary in it), then the command echo and its output.
/// - The model's answers, in order, make one assistant message, up to the
///   next prompt or notice: thinking, text, and tool calls that succeeded or
///   failed as the result the CLI sent back to the model says, with that
///   result.
/// - A task notification the CLI put in is a system message with its summary.
/// - A run the API failed shows one error block with the API's message.
fn expected_messages(report: &Value, session: &Value) -> Vec<Message> {
    let results = &report["toolResults"];
    let mut messages = Vec::new();
    for run in session["runs"].as_array().unwrap() {
        let prompt = text(run, "prompt");
        if prompt == "/compact" {
            messages.push(Message {
                role: "system",
                blocks: vec![Want::Containing("summary", text(report, "summary").into())],
            });
            messages.push(Message {
                role: "system",
                blocks: vec![Want::Block(json!({"type": "text", "text": "/compact"}))],
            });
            messages.push(Message { role: "system", blocks: vec![Want::Containing("text", "Compacted".into())] });
            continue;
        }
        messages.push(Message { role: "user", blocks: vec![Want::Block(json!({"type": "text", "text": prompt}))] });
        let mut answer: Vec<Want> = Vec::new();
        for request in run["requests"].as_array().unwrap() {
            if let Some(injected) = request["injectedText"].as_str() {
                assert!(injected.contains("<task-notification>"), "unexpected injected text {injected}");
                if !answer.is_empty() {
                    messages.push(Message { role: "assistant", blocks: std::mem::take(&mut answer) });
                }
                let summary = between(injected, "<summary>", "</summary>").unwrap();
                messages.push(Message {
                    role: "system",
                    blocks: vec![Want::Block(json!({"type": "text", "text": summary}))],
                });
            }
            for block in request["answer"].as_array().unwrap() {
                let want = match text(block, "type") {
                    "thinking" => Want::Block(json!({"type": "thinking", "text": block["thinking"]})),
                    "text" => Want::Block(json!({"type": "text", "text": block["text"]})),
                    "tool_use" => {
                        let result = &results[text(block, "id")];
                        let status = if result["isError"] == true { "failed" } else { "succeeded" };
                        let mut call = json!({
                            "type": "tool_call", "id": block["id"], "name": block["name"], "input": block["input"],
                            "status": status, "result": result_text(&result["content"]),
                        });
                        if let Some(diffs) = written(block) {
                            call["diffs"] = diffs;
                        }
                        Want::Block(call)
                    }
                    "error" => Want::Containing("error", text(block, "message").into()),
                    other => panic!("unexpected answer block {other}"),
                };
                // The CLI retries a failed request and writes the error once.
                let repeated =
                    matches!((&want, answer.last()), (Want::Containing(_, a), Some(Want::Containing(_, b))) if a == b);
                if !repeated {
                    answer.push(want);
                }
            }
        }
        if !answer.is_empty() {
            messages.push(Message { role: "assistant", blocks: answer });
        }
    }
    messages
}

/// The diff `sess show --json` gives a `Write` call (whether or not it was
/// allowed): the whole file, every line added.
fn written(block: &Value) -> Option<Value> {
    if block["name"] != "Write" {
        return None;
    }
    let content = text(&block["input"], "content");
    let lines: Vec<Value> = content.lines().map(|line| json!({"kind": "add", "text": line})).collect();
    let hunks = if lines.is_empty() {
        json!([])
    } else {
        json!([{"oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": lines.len(), "lines": lines}])
    };
    Some(json!([{
        "path": block["input"]["file_path"], "newFile": true, "added": lines.len(), "removed": 0, "hunks": hunks,
    }]))
}

/// A tool result's content as text: a string, or its text blocks one a line.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"),
        other => panic!("unexpected tool result {other}"),
    }
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    Some(&text[start..start + text[start..].find(close)?])
}

fn compare_messages(id: &str, shown: &[Value], expected: &[Message], checks: &mut Mismatches) {
    let roles =
        |shown: &[Value]| shown.iter().map(|m| m["role"].as_str().unwrap_or("?").to_owned()).collect::<Vec<_>>();
    checks.check(shown.len() == expected.len(), || {
        format!(
            "sess show {id}: {} messages {:?}, expected {} {:?}",
            shown.len(),
            roles(shown),
            expected.len(),
            expected.iter().map(|m| m.role).collect::<Vec<_>>()
        )
    });
    for (i, (message, want)) in shown.iter().zip(expected).enumerate() {
        checks.check(message["role"] == want.role, || {
            format!("sess show {id}: message {i} is {}, expected {}", message["role"], want.role)
        });
        let blocks = message["blocks"].as_array().unwrap();
        checks.check(blocks.len() == want.blocks.len(), || {
            let mut out =
                format!("sess show {id}: message {i} has {} blocks, expected {}:", blocks.len(), want.blocks.len());
            for b in blocks {
                let _ = write!(out, "\n  {}", show(b));
            }
            out
        });
        for (j, (block, want)) in blocks.iter().zip(&want.blocks).enumerate() {
            match want {
                Want::Block(want) => {
                    let mut block = block.clone();
                    if let Some(map) = block.as_object_mut() {
                        map.shift_remove("startedAt");
                        map.shift_remove("endedAt");
                    }
                    checks.check(block == *want, || {
                        format!(
                            "sess show {id}: message {i} block {j}\n  sess     {}\n  expected {}",
                            show(&block),
                            show(want)
                        )
                    });
                }
                Want::Containing(kind, part) => {
                    let ok =
                        block["type"] == *kind && block["text"].as_str().is_some_and(|t| t.contains(part.as_str()));
                    checks.check(ok, || {
                        format!(
                            "sess show {id}: message {i} block {j} is {}, expected a {kind} with {part:?}",
                            show(block)
                        )
                    });
                }
            }
        }
    }
}
