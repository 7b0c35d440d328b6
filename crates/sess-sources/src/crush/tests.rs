#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::transcript::Role::{Assistant as A, User as U};
use crate::transcript::{Block, Role, ToolStatus};

const MAIN: &str = "5f0c1a6e-1b2f-4c39-9a51-0a1b2c3d4e5f";
const SECOND: &str = "9a8b7c6d-0000-4000-8000-000000000002";

fn fixture_db() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/crush/hand-written/alpha/.crush/crush.db")
}

/// A home whose `projects.json` lists a copy of the fixture's project, with
/// its data folder given as `data_dir`.
fn home(data_dir: &str) -> (tempfile::TempDir, Env, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("work/alpha");
    let data = if Path::new(data_dir).is_absolute() { PathBuf::from(data_dir) } else { project.join(data_dir) };
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(fixture_db(), data.join("crush.db")).unwrap();
    let global = home.path().join(".local/share/crush");
    std::fs::create_dir_all(&global).unwrap();
    let projects = json!({"projects": [
        {"path": project, "data_dir": data_dir},
        {"path": home.path().join("gone"), "data_dir": ".crush"},
    ]});
    std::fs::write(global.join("projects.json"), projects.to_string()).unwrap();
    let env = Env::new(home.path(), std::iter::empty::<(String, OsString)>());
    (home, env, project)
}

fn calls(messages: &[crate::Message]) -> Vec<&crate::ToolCall> {
    messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| if let Block::ToolCall(call) = b { Some(call) } else { None })
        .collect()
}

#[test]
fn a_session_reads_as_its_turns_calls_subagent_and_errors() {
    let transcript = SOURCE.source().load_row(&fixture_db(), MAIN).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Hello world greeting"));
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [U, A, A, A, A, A, U, A, A]);
    assert_eq!(transcript.messages[1].blocks[0], Block::Thinking { text: "Read it first.".into() });
    let calls = calls(&transcript.messages);
    let got: Vec<(&str, ToolStatus)> = calls.iter().map(|c| (c.name.as_str(), c.status)).collect();
    assert_eq!(
        got,
        [
            ("view", ToolStatus::Succeeded),
            ("edit", ToolStatus::Succeeded),
            ("bash", ToolStatus::Failed),
            ("agent", ToolStatus::Succeeded),
            ("write", ToolStatus::Succeeded),
        ]
    );
    assert_eq!(calls[0].input, json!({"file_path": "/home/dev/projects/alpha/hello.go"}));
    assert_eq!(calls[2].result.as_deref(), Some("no Go files in /home/dev/projects/alpha/sub"));
    assert_eq!(calls[0].started_at.as_deref(), Some("2025-12-01T10:00:04.000Z"));
    assert_eq!(calls[0].ended_at.as_deref(), Some("2025-12-01T10:00:05.000Z"));
    // The subagent's session is the one named by the call's id.
    let subagent: Vec<Role> = calls[3].subagent.iter().map(|m| m.role).collect();
    assert_eq!(subagent, [U, A]);
    assert_eq!(calls[3].subagent[1].blocks, [Block::text("None found.")]);
    assert!(
        matches!(&transcript.messages[6].blocks[1], Block::Image(image) if image.media_type.as_deref() == Some("image/png"))
    );
    assert_eq!(transcript.messages[8].blocks.last(), Some(&Block::Error { text: "Provider error: overloaded".into() }));
    // The default data folder names the project.
    assert!(transcript.cwd.as_deref().unwrap().ends_with("fixtures/crush/hand-written/alpha"));
    let edits: Vec<String> = calls.iter().flat_map(|c| SOURCE.source().edits(c)).map(|e| e.path).collect();
    assert_eq!(edits, ["/home/dev/projects/alpha/hello.go", "/home/dev/projects/alpha/README.md"]);
}

#[test]
fn the_summary_is_a_system_message_and_a_cut_row_is_reported() {
    let transcript = SOURCE.source().load_row(&fixture_db(), SECOND).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("What does main do?"));
    let last = transcript.messages.last().unwrap();
    assert_eq!(last.role, Role::System);
    assert_eq!(last.blocks, [Block::Summary { text: "Summary: asked what main does; it prints.".into() }]);
    assert_eq!(transcript.issues.len(), 1);
}

#[test]
fn projects_json_lists_the_databases_with_relative_or_absolute_data_folders() {
    for data_dir in [".crush", "state/crush"] {
        let (_home, env, project) = home(data_dir);
        let listing = SOURCE.source().list(&env, Scope::All);
        assert!(listing.problems.is_empty(), "{:?}", listing.problems);
        let mut got: Vec<_> =
            listing.sessions.iter().map(|s| (s.id.as_str(), s.title.as_deref(), s.message_count)).collect();
        got.sort_unstable();
        assert_eq!(got, [(MAIN, Some("Hello world greeting"), 9), (SECOND, Some("What does main do?"), 3)]);
        let main = listing.sessions.iter().find(|s| s.id == MAIN).unwrap();
        assert_eq!(main.cwd.as_deref(), Some(project.to_str().unwrap()));
        assert_eq!(main.created.as_deref(), Some("2025-12-01T10:00:00.000Z"));
        assert_eq!(main.path, project.join(data_dir).join("crush.db"));
        let found = SOURCE.source().find(&env);
        assert_eq!(found.rows.len(), 2, "the subagent's session is not listed");
        let scoped = SOURCE.source().list(&env, Scope::Project(&project));
        assert_eq!(scoped.sessions.len(), 2);
        assert!(SOURCE.source().list(&env, Scope::Project(Path::new("/elsewhere"))).sessions.is_empty());
    }
}

#[test]
fn usage_is_one_call_per_session_with_the_cost_on_the_parent() {
    let indexed = SOURCE.source().index_row(&fixture_db(), MAIN).unwrap();
    let got: Vec<_> = indexed.usage.iter().map(|c| (c.input, c.output, c.cost, c.model.as_deref())).collect();
    assert_eq!(got, [(4200, 380, Some(0.0123), Some("claude-sonnet-4")), (800, 40, None, Some("claude-sonnet-4"))]);
    assert_eq!(indexed.usage[0].timestamp.as_deref(), Some("2025-12-01T11:00:06.000Z"));
    assert!(indexed.title_explicit);
}

#[test]
fn the_archived_rows_read_back_as_the_same_session() {
    let dump = SOURCE.source().rows(&fixture_db(), MAIN).unwrap();
    let names: Vec<(&str, usize)> = dump.tables.iter().map(|t| (t.name.as_str(), t.rows.len())).collect();
    assert_eq!(names, [("sessions", 2), ("files", 1), ("messages", 16)]);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("crush.db");
    dump.write_database(&copy).unwrap();
    let mut original = SOURCE.source().load_row(&fixture_db(), MAIN).unwrap();
    let mut copied = SOURCE.source().load_row(&copy, MAIN).unwrap();
    (original.cwd, copied.cwd) = (None, None);
    assert_eq!(copied, original);
}

#[test]
fn a_crush_database_is_recognised_by_its_name() {
    let head = std::fs::read(fixture_db()).unwrap();
    assert_eq!(crate::detect(&fixture_db(), &head[..4096]), Some(SOURCE));
    assert_eq!(crate::detect(Path::new("/x/state.db"), &head[..4096]), None);
    assert!(SOURCE.source().load(&fixture_db()).is_err());
}

#[test]
fn crush_global_data_moves_the_projects_list() {
    let env = Env::new("/home/u", [("CRUSH_GLOBAL_DATA".to_owned(), OsString::from("/c"))]);
    assert_eq!(data_dir(&env), PathBuf::from("/c"));
    let env = Env::new("/home/u", [("XDG_DATA_HOME".to_owned(), OsString::from("/d"))]);
    assert_eq!(data_dir(&env), PathBuf::from("/d/crush"));
}

/// A running Crush holds its newest rows in `crush.db-wal`: they are read,
/// and the log is left as it is (no checkpoint), nothing else created.
#[test]
fn rows_a_running_crush_holds_in_its_log_are_read_without_a_checkpoint() {
    let (home, env, project) = home(".crush");
    let database = project.join(".crush/crush.db");
    let writer = rusqlite::Connection::open(&database).unwrap();
    writer.pragma_update(None, "journal_mode", "wal").unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute(
            "insert into sessions (id, title, prompt_tokens, completion_tokens, cost, updated_at, created_at)
             values ('new', 'Written just now', 0, 0, 0, 1764600000, 1764600000)",
            [],
        )
        .unwrap();
    let wal = project.join(".crush/crush.db-wal");
    let log = std::fs::read(&wal).unwrap();
    assert!(!log.is_empty());
    let listing = SOURCE.source().list(&env, Scope::All);
    assert!(listing.sessions.iter().any(|s| s.id == "new" && s.title.as_deref() == Some("Written just now")));
    assert_eq!(std::fs::read(&wal).unwrap(), log, "the log was checkpointed");
    drop(writer);
    drop(home);
}
