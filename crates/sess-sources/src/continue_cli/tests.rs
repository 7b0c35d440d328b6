#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::edit::testing::{calls, fixture};
use crate::edit::{FileEdit, Replacement};
use crate::test_support::{env_with, shape};
use crate::transcript::{Block, Image, ToolCall};

const FIRST: &str = "7ec94f9e-2ee6-4aa0-9d3d-d893482c6cbe";
const FORK: &str = "5fc86abd-41fb-4032-ab0e-44ea9f0f6f32";
const MOVED: &str = "f4c77d5a-e972-48cd-9e4b-adb48f6ed706";
const PROJECT: &str = "/home/dev/project";

/// The folder of the real CLI's files: `continue-home/sessions`, `moved/sessions`, `steps/…`.
fn real(relative: &str) -> PathBuf {
    fixture("continue/real-1.5.47").join(relative)
}

fn session_file(folder: &str, id: &str) -> PathBuf {
    real(folder).join(format!("{id}.json"))
}

#[test]
fn a_resumed_session_reads_its_turns_calls_and_results() {
    let path = session_file("steps/2-resume/continue-home/sessions", FIRST);
    let transcript = load(&path).unwrap();
    assert_eq!(transcript.id, FIRST);
    assert_eq!(transcript.cwd.as_deref(), Some(PROJECT));
    assert_eq!(transcript.title, None, "`Untitled Session` is no title");
    assert_eq!(
        shape(&transcript),
        [
            "user: text",
            "assistant: text, Read succeeded",
            "assistant: MultiEdit succeeded",
            "assistant: text",
            "user: text",
            "assistant: Bash failed",
            "assistant: text",
        ]
    );
    assert_eq!(transcript.first_prompt(), Some("Read notes.txt, then change its second line to \"edited note\"."));
    let found = calls(&transcript);
    assert_eq!(found[0].input, json!({"filepath": "/home/dev/project/notes.txt"}));
    assert_eq!(found[0].result.as_deref(), Some("Content of /home/dev/project/notes.txt:\nfirst note\nsecond note\n"));
    assert_eq!(
        found[2].result.as_deref(),
        Some("Error executing tool Bash: Error (exit code 1): cat: missing.txt: No such file or directory\n")
    );
    assert!(transcript.issues.is_empty());
}

#[test]
fn an_automatic_compaction_leaves_its_summary_first() {
    let transcript = load(&session_file("continue-home/sessions", FIRST)).unwrap();
    assert_eq!(shape(&transcript), ["system: summary", "assistant: text", "user: text", "assistant: text"]);
    assert_eq!(
        transcript.messages[0].blocks,
        [Block::Summary {
            text: "Summary: notes.txt was read and its second line edited; cat missing.txt failed.".into()
        }]
    );
    assert_eq!(transcript.first_prompt(), Some("continue"));
}

#[test]
fn a_fork_holds_the_history_it_copied_and_its_own_turn() {
    let transcript = load(&session_file("continue-home/sessions", FORK)).unwrap();
    assert_eq!(transcript.id, FORK);
    assert_eq!(transcript.messages.len(), 6);
    assert_eq!(transcript.messages[4].blocks, [Block::text("On this branch: say goodbye.")]);
    assert_eq!(transcript.messages[5].blocks, [Block::text("Goodbye from the fork.")]);
}

#[test]
fn the_listing_dates_sessions_by_the_index_and_keeps_to_the_project() {
    let sessions = real("continue-home/sessions");
    let mut listing = list(&sessions, Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    listing.sessions.sort_by(|a, b| a.id.cmp(&b.id));
    let rows: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.cwd.as_deref(), s.title.clone(), s.created.as_deref(), s.message_count))
        .collect();
    assert_eq!(
        rows,
        [
            (FORK, Some(PROJECT), None, Some("2026-12-07T01:30:49.817Z"), 6),
            (FIRST, Some(PROJECT), None, Some("2026-12-07T01:30:21.453Z"), 4),
        ]
    );
    assert_eq!(listing.sessions[1].first_message.as_deref(), Some("continue"));
    assert_eq!(list(&sessions, Scope::Project(Path::new(PROJECT))).sessions.len(), 2);
    assert!(list(&sessions, Scope::Project(Path::new("/home/dev/other"))).sessions.is_empty());
    assert!(list(Path::new("/nonexistent/continue/sessions"), Scope::All).sessions.is_empty());
}

#[test]
fn continue_global_dir_moves_the_sessions() {
    let home = real("continue-home/..");
    let moved = real("moved");
    let env = env_with(&home, &[("CONTINUE_GLOBAL_DIR", &moved)]);
    let found = SOURCE.source().find(&env);
    assert_eq!(found.files, [(MOVED.to_owned(), moved.join("sessions").join(format!("{MOVED}.json")))]);
    let listing = SOURCE.source().list(&env, Scope::All);
    assert_eq!(listing.sessions.len(), 1);
    assert_eq!(listing.sessions[0].first_message.as_deref(), Some("Say hello from the moved folder."));
    assert_eq!(
        SOURCE.source().roots(&env_with(Path::new("/home/u"), &[])),
        [PathBuf::from("/home/u/.continue/sessions")]
    );
}

#[test]
fn the_session_usage_is_one_call_and_answers_are_calls_without_it() {
    let path = session_file("continue-home/sessions", FIRST);
    let read = read(&path, &read_file(&path).unwrap()).unwrap();
    let at = Some("2026-12-02T12:53:00.000Z");
    let calls = read.calls(at);
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    assert_eq!((call.input, call.output, call.cache_read, call.cache_creation), (26074, 207, 0, 0));
    assert_eq!(call.model.as_deref(), Some("gpt-4o"));
    assert_eq!(call.cost, Some(0.067_255));
    assert_eq!(call.timestamp.as_deref(), at);

    let mut document: Value = serde_json::from_slice(&read_file(&path).unwrap()).unwrap();
    document.as_object_mut().unwrap().remove("usage");
    let calls = usage::calls(&document, None);
    let counted: Vec<_> = calls.iter().map(|c| (c.input, c.output, c.cost, c.model.as_deref())).collect();
    assert_eq!(counted, [(2362, 11, Some(0.01), Some("gpt-4o")), (2387, 11, Some(0.01), Some("gpt-4o"))]);

    let cached = json!({"history": [], "usage": {"promptTokens": 100, "completionTokens": 5, "totalCost": 0.5,
        "promptTokensDetails": {"cachedTokens": 60, "cacheWriteTokens": 10}}});
    let call = &usage::calls(&cached, None)[0];
    assert_eq!((call.input, call.cache_read, call.cache_creation, call.output), (30, 60, 10, 5));
}

#[test]
fn the_multiedit_of_the_real_session_is_its_replacements() {
    let transcript = load(&session_file("steps/1-new/continue-home/sessions", FIRST)).unwrap();
    let found: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(|c| SOURCE.source().edits(c)).collect();
    assert_eq!(
        found,
        [FileEdit::replacements(
            "/home/dev/project/notes.txt",
            vec![Replacement { old: "second note".into(), new: "edited note".into(), all: false }]
        )]
    );
    let edit = ToolCall::running(
        "c",
        "Edit",
        json!({"file_path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": true}),
    );
    assert_eq!(SOURCE.source().edits(&edit), [FileEdit::replace("a.txt", "a", "b", true)]);
    let write = ToolCall::running("c", "Write", json!({"filepath": "/p/new.txt", "content": "x\n"}));
    assert_eq!(SOURCE.source().edits(&write), [FileEdit::write("/p/new.txt", "x\n")]);
    assert_eq!(SOURCE.source().edits(&ToolCall::running("c", "Read", json!({"filepath": "a"}))), []);
}

#[test]
fn thinking_images_context_states_and_tool_messages_are_read() {
    let history = json!([
        {"message": {"role": "system", "content": "You are an agent."}, "contextItems": []},
        {"message": {"role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "imageUrl", "imageUrl": {"url": "data:image/png;base64,iVBORw0KGgo="}}
        ]}, "contextItems": [{"name": "notes.txt", "description": "file", "content": "first note"}]},
        {"message": {"role": "thinking", "content": "Look at it first."}, "contextItems": []},
        {"message": {"role": "assistant", "content": "", "toolCalls": [
            {"id": "a", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\":\"ls\"}"}},
            {"id": "b", "type": "function", "function": {"name": "Write", "arguments": "{\"filepath\":\"x\"}"}},
            {"id": "c", "type": "function", "function": {"name": "Read", "arguments": ""}}
        ]}, "contextItems": [], "toolCallStates": [
            {"toolCallId": "b", "status": "canceled"},
            {"toolCallId": "c", "status": "calling"}
        ]},
        {"message": {"role": "tool", "content": "a.txt", "toolCallId": "a"}, "contextItems": []},
        {"message": {"role": "tool", "content": "stray", "toolCallId": "zz"}, "contextItems": []},
        "not an item",
        {"message": {"role": "critic", "content": "?"}}
    ]);
    let (messages, issues) = history::messages(history.as_array().unwrap());
    let transcript = Transcript { messages, ..Transcript::new(SOURCE, "t") };
    assert_eq!(
        shape(&transcript),
        [
            "system: context",
            "user: text, image, context",
            "assistant: thinking, Bash succeeded, Write failed, Read pending",
            "system: unknown",
            "system: unknown",
        ]
    );
    assert_eq!(
        transcript.messages[1].blocks[1],
        Block::Image(Image { media_type: Some("image/png".into()), data: Some("iVBORw0KGgo=".into()), url: None })
    );
    assert_eq!(
        transcript.messages[1].blocks[2],
        Block::Context { title: "notes.txt".into(), text: "first note".into() }
    );
    let found = calls(&transcript);
    assert_eq!(found[0].result.as_deref(), Some("a.txt"));
    assert_eq!(found[1].result.as_deref(), Some("Tool cancelled"));
    assert_eq!(found[2].input, json!({}));
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].line, 7);
}

#[test]
fn a_damaged_file_is_an_error_and_a_listing_problem() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let good = std::fs::read(session_file("moved/sessions", MOVED)).unwrap();
    std::fs::write(sessions.join(format!("{MOVED}.json")), &good).unwrap();
    std::fs::write(sessions.join("cut.json"), &good[..good.len() / 2]).unwrap();
    std::fs::write(sessions.join("other.json"), br#"{"sessionId": "x"}"#).unwrap();
    std::fs::write(sessions.join(INDEX), b"not json").unwrap();
    assert!(matches!(load(&sessions.join("cut.json")), Err(Error::NotARecord { .. })));
    let listing = list(&sessions, Scope::All);
    assert_eq!(listing.sessions.len(), 1);
    assert_eq!(listing.sessions[0].created, None, "an index that does not parse dates nothing");
    assert_eq!(listing.problems.len(), 2);
}

#[test]
fn its_files_are_told_from_the_index_and_from_other_agents() {
    let detect = |path: &Path| crate::detect::detect_whole(path, &read_file(path).unwrap());
    for path in [
        session_file("continue-home/sessions", FIRST),
        session_file("continue-home/sessions", FORK),
        session_file("moved/sessions", MOVED),
    ] {
        assert_eq!(detect(&path), Some(SOURCE), "{}", path.display());
    }
    assert_eq!(detect(&real("continue-home/sessions").join(INDEX)), None);
    let found = find_session_files(&real("continue-home/sessions"));
    let ids: Vec<&str> = found.files.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, [FORK, FIRST]);
}

#[test]
fn the_catalog_keeps_the_session_with_its_usage() {
    let path = session_file("continue-home/sessions", FORK);
    let bytes = read_file(&path).unwrap();
    // The catalog gives the complete lines: all but the closing brace.
    let complete = &bytes[..=bytes.iter().rposition(|&b| b == b'\n').unwrap()];
    let indexed = SOURCE.source().index(&path, complete).unwrap();
    assert_eq!(indexed, SOURCE.source().index(&path, &bytes).unwrap());
    assert_eq!(indexed.session_id, FORK);
    assert!(!indexed.title_explicit);
    assert_eq!(indexed.title.as_deref(), Some("continue"));
    assert_eq!(indexed.created.as_deref(), Some("2026-12-07T01:30:49.817Z"));
    assert_eq!(indexed.message_count, 6);
    assert_eq!(indexed.usage.len(), 1);
    assert_eq!((indexed.usage[0].input, indexed.usage[0].output), (2412, 9));
    assert_eq!(SOURCE.source().growth(&path), crate::Growth::Whole);
    let named = json!({"sessionId": "n", "title": "Fix the build", "workspaceDirectory": "/p",
        "history": [{"message": {"role": "user", "content": "hi"}}]});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("n.json");
    std::fs::write(&file, serde_json::to_vec_pretty(&named).unwrap()).unwrap();
    let indexed = SOURCE.source().index(&file, &read_file(&file).unwrap()).unwrap();
    assert!(indexed.title_explicit);
    assert_eq!(indexed.title.as_deref(), Some("Fix the build"));
    assert!(SOURCE.source().index(&real("continue-home/sessions").join(INDEX), b"[]").is_err());
}

#[test]
fn every_step_of_the_real_run_reads_without_issues() {
    for step in ["1-new", "2-resume", "3-compact", "4-resume-after-compact", "5-auto-compact", "6-fork"] {
        let folder = real(&format!("steps/{step}/continue-home/sessions"));
        for (_, path) in find_session_files(&folder).files {
            let transcript = load(&path).unwrap();
            assert!(transcript.issues.is_empty(), "{}", path.display());
            assert!(!transcript.messages.is_empty(), "{}", path.display());
        }
    }
}
