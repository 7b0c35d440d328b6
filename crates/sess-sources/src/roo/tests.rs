#![allow(clippy::disallowed_methods)] // Tests read their fixtures directly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::env::Env;
use crate::listing::Scope;
use crate::transcript::{Block, Role, ToolStatus};

const TASK: &str = "0b4e2c1a-5d6f-4a8b-9c0d-1e2f3a4b5c6d";

fn config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/roo/hand-written")
}

fn task() -> PathBuf {
    config()
        .join("Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks")
        .join(TASK)
        .join("api_conversation_history.json")
}

#[test]
fn a_roo_code_task_reads_as_its_prompts_calls_and_condensed_context() {
    let transcript = SOURCE.source().load(&task()).unwrap();
    assert_eq!(transcript.source, SOURCE);
    assert_eq!(transcript.cwd.as_deref(), Some("/home/user/work/gamma"));
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Assistant, Role::System, Role::User, Role::Assistant]);
    assert_eq!(transcript.messages[0].blocks[0], Block::text("Rename foo to bar in lib.rs"));
    assert_eq!(transcript.messages[4].blocks, [Block::text("Fix the caller too")]);
    assert_eq!(
        transcript.messages[3].blocks,
        [Block::Summary { text: "Renamed foo to bar; the build failed on a caller.".into() }]
    );
    let calls: Vec<(String, ToolStatus)> =
        crate::edit::testing::calls(&transcript).iter().map(|c| (c.name.clone(), c.status)).collect();
    assert_eq!(calls, [("apply_diff".into(), ToolStatus::Succeeded), ("execute_command".into(), ToolStatus::Failed)]);
    let edits = SOURCE.source().edits(crate::edit::testing::calls(&transcript)[0]);
    assert_eq!(edits, [crate::edit::FileEdit::replace("lib.rs", "fn foo() {}", "fn bar() {}", false)]);
}

#[test]
fn roo_code_tasks_are_listed_and_their_usage_counted_without_the_cached_input() {
    let env = Env::new("/nonexistent-home", [("XDG_CONFIG_HOME".to_owned(), OsString::from(config()))]);
    let listing = SOURCE.source().list(&env, Scope::All);
    assert!(listing.problems.is_empty());
    let ids: Vec<(&str, Option<&str>, usize)> =
        listing.sessions.iter().map(|s| (s.id.as_str(), s.cwd.as_deref(), s.message_count)).collect();
    assert_eq!(ids, [(TASK, Some("/home/user/work/gamma"), 6)]);
    assert_eq!(listing.sessions[0].created.as_deref(), Some("2025-12-01T14:00:00.000Z"));
    // Cline's own source does not list Roo Code's tasks.
    assert!(crate::cline::SOURCE.source().list(&env, Scope::All).sessions.is_empty());
    let bytes = std::fs::read(task()).unwrap();
    let indexed = SOURCE.source().index(&task(), &bytes).unwrap();
    let usage: Vec<(u64, u64, u64, Option<String>)> =
        indexed.usage.iter().map(|c| (c.input, c.output, c.cache_read, c.model.clone())).collect();
    assert_eq!(usage, [(3000, 60, 0, Some("gpt-5".to_owned())), (400, 40, 3000, None), (500, 30, 0, None)]);
    let companions = SOURCE.source().companions(&task());
    let names: Vec<String> = companions.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["history_item.json", "ui_messages.json"]);
}
