#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::*;
use crate::edit::FileEdit;
use crate::edit::testing::{calls, fixture};
use crate::env::Env;
use crate::listing::Scope;
use crate::source::{Source, SourceKind};
use crate::transcript::{Block, Message, Role, ToolStatus, Transcript};

const VERSION: &str = "real-7.7.9";

fn database() -> PathBuf {
    fixture(&format!("kilo/{VERSION}/kilo.db"))
}

/// The driver's report of the run the fixture comes from.
fn scenario() -> Value {
    serde_json::from_slice(&fs::read(fixture(&format!("kilo/{VERSION}/scenario.json"))).unwrap()).unwrap()
}

/// The report's sessions that a listing shows (not a subagent's).
fn top(scenario: &Value) -> Vec<&Value> {
    scenario["sessions"].as_array().unwrap().iter().filter(|s| s["parentId"].is_null()).collect()
}

/// The session of the report whose first own prompt starts with `prompt`.
fn session_of<'a>(scenario: &'a Value, prompt: &str) -> &'a Value {
    scenario["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["turns"][0]["prompt"].as_str().is_some_and(|p| p.starts_with(prompt)))
        .unwrap_or_else(|| panic!("no session starts with {prompt:?}"))
}

fn env(home: &Path, vars: &[(&str, &Path)]) -> Env {
    Env::new(home, vars.iter().map(|(k, v)| ((*k).to_owned(), OsString::from(v))))
}

/// A home where Kilo keeps the fixture's database and OpenCode its own.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let kilo = home.path().join(".local/share/kilo");
    let opencode = home.path().join(".local/share/opencode");
    fs::create_dir_all(&kilo).unwrap();
    fs::create_dir_all(&opencode).unwrap();
    fs::copy(database(), kilo.join("kilo.db")).unwrap();
    fs::copy(fixture("opencode/real-1.18.33/opencode.db"), opencode.join("opencode.db")).unwrap();
    home
}

fn load(id: &str) -> Transcript {
    Kilo.load_row(&database(), id).unwrap()
}

#[test]
fn lists_the_sessions_kilo_made_and_opencode_lists_none_of_them() {
    let home = home();
    let scenario = scenario();
    let listing = Kilo.list(&env(home.path(), &[]), Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut got: Vec<(String, Option<String>, Option<String>)> =
        listing.sessions.iter().map(|s| (s.id.clone(), s.title.clone(), s.cwd.clone())).collect();
    got.sort();
    let mut expected: Vec<(String, Option<String>, Option<String>)> = top(&scenario)
        .iter()
        .map(|s| {
            let title = s["title"].as_str().map(ToOwned::to_owned);
            // A placeholder title (`New session - <time>`) shows the first
            // prompt; a fork's (`… (fork #1)`) is its own.
            let placeholder = |t: &String| t.strip_prefix("New session - ").is_some_and(|time| !time.contains(' '));
            let title = title.filter(|t| !placeholder(t)).or_else(|| {
                let turns = s["inherited"].as_array().unwrap().iter().chain(s["turns"].as_array().unwrap());
                turns.map(|t| t["prompt"].as_str().unwrap().to_owned()).next()
            });
            (s["id"].as_str().unwrap().to_owned(), title, s["cwd"].as_str().map(ToOwned::to_owned))
        })
        .collect();
    expected.sort();
    assert_eq!(got, expected);
    assert!(listing.sessions.iter().all(|s| s.source == SOURCE && s.path.ends_with("kilo.db") && s.message_count > 0));

    let opencode = crate::opencode::OpenCode.list(&env(home.path(), &[]), Scope::All);
    assert!(opencode.sessions.iter().all(|s| s.source == crate::opencode::SOURCE && s.path.ends_with("opencode.db")));
    assert!(!opencode.sessions.iter().any(|s| got.iter().any(|(id, ..)| *id == s.id)));
    assert!(!opencode.sessions.is_empty());

    let found = Kilo.find(&env(home.path(), &[]));
    assert_eq!(found.rows.len(), expected.len());
    assert!(found.files.is_empty());
}

#[test]
fn a_tool_session_shows_its_calls_thinking_and_edits() {
    let scenario = scenario();
    let work = session_of(&scenario, "Check the workspace");
    let transcript = load(work["id"].as_str().unwrap());
    assert_eq!(transcript.source, SOURCE);
    assert_eq!(transcript.cwd.as_deref(), work["cwd"].as_str());
    let statuses: Vec<(&str, &str, ToolStatus)> =
        calls(&transcript).iter().map(|c| (c.id.as_str(), c.name.as_str(), c.status)).collect();
    assert_eq!(
        statuses,
        [
            ("call_echo", "bash", ToolStatus::Succeeded),
            ("call_missing", "read", ToolStatus::Failed),
            ("call_printf", "bash", ToolStatus::Succeeded),
            ("call_write", "write", ToolStatus::Succeeded),
            ("call_edit", "edit", ToolStatus::Failed),
        ]
    );
    let echo = calls(&transcript)[0];
    assert!(echo.result.as_deref().is_some_and(|r| r.contains("hi")), "{echo:?}");
    assert!(echo.started_at.is_some() && echo.ended_at.is_some());
    let blocks: Vec<&Block> = transcript.messages.iter().flat_map(|m| &m.blocks).collect();
    assert!(blocks.iter().any(|b| matches!(b, Block::Thinking { text } if text == "Start with a harmless command.")));
    // Past the model's context, Kilo did not compact (it would before the
    // session's next prompt): the report says so, and no summary shows.
    assert_eq!(work["autoCompacted"], false);
    assert!(!blocks.iter().any(|b| matches!(b, Block::Summary { .. })));
    // The edits of its write and its failed edit.
    let edits: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(|c| Kilo.edits(c)).collect();
    assert_eq!(
        edits,
        [
            FileEdit::write("/home/dev/projects/beta/notes.txt", "first note\nsecond note\n"),
            FileEdit::replace("/home/dev/projects/beta/absent.txt", "old", "new", false),
        ]
    );
}

#[test]
fn a_compaction_asked_for_shows_its_summary() {
    let scenario = scenario();
    let hello = session_of(&scenario, "Say hello in one short sentence.");
    assert_eq!(hello["compactions"][0]["auto"], false);
    let transcript = load(hello["id"].as_str().unwrap());
    let summaries: Vec<&Message> =
        transcript.messages.iter().filter(|m| m.blocks.iter().any(|b| matches!(b, Block::Summary { .. }))).collect();
    assert_eq!(summaries.len(), 1, "{:?}", transcript.messages);
    assert_eq!(summaries[0].role, Role::System);
    let Block::Summary { text } = &summaries[0].blocks[0] else { panic!("{:?}", summaries[0]) };
    assert!(text.starts_with("## Goal"), "{text}");
}

#[test]
fn an_image_what_kilo_added_a_failed_request_and_a_subagent() {
    let scenario = scenario();
    let pictured = load(session_of(&scenario, "What is in this picture?")["id"].as_str().unwrap());
    let blocks: Vec<&Block> = pictured.messages.iter().flat_map(|m| &m.blocks).collect();
    // How Kilo read the attached file: text it added, shown as context.
    assert!(blocks.iter().any(|b| matches!(b, Block::Context { title, .. } if title == "Added by Kilo")));
    assert!(
        blocks.iter().any(|b| matches!(b, Block::Image(image) if image.media_type.as_deref() == Some("image/png")))
    );
    assert!(blocks.iter().any(|b| matches!(b, Block::Error { text } if text.contains("The fake model is down."))));

    let delegating = load(session_of(&scenario, "Ask a helper")["id"].as_str().unwrap());
    let task = calls(&delegating).into_iter().find(|c| c.name == "task").expect("a task call");
    assert_eq!(task.status, ToolStatus::Succeeded);
    let texts: Vec<&str> = task
        .subagent
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(texts.contains(&"There are 3 files."), "{texts:?}");
}

#[test]
fn usage_is_each_model_call_and_the_catalog_keeps_it() {
    let scenario = scenario();
    let work = session_of(&scenario, "Check the workspace")["id"].as_str().unwrap();
    let indexed = Kilo.index_row(&database(), work).unwrap();
    assert_eq!(indexed.session_id, work);
    assert!(indexed.usage.len() >= 5, "{:?}", indexed.usage);
    assert!(indexed.usage.iter().all(|call| call.model.as_deref() == Some("fake-model")), "{:?}", indexed.usage);
    assert!(indexed.usage.iter().any(|call| call.input >= 30_000), "the call past the context: {:?}", indexed.usage);
}

#[test]
fn detects_kilos_databases_by_name_and_not_opencodes() {
    let head = fs::read(database()).unwrap();
    let detect = |name: &str| crate::detect(Path::new(name), &head[..100]).map(SourceKind::as_str);
    assert_eq!(detect("/h/.local/share/kilo/kilo.db"), Some("kilo"));
    assert_eq!(detect("/h/.local/share/kilo/kilo-dev.db"), Some("kilo"));
    assert_eq!(detect("/h/.local/share/opencode/opencode.db"), Some("opencode"));
    assert_eq!(detect("/h/kilo.db-wal"), None);
    assert_eq!(detect("/h/kilocode.db"), None);
}

#[test]
fn kilo_db_moves_the_database_and_roots_name_it() {
    let home = home();
    let data = home.path().join(".local/share/kilo");
    // The CLI's roots, before the extension's `tasks` folders.
    let roots = |env: &Env| -> Vec<PathBuf> {
        Kilo.roots(env).into_iter().filter(|root| !root.ends_with("kilocode.kilo-code/tasks")).collect()
    };
    assert_eq!(roots(&env(home.path(), &[])), std::slice::from_ref(&data));
    let elsewhere = home.path().join("elsewhere.db");
    fs::copy(database(), &elsewhere).unwrap();
    let moved = env(home.path(), &[("KILO_DB", &elsewhere)]);
    assert_eq!(roots(&moved), [data.clone(), elsewhere.clone()]);
    let listing = Kilo.list(&moved, Scope::All);
    assert!(!listing.sessions.is_empty() && listing.sessions.iter().all(|s| s.path == elsewhere));
    let xdg = tempfile::tempdir().unwrap();
    let elsewhere_data = env(home.path(), &[("XDG_DATA_HOME", xdg.path())]);
    assert_eq!(roots(&elsewhere_data), [xdg.path().join("kilo")]);
    assert!(Kilo.list(&elsewhere_data, Scope::All).sessions.is_empty());
}

#[test]
fn a_damaged_row_is_reported_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("kilo.db");
    fs::copy(database(), &copy).unwrap();
    let scenario = scenario();
    let id = session_of(&scenario, "Check the workspace")["id"].as_str().unwrap();
    {
        let conn = rusqlite::Connection::open(&copy).unwrap();
        let changed = conn
            .execute(
                "update message set data = '[\"not an object\"]' where id = (select min(id) from message where session_id = ?1)",
                [id],
            )
            .unwrap();
        assert_eq!(changed, 1);
    }
    let transcript = Kilo.load_row(&copy, id).unwrap();
    assert_eq!(transcript.issues.len(), 1, "{:?}", transcript.issues);
    assert!(!transcript.messages.is_empty());
}

const TASK: &str = "7c1d9e2a-3b4f-4c5d-8e6f-0a1b2c3d4e5f";

/// The hand-written config folder, whose `Code/User` holds the extension's
/// storage folder.
fn extension_config() -> PathBuf {
    fixture("kilo/hand-written")
}

fn task() -> PathBuf {
    extension_config()
        .join("Code/User/globalStorage/kilocode.kilo-code/tasks")
        .join(TASK)
        .join("api_conversation_history.json")
}

#[test]
fn the_extensions_tasks_are_listed_beside_the_clis_sessions() {
    let home = home();
    let config = extension_config();
    let both = env(home.path(), &[("XDG_CONFIG_HOME", &config)]);
    let listing = Kilo.list(&both, Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let tasks: Vec<(&str, Option<&str>, Option<&str>, usize)> = listing
        .sessions
        .iter()
        .filter(|s| s.path.ends_with("api_conversation_history.json"))
        .map(|s| (s.id.as_str(), s.first_message.as_deref(), s.cwd.as_deref(), s.message_count))
        .collect();
    assert_eq!(tasks, [(TASK, Some("Add a changelog to the delta project"), Some("/home/user/work/delta"), 6)]);
    let task = listing.sessions.iter().find(|s| s.id == TASK).unwrap();
    // Its title is its prompt.
    assert_eq!(task.title, None);
    assert_eq!(task.source, SOURCE);
    assert_eq!(task.created.as_deref(), Some("2025-12-01T16:00:00.000Z"));
    let from_database = listing.sessions.iter().filter(|s| s.path.ends_with("kilo.db")).count();
    assert_eq!(from_database, top(&scenario()).len());
    assert_eq!(listing.sessions.len(), from_database + 1);

    let found = Kilo.find(&both);
    assert_eq!(found.files, [(TASK.to_owned(), task.path.clone())]);
    assert_eq!(found.rows.len(), from_database);
    assert!(Kilo.roots(&both).contains(&config.join("Code/User/globalStorage/kilocode.kilo-code/tasks")));
    // Scoped to the task's project, only the task is listed.
    let scoped = Kilo.list(&both, Scope::Project(Path::new("/home/user/work/delta")));
    assert_eq!(scoped.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [TASK]);
    // Neither Cline's nor Roo Code's source lists it.
    assert!(crate::cline::SOURCE.source().list(&both, Scope::All).sessions.is_empty());
    assert!(crate::roo::SOURCE.source().list(&both, Scope::All).sessions.is_empty());
}

#[test]
fn a_task_reads_as_its_prompts_calls_and_error_with_its_usage() {
    let transcript = Kilo.load(&task()).unwrap();
    assert_eq!(transcript.source, SOURCE);
    assert_eq!(transcript.id, TASK);
    assert_eq!(transcript.cwd.as_deref(), Some("/home/user/work/delta"));
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Assistant, Role::System, Role::User, Role::Assistant]);
    assert_eq!(transcript.messages[0].blocks[0], Block::text("Add a changelog to the delta project"));
    // The panel's error, after the message it came from.
    assert!(
        matches!(&transcript.messages[3].blocks[..], [Block::Error { text }] if text.contains("ENOENT")),
        "{:?}",
        transcript.messages[3]
    );
    assert_eq!(transcript.messages[4].blocks, [Block::text("Use today's date in the heading")]);
    let statuses: Vec<(&str, ToolStatus)> = calls(&transcript).iter().map(|c| (c.name.as_str(), c.status)).collect();
    assert_eq!(statuses, [("write_to_file", ToolStatus::Succeeded), ("read_file", ToolStatus::Failed)]);
    let edits: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(|c| Kilo.edits(c)).collect();
    assert_eq!(edits, [FileEdit::write("CHANGELOG.md", "# Changelog\n\n## 0.1.0\n")]);

    let bytes = fs::read(task()).unwrap();
    let indexed = Kilo.index(&task(), &bytes).unwrap();
    assert_eq!(indexed.session_id, TASK);
    assert_eq!(indexed.title.as_deref(), Some("Add a changelog to the delta project"));
    let usage: Vec<(u64, u64, u64, u64, Option<String>)> =
        indexed.usage.iter().map(|c| (c.input, c.output, c.cache_creation, c.cache_read, c.model.clone())).collect();
    assert_eq!(
        usage,
        [(2100, 70, 2000, 0, Some("claude-sonnet-4-5".to_owned())), (180, 45, 0, 2000, None), (250, 25, 0, 2200, None),]
    );
    let companions = Kilo.companions(&task());
    let names: Vec<String> = companions.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["task_metadata.json", "ui_messages.json"]);
}

#[test]
fn a_task_in_kilos_storage_folder_is_detected_as_kilos() {
    let bytes = fs::read(task()).unwrap();
    let detect =
        |path: &Path| crate::detect(path, &bytes[..bytes.len().min(crate::DETECT_BYTES)]).map(SourceKind::as_str);
    assert_eq!(detect(&task()), Some("kilo"));
    let vscode_server =
        Path::new("/h/.vscode-server/data/User/globalStorage/kilocode.kilo-code/tasks/t/api_conversation_history.json");
    assert_eq!(detect(vscode_server), Some("kilo"));
    // Elsewhere, its `<slug>` makes it Roo Code's; Roo Code's and Cline's
    // storage folders keep theirs.
    assert_eq!(detect(Path::new("/tmp/t/api_conversation_history.json")), Some("roo"));
    let roo = Path::new("/h/globalStorage/rooveterinaryinc.roo-cline/tasks/t/api_conversation_history.json");
    assert_eq!(detect(roo), Some("roo"));
    assert!(!TASKS.holds(Path::new("/h/globalStorage/kilocode.kilo-code/tasks/t/ui_messages.json")));
    assert!(!TASKS.holds(Path::new("/h/kilocode.kilo-code/tasks/t/api_conversation_history.json")));
}
