#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::detect::detect;
use crate::env::Env;
use crate::listing::Scope;
use crate::transcript::{Block, Role, ToolStatus, Transcript};

const TASK: &str = "1764583200000";
const XML_TASK: &str = "1764586800000";
const BROKEN_TASK: &str = "1764590400000";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cline")
}

/// A home whose `~/.config` is the hand-written fixtures (Code and Cursor
/// user folders), and whose CLI sessions are the real 3.0.65 ones.
fn env() -> Env {
    let vars = [
        ("XDG_CONFIG_HOME".to_owned(), OsString::from(fixtures().join("hand-written"))),
        ("CLINE_SESSION_DATA_DIR".to_owned(), OsString::from(fixtures().join(REAL_SESSIONS))),
    ];
    Env::new("/nonexistent-home", vars)
}

const REAL_SESSIONS: &str = "real-3.0.65/home/.cline/data/sessions";

fn task_path(app: &str, id: &str) -> PathBuf {
    fixtures()
        .join("hand-written")
        .join(app)
        .join("User/globalStorage/saoudrizwan.claude-dev/tasks")
        .join(id)
        .join(tasks::HISTORY)
}

fn calls(transcript: &Transcript) -> Vec<(String, ToolStatus, Option<String>)> {
    crate::edit::testing::calls(transcript)
        .into_iter()
        .map(|call| (call.name.clone(), call.status, call.result.clone()))
        .collect()
}

#[test]
fn a_task_reads_as_its_prompts_calls_and_notices() {
    let transcript = SOURCE.source().load(&task_path("Code", TASK)).unwrap();
    assert_eq!(transcript.id, TASK);
    assert_eq!(transcript.cwd.as_deref(), Some("/home/user/work/alpha"));
    assert!(transcript.issues.is_empty(), "{:?}", transcript.issues);
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Assistant,
            Role::System,
            Role::Assistant,
            Role::User,
            Role::System,
            Role::Assistant
        ]
    );
    // The prompt without its wrapper, the image, the environment as context.
    let first = &transcript.messages[0];
    assert_eq!(first.blocks[0], Block::text("Fix the greeting in src/app.py"));
    assert!(matches!(&first.blocks[1], Block::Image(image) if image.media_type.as_deref() == Some("image/png")));
    assert!(matches!(&first.blocks[2], Block::Context { title, .. } if title == "Environment details"));
    assert_eq!(first.timestamp.as_deref(), Some("2025-12-01T10:00:00.000Z"));
    assert_eq!(transcript.messages[1].blocks[0], Block::Thinking { text: "I should look at the file first.".into() });
    assert_eq!(
        calls(&transcript),
        [
            ("execute_command".into(), ToolStatus::Succeeded, Some("1 failed, 3 passed".into())),
            (
                "replace_in_file".into(),
                ToolStatus::Succeeded,
                Some("The content was successfully saved to src/app.py.".into())
            ),
            (
                "read_file".into(),
                ToolStatus::Failed,
                Some("Error reading file: ENOENT: no such file or directory".into())
            ),
            ("write_to_file".into(), ToolStatus::Pending, None),
        ]
    );
    assert_eq!(
        transcript.messages[3].blocks,
        [Block::Error { text: "Error reading file: ENOENT: no such file or directory".into() }]
    );
    assert_eq!(transcript.messages[5].blocks[0], Block::text("Also add a test"));
    assert_eq!(transcript.messages[6].blocks, [Block::Error { text: "529 Overloaded".into() }]);
}

#[test]
fn an_older_task_without_an_index_takes_its_cwd_from_its_environment() {
    let transcript = SOURCE.source().load(&task_path("Cursor", XML_TASK)).unwrap();
    assert_eq!(transcript.cwd.as_deref(), Some("/home/user/work/beta"));
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User, Role::Assistant, Role::System]);
    // A result reported in text is context, not the person's words.
    assert!(
        matches!(&transcript.messages[2].blocks[0], Block::Context { title, .. } if title == "read_file for 'main.go'")
    );
    assert_eq!(
        transcript.messages[4].blocks,
        [Block::Summary { text: "The user asked what main.go does; it defines an empty main.".into() }]
    );
    assert_eq!(transcript.messages[1].timestamp.as_deref(), Some("2025-12-01T11:00:03.000Z"));
}

#[test]
fn a_cut_conversation_is_reported_not_a_panic() {
    let path = task_path("Code", BROKEN_TASK);
    let transcript = SOURCE.source().load(&path).unwrap();
    assert!(transcript.messages.is_empty());
    assert_eq!(transcript.issues.len(), 1);
    let bytes = std::fs::read(&path).unwrap();
    assert!(SOURCE.source().index(&path, &bytes).unwrap_err().contains("not a JSON array"));
}

#[test]
fn tasks_are_listed_with_their_cwd_and_the_index_totals_are_not_counted_twice() {
    let env = env();
    let listing = SOURCE.source().list(&env, Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut tasks: Vec<(String, Option<String>, usize)> = listing
        .sessions
        .iter()
        .filter(|s| s.path.ends_with(tasks::HISTORY))
        .map(|s| (s.id.clone(), s.cwd.clone(), s.message_count))
        .collect();
    tasks.sort();
    assert_eq!(
        tasks,
        [
            (TASK.to_owned(), Some("/home/user/work/alpha".to_owned()), 8),
            (XML_TASK.to_owned(), Some("/home/user/work/beta".to_owned()), 5),
            (BROKEN_TASK.to_owned(), None, 0),
        ]
    );
    let task = listing.sessions.iter().find(|s| s.id == TASK).unwrap();
    assert_eq!(task.first_message.as_deref(), Some("Fix the greeting in src/app.py"));
    assert_eq!(task.created.as_deref(), Some("2025-12-01T10:00:00.000Z"));
    let beta = SOURCE.source().list(&env, Scope::Project(Path::new("/home/user/work/beta")));
    let ids: Vec<&str> = beta.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [XML_TASK]);
    // Usage: one call per request that counted tokens.
    let path = task_path("Code", TASK);
    let indexed = SOURCE.source().index(&path, &std::fs::read(&path).unwrap()).unwrap();
    let usage: Vec<(u64, u64, u64, u64)> =
        indexed.usage.iter().map(|c| (c.input, c.output, c.cache_creation, c.cache_read)).collect();
    assert_eq!(usage, [(1200, 80, 900, 0), (150, 120, 0, 2100), (90, 30, 0, 2300), (200, 90, 0, 2500)]);
    assert_eq!(indexed.title.as_deref(), Some("Fix the greeting in src/app.py"));
    assert!(!indexed.title_explicit);
}

#[test]
fn task_folders_are_found_in_every_user_folder_and_their_companions_named() {
    let found = SOURCE.source().find(&env());
    let tasks: Vec<&str> =
        found.files.iter().filter(|(_, p)| p.ends_with(tasks::HISTORY)).map(|(id, _)| id.as_str()).collect();
    assert_eq!(tasks, [TASK, BROKEN_TASK, XML_TASK]);
    let companions = SOURCE.source().companions(&task_path("Code", TASK));
    let names: Vec<String> = companions.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["task_metadata.json", "ui_messages.json"]);
    let roots = SOURCE.source().roots(&Env::new("/h", []));
    assert!(roots.contains(&PathBuf::from("/h/.cline/data/sessions")));
    assert!(roots.contains(&PathBuf::from("/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks")));
    assert!(roots.contains(&PathBuf::from("/h/.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev/tasks")));
}

#[test]
fn the_cli_folder_follows_the_clis_own_order() {
    let env = |vars: &[(&str, &str)]| {
        Env::new("/h", vars.iter().map(|(k, v)| ((*k).to_owned(), OsString::from(v))).collect::<Vec<_>>())
    };
    assert_eq!(cli::sessions_dir(&env(&[])), PathBuf::from("/h/.cline/data/sessions"));
    assert_eq!(cli::sessions_dir(&env(&[("CLINE_DIR", "/c")])), PathBuf::from("/c/data/sessions"));
    assert_eq!(cli::sessions_dir(&env(&[("CLINE_DIR", "/c"), ("CLINE_DATA_DIR", "/d")])), PathBuf::from("/d/sessions"));
    assert_eq!(
        cli::sessions_dir(&env(&[("CLINE_DATA_DIR", "/d"), ("CLINE_SESSION_DATA_DIR", "/s")])),
        PathBuf::from("/s")
    );
}

#[test]
fn detection_tells_cline_tasks_from_roo_codes_and_knows_cli_files() {
    let path = task_path("Code", TASK);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(detect(&path, &bytes[..bytes.len().min(crate::DETECT_BYTES)]), Some(SOURCE));
    let roo = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../fixtures/roo/hand-written/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/0b4e2c1a-5d6f-4a8b-9c0d-1e2f3a4b5c6d/api_conversation_history.json",
    );
    let bytes = std::fs::read(&roo).unwrap();
    assert_eq!(detect(&roo, &bytes), Some(crate::roo::SOURCE));
    assert_eq!(detect(Path::new("notes.json"), b"[]"), None);
    let cli = Path::new("x.messages.json");
    assert_eq!(detect(cli, b"{\n  \"version\": 1,\n  \"sessionId\": \"1_a\",\n  \"messages\": []\n}"), Some(SOURCE));
}

#[test]
fn edits_of_the_fixture_task_are_replacements_and_writes() {
    let transcript = SOURCE.source().load(&task_path("Code", TASK)).unwrap();
    let edits: Vec<Vec<crate::edit::FileEdit>> =
        crate::edit::testing::calls(&transcript).into_iter().map(|call| SOURCE.source().edits(call)).collect();
    assert_eq!(edits[1], [crate::edit::FileEdit::replace("src/app.py", "print(\"helo\")", "print(\"hello\")", false)]);
    assert_eq!(
        edits[3],
        [crate::edit::FileEdit::write("tests/test_app.py", "def test_greeting():\n    assert True\n")]
    );
    assert!(edits[0].is_empty() && edits[2].is_empty());
}

#[test]
fn a_damaged_ui_file_is_reported_and_the_conversation_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let task = dir.path().join("tasks/42");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::copy(task_path("Code", TASK), task.join(tasks::HISTORY)).unwrap();
    std::fs::write(task.join(tasks::UI), b"[{\"ts\": 1,").unwrap();
    let transcript = SOURCE.source().load(&task.join(tasks::HISTORY)).unwrap();
    assert_eq!(transcript.issues.len(), 1);
    assert_eq!(transcript.messages.len(), 6);
    // No index beside it: the cwd from the environment details.
    assert_eq!(transcript.cwd.as_deref(), Some("/home/user/work/alpha"));
}

const WORK: &str = "1796610431144_ilp6c";
const DOWN: &str = "1796610442252_mv71u";
const HELLO: &str = "1796610452091_l0k44";
const COMPACTED: &str = "1796610489255_4jj8x";

fn cli_path(id: &str) -> PathBuf {
    fixtures().join(REAL_SESSIONS).join(id).join(format!("{id}{}", cli::MESSAGES))
}

#[test]
fn a_real_cli_session_reads_as_its_calls_with_their_status() {
    let transcript = SOURCE.source().load(&cli_path(WORK)).unwrap();
    assert_eq!(transcript.id, WORK);
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/projects/alpha"));
    assert!(transcript.issues.is_empty());
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Assistant, Role::Assistant, Role::Assistant, Role::Assistant]
    );
    assert_eq!(
        transcript.messages[0].blocks,
        [Block::text(
            "Check the workspace: echo hi, cat missing.txt, read absent.txt, then write notes.txt and edit it."
        )]
    );
    assert_eq!(transcript.messages[1].blocks[0], Block::Thinking { text: "Start with the commands.".into() });
    let statuses: Vec<(String, ToolStatus)> =
        calls(&transcript).into_iter().map(|(name, status, _)| (name, status)).collect();
    assert_eq!(
        statuses,
        [
            ("run_commands".into(), ToolStatus::Succeeded),
            ("run_commands".into(), ToolStatus::Failed),
            ("read_files".into(), ToolStatus::Failed),
            ("editor".into(), ToolStatus::Succeeded),
            ("editor".into(), ToolStatus::Succeeded),
        ]
    );
    let all = calls(&transcript);
    assert_eq!(all[0].2.as_deref(), Some("hi\n"));
    assert!(all[1].2.as_deref().unwrap().contains("cat: missing.txt: No such file or directory"));
    assert!(all[2].2.as_deref().unwrap().starts_with("Error reading file: ENOENT"));
    assert_eq!(all[3].2.as_deref(), Some("File created successfully at: /home/dev/projects/alpha/notes.txt"));
    let call = &crate::edit::testing::calls(&transcript)[0];
    assert_eq!(call.started_at.as_deref(), Some("2026-12-07T02:27:12.770Z"));
    assert!(call.ended_at.is_some());
    // The editor's calls as a file written, then a replacement.
    let edits: Vec<crate::edit::FileEdit> =
        crate::edit::testing::calls(&transcript).into_iter().flat_map(|call| SOURCE.source().edits(call)).collect();
    assert_eq!(
        edits,
        [
            crate::edit::FileEdit::write("/home/dev/projects/alpha/notes.txt", "first note\nsecond note\n"),
            crate::edit::FileEdit::replace(
                "/home/dev/projects/alpha/notes.txt",
                "second note",
                "second note, edited",
                false
            ),
        ]
    );
}

#[test]
fn a_failed_request_compaction_and_usage_of_the_real_cli() {
    let down = SOURCE.source().load(&cli_path(DOWN)).unwrap();
    assert_eq!(down.messages[1].role, Role::Assistant);
    assert_eq!(down.messages[1].blocks, [Block::Error { text: "The fake model is down.".into() }]);
    let compacted = SOURCE.source().load(&cli_path(COMPACTED)).unwrap();
    let roles: Vec<Role> = compacted.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::System, Role::Assistant]);
    assert!(
        matches!(&compacted.messages[2].blocks[0], Block::Summary { text } if text.starts_with("## Goal\nRun a long check."))
    );
    let path = cli_path(WORK);
    let indexed = SOURCE.source().index(&path, &std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(indexed.usage.len(), 5);
    assert_eq!(indexed.usage[0].model.as_deref(), Some("fake-model"));
    assert!(indexed.usage.iter().all(|c| c.input > 5000 && c.output > 0));
    assert_eq!(indexed.created.as_deref(), Some("2026-12-07T02:27:11.195Z"));
    assert!(!indexed.title_explicit);
}

#[test]
fn the_real_cli_sessions_are_listed_with_their_manifests() {
    let listing = SOURCE.source().list(&env(), Scope::All);
    let mut cli: Vec<(String, Option<String>, Option<String>, usize)> = listing
        .sessions
        .iter()
        .filter(|s| !s.path.ends_with(tasks::HISTORY))
        .map(|s| (s.id.clone(), s.cwd.clone(), s.title.clone(), s.message_count))
        .collect();
    cli.sort();
    let beta = Some("/home/dev/projects/beta".to_owned());
    let alpha = Some("/home/dev/projects/alpha".to_owned());
    let title = |t: &str| Some(t.to_owned());
    assert_eq!(
        cli,
        [
            (
                WORK.to_owned(),
                alpha.clone(),
                title(
                    "Check the workspace: echo hi, cat missing.txt, read absent.txt, then write notes.txt and edit it."
                ),
                6
            ),
            (DOWN.to_owned(), alpha, title("Describe it in more detail."), 2),
            (HELLO.to_owned(), beta.clone(), title("Say hello in one short sentence."), 4),
            (COMPACTED.to_owned(), beta, title("Run a long check: echo one, then report."), 4),
        ]
    );
    let companions = SOURCE.source().companions(&cli_path(COMPACTED));
    let names: Vec<String> = companions.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, [format!("{COMPACTED}.compaction.json"), format!("{COMPACTED}.json")]);
    let bytes = std::fs::read(cli_path(HELLO)).unwrap();
    assert_eq!(detect(&cli_path(HELLO), &bytes[..bytes.len().min(crate::DETECT_BYTES)]), Some(SOURCE));
}

#[test]
fn a_json_document_without_a_last_newline_is_indexed_whole() {
    // The catalog gives complete lines: none, for a task written as one line
    // without its newline.
    let path = task_path("Code", TASK);
    let indexed = SOURCE.source().index(&path, b"").unwrap();
    assert_eq!(indexed.message_count, 8);
    let indexed = SOURCE.source().index(&cli_path(HELLO), b"").unwrap();
    assert_eq!(indexed.message_count, 4);
}
