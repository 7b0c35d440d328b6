//! Tests over session files the real Qwen Code CLI 0.24.4 wrote
//! (`interop/qwen-code` ran it against a fake chat-completions API; the files
//! are kept in `fixtures/qwen-code/real-0.24.4/qwen-home`, with the driver's
//! `scenario.json`, machine paths scrubbed).
//!
//! Each transcript is checked against what the fake model was scripted to
//! answer (`scenario.json`), and in full under `expected/<session id>.json`.
//! `SESS_BLESS=1 cargo test` rewrites those from the code; review the diff
//! against the rules before committing it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Blessing writes the expected files directly.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_golden, read_json, usage_totals};
use pretty_assertions::assert_eq;
use serde_json::Value;
use sess_sources::{Block, Env, Message, Role, Scope, ToolStatus, Transcript, qwen, registry};

fn fixture() -> PathBuf {
    common::fixture("qwen-code/real-0.24.4")
}

fn scenario() -> Value {
    read_json(&fixture().join("scenario.json"))
}

fn home() -> PathBuf {
    fixture().join("qwen-home")
}

fn sessions() -> Vec<Value> {
    scenario()["sessions"].as_array().unwrap().clone()
}

/// The session file with this id.
fn file(id: &str) -> PathBuf {
    qwen::find_session_files(&[home()]).files.into_iter().find(|(found, _)| found == id).unwrap().1
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap()
}

/// One message as `role: kind:text | kind:text …`, tool calls as
/// `tool_call:id:name:status`, for comparing with the scenario.
fn describe(message: &Message) -> String {
    let blocks: Vec<String> = message
        .blocks
        .iter()
        .map(|block| match block {
            Block::Text { text } => format!("text:{text}"),
            Block::Thinking { text } => format!("thinking:{text}"),
            Block::Error { text } => format!("error:{text}"),
            Block::Summary { text } => format!("summary:{text}"),
            Block::Context { title, .. } => format!("context:{title}"),
            Block::Image(image) => format!("image:{}", image.media_type.as_deref().unwrap_or_default()),
            Block::ToolCall(call) => format!("tool_call:{}:{}:{:?}", call.id, call.name, call.status),
            Block::Unknown { what, .. } => format!("unknown:{what}"),
        })
        .collect();
    format!("{}: {}", message.role.as_str(), blocks.join(" | "))
}

/// The messages the scenario's turns should give: each turn a user message
/// (the prompt, the files it references, their images) and an assistant
/// message (thinking, tool calls, text, errors as scripted), a compression's
/// summary before the turn it preceded, a rewind's notice after the turns it
/// took back.
fn expected(turns: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rewound = 0;
    for turn in turns {
        if rewound > 0 && !turn["rewound"].as_bool().unwrap() {
            out.push(format!("system: text:Rewound {rewound} prompt{}", if rewound == 1 { "" } else { "s" }));
            rewound = 0;
        }
        if let Some(summary) = turn["compactedBefore"].as_str() {
            out.push(format!("system: summary:{}", &summary[summary.find("<state_snapshot>").unwrap()..]));
        }
        let mut user = vec![format!("text:{}", str_of(turn, "prompt"))];
        if !turn["images"].as_array().unwrap().is_empty() {
            user.push("context:Referenced files".to_owned());
            user.extend(turn["images"].as_array().unwrap().iter().map(|_| "image:image/jpeg".to_owned()));
        }
        out.push(format!("user: {}", user.join(" | ")));
        let assistant: Vec<String> = turn["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| match str_of(b, "type") {
                "tool_call" => {
                    let status = if b["fails"].as_bool().unwrap() { ToolStatus::Failed } else { ToolStatus::Succeeded };
                    format!("tool_call:{}:{}:{status:?}", str_of(b, "id"), str_of(b, "name"))
                }
                "error" => format!("error:400 {}", str_of(b, "contains")),
                kind => format!("{kind}:{}", str_of(b, "text")),
            })
            .collect();
        out.push(format!("assistant: {}", assistant.join(" | ")));
        if turn["rewound"].as_bool().unwrap() {
            rewound += 1;
        }
    }
    out
}

/// Every tool call of `messages` (subagents' included) whose scripted
/// result is in `turns`: its input and result are as scripted.
fn check_calls(messages: &[Message], turns: &[Value]) {
    let scripted: Vec<&Value> = turns.iter().flat_map(|t| t["blocks"].as_array().unwrap()).collect();
    for call in messages.iter().flat_map(|m| &m.blocks).filter_map(|b| match b {
        Block::ToolCall(call) => Some(call),
        _ => None,
    }) {
        let want = scripted.iter().find(|b| b["id"] == call.id.as_str()).unwrap();
        assert_eq!(call.input, want["input"], "{}", call.id);
        let result = call.result.as_deref().unwrap();
        assert!(result.contains(str_of(want, "output")), "{}: {result}", call.id);
        let started = call.started_at.as_deref().unwrap();
        assert!(call.ended_at.as_deref().unwrap() >= started, "{}", call.id);
    }
}

fn golden(transcript: &Transcript) {
    assert_golden(transcript, &fixture().join(format!("expected/{}.json", transcript.id)), &transcript.id);
}

#[test]
fn transcripts_are_what_the_model_was_scripted_to_say() {
    for session in sessions() {
        let id = str_of(&session, "id");
        let transcript = qwen::load(&file(id)).unwrap();
        assert!(transcript.issues.is_empty(), "{id}: {:?}", transcript.issues);
        let mut turns: Vec<Value> = session["inherited"].as_array().unwrap().clone();
        turns.extend(session["turns"].as_array().unwrap().iter().cloned());
        let actual: Vec<String> = transcript.messages.iter().map(describe).collect();
        assert_eq!(actual, expected(&turns), "{id}");
        check_calls(&transcript.messages, &turns);
        assert_eq!(transcript.cwd.as_deref(), Some(str_of(&session, "cwd")), "{id}");
        let title = session["title"].as_str().unwrap_or(str_of(&turns[0], "prompt"));
        assert_eq!(transcript.title.as_deref(), Some(title), "{id}");
        // Each subagent is folded under the call that started it.
        for sub in session["subagents"].as_array().unwrap() {
            let call = transcript
                .messages
                .iter()
                .flat_map(|m| &m.blocks)
                .find_map(|b| match b {
                    Block::ToolCall(c) if c.id == str_of(sub, "callId") => Some(c),
                    _ => None,
                })
                .unwrap();
            let sub_turns = sub["turns"].as_array().unwrap();
            let actual: Vec<String> = call.subagent.iter().map(describe).collect();
            assert_eq!(actual, expected(sub_turns), "{id}: subagent");
            check_calls(&call.subagent, sub_turns);
        }
        golden(&transcript);
    }
}

#[test]
fn the_listing_matches_the_transcripts() {
    let listing = qwen::list(&[home()], Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut listed: Vec<&str> = listing.sessions.iter().map(|s| s.id.as_str()).collect();
    let mut ids: Vec<String> = sessions().iter().map(|s| str_of(s, "id").to_owned()).collect();
    listed.sort_unstable();
    ids.sort_unstable();
    assert_eq!(listed, ids);
    for session in sessions() {
        let id = str_of(&session, "id");
        let info = listing.sessions.iter().find(|s| s.id == id).unwrap();
        let transcript = qwen::load(&info.path).unwrap();
        assert_eq!(info.source.as_str(), "qwen");
        assert_eq!(info.message_count, transcript.messages.len(), "{id}");
        assert_eq!(info.title, transcript.title, "{id}");
        assert_eq!(info.cwd.as_deref(), Some(str_of(&session, "cwd")), "{id}");
        assert_eq!(info.parent_session.as_deref(), session["forkedFrom"].as_str(), "{id}");
        let first = session["inherited"].as_array().unwrap().first().unwrap_or(&session["turns"][0]).clone();
        assert_eq!(info.first_message.as_deref(), Some(str_of(&first, "prompt")), "{id}");
        assert!(info.created.as_deref().unwrap().starts_with("20"), "{id}");
    }
}

#[test]
fn a_project_lists_its_own_sessions() {
    let scenario = scenario();
    for (name, project) in scenario["projects"].as_object().unwrap() {
        let cwd = project.as_str().unwrap();
        let listing = qwen::list(&[home()], Scope::Project(Path::new(cwd)));
        let mut listed: Vec<&str> = listing.sessions.iter().map(|s| s.id.as_str()).collect();
        let mut wanted: Vec<&str> = scenario["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["cwd"] == *project)
            .map(|s| str_of(s, "id"))
            .collect();
        listed.sort_unstable();
        wanted.sort_unstable();
        assert_eq!(listed, wanted, "{name}");
        assert!(!wanted.is_empty(), "{name}");
    }
}

#[test]
fn every_file_is_found_and_detected_as_qwen_code() {
    let env = Env::new(fixture(), [("QWEN_HOME".to_owned(), home().into_os_string())]);
    let qwen = registry().find(|kind| kind.as_str() == "qwen").unwrap();
    let found = qwen.source().find(&env);
    assert_eq!(found.files.len(), sessions().len());
    for (_, path) in &found.files {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(sess_sources::detect(path, &bytes), Some(qwen), "{}", path.display());
        // By content alone, from the first 4 KiB.
        let head = &bytes[..bytes.len().min(4096)];
        assert_eq!(sess_sources::detect(Path::new("x.jsonl"), head), Some(qwen), "{}", path.display());
        let checked = qwen.source().verify(path).unwrap().unwrap();
        assert!(checked.findings.is_empty(), "{}: {:?}", path.display(), checked.findings);
    }
    // A subagent's own transcript is one too, shown by path.
    let sub = sessions().iter().flat_map(|s| s["subagents"].as_array().unwrap().clone()).next().unwrap();
    let sub_path = home().join(str_of(&sub, "path").split("/.qwen/").nth(1).unwrap());
    let bytes = std::fs::read(&sub_path).unwrap();
    assert_eq!(sess_sources::detect(&sub_path, &bytes), Some(qwen));
    let transcript = qwen.source().load(&sub_path).unwrap();
    assert_eq!(transcript.messages.iter().map(|m| m.role).collect::<Vec<_>>(), [Role::User, Role::Assistant]);
}

#[test]
fn a_rewind_is_a_branch_of_the_record_tree() {
    let session =
        sessions().into_iter().find(|s| s["turns"].as_array().unwrap().iter().any(|t| t["rewound"] == true)).unwrap();
    let tree = qwen::tree(&file(str_of(&session, "id"))).unwrap();
    assert_eq!(tree.roots, [0]);
    let leaf = &tree.nodes[tree.leaf.unwrap()];
    assert_eq!(leaf.summary, format!("title: {}", str_of(&session, "title")));
    // One node has two children: the rewound prompt and the rewind.
    let forks: Vec<Vec<&str>> = tree
        .children
        .iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.iter().map(|&n| tree.nodes[n].summary.as_str()).collect())
        .collect();
    assert_eq!(forks, [vec!["user: Second question: and three plus three?", "system: rewind"]]);
}

#[test]
fn a_session_is_made_of_its_subagents_transcripts_and_their_meta() {
    use sess_sources::{Growth, Source as _};
    let mut with_subagents = 0;
    for session in sessions() {
        let id = str_of(&session, "id");
        let main = file(id);
        assert_eq!(qwen::Qwen.growth(&main), Growth::Lines, "{id}");
        let folder = main.parent().unwrap().parent().unwrap().join("subagents").join(id);
        let mut expected: Vec<PathBuf> =
            std::fs::read_dir(&folder).into_iter().flatten().map(|e| e.unwrap().path()).collect();
        expected.sort();
        assert_eq!(qwen::Qwen.companions(&main), expected, "{id}");
        if !expected.is_empty() {
            with_subagents += 1;
            let names: Vec<String> = expected.iter().map(|p| p.file_name().unwrap().to_string_lossy().into()).collect();
            assert_eq!(names, ["agent-general-purpose-call_agent.jsonl", "agent-general-purpose-call_agent.meta.json"]);
        }
    }
    assert_eq!(with_subagents, 1);
}

/// Each session's calls: the telemetry events of its API responses, its
/// compression's and its subagent's included; the subagent's transcript
/// adds none. The totals were counted with Python: per file, each
/// `qwen-code.api_response` event's `input_token_count` less its cached
/// part and `output_token_count`, thoughts inside the output (the total is
/// prompt plus candidates), plus the `assistant` records' `usageMetadata`
/// without an event of the same prompt and candidates (none here).
#[test]
fn each_api_response_counts_once() {
    use sess_sources::Source as _;
    let index = |id: &str| {
        let path = file(id);
        qwen::Qwen.index(&path, &std::fs::read(&path).unwrap()).unwrap().usage
    };
    // (calls, input, cache read, cache write, output, reasoning)
    for (id, expected) in [
        // Six responses and the compression's request.
        ("d1f9c7a1-d9ad-4127-80e5-d0e5fec1fd1b", (7, 128_021, 0, 0, 309, 20)),
        // The fork: its copy of the first response, and its own.
        ("2e05054d-ba2b-4c95-b4b4-0dbc9df1bfc6", (2, 35_835, 0, 0, 29, 6)),
        // Two responses and the subagent's two.
        ("69af9f10-a94d-4335-9a91-143693176fd1", (4, 64_742, 0, 0, 116, 0)),
        ("ea3aac30-2dbd-45c5-864b-6f92b7926456", (1, 18_091, 0, 0, 7, 0)),
        // The rewound turn's response counts too.
        ("8c62ed46-8a29-4c30-a69b-884388bce638", (3, 59_836, 0, 0, 22, 3)),
    ] {
        let usage = index(id);
        assert_eq!(usage_totals(&usage), expected, "{id}");
        assert!(usage.iter().all(|c| c.model.as_deref() == Some("qwen3.5-plus")), "{id}");
    }
    // The fork's copy has the key of the original.
    let original = index("d1f9c7a1-d9ad-4127-80e5-d0e5fec1fd1b");
    let fork = index("2e05054d-ba2b-4c95-b4b4-0dbc9df1bfc6");
    assert_eq!(fork[0].key, original[0].key);
    let main = file("69af9f10-a94d-4335-9a91-143693176fd1");
    let subagents: Vec<PathBuf> =
        qwen::Qwen.companions(&main).into_iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect();
    assert_eq!(subagents.len(), 1);
    let bytes = std::fs::read(&subagents[0]).unwrap();
    assert_eq!(qwen::Qwen.usage(&subagents[0], &bytes), []);
}
