#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::edit::FileEdit;
use crate::transcript::{Block, Role, ToolStatus};
use Role::{Assistant, User};

const GREETING: &str = "c0a1b2c3-0000-4000-8000-000000000001";
const OLDER: &str = "c0a1b2c3-0000-4000-8000-000000000002";
const EMPTY: &str = "c0a1b2c3-0000-4000-8000-000000000003";
const SUBAGENT: &str = "c0a1b2c3-0000-4000-8000-000000000004";
const DAMAGED: &str = "c0a1b2c3-0000-4000-8000-000000000005";
const NESTED: &str = "7e1f0c2a-0000-4000-8000-0000000000a1";
const FLAT: &str = "7e1f0c2a-0000-4000-8000-0000000000a2";
const STORE: &str = "3c9d2e10-0000-4000-8000-0000000000b1";
const FIRST_CHAT: &str = "0b6e2f10-0000-4000-8000-0000000000d1";
const ALPHA: &str = "/home/dev/projects/alpha";
/// The key the fixtures hold where Cursor keeps its encryption keys.
const KEY: &str = "K3y-Must-Never-Show-0f9e8d7c";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cursor/hand-written")
}

fn ide_db() -> PathBuf {
    fixtures().join("User/globalStorage/state.vscdb")
}

fn workspace_db() -> PathBuf {
    fixtures().join("User/workspaceStorage/5d41402abc4b2a76b9719d911017c592/state.vscdb")
}

fn transcripts() -> PathBuf {
    fixtures().join("dot-cursor/projects/home-dev-projects-alpha/agent-transcripts")
}

fn nested() -> PathBuf {
    transcripts().join(NESTED).join(format!("{NESTED}.jsonl"))
}

fn store_db(id: &str) -> PathBuf {
    fixtures().join("dot-cursor/chats/827645af339a34f08a47bf6aeab14e49").join(id).join("store.db")
}

fn calls(messages: &[Message]) -> Vec<(String, ToolStatus, Option<String>)> {
    messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(call) => Some((call.name.clone(), call.status, call.result.clone())),
            _ => None,
        })
        .collect()
}

fn roles(messages: &[Message]) -> Vec<Role> {
    messages.iter().map(|m| m.role).collect()
}

#[test]
fn an_ide_conversation_reads_its_bubbles_in_order() {
    let transcript = SOURCE.source().load_row(&ide_db(), GREETING).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Greeting fix"));
    assert_eq!(transcript.cwd.as_deref(), Some(ALPHA));
    // The empty bubble shows nothing.
    assert_eq!(roles(&transcript.messages), [User, Assistant, Assistant, Assistant, User, Assistant]);
    assert_eq!(transcript.messages[0].blocks, [Block::text("Make main.rs print a greeting")]);
    assert_eq!(transcript.messages[0].timestamp.as_deref(), Some("2025-11-03T10:00:00.000Z"));
    assert_eq!(
        transcript.messages[1].blocks[..2],
        [Block::Thinking { text: "Read main.rs first.".into() }, Block::text("Let me look at it.")]
    );
    assert_eq!(
        calls(&transcript.messages),
        [
            ("read_file".into(), ToolStatus::Succeeded, Some(r#"{"contents": "fn main() {}\n"}"#.into())),
            ("run_terminal_cmd".into(), ToolStatus::Failed, Some("exit status 101".into())),
            ("search_replace".into(), ToolStatus::Succeeded, Some("{}".into())),
            ("run_terminal_cmd".into(), ToolStatus::Pending, None),
        ]
    );
    let Block::ToolCall(read) = &transcript.messages[1].blocks[2] else { panic!() };
    assert_eq!(read.input, serde_json::json!({"target_file": "src/main.rs"}));
    assert_eq!(read.started_at.as_deref(), Some("2025-11-03T10:00:05.000Z"));
    assert!(transcript.issues.is_empty());
}

#[test]
fn an_older_conversation_holds_its_bubbles_inline() {
    let transcript = SOURCE.source().load_row(&ide_db(), OLDER).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("What does the Makefile do?"));
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/projects/beta"));
    assert_eq!(roles(&transcript.messages), [Role::User, Role::Assistant]);
}

#[test]
fn the_first_chats_are_tabs_of_a_workspaces_database() {
    let transcript = SOURCE.source().load_row(&workspace_db(), FIRST_CHAT).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Why does the build fail?"));
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/projects/gamma two"));
    assert_eq!(roles(&transcript.messages), [User, Assistant]);
    assert_eq!(transcript.messages[1].blocks, [Block::text("A missing semicolon in lib.rs.")]);
    let ids = SOURCE.source().row_ids(&workspace_db()).unwrap();
    assert_eq!(ids, [FIRST_CHAT, "0b6e2f10-0000-4000-8000-0000000000d2"]);
    let dump = SOURCE.source().rows(&workspace_db(), FIRST_CHAT).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("rows.db");
    dump.write_database(&copy).unwrap();
    // The copy has no workspace.json beside it: the same messages, no folder.
    assert_eq!(SOURCE.source().load_row(&copy, FIRST_CHAT).unwrap().messages, transcript.messages);
    assert!(SOURCE.source().load_row(&workspace_db(), "nope").is_err());
}

#[test]
fn missing_and_broken_bubbles_are_reported() {
    let transcript = SOURCE.source().load_row(&ide_db(), DAMAGED).unwrap();
    assert!(transcript.messages.is_empty());
    let issues: Vec<String> = transcript.issues.iter().map(|i| format!("{} {:?}", i.line, i.kind)).collect();
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(issues[0].starts_with("1 ") && issues[0].contains("missing"), "{issues:?}");
    assert!(issues[1].starts_with("2 ") && issues[1].contains("not JSON"), "{issues:?}");
    assert!(SOURCE.source().load_row(&ide_db(), "nope").is_err());
}

#[test]
fn usage_is_a_call_per_bubble_that_counted_tokens() {
    let indexed = SOURCE.source().index_row(&ide_db(), GREETING).unwrap();
    let got: Vec<_> = indexed.usage.iter().map(|c| (c.input, c.output, c.model.as_deref())).collect();
    let model = Some("claude-4-sonnet");
    assert_eq!(got, [(1200, 80, model), (1400, 40, model), (1500, 120, model)]);
    assert_eq!(indexed.usage[0].timestamp.as_deref(), Some("2025-11-03T10:00:05.000Z"));
    assert_eq!(indexed.created.as_deref(), Some("2025-11-03T10:00:00.000Z"));
    assert!(indexed.title_explicit);
    assert_eq!(indexed.message_count, 6);
}

#[test]
fn a_cli_transcript_reads_prompts_calls_turns_and_subagents() {
    let transcript = SOURCE.source().load(&nested()).unwrap();
    assert_eq!(transcript.id, NESTED);
    assert_eq!(transcript.title.as_deref(), Some("Add a README and check the tests"));
    assert_eq!(roles(&transcript.messages), [User, Assistant, Assistant, Assistant, User, Assistant, Assistant]);
    let first = &transcript.messages[0];
    assert_eq!(first.timestamp.as_deref(), Some("2025-11-03T13:15:00.000Z"));
    assert_eq!(
        first.blocks,
        [
            Block::text("Add a README and check the tests"),
            Block::Context { title: "Context".into(), text: "<user_info>OS: linux</user_info>".into() }
        ]
    );
    assert_eq!(transcript.messages[1].blocks[0], Block::Thinking { text: "Write it, then run the tests.".into() });
    // No results are recorded: the first turn's calls are done; the aborted
    // turn's call is cut off.
    assert_eq!(
        calls(&transcript.messages),
        [
            ("Write".into(), ToolStatus::Succeeded, None),
            ("Subagent".into(), ToolStatus::Succeeded, None),
            ("StrReplace".into(), ToolStatus::Pending, None),
        ]
    );
    assert_eq!(transcript.messages[6].blocks, [Block::Error { text: "User aborted request.".into() }]);
    let Block::ToolCall(subagent) = &transcript.messages[2].blocks[0] else { panic!() };
    assert_eq!(roles(&subagent.subagent), [User, Assistant]);
    assert_eq!(calls(&subagent.subagent), [("Shell".into(), ToolStatus::Succeeded, None)]);
    assert!(transcript.issues.is_empty());
    let subagents = SOURCE.source().companions(&nested());
    assert_eq!(subagents.len(), 1);
    assert!(subagents[0].ends_with("subagents/5a6b7c8d-0000-4000-8000-0000000000c1.jsonl"));
}

#[test]
fn a_bad_line_and_a_cut_last_line_are_reported() {
    let transcript = SOURCE.source().load(&transcripts().join(format!("{FLAT}.jsonl"))).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("What is in src?"));
    assert_eq!(roles(&transcript.messages), [Role::User, Role::Assistant, Role::Assistant]);
    assert_eq!(calls(&transcript.messages), [("Glob".into(), ToolStatus::Pending, None)]);
    assert_eq!(transcript.issues.len(), 2, "{:?}", transcript.issues);
    assert_eq!(transcript.issues[1].kind, sess_core::IssueKind::TruncatedLastLine);
}

#[test]
fn a_store_reads_the_tree_under_its_latest_root() {
    let transcript = SOURCE.source().load_row(&store_db(STORE), STORE).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Explain the build"));
    assert_eq!(transcript.cwd.as_deref(), Some(ALPHA));
    assert_eq!(roles(&transcript.messages), [Role::System, Role::User, Role::Assistant, Role::Assistant]);
    assert_eq!(transcript.messages[1].blocks[0], Block::text("How is it built?"));
    assert_eq!(transcript.messages[2].blocks[0], Block::Thinking { text: "Check the Makefile.".into() });
    assert_eq!(
        calls(&transcript.messages),
        [
            ("Read".into(), ToolStatus::Succeeded, Some("all:\n\tcargo build\n".into())),
            ("Read".into(), ToolStatus::Failed, Some("No such file".into())),
        ]
    );
    assert!(transcript.issues.is_empty());
    assert_eq!(SOURCE.source().row_ids(&store_db(STORE)).unwrap(), [STORE]);
    assert!(SOURCE.source().load_row(&store_db(STORE), NESTED).is_err());
}

#[test]
fn edits_come_from_the_edit_tools_of_the_ide_and_the_cli() {
    let ide = SOURCE.source().load_row(&ide_db(), GREETING).unwrap();
    let cli = SOURCE.source().load(&nested()).unwrap();
    let edits: Vec<FileEdit> = ide
        .messages
        .iter()
        .chain(&cli.messages)
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(call) => Some(SOURCE.source().edits(call)),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        edits,
        [
            FileEdit::replace("src/main.rs", "fn main() {}", "fn main() {\n    println!(\"Hello, world!\");\n}", false),
            FileEdit::write(format!("{ALPHA}/README.md"), "# Alpha\n"),
            FileEdit::replace(format!("{ALPHA}/README.md"), "# Alpha", "# Alpha project", false),
        ]
    );
}

/// A home where the IDE and the CLI keep the fixtures' sessions.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("User"), &home.path().join(".config/Cursor/User"));
    copy_dir(&fixtures().join("dot-cursor"), &home.path().join(".cursor"));
    home
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn the_listing_shows_each_session_once() {
    let home = home();
    let env = Env::new(home.path(), [("XDG_CONFIG_HOME".to_owned(), OsString::from(home.path().join(".config")))]);
    let listing = SOURCE.source().list(&env, Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut got: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.message_count, s.title.as_deref().unwrap_or_default()))
        .collect();
    got.sort_unstable();
    // Not the empty conversation, not the subagent's, not the store of the
    // session that has a transcript.
    assert_eq!(
        got,
        [
            (FIRST_CHAT, 2, "Why does the build fail?"),
            (STORE, 4, "Explain the build"),
            (NESTED, 7, "Add a README and check the tests"),
            (FLAT, 3, "What is in src?"),
            (GREETING, 6, "Greeting fix"),
            (OLDER, 2, "What does the Makefile do?"),
            (DAMAGED, 0, "Damaged"),
        ]
    );
    let nested = listing.sessions.iter().find(|s| s.id == NESTED).unwrap();
    assert_eq!(nested.created.as_deref(), Some("2025-11-03T13:15:00.000Z"));
    assert_eq!(nested.modified_ms, 1_762_176_000_000);
    let greeting = listing.sessions.iter().find(|s| s.id == GREETING).unwrap();
    assert_eq!(greeting.modified_ms, 1_762_164_064_000);
    let alpha = SOURCE.source().list(&env, Scope::Project(Path::new(ALPHA)));
    let mut ids: Vec<&str> = alpha.sessions.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [STORE, GREETING]);
    let found = SOURCE.source().find(&env);
    assert_eq!(found.files.len(), 2);
    assert_eq!(found.rows.len(), 5);
    let ids = SOURCE.source().row_ids(&home.path().join(".config/Cursor/User/globalStorage/state.vscdb")).unwrap();
    assert!(ids.contains(&EMPTY.to_owned()) && ids.contains(&SUBAGENT.to_owned()), "{ids:?}");
}

#[test]
fn a_slug_names_the_folder_it_was_made_from() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("my.work/alpha-beta");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(root.path().join("my")).unwrap();
    let project = project.canonicalize().unwrap();
    let slug = workspace::slug(&project.to_string_lossy());
    assert_eq!(workspace::resolve(&slug), Some(project.clone()));
    assert_eq!(workspace::resolve(&format!("{slug}-gone")), None);
}

#[test]
fn archived_rows_read_back_the_same_and_hold_no_key() {
    for (database, id) in [(ide_db(), GREETING), (store_db(STORE), STORE)] {
        let dump = SOURCE.source().rows(&database, id).unwrap();
        let json = serde_json::to_string(&dump).unwrap();
        assert!(!json.contains(KEY), "{}", database.display());
        assert!(!json.contains(&hex(KEY)), "{}", database.display());
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("rows.db");
        dump.write_database(&copy).unwrap();
        assert_eq!(SOURCE.source().load_row(&copy, id).unwrap(), SOURCE.source().load_row(&database, id).unwrap());
        assert!(SOURCE.source().rows(&database, "nope").is_err());
    }
    // The header kept is the conversation's own but for the keys.
    let dump = SOURCE.source().rows(&ide_db(), GREETING).unwrap();
    assert_eq!(dump.tables[0].rows.len(), 8);
}

fn hex(text: &str) -> String {
    use std::fmt::Write as _;
    text.bytes().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[test]
fn no_key_reaches_a_transcript_or_the_catalog() {
    for (database, id) in
        [(ide_db(), GREETING), (ide_db(), SUBAGENT), (store_db(STORE), STORE), (store_db(NESTED), NESTED)]
    {
        let indexed = SOURCE.source().index_row(&database, id).unwrap();
        let text = format!("{indexed:?}");
        assert!(!text.contains(KEY) && !text.contains(&hex(KEY)), "{id}");
    }
}

#[test]
fn cursors_files_are_recognised() {
    for path in [ide_db(), store_db(STORE), nested(), transcripts().join(format!("{FLAT}.jsonl"))] {
        let head = std::fs::read(&path).unwrap();
        assert_eq!(crate::detect(&path, &head[..head.len().min(4096)]), Some(SOURCE), "{}", path.display());
    }
    assert!(SOURCE.source().load(&ide_db()).is_err());
    let claude = br#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
    assert_ne!(crate::detect(Path::new("x.jsonl"), claude), Some(SOURCE));
}

#[test]
fn prompt_times_read_as_utc() {
    use super::prompt::timestamp_iso;
    assert_eq!(timestamp_iso("Sunday, Aug 2, 2026, 3:51 AM (UTC-7)").as_deref(), Some("2026-08-02T10:51:00.000Z"));
    assert_eq!(timestamp_iso("Monday, Nov 3, 2025, 12:05 AM (UTC+5:30)").as_deref(), Some("2025-11-02T18:35:00.000Z"));
    assert_eq!(timestamp_iso("Dec 24, 2025, 12:00 PM").as_deref(), Some("2025-12-24T12:00:00.000Z"));
    assert_eq!(timestamp_iso("tomorrow"), None);
}
