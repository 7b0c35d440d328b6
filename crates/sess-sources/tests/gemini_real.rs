//! Golden tests over session files the real Gemini CLI 0.61.0 wrote
//! (`interop/gemini` ran it against a fake Gemini API; the files are kept in
//! `fixtures/gemini/real-0.61.0/home/.gemini`, with the driver's
//! `scenario.json`, the run's folder scrubbed to `/home/dev`).
//!
//! Each session's transcript is checked in under `expected/<id>.json`.
//! `SESS_BLESS=1 cargo test` rewrites them from the code; review the diff
//! against the rules (and against `scenario.json`) before committing it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Blessing writes the expected files directly.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{assert_golden, calls, read_json, shape, usage_totals};
use pretty_assertions::assert_eq;
use serde_json::Value;
use sess_sources::{Block, Role, Scope, ToolStatus, Transcript, gemini};

fn fixture() -> PathBuf {
    common::fixture("gemini/real-0.61.0")
}

fn gemini_dir() -> PathBuf {
    fixture().join("home/.gemini")
}

fn scenario() -> Value {
    read_json(&fixture().join("scenario.json"))
}

fn sessions(scenario: &Value) -> &Vec<Value> {
    scenario["sessions"].as_array().unwrap()
}

/// The file of the session with this id, as sess finds it.
fn file(id: &str) -> PathBuf {
    gemini::find_session_files(&gemini_dir()).files.into_iter().find(|(found, _)| found == id).unwrap().1
}

/// The session whose first prompt is `prompt`.
fn by_prompt(scenario: &Value, prompt: &str) -> Transcript {
    let session = sessions(scenario).iter().find(|s| s["turns"][0]["prompt"] == prompt).unwrap();
    gemini::load(&file(session["id"].as_str().unwrap())).unwrap()
}

/// Loads a session and compares its transcript with `expected/<id>.json`.
fn golden(id: &str) -> Transcript {
    let transcript = gemini::load(&file(id)).unwrap();
    assert_golden(&transcript, &fixture().join(format!("expected/{id}.json")), id);
    transcript
}

fn text(transcript: &Transcript, at: usize) -> String {
    transcript.messages[at]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text { text } | Block::Summary { text } | Block::Error { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_real_session_reads_cleanly_and_as_checked_in() {
    let scenario = scenario();
    for session in sessions(&scenario) {
        let id = session["id"].as_str().unwrap();
        let t = golden(id);
        assert_eq!(t.issues, [], "{id}: every line the CLI wrote parses");
        assert_eq!(t.id, id);
        assert_eq!(t.cwd.as_deref(), session["cwd"].as_str(), "{id}");
        assert_eq!(t.title.as_deref(), session["expectedTitle"].as_str(), "{id}");
        let path = session["path"].as_str().unwrap();
        assert_eq!(file(id).file_name(), Path::new(path).file_name(), "{id}: the file with the conversation");
    }
}

#[test]
fn transcripts_of_the_real_sessions() {
    use Role::{Assistant, System, User};
    use ToolStatus::{Failed, Succeeded};
    let scenario = scenario();

    let t = by_prompt(&scenario, "Say hello in one short sentence.");
    assert_eq!(
        shape(&t),
        [
            (User, vec!["text"]),
            (Assistant, vec!["thinking", "text"]),
            (User, vec!["text"]),
            (Assistant, vec!["text"]),
            (User, vec!["text"]),
            (Assistant, vec!["tool_call"]),
            (System, vec!["summary"]),
            (Assistant, vec!["text"]),
        ]
    );
    assert_eq!(t.messages[1].blocks[0], Block::Thinking { text: "**Greeting** A short hello will do.".into() });
    assert!(text(&t, 6).starts_with("<state_snapshot>"), "the compression's summary");

    let t = by_prompt(&scenario, "Check the workspace: echo hi, read missing.txt, then write notes.txt.");
    assert_eq!(
        shape(&t),
        [
            (User, vec!["text"]),
            (Assistant, vec!["thinking", "tool_call", "tool_call", "tool_call", "text"]),
            (User, vec!["text", "context", "image"]),
            (Assistant, vec!["text"]),
            (User, vec!["text"]),
            (System, vec!["text"]),
        ]
    );
    assert_eq!(
        calls(&t.messages),
        [("run_shell_command", Succeeded), ("read_file", Failed), ("write_file", Succeeded)]
    );
    assert!(text(&t, 5).contains("took this turn back"), "the failed request's prompt");

    let t = by_prompt(&scenario, "Ask a helper agent to count the files in this folder.");
    assert_eq!(shape(&t), [(User, vec!["text"]), (Assistant, vec!["tool_call", "text"])]);
    let Block::ToolCall(agent) = &t.messages[1].blocks[0] else { panic!("no call") };
    assert_eq!((agent.name.as_str(), agent.status), ("invoke_agent", Succeeded));
    assert_eq!(agent.subagent.len(), 2, "the subagent's prompt and turn");
    assert_eq!(calls(&agent.subagent), [("list_directory", Succeeded), ("complete_task", Succeeded)]);

    let t = by_prompt(&scenario, "Count to three.");
    assert_eq!(
        shape(&t),
        [
            (User, vec!["text"]),
            (Assistant, vec!["thinking", "text"]),
            (User, vec!["text"]),
            (Assistant, vec!["text"]),
            (System, vec!["text"]),
            (User, vec!["text"]),
            (Assistant, vec!["text"]),
            (User, vec!["text"]),
            (System, vec!["text"]),
            (Assistant, vec!["error"]),
            (System, vec!["text"]),
        ]
    );
    assert_eq!(text(&t, 4), "Rewound to before “Now count to five.”");
    assert!(text(&t, 9).contains("The fake model cannot count that far."));
}

#[test]
fn listings_of_the_real_gemini_dir() {
    let scenario = scenario();
    let all = gemini::list(&gemini_dir(), Scope::All);
    assert_eq!(all.problems.len(), 0);
    let listed: BTreeSet<&str> = all.sessions.iter().map(|s| s.id.as_str()).collect();
    let made: BTreeSet<&str> = sessions(&scenario).iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(listed, made, "every session once, no empty file, no subagent");
    for info in &all.sessions {
        let t = gemini::load(&info.path).unwrap();
        assert_eq!(info.message_count, t.messages.len(), "{}", info.id);
        assert_eq!(info.first_message.as_deref(), t.first_prompt(), "{}", info.id);
        // The first metadata line says when the session started.
        let first: Value =
            serde_json::from_str(std::fs::read_to_string(&info.path).unwrap().lines().next().unwrap()).unwrap();
        assert_eq!(info.created.as_deref(), first["startTime"].as_str(), "{}", info.id);
    }
    for (_, project) in scenario["projects"].as_object().unwrap() {
        let dir = project.as_str().unwrap();
        let found: BTreeSet<String> =
            gemini::list(&gemini_dir(), Scope::Project(Path::new(dir))).sessions.into_iter().map(|s| s.id).collect();
        let wanted: BTreeSet<String> = sessions(&scenario)
            .iter()
            .filter(|s| s["cwd"] == dir)
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(found, wanted, "{dir}");
    }
}

#[test]
fn every_file_the_cli_wrote_is_recognised_as_its() {
    let scenario = scenario();
    for file in scenario["files"].as_array().unwrap() {
        let relative = file.as_str().unwrap().strip_prefix("/home/dev/.gemini/").unwrap();
        let path = gemini_dir().join(relative);
        let bytes = std::fs::read(&path).unwrap();
        let head = &bytes[..bytes.len().min(sess_sources::DETECT_BYTES)];
        assert_eq!(sess_sources::detect(&path, head), Some(gemini::SOURCE), "{relative}");
        let checked = gemini::verify_file(&path).unwrap();
        assert_eq!(checked.findings, [], "{relative}");
    }
}

#[test]
fn a_session_is_made_of_its_subagents_sessions_and_its_other_files() {
    use sess_sources::{Growth, Source as _};
    let tmp = gemini_dir().join("tmp");
    let companions = |id: &str| {
        let main = file(id);
        assert_eq!(gemini::Gemini.growth(&main), Growth::Lines, "{id}");
        gemini::Gemini.companions(&main)
    };
    let chats = |project: &str, names: &[&str]| -> Vec<PathBuf> {
        names.iter().map(|name| tmp.join(project).join("chats").join(name)).collect()
    };
    assert_eq!(
        companions("fd998aeb-f327-4c41-9139-17445d89091e"),
        chats("alpha", &["fd998aeb-f327-4c41-9139-17445d89091e/e06239aa-4f7f-401d-9099-cf0bb2280b5f.jsonl"])
    );
    // The empty file a resume in a later minute left.
    let mut resumed = 0;
    for session in sessions(&scenario()) {
        let id = session["id"].as_str().unwrap();
        let main = file(id);
        let later: Vec<PathBuf> = main
            .parent()
            .unwrap()
            .read_dir()
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| *p != main && p.is_file() && p.to_string_lossy().contains(&id[..8]))
            .collect();
        if id.starts_with("fd998aeb") {
            continue;
        }
        assert_eq!(companions(id), later, "{id}");
        resumed += usize::from(!later.is_empty());
    }
    assert_eq!(resumed, 2);
}

/// Each session's calls, and its subagent's in the subagent's file. The
/// totals were counted with Python: per file, the last record of each
/// `gemini` message id with `tokens` (in `$set` messages too), input less
/// `cached` plus `tool`, output plus `thoughts`.
#[test]
fn each_response_counts_once_and_a_subagents_in_its_own_file() {
    use sess_sources::Source as _;
    let index = |id: &str| {
        let path = file(id);
        gemini::Gemini.index(&path, &std::fs::read(&path).unwrap()).unwrap().usage
    };
    // (calls, input, cache read, cache write, output, reasoning)
    for (id, expected) in [
        ("2e507ed4-e66b-4f47-8f80-71d754c29f16", (4, 480, 0, 0, 48, 0)),
        // A compression's oversized prompt, and a turn resumed.
        ("dec0aa5a-bb0b-4ea8-b505-4a81b493263b", (4, 700_360, 0, 0, 48, 0)),
        // A rewound turn's call counts too.
        ("9786d550-3db8-477d-83f5-6ce6b614f566", (3, 360, 0, 0, 36, 0)),
        ("fd998aeb-f327-4c41-9139-17445d89091e", (2, 240, 0, 0, 24, 0)),
    ] {
        let usage = index(id);
        assert_eq!(usage_totals(&usage), expected, "{id}");
        assert!(usage.iter().all(|c| c.model.as_deref() == Some("gemini-2.5-flash") && c.key.is_some()), "{id}");
    }
    let main = file("fd998aeb-f327-4c41-9139-17445d89091e");
    let subagent = gemini::Gemini.companions(&main).pop().unwrap();
    let calls = gemini::Gemini.usage(&subagent, &std::fs::read(&subagent).unwrap());
    assert_eq!(usage_totals(&calls), (2, 240, 0, 0, 24, 0));
    let own: BTreeSet<_> = index("fd998aeb-f327-4c41-9139-17445d89091e").into_iter().map(|c| c.key).collect();
    assert!(calls.iter().all(|c| !own.contains(&c.key)));
}

/// Issue 26, item 10, on the real CLI's files
/// (`fixtures/gemini/real-0.61.0-commands`, made by
/// `interop/gemini/commands.mjs` with the next-speaker check on): `/init`,
/// typed into `gemini -p` (project gamma) and into the interactive UI
/// (project delta), is the prompt, with what the CLI sent titled "Expanded
/// /init"; the model lists the folder, says what it does next, and the check
/// has the CLI send "Please continue.". The UI records that turn with the
/// function responses as its `displayContent`: a notice of the CLI's. `-p`
/// sends a tool's turn without one, so its "Please continue." is recorded as
/// a typed "Please continue." is, and sess shows what the file says: a prompt.
#[test]
fn a_slash_command_and_the_clis_continuation_in_the_real_files() {
    let fixture = common::fixture("gemini/real-0.61.0-commands");
    let scenario = read_json(&fixture.join("scenario.json"));
    let dir = fixture.join("home/.gemini");
    let found = gemini::find_session_files(&dir).files;
    let load = |project: &str| {
        let session = sessions(&scenario).iter().find(|s| s["cwd"] == format!("/home/dev/projects/{project}")).unwrap();
        let (_, path) = found.iter().find(|(id, _)| id == session["id"].as_str().unwrap()).unwrap();
        let transcript = gemini::load(path).unwrap();
        assert!(transcript.issues.is_empty(), "{project}: {:?}", transcript.issues);
        (session.clone(), transcript)
    };
    // The UI also records the notice `/init` shows before it sends the prompt.
    let created = "system: text:Empty GEMINI.md created. Now analyzing the project to populate it.";
    for (project, before, continuation) in [
        ("gamma", None, "user: text:Please continue."),
        ("delta", Some(created), "system: text:The CLI asked the model to go on (“Please continue.”)"),
    ] {
        let (session, transcript) = load(project);
        let init = &session["turns"][0];
        let next = init["blocks"][1]["text"].as_str().unwrap();
        let done = session["turns"][1]["blocks"][0]["text"].as_str().unwrap();
        let mut want: Vec<String> = before.into_iter().map(ToOwned::to_owned).collect();
        want.extend([
            "user: text:/init | context:Expanded /init".to_owned(),
            format!("assistant: tool:list_directory:succeeded | text:{next}"),
            continuation.to_owned(),
            format!("assistant: text:{done}"),
        ]);
        assert_eq!(rows(&transcript), want, "{project}");
        let at = usize::from(before.is_some());
        // The expansion is what the CLI sent, whole.
        let Block::Context { text, .. } = &transcript.messages[at].blocks[1] else { panic!("{project}") };
        assert!(text.starts_with(init["expandsTo"].as_str().unwrap().trim()), "{project}: {text}");
        assert!(text.contains("GEMINI.md"), "{project}");
        let Block::ToolCall(call) = &transcript.messages[at + 1].blocks[0] else { panic!("{project}") };
        assert!(call.result.as_deref().unwrap().contains("README.md"), "{project}: {:?}", call.result);
    }
}

/// `role: kind:text | …` of each message (a call as `tool:NAME:STATUS`, a
/// context block as `context:TITLE`).
fn rows(transcript: &Transcript) -> Vec<String> {
    let block = |b: &Block| match b {
        Block::Text { text } | Block::Thinking { text } | Block::Error { text } | Block::Summary { text } => {
            format!("{}:{text}", b.kind())
        }
        Block::ToolCall(c) => format!("tool:{}:{}", c.name, c.status.as_str()),
        Block::Context { title, .. } => format!("context:{title}"),
        other => other.kind().to_owned(),
    };
    transcript
        .messages
        .iter()
        .map(|m| format!("{}: {}", m.role.as_str(), m.blocks.iter().map(block).collect::<Vec<_>>().join(" | ")))
        .collect()
}
