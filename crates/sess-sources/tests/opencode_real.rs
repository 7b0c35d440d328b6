//! The sessions the real OpenCode wrote (`fixtures/opencode/real-*/`, made
//! by `interop/opencode/`) read as the fake model scripted them: each
//! session's listing, and its transcript message by message, built from the
//! driver's report (`scenario.json`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

mod common;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use common::{read_json, usage_totals};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sess_sources::{Block, Env, Message, Role, Scope, ToolStatus, Transcript, opencode};

fn fixture(version: &str) -> PathBuf {
    common::fixture(&format!("opencode/real-{version}"))
}

fn scenario(version: &str) -> Value {
    read_json(&fixture(version).join("scenario.json"))
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_else(|| panic!("no `{key}` in {value}"))
}

/// A message as the test compares it: its role and each block in short
/// (a tool call's id, name, input and whether it failed; an error is `error`:
/// its text is checked on its own). Texts lose their trailing line breaks:
/// OpenCode 1.1's `run` ends each prompt with one.
fn view(message: &Message) -> Value {
    let blocks: Vec<Value> = message
        .blocks
        .iter()
        .map(|block| match block {
            Block::Text { text } => json!({"text": text.trim_end()}),
            Block::Thinking { text } => json!({"thinking": text}),
            Block::Summary { text } => json!({"summary": text}),
            Block::Context { title, .. } => json!({"context": title}),
            Block::Image(image) => json!({"image": image.media_type}),
            Block::Error { .. } => json!("error"),
            Block::ToolCall(call) => {
                json!({"tool": [call.id, call.name, call.input, call.status == ToolStatus::Failed]})
            }
            Block::Unknown { what, .. } => json!({"unknown": what}),
        })
        .collect();
    json!({"role": message.role.as_str(), "blocks": sorted_if_user(message.role, blocks)})
}

/// A user message's blocks in a fixed order: OpenCode 1.18 puts the parts of
/// an attached file before the prompt, 1.1 after it.
fn sorted_if_user(role: Role, mut blocks: Vec<Value>) -> Vec<Value> {
    if role == Role::User {
        blocks.sort_by_key(ToString::to_string);
    }
    blocks
}

/// The messages the report says the session has, in [`view`]'s terms.
fn expected(session: &Value) -> Vec<Value> {
    let inherited = session["inherited"].as_array().unwrap();
    let own = session["turns"].as_array().unwrap();
    let compactions = session["compactions"].as_array().unwrap();
    let reverted = session["revertedFrom"].get("prompt").and_then(Value::as_str);
    let compacted = |own_turns: usize| {
        compactions
            .iter()
            .filter(move |c| c["afterTurns"].as_u64() == Some(own_turns as u64))
            .map(|c| json!({"role": "system", "blocks": [{"summary": str_of(c, "summary")}]}))
    };
    let mut messages = Vec::new();
    for (i, turn) in inherited.iter().chain(own).enumerate() {
        if i >= inherited.len() {
            messages.extend(compacted(i - inherited.len()));
        }
        let prompt = str_of(turn, "prompt");
        if reverted == Some(prompt) && i >= inherited.len() {
            messages.push(json!({"role": "system", "blocks": [{"text": "Undone (/undo): the messages from here on were reverted"}]}));
        }
        let mut user = Vec::new();
        if turn["synthetic"] == true {
            user.push(json!({"context": "Added by OpenCode"}));
        } else {
            for _ in turn["images"].as_array().unwrap() {
                // How OpenCode read the file, then the image, then the prompt.
                user.extend([json!({"context": "Added by OpenCode"}), json!({"context": "Added by OpenCode"})]);
                user.push(json!({"image": "image/png"}));
            }
            user.push(json!({"text": prompt}));
        }
        messages.push(json!({"role": "user", "blocks": sorted_if_user(Role::User, user)}));
        let answer: Vec<Value> = turn["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|block| match str_of(block, "type") {
                "text" => json!({"text": block["text"]}),
                "thinking" => json!({"thinking": block["text"]}),
                "error" => json!("error"),
                "tool_call" => json!({"tool": [block["id"], block["name"], block["input"], block["fails"]]}),
                other => panic!("a block of type {other}"),
            })
            .collect();
        messages.push(json!({"role": "assistant", "blocks": answer}));
    }
    messages.extend(compacted(own.len()));
    messages
}

/// Checks what the view leaves out: tool results and error texts.
fn check_details(session: &Value, transcript: &Transcript) {
    let turns: Vec<&Value> =
        session["inherited"].as_array().unwrap().iter().chain(session["turns"].as_array().unwrap()).collect();
    let scripted: Vec<&Value> = turns.iter().flat_map(|t| t["blocks"].as_array().unwrap()).collect();
    let blocks: Vec<&Block> =
        transcript.messages.iter().filter(|m| m.role == Role::Assistant).flat_map(|m| &m.blocks).collect();
    assert_eq!(scripted.len(), blocks.len());
    for (want, got) in scripted.iter().zip(blocks) {
        match got {
            Block::ToolCall(call) => {
                let result = call.result.as_deref().unwrap_or_default();
                assert!(result.contains(str_of(want, "output")), "{}: {result:?} lacks {}", call.id, want["output"]);
                assert!(call.started_at.is_some() && call.ended_at.is_some(), "{call:?}");
            }
            Block::Error { text } => assert!(text.contains(str_of(want, "contains")), "{text}"),
            _ => {}
        }
    }
}

/// An environment whose OpenCode data folder holds the fixture's files.
fn env_of(version: &str, home: &Path) -> Env {
    let dir = fixture(version);
    let data = home.join(".local/share/opencode");
    if dir.join("opencode.db").exists() {
        let db = dir.join("opencode.db").into_os_string();
        return Env::new(home, [("OPENCODE_DB".to_owned(), db)]);
    }
    copy_dir(&dir.join("storage"), &data.join("storage"));
    Env::new(home, std::iter::empty::<(String, OsString)>())
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn check_version(version: &str) {
    let scenario = scenario(version);
    let home = tempfile::tempdir().unwrap();
    let env = env_of(version, home.path());
    let sessions = scenario["sessions"].as_array().unwrap();
    let listing = opencode::list(&env, Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut listed: Vec<(&str, Option<&str>, Option<&str>, usize)> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.title.as_deref(), s.cwd.as_deref(), s.message_count))
        .collect();
    listed.sort_unstable();
    // A subagent's session is not listed; it shows under its task call.
    let mut want: Vec<(&str, Option<&str>, Option<&str>, usize)> = sessions
        .iter()
        .filter(|s| s["parentId"].is_null())
        .map(|s| (str_of(s, "id"), s["title"].as_str(), s["cwd"].as_str(), expected(s).len()))
        .collect();
    want.sort_unstable();
    assert_eq!(listed, want);

    let found = opencode::find_session_files(&env);
    let mut found_ids: Vec<&str> =
        found.rows.iter().map(|r| r.id.as_str()).chain(found.files.iter().map(|f| f.0.as_str())).collect();
    found_ids.sort_unstable();
    assert_eq!(found_ids, want.iter().map(|w| w.0).collect::<Vec<_>>());

    for session in sessions {
        let id = str_of(session, "id");
        let transcript = if let Some(row) = found.rows.first() {
            opencode::load_session(&row.database, id).unwrap()
        } else {
            let sessions = home.path().join(".local/share/opencode/storage/session");
            let path = fs::read_dir(sessions)
                .unwrap()
                .map(|project| project.unwrap().path().join(format!("{id}.json")))
                .find(|path| path.exists())
                .unwrap();
            opencode::load(&path).unwrap()
        };
        assert!(transcript.issues.is_empty(), "{id}: {:?}", transcript.issues);
        assert_eq!(transcript.id, id);
        assert_eq!(transcript.cwd.as_deref(), session["cwd"].as_str(), "{id}");
        assert_eq!(transcript.title.as_deref(), session["title"].as_str(), "{id}");
        let actual: Vec<Value> = transcript.messages.iter().map(view).collect();
        assert_eq!(actual, expected(session), "{id}");
        check_details(session, &transcript);
        check_subagents(sessions, session, &transcript);
    }
}

/// A `task` call carries the subagent's session: its prompt and answer.
fn check_subagents(sessions: &[Value], session: &Value, transcript: &Transcript) {
    for call in transcript.messages.iter().flat_map(|m| &m.blocks).filter_map(|b| match b {
        Block::ToolCall(call) if call.name == "task" => Some(call),
        _ => None,
    }) {
        let child = sessions.iter().find(|s| s["parentId"] == session["id"]).expect("the subagent's session");
        let actual: Vec<Value> = call.subagent.iter().map(view).collect();
        assert_eq!(actual, expected(child), "{}", call.id);
    }
}

#[test]
fn real_1_18_33_database() {
    check_version("1.18.33");
}

#[test]
fn real_1_1_65_storage_files() {
    check_version("1.1.65");
}

/// The files of `dir` and of its folders, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { files.extend(files_under(&path)) } else { files.push(path) }
    }
    files.sort();
    files
}

#[test]
fn a_storage_session_is_made_of_its_message_and_part_files_and_its_subagents() {
    use sess_sources::Growth;
    use sess_sources::Source as _;
    let storage = fixture("1.1.65").join("storage");
    let scenario = scenario("1.1.65");
    let sessions = scenario["sessions"].as_array().unwrap();
    let session_file =
        |id: &str| files_under(&storage.join("session")).into_iter().find(|p| p.file_stem().unwrap() == id).unwrap();
    // The files of a session's own messages, found by the message ids in
    // the file names.
    let own = |id: &str| {
        let messages = files_under(&storage.join("message").join(id));
        let parts = messages.iter().flat_map(|m| files_under(&storage.join("part").join(m.file_stem().unwrap())));
        parts.chain(messages.clone()).collect::<Vec<_>>()
    };
    let mut with_subagent = 0;
    for session in sessions {
        let id = str_of(session, "id");
        let main = session_file(id);
        let mut expected = own(id);
        for child in sessions.iter().filter(|s| s["parentId"].as_str() == Some(id)) {
            let child = str_of(child, "id");
            expected.extend(own(child));
            expected.push(session_file(child));
            with_subagent += 1;
        }
        expected.sort();
        assert!(!expected.is_empty(), "{id}");
        let companions = opencode::OpenCode.companions(&main);
        assert_eq!(companions, expected, "{id}");
        assert_eq!(opencode::OpenCode.growth(&main), Growth::Whole);
        assert!(companions.iter().all(|c| opencode::OpenCode.growth(c) == Growth::Whole));
    }
    assert_eq!(with_subagent, 1, "the scenario runs one subagent");
    let db = fixture("1.18.33").join("opencode.db");
    assert!(opencode::OpenCode.companions(&db).is_empty());
}

/// Each session's calls, read through the source's `index_row` (the
/// database) or `index` (the files), in the order of `scenario.json`. The
/// totals were counted with Python: per assistant message, each
/// `step-finish` part's `tokens` (else the message's), its subagents'
/// sessions (`state.metadata.sessionId` of a tool part) included, each
/// call once by provider, model, times, step, input and output.
fn check_usage(version: &str) {
    use sess_sources::Source as _;
    let scenario = scenario(version);
    let home = tempfile::tempdir().unwrap();
    let env = env_of(version, home.path());
    let found = opencode::find_session_files(&env);
    let index = |id: &str| {
        let indexed = if let Some(row) = found.rows.iter().find(|r| r.id == id) {
            opencode::OpenCode.index_row(&row.database, id)
        } else {
            let path = &found.files.iter().find(|f| f.0 == id).unwrap().1;
            opencode::OpenCode.index(path, &[])
        };
        indexed.unwrap().usage
    };
    let listed: Vec<&str> = scenario["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["parentId"].is_null())
        .map(|s| str_of(s, "id"))
        .collect();
    // (calls, input, cache read, cache write, output, reasoning)
    let expected = [
        (4, 400, 0, 0, 40, 0),
        // The auto compaction's oversized prompt and its summary.
        (8, 30_700, 0, 0, 80, 0),
        // The fork: its copies of the first two calls, and its own.
        (3, 300, 0, 0, 30, 0),
        // The failed request counted nothing.
        (1, 100, 0, 0, 10, 0),
        // Two calls and the subagent's.
        (3, 300, 0, 0, 30, 0),
        (2, 200, 0, 0, 20, 0),
    ];
    assert_eq!(listed.len(), expected.len());
    for (id, expected) in listed.iter().zip(expected) {
        let usage = index(id);
        assert_eq!(usage_totals(&usage), expected, "{version} {id}");
        assert!(usage.iter().all(|c| c.model.as_deref() == Some("fake-model") && c.cost == Some(0.0)), "{id}");
    }
    let keys = |id: &str| index(id).into_iter().map(|c| c.key.unwrap()).collect::<Vec<_>>();
    assert_eq!(keys(listed[2])[..2], keys(listed[0])[..2]);
}

#[test]
fn real_1_18_33_calls() {
    check_usage("1.18.33");
}

#[test]
fn real_1_1_65_calls() {
    check_usage("1.1.65");
}
