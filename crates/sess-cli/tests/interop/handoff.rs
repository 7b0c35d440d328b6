//! `sess handoff` proven on the real targets: a real session of every agent
//! whose real files are in `fixtures/` is handed to Claude Code, Codex and
//! pi; Claude Code and Codex are resumed on the new session with one more
//! prompt against their fake model APIs (`interop/handoff/driver.mjs`), and
//! the first request they send must hold the whole conversation `sess show`
//! shows, in order, as that API's blocks (tool calls paired with their
//! results by id), then the new prompt. pi's own `SessionManager.open` and
//! `buildSessionContext` (pi-mono 0.73.1 and pi 1.6.0) must give that
//! conversation too. The fixtures are read where they are, and must not
//! change.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sess_sources::handoff::NO_RESULT;

use crate::harness::{Peer, parse, peer_in, repo, sess_at};

/// The prompt the resumed agent is given.
const PROMPT: &str = "Please go on from here.";

/// A source session: its agent, the fixture, and where it goes in the home
/// (`None`: read where it is, by its path; `Some(place)`: a database copied
/// there, whose session with the most messages is handed over).
const SOURCES: &[(&str, &str, Option<&str>)] = &[
    (
        "claude",
        "claude-code/real-2.1.332/claude-config/projects/-tmp-sess-claude-code-x-demo-app-v2/71f8a678-1406-4c5a-95db-a506ea6e61c4.jsonl",
        None,
    ),
    (
        "claude",
        "claude-code/real-2.1.332/claude-config/projects/-tmp-sess-claude-code-x-------/96b44feb-1c01-49fd-8fb4-7d19439022df.jsonl",
        None,
    ),
    (
        "codex",
        "codex/real-0.171.0/codex-home/sessions/2026/11/30/rollout-2026-11-30T09-46-17-01a22bd9-19ce-7201-905a-da235f1ce47e.jsonl",
        None,
    ),
    (
        "codex",
        "codex/real-0.171.0/codex-home/sessions/2026/11/30/rollout-2026-11-30T09-46-19-01a22bd9-1ee1-74c2-a21c-a50299b2e5d3.jsonl",
        None,
    ),
    ("pi", "pi-family/pi-1.6.0/pi-1.6.0.jsonl", None),
    ("pi", "pi-family/pi-mono-0.73.1-main.jsonl", None),
    ("gemini", "gemini/real-0.61.0/home/.gemini/tmp/beta/chats/session-2026-12-01T09-17-2e507ed4.jsonl", None),
    (
        "qwen",
        "qwen-code/real-0.24.4/qwen-home/projects/-home-dev-projects-beta/chats/8c62ed46-8a29-4c30-a69b-884388bce638.jsonl",
        None,
    ),
    (
        "copilot",
        "copilot/real-1.0.102/copilot-home/session-state/16729d8b-29e4-456c-84c4-852e4d5a9056/events.jsonl",
        None,
    ),
    ("opencode", "opencode/real-1.18.33/opencode.db", Some(".local/share/opencode/opencode.db")),
    ("continue", "continue/real-1.5.47/continue-home/sessions/7ec94f9e-2ee6-4aa0-9d3d-d893482c6cbe.json", None),
    (
        "cline",
        "cline/real-3.0.65/home/.cline/data/sessions/1796610452091_l0k44/1796610452091_l0k44.messages.json",
        None,
    ),
    ("aider", "aider/real-0.86.2/repo/.aider.chat.history.md", None),
    (
        "droid",
        "droid/real-0.225.2/factory-home/sessions/-home-dev-projects-alpha/01628ddc-721c-484e-af2b-0e59f9158f8f.jsonl",
        None,
    ),
    ("kilo", "kilo/real-7.7.9/kilo.db", Some(".local/share/kilo/kilo.db")),
];

/// One step of a conversation, as every side is compared.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Summary(String),
    User(String),
    Image(String, String),
    Assistant(String),
    Thinking(String),
    /// A call: its tool, its input, and its result (whether it failed).
    Call(String, Value, String, bool),
}

/// The session named by the `SOURCES` row, in `home`: the argument that
/// names it, and `sess show --json --all` of it.
fn source(home: &Path, agent: &str, file: &str, place: Option<&str>) -> (String, Value) {
    let fixture = repo().join("fixtures").join(file);
    let arg = match place {
        None => fixture.display().to_string(),
        Some(place) => {
            let at = home.join(place);
            fs::create_dir_all(at.parent().unwrap()).unwrap();
            fs::copy(&fixture, &at).unwrap();
            let listed = json(home, &["list", "--json", "--all-projects", "--source", agent]);
            let most = listed.as_array().unwrap().iter().max_by_key(|s| s["messageCount"].as_u64()).unwrap();
            most["id"].as_str().unwrap().to_owned()
        }
    };
    let shown = json(home, &["show", "--json", "--all", &arg]);
    (arg, shown)
}

fn json(home: &Path, args: &[&str]) -> Value {
    let output = sess_at(home).args(args).output().unwrap();
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    parse(&output.stdout)
}

/// What a target makes of the thinking handed to it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Thinking {
    /// Left behind (Claude Code, Codex).
    Dropped,
    /// Kept as thinking (pi's file and context).
    Kept,
    /// Sent to the model as text (pi replaying another model's thinking).
    AsText,
}

/// What `sess show --json` shows of a session, as the steps a handoff takes
/// over: from its last compaction summary on, without the harness's own
/// messages, errors and unknown parts; thinking as the target takes it.
fn expected(shown: &Value, thinking: Thinking) -> Vec<Step> {
    let messages = shown["messages"].as_array().unwrap();
    let has_summary = |m: &Value| m["blocks"].as_array().unwrap().iter().any(|b| b["type"] == "summary");
    let from = messages.iter().rposition(has_summary).unwrap_or(0);
    let mut steps = Vec::new();
    for message in &messages[from..] {
        let role = message["role"].as_str().unwrap();
        for block in message["blocks"].as_array().unwrap() {
            let text = || block["text"].as_str().unwrap_or_default().to_owned();
            match (role, block["type"].as_str().unwrap()) {
                (_, "summary") => steps = vec![Step::Summary(text().trim_end().to_owned())],
                ("system", _) | (_, "error" | "unknown") => {}
                ("user", "text" | "thinking") => steps.push(Step::User(text())),
                (_, "context") => {
                    let text = format!("{}:\n{}", block["title"].as_str().unwrap(), text());
                    steps.push(if role == "user" { Step::User(text) } else { Step::Assistant(text) });
                }
                ("user", "image") if block["data"].is_string() && block["mediaType"].is_string() => steps.push(
                    Step::Image(block["mediaType"].as_str().unwrap().into(), block["data"].as_str().unwrap().into()),
                ),
                (_, "image") => {}
                (_, "text") => steps.push(Step::Assistant(text())),
                (_, "thinking") => match thinking {
                    Thinking::Dropped => {}
                    Thinking::Kept => steps.push(Step::Thinking(text())),
                    Thinking::AsText if text().trim().is_empty() => {}
                    Thinking::AsText => steps.push(Step::Assistant(text())),
                },
                (_, "tool_call") => {
                    let (output, failed) = match block["status"].as_str().unwrap() {
                        "running" | "pending" => (NO_RESULT.to_owned(), true),
                        status => (block["result"].as_str().unwrap_or_default().to_owned(), status == "failed"),
                    };
                    let name = block["name"].as_str().unwrap().to_owned();
                    steps.push(Step::Call(name, block["input"].clone(), output, failed));
                }
                (_, other) => panic!("a block sess show does not make: {other}"),
            }
        }
    }
    steps
}

/// Calls with their results, paired by id: the results fill in the calls.
#[derive(Default)]
struct Flat {
    steps: Vec<Step>,
    calls: Vec<(String, usize)>,
}

impl Flat {
    fn call(&mut self, id: &str, name: &str, input: Value) {
        assert!(self.calls.iter().all(|(seen, _)| seen != id), "call id {id} used twice");
        self.calls.push((id.to_owned(), self.steps.len()));
        self.steps.push(Step::Call(name.to_owned(), input, String::new(), false));
    }

    fn result(&mut self, id: &str, output: String, failed: bool) {
        let at =
            self.calls.iter().position(|(seen, _)| seen == id).unwrap_or_else(|| panic!("a result for no call: {id}"));
        let (_, index) = self.calls.remove(at);
        if let Step::Call(_, _, out, fail) = &mut self.steps[index] {
            *out = output;
            *fail = failed;
        }
    }

    fn finish(self, what: &str) -> Vec<Step> {
        assert!(self.calls.is_empty(), "{what}: calls without a result: {:?}", self.calls);
        self.steps
    }
}

/// A message's content as parts: a string is one text part.
fn parts_of(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        Value::Array(parts) => parts.clone(),
        _ => Vec::new(),
    }
}

/// The text of a Messages API or pi content block list (or string).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// The prefix the Claude Code and Codex handoffs give a compaction summary.
const SUMMARIZED: &str = "The conversation so far, summarized:\n\n";

/// The answer Claude Code gives a user turn that had none, when another
/// user turn follows it.
const CLAUDE_FILLER: &str = "No response requested.";

/// The summary in a Messages API user text, as the agent words it: Claude
/// Code's handoff (`SUMMARIZED`, and a line end the CLI adds), pi's own.
fn summary_in(text: &str) -> Option<String> {
    if let Some(summary) = text.strip_prefix(SUMMARIZED) {
        return Some(summary.trim_end().to_owned());
    }
    let inner = text.strip_prefix(PI_SUMMARY)?.strip_suffix("\n</summary>")?;
    Some(inner.to_owned())
}

/// How pi 0.73.1 puts a compaction summary before the messages it kept.
const PI_SUMMARY: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";

/// The conversation of the first Messages API request of Claude Code or pi
/// (`messages`), without what Claude Code puts in itself (system messages,
/// reminders, fillers).
fn claude_steps(messages: &Value) -> Vec<Step> {
    let mut flat = Flat::default();
    for message in messages.as_array().unwrap() {
        let role = message["role"].as_str().unwrap();
        if role == "system" {
            continue;
        }
        let blocks = parts_of(&message["content"]);
        for block in &blocks {
            let text = block["text"].as_str().unwrap_or_default();
            match (role, block["type"].as_str().unwrap()) {
                ("user", "text") if text.trim_start().starts_with("<system-reminder>") => {}
                ("user", "text") => match summary_in(text) {
                    Some(summary) => flat.steps.push(Step::Summary(summary)),
                    None => flat.steps.push(Step::User(text.to_owned())),
                },
                ("user", "image") => flat.steps.push(Step::Image(
                    block["source"]["media_type"].as_str().unwrap().into(),
                    block["source"]["data"].as_str().unwrap().into(),
                )),
                ("user", "tool_result") => flat.result(
                    block["tool_use_id"].as_str().unwrap(),
                    content_text(&block["content"]),
                    block["is_error"] == true,
                ),
                // What the CLI puts between two user turns in a row.
                ("assistant", "text") if text == CLAUDE_FILLER => {}
                ("assistant", "text") => flat.steps.push(Step::Assistant(text.to_owned())),
                ("assistant", "thinking") => {
                    flat.steps.push(Step::Thinking(block["thinking"].as_str().unwrap().into()));
                }
                ("assistant", "tool_use") => {
                    flat.call(block["id"].as_str().unwrap(), block["name"].as_str().unwrap(), block["input"].clone());
                }
                (role, kind) => panic!("a {role} {kind} block in Claude Code's request"),
            }
        }
    }
    flat.finish("Claude Code")
}

/// The conversation of Codex's first request (`input`), without what Codex
/// puts in itself (developer messages, its environment and instructions).
fn codex_steps(input: &Value) -> Vec<Step> {
    let mut flat = Flat::default();
    for item in input.as_array().unwrap() {
        match item["type"].as_str().unwrap_or("message") {
            "message" => {
                let role = item["role"].as_str().unwrap();
                if role == "developer" || role == "system" {
                    continue;
                }
                for part in item["content"].as_array().unwrap() {
                    let text = part["text"].as_str().unwrap_or_default();
                    match (role, part["type"].as_str().unwrap()) {
                        ("user", "input_text") if injected_by_codex(text) => {}
                        ("user", "input_text") => match text.strip_prefix(SUMMARIZED) {
                            Some(summary) => flat.steps.push(Step::Summary(summary.to_owned())),
                            None => flat.steps.push(Step::User(text.to_owned())),
                        },
                        ("user", "input_image") => {
                            let url = part["image_url"].as_str().unwrap();
                            let (meta, data) = url.strip_prefix("data:").unwrap().split_once(',').unwrap();
                            flat.steps.push(Step::Image(meta.trim_end_matches(";base64").into(), data.into()));
                        }
                        ("assistant", "output_text") => flat.steps.push(Step::Assistant(text.to_owned())),
                        (role, kind) => panic!("a {role} {kind} part in Codex's request"),
                    }
                }
            }
            "function_call" => {
                let input: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
                flat.call(item["call_id"].as_str().unwrap(), item["name"].as_str().unwrap(), input);
            }
            "function_call_output" => {
                let output = match &item["output"] {
                    Value::String(text) => text.clone(),
                    other => content_text(&other["content"]),
                };
                let (output, failed) = match output.strip_prefix("Error: ") {
                    Some(rest) => (rest.to_owned(), true),
                    None => (output, false),
                };
                flat.result(item["call_id"].as_str().unwrap(), output, failed);
            }
            "reasoning" => {}
            other => panic!("a {other} item in Codex's request"),
        }
    }
    flat.finish("Codex")
}

/// The conversation of Qwen Code's first chat-completions request
/// (`messages`), without what the CLI puts in itself (its system message and
/// `<system-reminder>` blocks).
fn qwen_steps(messages: &Value) -> Vec<Step> {
    let mut flat = Flat::default();
    for message in messages.as_array().unwrap() {
        let parts = parts_of(&message["content"]);
        match message["role"].as_str().unwrap() {
            "system" => {}
            // A failed call's error is its result's text, unmarked (the failure
            // is in the session's `toolCallResult`, which `sess` reads back).
            "tool" => flat.result(message["tool_call_id"].as_str().unwrap(), content_text(&message["content"]), false),
            role => {
                for part in &parts {
                    let text = part["text"].as_str().unwrap_or_default();
                    match (role, part["type"].as_str().unwrap()) {
                        ("user", "text") if text.trim_start().starts_with("<system-reminder>") => {}
                        ("user", "text") => match summary_in(text) {
                            Some(summary) => flat.steps.push(Step::Summary(summary)),
                            None => flat.steps.push(Step::User(text.to_owned())),
                        },
                        ("user", "image_url") => {
                            let url = part["image_url"]["url"].as_str().unwrap();
                            let (meta, data) = url.strip_prefix("data:").unwrap().split_once(',').unwrap();
                            flat.steps.push(Step::Image(meta.trim_end_matches(";base64").into(), data.into()));
                        }
                        ("assistant", "text") => flat.steps.push(Step::Assistant(text.to_owned())),
                        (role, kind) => panic!("a {role} {kind} part in Qwen Code's request"),
                    }
                }
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    let input: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
                    flat.call(call["id"].as_str().unwrap(), call["function"]["name"].as_str().unwrap(), input);
                }
            }
        }
    }
    flat.finish("Qwen Code")
}

/// The conversation of the Gemini CLI's first request (`contents`), without
/// what the CLI puts in itself (its session context).
fn gemini_steps(contents: &Value) -> Vec<Step> {
    let mut flat = Flat::default();
    for content in contents.as_array().unwrap() {
        let role = content["role"].as_str().unwrap();
        for part in content["parts"].as_array().unwrap() {
            let text = part["text"].as_str();
            match (role, text) {
                ("user", Some(text)) if text.trim_start().starts_with("<session_context>") => {}
                ("user", Some(text)) => match summary_in(text) {
                    Some(summary) => flat.steps.push(Step::Summary(summary)),
                    None => flat.steps.push(Step::User(text.to_owned())),
                },
                ("model", Some(text)) => flat.steps.push(Step::Assistant(text.to_owned())),
                _ if part["inlineData"].is_object() => flat.steps.push(Step::Image(
                    part["inlineData"]["mimeType"].as_str().unwrap().into(),
                    part["inlineData"]["data"].as_str().unwrap().into(),
                )),
                ("model", None) if part["functionCall"].is_object() => {
                    let call = &part["functionCall"];
                    flat.call(call["id"].as_str().unwrap(), call["name"].as_str().unwrap(), call["args"].clone());
                }
                ("user", None) if part["functionResponse"].is_object() => {
                    let response = &part["functionResponse"];
                    let (output, failed) = match (&response["response"]["output"], &response["response"]["error"]) {
                        (Value::String(output), _) => (output.clone(), false),
                        (_, Value::String(error)) => (error.clone(), true),
                        _ => (response["response"].to_string(), false),
                    };
                    flat.result(response["id"].as_str().unwrap(), output, failed);
                }
                _ => panic!("a {role} part in the Gemini CLI's request: {part}"),
            }
        }
    }
    flat.finish("Gemini CLI")
}

/// `steps` with the user texts in a row as one, a blank line between (the
/// Gemini handoff writes a turn's texts as one part; the CLI sends each
/// message as a content of its own).
fn joined_user_texts(steps: Vec<Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for step in steps {
        match (step, out.last_mut()) {
            (Step::User(text), Some(Step::User(last))) => {
                last.push_str("\n\n");
                last.push_str(&text);
            }
            (step, _) => out.push(step),
        }
    }
    out
}

/// Whether a user text is context Codex adds to a turn by itself.
fn injected_by_codex(text: &str) -> bool {
    let text = text.trim_start();
    ["<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions", "<skills_instructions>"]
        .iter()
        .any(|start| text.starts_with(start))
}

/// pi's context (`buildSessionContext().messages`).
fn pi_steps(messages: &Value) -> Vec<Step> {
    let mut flat = Flat::default();
    for message in messages.as_array().unwrap() {
        let parts = parts_of(&message["content"]);
        match message["role"].as_str().unwrap() {
            "compactionSummary" => flat.steps.push(Step::Summary(message["summary"].as_str().unwrap().into())),
            "toolResult" => flat.result(
                message["toolCallId"].as_str().unwrap(),
                content_text(&message["content"]),
                message["isError"] == true,
            ),
            role => {
                for part in &parts {
                    let text = part["text"].as_str().unwrap_or_default().to_owned();
                    match (role, part["type"].as_str().unwrap()) {
                        ("user", "text") => flat.steps.push(Step::User(text)),
                        ("user", "image") => flat.steps.push(Step::Image(
                            part["mimeType"].as_str().unwrap().into(),
                            part["data"].as_str().unwrap().into(),
                        )),
                        ("assistant", "text") => flat.steps.push(Step::Assistant(text)),
                        ("assistant", "thinking") => {
                            flat.steps.push(Step::Thinking(part["thinking"].as_str().unwrap().into()));
                        }
                        ("assistant", "toolCall") => flat.call(
                            part["id"].as_str().unwrap(),
                            part["name"].as_str().unwrap(),
                            part["arguments"].clone(),
                        ),
                        (role, kind) => panic!("a {role} {kind} part in pi's context"),
                    }
                }
            }
        }
    }
    flat.finish("pi")
}

/// Hands every source to `to` in a fresh home, and checks what `resumed`
/// makes of each new session against what `sess show` shows of the source,
/// after the note naming it and before `last` (the new prompt, if any).
fn hand_every_source(to: &str, thinking: Thinking, resumed: impl Fn(&Path, &Value) -> Vec<Step>, last: Option<&str>) {
    hand_every_source_after(to, thinking, |_, _| {}, resumed, last);
}

/// [`hand_every_source`], `before` run in each home (with its work folder)
/// before the handoff.
fn hand_every_source_after(
    to: &str,
    thinking: Thinking,
    before: impl Fn(&Path, &Path),
    resumed: impl Fn(&Path, &Value) -> Vec<Step>,
    last: Option<&str>,
) {
    for (agent, file, place) in SOURCES {
        let home = tempfile::tempdir().unwrap();
        let work = home.path().join("work");
        fs::create_dir_all(&work).unwrap();
        let fixture = repo().join("fixtures").join(file);
        let bytes = fs::read(&fixture).unwrap();
        let (arg, shown) = source(home.path(), agent, file, *place);
        before(home.path(), &work);
        let handed = json(home.path(), &["handoff", &arg, "--to", to, "--cwd", work.to_str().unwrap(), "--json"]);
        assert_eq!(fs::read(&fixture).unwrap(), bytes, "{file} changed");
        let mut want = expected(&shown, thinking);
        if to == "qwen" {
            // Qwen Code sends a failed call's error as its result's text, unmarked.
            for step in &mut want {
                if let Step::Call(_, _, _, failed) = step {
                    *failed = false;
                }
            }
        }
        if to == "claude" {
            // Claude Code sends its old `Task` tool by its new name.
            for step in &mut want {
                if let Step::Call(name, ..) = step
                    && name == "Task"
                {
                    "Agent".clone_into(name);
                }
            }
        }
        let note = format!(
            "[Handed over by sess from {} session {} ({}).]",
            agent_name(agent),
            handed["from"]["id"].as_str().unwrap(),
            origin_path(&handed)
        );
        let at = usize::from(matches!(want.first(), Some(Step::Summary(_))));
        want.insert(at, Step::User(note));
        if let Some(prompt) = last {
            want.push(Step::User(prompt.to_owned()));
        }
        let mut got = resumed(home.path(), &handed);
        if to == "gemini" {
            want = joined_user_texts(want);
            got = joined_user_texts(got);
        }
        let differ = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
        assert!(
            got == want,
            "{file} handed to {to}: {} steps, {} expected; the first difference, at {differ}:\n got: {:?}\nwant: {:?}",
            got.len(),
            want.len(),
            got.get(differ),
            want.get(differ)
        );
        eprintln!("interop handoff: {agent} ({file}) → {to}: {} steps", want.len());
    }
}

/// Where the handed-over session was, as the note names it.
fn origin_path(handed: &Value) -> String {
    let path = handed["from"]["path"].as_str().unwrap();
    let id = handed["from"]["id"].as_str().unwrap();
    // A database holds several sessions: the note names the one.
    if Path::new(path).extension().is_some_and(|ext| ext == "db") { format!("{path}#{id}") } else { path.to_owned() }
}

fn agent_name(source: &str) -> &'static str {
    sess_sources::SourceKind::from_name(source).unwrap().agent_name()
}

/// The driver of `interop/handoff/`, run from the folder of the target's
/// packages.
fn driver(folder: &str, name: &'static str, package: &str) -> Option<Peer> {
    let driver = repo().join("interop/handoff/driver.mjs");
    peer_in(&repo().join("interop").join(folder), name, "node", driver.to_str().unwrap(), package)
}

/// A target agent run by `interop/handoff/driver.mjs`.
struct Resumed {
    /// The folder of its packages, under `interop/`.
    folder: &'static str,
    /// Its name in messages.
    name: &'static str,
    /// Its npm package.
    package: &'static str,
    /// `--to`, and the driver's command.
    target: &'static str,
    /// What it makes of thinking.
    thinking: Thinking,
    /// Whether it must have run in the directory first (`TARGET-init`).
    init: bool,
    /// Where the driver's report has the first request's conversation.
    key: &'static str,
    /// That conversation as steps.
    steps: fn(&Value) -> Vec<Step>,
}

/// Hands every source to the target, resumes each new session in the real
/// agent with [`PROMPT`], and checks its first request.
fn resumed(agent: &Resumed) {
    let Some(peer) = driver(agent.folder, agent.name, agent.package) else { return };
    let target = agent.target;
    hand_every_source_after(
        target,
        agent.thinking,
        |home, work| {
            if agent.init {
                let init = format!("{target}-init");
                let report = peer.run(home, &[&init, home.to_str().unwrap(), work.to_str().unwrap()]);
                assert_eq!(report["exitCode"], 0, "{target} in {}: {}", work.display(), report["stderr"]);
            }
        },
        |home, handed| {
            // pi resumes a file; the others an id.
            let session = handed[if target == "pi" { "path" } else { "id" }].as_str().unwrap();
            let cwd = handed["cwd"].as_str().unwrap();
            let report = peer.run(home, &[target, home.to_str().unwrap(), cwd, session, PROMPT]);
            assert_eq!(report["exitCode"], 0, "{target} resumed {session}: {}", report["stderr"]);
            (agent.steps)(&report[agent.key])
        },
        Some(PROMPT),
    );
}

/// The fields most targets share: a session id, thinking dropped.
const AGENT: Resumed = Resumed {
    folder: "",
    name: "",
    package: "",
    target: "",
    thinking: Thinking::Dropped,
    init: false,
    key: "messages",
    steps: claude_steps,
};

#[test]
fn claude_code_resumes_a_handoff_of_every_agent_with_the_whole_conversation() {
    resumed(&Resumed {
        folder: "claude-code",
        name: "claude-code",
        package: "@anthropic-ai/claude-code",
        target: "claude",
        ..AGENT
    });
}

#[test]
fn codex_resumes_a_handoff_of_every_agent_with_the_whole_conversation() {
    resumed(&Resumed {
        folder: "codex",
        name: "codex",
        package: "@openai/codex",
        target: "codex",
        key: "input",
        steps: codex_steps,
        ..AGENT
    });
}

#[test]
fn pi_mono_resumes_a_handoff_of_every_agent_with_the_whole_conversation() {
    resumed(&Resumed {
        folder: "peers/pi-mono",
        name: "pi-mono 0.73.1",
        package: "@mariozechner/pi-coding-agent",
        target: "pi",
        thinking: Thinking::AsText,
        ..AGENT
    });
}

#[test]
fn qwen_code_resumes_a_handoff_of_every_agent_with_the_whole_conversation() {
    resumed(&Resumed {
        folder: "qwen-code",
        name: "qwen-code",
        package: "@qwen-code/qwen-code",
        target: "qwen",
        steps: qwen_steps,
        ..AGENT
    });
}

#[test]
fn the_gemini_cli_resumes_a_handoff_of_every_agent_with_the_whole_conversation() {
    resumed(&Resumed {
        folder: "gemini",
        name: "gemini",
        package: "@google/gemini-cli",
        target: "gemini",
        // The CLI names its folder for a directory when it first runs there.
        init: true,
        key: "contents",
        steps: gemini_steps,
        ..AGENT
    });
}

/// pi's `SessionManager.open` and `buildSessionContext` of the new file.
fn pi_opens_a_handoff_of_every_agent(folder: &str, name: &'static str, package: &str) {
    let Some(peer) = peer_in(&repo().join("interop/peers").join(folder), name, "node", "driver.mjs", package) else {
        return;
    };
    hand_every_source(
        "pi",
        Thinking::Kept,
        |home, handed| {
            let path = PathBuf::from(handed["path"].as_str().unwrap());
            let views = peer.run(home, &["inspect", path.to_str().unwrap()]);
            let view = &views.as_array().unwrap()[0];
            assert!(view["refused"].is_null(), "{name} refused {}: {}", path.display(), view["refused"]);
            pi_steps(&view["last"]["messages"])
        },
        None,
    );
}

#[test]
fn pi_mono_opens_a_handoff_of_every_agent_with_the_whole_conversation() {
    pi_opens_a_handoff_of_every_agent("pi-mono", "pi-mono 0.73.1", "@mariozechner/pi-coding-agent");
}

#[test]
fn pi_1_6_opens_a_handoff_of_every_agent_with_the_whole_conversation() {
    pi_opens_a_handoff_of_every_agent("pi", "pi 1.6.0", "@earendil-works/pi-coding-agent");
}
