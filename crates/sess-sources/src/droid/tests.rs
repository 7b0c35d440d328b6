//! Tests of the reader on the real 0.225.2 sessions and the hand-written ones.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;
use sess_core::IssueKind;

use super::*;
use crate::edit::testing::{calls, fixture};
use crate::transcript::{Block, Role, ToolStatus};
use crate::{FileEdit, Scope};

const ALPHA: &str = "01628ddc-721c-484e-af2b-0e59f9158f8f";
const BETA: &str = "d41da6e2-4279-436b-b577-df48f810aed8";
const PARENT: &str = "5d1c2a9e-7b41-4c1e-9f0a-3e2b8c6d4f10";
const CHILD: &str = "8a7f3c21-0d5e-4b9a-a1c4-6e2f9b0d7c35";

fn real() -> PathBuf {
    fixture("droid/real-0.225.2/factory-home/sessions")
}

fn hand() -> PathBuf {
    fixture("droid/hand-written/factory-home/sessions")
}

fn real_file(project: &str, id: &str) -> PathBuf {
    real().join(format!("-home-dev-projects-{project}")).join(format!("{id}.jsonl"))
}

fn hand_file(id: &str) -> PathBuf {
    hand().join("-home-dev-projects-gamma").join(format!("{id}.jsonl"))
}

fn kinds(messages: &[crate::Message]) -> Vec<(Role, Vec<&'static str>)> {
    messages.iter().map(|m| (m.role, m.blocks.iter().map(Block::kind).collect())).collect()
}

#[test]
fn finds_and_lists_the_real_sessions() {
    let found = find_session_files(&real());
    let ids: Vec<&str> = found.files.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, [ALPHA, BETA]);
    let mut listing = list(&real(), Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    listing.sessions.sort_by(|a, b| a.cwd.cmp(&b.cwd));
    let rows: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.cwd.as_deref(), s.title.as_deref(), s.created.as_deref(), s.message_count))
        .collect();
    assert_eq!(
        rows,
        [
            (
                ALPHA,
                Some("/home/dev/projects/alpha"),
                Some(
                    "Tidy the notes: print them, read absent.txt, rename beta to gamma, add a todo file, and ask a helper to count the notes."
                ),
                Some("2026-12-07T01:28:18.761Z"),
                4
            ),
            (
                BETA,
                Some("/home/dev/projects/beta"),
                Some("Say hello in one short sentence."),
                Some("2026-12-07T01:28:27.755Z"),
                2
            ),
        ]
    );
    assert_eq!(listing.sessions[0].modified_ms, sess_core::parse_iso_millis("2026-12-07T01:28:19.844Z").unwrap());
    let alpha = list(&real(), Scope::Project(Path::new("/home/dev/projects/alpha")));
    assert_eq!(alpha.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [ALPHA]);
    assert!(list(&real().join("missing"), Scope::All).sessions.is_empty());
}

#[test]
fn reads_the_real_transcript() {
    let transcript = load(&real_file("alpha", ALPHA)).unwrap();
    assert!(transcript.issues.is_empty());
    assert_eq!(transcript.id, ALPHA);
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/projects/alpha"));
    assert_eq!(
        kinds(&transcript.messages),
        [
            (Role::User, vec!["text", "context"]),
            (
                Role::Assistant,
                vec!["thinking", "text", "tool_call", "tool_call", "tool_call", "tool_call", "tool_call", "text"]
            ),
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["text"]),
        ]
    );
    assert_eq!(
        transcript.first_prompt(),
        Some(
            "Tidy the notes: print them, read absent.txt, rename beta to gamma, add a todo file, and ask a helper to count the notes."
        )
    );
    let Block::Context { title, text } = &transcript.messages[0].blocks[1] else { panic!() };
    assert_eq!(title, parse::CONTEXT_TITLE);
    assert!(text.starts_with("<system-reminder>"));
    assert_eq!(text.matches("<system-reminder>").count(), 7);
    let Block::Thinking { text } = &transcript.messages[1].blocks[0] else { panic!() };
    assert_eq!(text, "I should look at the notes first.");
    let calls: Vec<_> = calls(&transcript).iter().map(|c| (c.name.as_str(), c.id.as_str(), c.status)).collect();
    assert_eq!(
        calls,
        [
            ("Execute", "call_exec_1", ToolStatus::Succeeded),
            ("Read", "call_read_1", ToolStatus::Failed),
            ("Edit", "call_edit_1", ToolStatus::Succeeded),
            ("Create", "call_create_1", ToolStatus::Succeeded),
            ("Task", "call_task_1", ToolStatus::Failed),
        ]
    );
    let Block::ToolCall(exec) = &transcript.messages[1].blocks[2] else { panic!() };
    assert_eq!(exec.result.as_deref(), Some("alpha\nbeta\n\n\n[Process exited with code 0]"));
    assert_eq!(exec.started_at.as_deref(), Some("2026-12-07T01:28:19.000Z"));
    assert_eq!(exec.ended_at.as_deref(), Some("2026-12-07T01:28:19.133Z"));
    let Block::Text { text } = &transcript.messages[3].blocks[0] else { panic!() };
    assert_eq!(text, "Printed and edited notes.txt, created todo.md; the helper could not start.");
}

#[test]
fn edits_come_from_edit_create_and_apply_patch() {
    let transcript = load(&real_file("alpha", ALPHA)).unwrap();
    let edits: Vec<FileEdit> = calls(&transcript).iter().flat_map(|c| SOURCE.source().edits(c)).collect();
    assert_eq!(
        edits,
        [
            FileEdit::replace("/home/dev/projects/alpha/notes.txt", "beta", "gamma", false),
            FileEdit::write("/home/dev/projects/alpha/todo.md", "- ship it\n"),
        ]
    );
    let patch = crate::ToolCall::running(
        "p",
        "ApplyPatch",
        json!({"input": "*** Begin Patch\n*** Add File: a.txt\n+one\n*** End Patch"}),
    );
    assert_eq!(
        SOURCE.source().edits(&patch),
        crate::parse_patch("*** Begin Patch\n*** Add File: a.txt\n+one\n*** End Patch")
    );
    assert_eq!(SOURCE.source().edits(&patch).len(), 1);
    let all = crate::ToolCall::running(
        "e",
        "Edit",
        json!({"file_path": "a", "old_str": "x", "new_str": "y", "change_all": true}),
    );
    assert_eq!(SOURCE.source().edits(&all), [FileEdit::replace("a", "x", "y", true)]);
}

#[test]
fn usage_is_the_settings_files_total() {
    let path = real_file("alpha", ALPHA);
    let files = SOURCE.source().usage_files(&path);
    assert_eq!(files, [real().join("-home-dev-projects-alpha").join(format!("{ALPHA}.settings.json"))]);
    let bytes = std::fs::read(&files[0]).unwrap();
    // The catalog hands over the complete lines: the file has no final newline.
    let complete = &bytes[..=bytes.iter().rposition(|&b| b == b'\n').unwrap()];
    let calls = SOURCE.source().usage(&files[0], complete);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].model.as_deref(), Some("custom:Fake-0"));
    assert_eq!((calls[0].input, calls[0].output, calls[0].cache_read), (63564, 260, 0));
    let hand = SOURCE.source().usage(&hand_file(PARENT).with_extension("settings.json"), b"");
    assert_eq!(
        (hand[0].input, hand[0].output, hand[0].cache_creation, hand[0].cache_read, hand[0].reasoning),
        (1200, 80, 300, 900, 20)
    );
    assert!(SOURCE.source().index(&path, &std::fs::read(&path).unwrap()).unwrap().usage.is_empty());
}

#[test]
fn a_subagent_is_folded_under_its_task_call_and_not_listed() {
    let transcript = load(&hand_file(PARENT)).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Count the notes with a helper"));
    assert_eq!(
        kinds(&transcript.messages),
        [
            (Role::User, vec!["text", "image"]),
            (Role::Assistant, vec!["tool_call", "text"]),
            (Role::System, vec!["unknown"]),
        ]
    );
    let Block::ToolCall(task) = &transcript.messages[1].blocks[0] else { panic!() };
    assert_eq!(task.status, ToolStatus::Succeeded);
    assert_eq!(kinds(&task.subagent), [(Role::User, vec!["text"]), (Role::Assistant, vec!["text"])]);
    let Block::Unknown { what, .. } = &transcript.messages[2].blocks[0] else { panic!() };
    assert_eq!(what, "compaction_marker");
    let listing = list(&hand(), Scope::All);
    assert_eq!(listing.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [PARENT]);
    let companions = SOURCE.source().companions(&hand_file(PARENT));
    let names: Vec<_> = companions.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, [format!("{PARENT}.settings.json"), format!("{CHILD}.jsonl")]);
    let indexed = SOURCE.source().index(&hand_file(PARENT), &std::fs::read(hand_file(PARENT)).unwrap()).unwrap();
    assert!(indexed.title_explicit);
    assert_eq!(indexed.title.as_deref(), Some("Count the notes with a helper"));
    let real =
        SOURCE.source().index(&real_file("beta", BETA), &std::fs::read(real_file("beta", BETA)).unwrap()).unwrap();
    assert!(!real.title_explicit);
}

#[test]
fn detects_its_files_and_not_others() {
    for path in [real_file("alpha", ALPHA), hand_file(CHILD)] {
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(crate::detect(&path, &bytes), Some(SOURCE), "{}", path.display());
    }
    let pi = br#"{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}
"#;
    assert_ne!(crate::detect(Path::new("x.jsonl"), pi), Some(SOURCE));
}

#[test]
fn damaged_lines_are_reported_not_fatal() {
    let start = r#"{"type":"session_start","id":"s","title":"t","owner":"dev","cwd":"/p"}"#;
    let user = r#"{"type":"message","id":"u","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
    let call = r#"{"type":"message","id":"a","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"Execute","input":{"command":"ls"}}]}}"#;
    let text = format!("{start}\nnot json\n{user}\n[1]\n{call}\n{{\"type\":\"mess");
    let transcript = parse(text.as_bytes(), "s");
    let issues: Vec<_> = transcript.issues.iter().map(|i| (i.line, i.kind.clone())).collect();
    assert_eq!(issues.len(), 3);
    assert_eq!(issues[1], (4, IssueKind::NotAnObject));
    assert_eq!(issues[2], (6, IssueKind::TruncatedLastLine));
    assert_eq!(kinds(&transcript.messages), [(Role::User, vec!["text"]), (Role::Assistant, vec!["tool_call"])]);
    let Block::ToolCall(call) = &transcript.messages[1].blocks[0] else { panic!() };
    assert_eq!(call.status, ToolStatus::Pending);
    let checked = verify(text.as_bytes());
    assert_eq!((checked.entries, checked.findings.len()), (3, 3));
    assert_eq!(verify(&std::fs::read(real_file("alpha", ALPHA)).unwrap()).findings, []);
}

#[test]
fn added_lines_give_their_messages_and_late_results() {
    let path = real_file("alpha", ALPHA);
    let bytes = std::fs::read(&path).unwrap();
    // After the first assistant line: the next line holds the results of its calls.
    let cut = bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(3).unwrap().0 + 1;
    let added = SOURCE.source().index_added(ALPHA, &bytes[cut..], 4).unwrap();
    assert_eq!(added.late_results.len(), 2);
    assert_eq!(
        added.late_results[1].text,
        "Error: Error reading file: ENOENT: no such file or directory, access '/home/dev/projects/alpha/absent.txt'"
    );
    assert_eq!(
        kinds(&added.messages),
        [
            (Role::Assistant, vec!["tool_call", "tool_call", "tool_call", "text"]),
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["text"]),
        ]
    );
    assert_eq!(added.message_count, 3);
    assert_eq!(added.title, None);
}

#[test]
fn the_factory_folder_moves_with_its_override() {
    let env = crate::Env::new("/home/u", [("FACTORY_HOME_OVERRIDE".to_owned(), "/elsewhere".into())]);
    assert_eq!(SOURCE.source().roots(&env), [PathBuf::from("/elsewhere/.factory/sessions")]);
    let env = crate::Env::new("/home/u", []);
    assert_eq!(SOURCE.source().roots(&env), [PathBuf::from("/home/u/.factory/sessions")]);
}
