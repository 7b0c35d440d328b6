#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::diff::{DiffLine, LineKind};
use crate::edit::testing::{calls, fixture};
use crate::edit::{Change, FileEdit, PatchHunk, Replacement};
use crate::test_support::{env_with, shape};
use crate::transcript::{Block, Image, ToolCall};

const FIRST: &str = "5b0e7c1a-2f4d-4e8b-9a63-1c2d3e4f5a6b";
const COMPACTED: &str = "8d9e0f1a-3b4c-4d5e-8f60-7a8b9c0d1e2f";
const MOVED: &str = "c3d4e5f6-0718-4a9b-8c0d-1e2f3a4b5c6d";
const PROJECT: &str = "/home/dev/project";

fn hand(relative: &str) -> PathBuf {
    fixture("auggie/hand-written").join(relative)
}

fn sessions() -> PathBuf {
    hand("augment-home/.augment/sessions")
}

fn session_file(id: &str) -> PathBuf {
    sessions().join(format!("{id}.json"))
}

#[test]
fn a_session_reads_its_prompts_answers_thinking_and_calls() {
    let transcript = load(&session_file(FIRST)).unwrap();
    assert_eq!(transcript.id, FIRST);
    assert_eq!(transcript.cwd.as_deref(), Some(PROJECT));
    assert_eq!(transcript.title.as_deref(), Some("Edit notes.txt"));
    assert_eq!(
        shape(&transcript),
        [
            "user: text",
            "assistant: thinking, text, view succeeded",
            "assistant: str-replace-editor succeeded",
            "assistant: text",
            "user: text",
            "assistant: launch-process failed, save-file succeeded",
            "assistant: text",
        ]
    );
    assert_eq!(
        transcript.messages[1].blocks[0],
        Block::Thinking { text: "The user wants one line changed; read the file first.".into() }
    );
    assert_eq!(transcript.messages[1].timestamp.as_deref(), Some("2026-12-01T10:00:20.000Z"));
    let found = calls(&transcript);
    assert_eq!(found[0].input, json!({"path": "notes.txt", "type": "file"}));
    assert_eq!(found[2].result.as_deref(), Some("cat: missing.txt: No such file or directory"));
    assert_eq!(found[2].started_at.as_deref(), Some("2026-12-01T10:02:00.100Z"));
    assert_eq!(found[2].ended_at.as_deref(), Some("2026-12-01T10:02:00.140Z"));
    assert!(transcript.issues.is_empty());
}

#[test]
fn a_compaction_summary_opens_the_history_and_an_unanswered_call_is_pending() {
    let transcript = load(&session_file(COMPACTED)).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("My renamed session"), "customTitle over title");
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/other"));
    assert_eq!(
        shape(&transcript),
        ["system: summary", "user: text", "assistant: text", "user: text", "assistant: launch-process pending"]
    );
    assert_eq!(
        transcript.messages[0].blocks,
        [Block::Summary {
            text: "Summary: notes.txt was read and its second line edited; cat missing.txt failed.".into()
        }]
    );
    assert_eq!(transcript.first_prompt(), Some("What is left to do?"));
}

#[test]
fn the_listing_dates_sessions_by_their_own_times_and_keeps_to_the_project() {
    let mut listing = list(&sessions(), Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    listing.sessions.sort_by(|a, b| a.id.cmp(&b.id));
    let rows: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.cwd.as_deref(), s.title.as_deref(), s.created.as_deref(), s.message_count))
        .collect();
    assert_eq!(
        rows,
        [
            (FIRST, Some(PROJECT), Some("Edit notes.txt"), Some("2026-12-01T10:00:00.000Z"), 7),
            (COMPACTED, Some("/home/dev/other"), Some("My renamed session"), Some("2026-12-02T09:00:00.000Z"), 5),
        ]
    );
    assert_eq!(listing.sessions[0].modified_ms, sess_core::parse_iso_millis("2026-12-01T10:02:30.000Z").unwrap());
    assert_eq!(list(&sessions(), Scope::Project(Path::new(PROJECT))).sessions.len(), 1);
    assert!(list(Path::new("/nonexistent/augment/sessions"), Scope::All).sessions.is_empty());
}

#[test]
fn backups_are_not_sessions_and_the_cache_dir_moves() {
    let found = find_session_files(&sessions());
    let ids: Vec<&str> = found.files.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, [FIRST, COMPACTED]);
    assert_eq!(id_of("a-backup12.json"), None);
    assert_eq!(id_of("a-backupx.json"), Some("a-backupx"));

    let moved = hand("moved");
    let env = env_with(&hand("augment-home"), &[("SESS_AUGGIE_CACHE_DIR", &moved)]);
    let found = SOURCE.source().find(&env);
    assert_eq!(found.files, [(MOVED.to_owned(), moved.join("sessions").join(format!("{MOVED}.json")))]);
    let listing = SOURCE.source().list(&env, Scope::All);
    assert_eq!(listing.sessions.len(), 1);
    assert_eq!(listing.sessions[0].first_message.as_deref(), Some("Say hello from the moved folder."));
    assert_eq!(listing.sessions[0].title, None);
    assert_eq!(
        SOURCE.source().roots(&env_with(Path::new("/home/u"), &[])),
        [PathBuf::from("/home/u/.augment/sessions")]
    );
}

#[test]
fn every_response_with_token_usage_is_a_call() {
    let path = session_file(FIRST);
    let read = read(&path, &read_file(&path).unwrap()).unwrap();
    let calls = read.calls();
    let counted: Vec<_> = calls.iter().map(|c| (c.input, c.output, c.cache_read, c.cache_creation)).collect();
    assert_eq!(
        counted,
        [(1200, 40, 0, 3000), (80, 60, 4200, 0), (60, 20, 4300, 0), (90, 70, 4400, 0), (120, 25, 4500, 0)]
    );
    assert_eq!(calls[0].model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(calls[0].key.as_deref(), Some("r-1"));
    assert_eq!(calls[0].timestamp.as_deref(), Some("2026-12-01T10:00:20.000Z"));
    assert_eq!(calls[0].cost, None);
    let moved = hand("moved/sessions").join(format!("{MOVED}.json"));
    assert!(read_moved(&moved).is_empty(), "a session without usage nodes counts nothing");
}

fn read_moved(path: &Path) -> Vec<crate::usage::Call> {
    read(path, &read_file(path).unwrap()).unwrap().calls()
}

#[test]
fn the_edit_tools_are_diffs() {
    let transcript = load(&session_file(FIRST)).unwrap();
    let found: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(|c| SOURCE.source().edits(c)).collect();
    assert_eq!(
        found,
        [
            FileEdit::replacements(
                "notes.txt",
                vec![Replacement { old: "second note".into(), new: "edited note".into(), all: false }]
            ),
            FileEdit::write("hello.py", "print('hello')\n"),
        ]
    );
    let edit = |input| SOURCE.source().edits(&ToolCall::running("c", "str-replace-editor", input));
    assert_eq!(
        edit(json!({"command": "str_replace", "path": "a", "old_str_1": "x", "new_str_1": "y",
            "old_str_2": "p", "new_str_2": "q"})),
        [FileEdit::replacements(
            "a",
            vec![
                Replacement { old: "x".into(), new: "y".into(), all: false },
                Replacement { old: "p".into(), new: "q".into(), all: false },
            ]
        )]
    );
    assert_eq!(
        edit(json!({"command": "str_replace", "path": "a", "old_str": "x", "new_str": "y"})),
        [FileEdit::replace("a", "x", "y", false)]
    );
    let added = |text: &str| DiffLine { kind: LineKind::Add, text: text.to_owned() };
    assert_eq!(
        edit(json!({"command": "insert", "path": "a", "insert_line_1": 0, "new_str_1": "one\ntwo"})),
        [FileEdit {
            path: "a".into(),
            moved_to: None,
            change: Change::Patch(vec![PatchHunk { lines: vec![added("one"), added("two")] }])
        }]
    );
    assert_eq!(edit(json!({"command": "view", "path": "a"})), []);
    let save =
        ToolCall::running("c", "save-file", json!({"path": "b", "file_content": "x", "add_last_line_newline": false}));
    assert_eq!(SOURCE.source().edits(&save), [FileEdit::write("b", "x")]);
    let remove = ToolCall::running("c", "remove-files", json!({"file_paths": ["a", "b"]}));
    assert_eq!(
        SOURCE.source().edits(&remove),
        [
            FileEdit { path: "a".into(), moved_to: None, change: Change::Delete },
            FileEdit { path: "b".into(), moved_to: None, change: Change::Delete },
        ]
    );
}

#[test]
fn images_stray_results_unknown_nodes_and_bad_items_are_kept_or_reported() {
    let history = json!([
        {"exchange": {"request_message": "What is this?", "request_nodes": [
            {"id": 0, "type": 0, "text_node": {"content": "What is this?"}},
            {"id": 1, "type": 2, "image_node": {"image_data": "iVBORw0KGgo=", "format": 1}},
            {"id": 2, "type": 1, "tool_result_node": {"tool_use_id": "zz", "content": "stray", "is_error": false}}
        ], "response_text": "A picture.", "response_nodes": [{"id": 0, "type": 42}]}},
        "not an item",
        {"exchange": {"request_message": "", "request_nodes": [], "response_text": "", "response_nodes": []}},
        {"exchange": {"request_message": "Older turns.", "request_nodes": [], "response_nodes": []},
            "isHistorySummary": true}
    ]);
    let (messages, issues) = history::messages(history.as_array().unwrap());
    let transcript = Transcript { messages, ..Transcript::new(SOURCE, "t") };
    assert_eq!(shape(&transcript), ["user: text, image, unknown", "assistant: text, unknown", "system: summary"]);
    assert_eq!(transcript.messages[2].blocks, [Block::Summary { text: "Older turns.".into() }]);
    assert_eq!(
        transcript.messages[0].blocks[1],
        Block::Image(Image { media_type: Some("image/png".into()), data: Some("iVBORw0KGgo=".into()), url: None })
    );
    assert_eq!(transcript.messages[1].blocks[0], Block::text("A picture."));
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].line, 2);
}

#[test]
fn a_damaged_file_is_an_error_and_a_listing_problem() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions");
    std::fs::create_dir_all(&folder).unwrap();
    let good = std::fs::read(hand("moved/sessions").join(format!("{MOVED}.json"))).unwrap();
    std::fs::write(folder.join(format!("{MOVED}.json")), &good).unwrap();
    std::fs::write(folder.join("cut.json"), &good[..good.len() / 2]).unwrap();
    std::fs::write(folder.join("other.json"), br#"{"sessionId": "x"}"#).unwrap();
    assert!(matches!(load(&folder.join("cut.json")), Err(Error::NotARecord { .. })));
    let listing = list(&folder, Scope::All);
    assert_eq!(listing.sessions.len(), 1);
    assert_eq!(listing.problems.len(), 2);
}

#[test]
fn its_files_are_told_from_other_agents() {
    let detect = |path: &Path| crate::detect::detect_whole(path, &read_file(path).unwrap());
    for path in [session_file(FIRST), session_file(COMPACTED), hand("moved/sessions").join(format!("{MOVED}.json"))] {
        assert_eq!(detect(&path), Some(SOURCE), "{}", path.display());
    }
    let continue_session = fixture("continue/real-1.5.47/moved/sessions/f4c77d5a-e972-48cd-9e4b-adb48f6ed706.json");
    assert_ne!(detect(&continue_session), Some(SOURCE));
}

#[test]
fn the_catalog_reads_the_file_whole() {
    let path = session_file(COMPACTED);
    let bytes = read_file(&path).unwrap();
    // The catalog gives the complete lines: all but the closing brace.
    let complete = &bytes[..=bytes.iter().rposition(|&b| b == b'\n').unwrap()];
    let indexed = SOURCE.source().index(&path, complete).unwrap();
    assert_eq!(indexed, SOURCE.source().index(&path, &bytes).unwrap());
    assert_eq!(indexed.session_id, COMPACTED);
    assert!(indexed.title_explicit);
    assert_eq!(indexed.title.as_deref(), Some("My renamed session"));
    assert_eq!(indexed.created.as_deref(), Some("2026-12-02T09:00:00.000Z"));
    assert_eq!(indexed.message_count, 5);
    assert_eq!(indexed.usage.len(), 1);
    assert_eq!(SOURCE.source().growth(&path), crate::Growth::Whole);
    let moved = hand("moved/sessions").join(format!("{MOVED}.json"));
    let indexed = SOURCE.source().index(&moved, &read_file(&moved).unwrap()).unwrap();
    assert!(!indexed.title_explicit);
    assert_eq!(indexed.title.as_deref(), Some("Say hello from the moved folder."));
    assert!(SOURCE.source().index(&path, b"[]").is_err());
}
