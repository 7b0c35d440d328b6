#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::transcript::{Block, Role, ToolStatus};

const CURRENT: &str = "5b3f6a1c-0000-4000-8000-000000000001";
const OLDER: &str = "5b3f6a1c-0000-4000-8000-000000000002";
const BROKEN: &str = "5b3f6a1c-0000-4000-8000-000000000004";

fn fixture_db() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/zed/hand-written/threads/threads.db")
}

fn calls(transcript: &Transcript) -> Vec<(String, ToolStatus, Option<String>)> {
    transcript
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(call) => Some((call.name.clone(), call.status, call.result.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_zstd_thread_reads_as_its_messages_and_calls() {
    let transcript = SOURCE.source().load_row(&fixture_db(), CURRENT).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Greeting in main.rs"));
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/projects/alpha"));
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::System, Role::User, Role::Assistant]);
    assert_eq!(transcript.messages[0].blocks[0], Block::text("Make main.rs greet the world"));
    assert!(matches!(&transcript.messages[0].blocks[1], Block::Context { text, .. } if text == "fn main() {}\n"));
    assert_eq!(transcript.messages[1].blocks[0], Block::Thinking { text: "Read the file, then edit it.".into() });
    assert_eq!(
        calls(&transcript),
        [
            ("read_file".into(), ToolStatus::Succeeded, Some("fn main() {}\n".into())),
            ("terminal".into(), ToolStatus::Failed, Some("error: could not find Cargo.toml".into())),
            ("edit_file".into(), ToolStatus::Pending, None),
        ]
    );
    assert!(transcript.issues.is_empty());
}

#[test]
fn an_older_thread_reads_its_segments_and_tool_uses() {
    let transcript = SOURCE.source().load_row(&fixture_db(), OLDER).unwrap();
    assert_eq!(transcript.title.as_deref(), Some("Explain the build"));
    assert_eq!(transcript.cwd, None);
    assert_eq!(
        transcript.messages[1].blocks[..2],
        [Block::Thinking { text: "Look for a Makefile.".into() }, Block::text("With make."),]
    );
    assert_eq!(calls(&transcript), [("find_path".into(), ToolStatus::Succeeded, Some("Makefile".into()))]);
}

#[test]
fn a_row_that_does_not_decompress_is_reported() {
    let transcript = SOURCE.source().load_row(&fixture_db(), BROKEN).unwrap();
    assert!(transcript.messages.is_empty());
    assert_eq!(transcript.issues.len(), 1);
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/projects/beta"));
}

#[test]
fn usage_is_one_call_per_request() {
    let indexed = SOURCE.source().index_row(&fixture_db(), CURRENT).unwrap();
    let got: Vec<_> =
        indexed.usage.iter().map(|c| (c.input, c.output, c.cache_creation, c.cache_read, c.model.as_deref())).collect();
    assert_eq!(got, [(1200, 120, 500, 0, Some("claude-sonnet-4")), (300, 80, 0, 1700, Some("claude-sonnet-4"))]);
    assert_eq!(indexed.usage[0].timestamp.as_deref(), Some("2025-12-01T11:00:10.000Z"));
    assert_eq!(indexed.created.as_deref(), Some("2025-12-01T10:00:00.000Z"));
    let older = SOURCE.source().index_row(&fixture_db(), OLDER).unwrap();
    assert_eq!(older.usage.iter().map(|c| (c.input, c.output)).collect::<Vec<_>>(), [(900, 50)]);
}

#[test]
fn the_listing_leaves_subagents_out() {
    let home = tempfile::tempdir().unwrap();
    let threads = home.path().join("data/zed/threads");
    std::fs::create_dir_all(&threads).unwrap();
    std::fs::copy(fixture_db(), threads.join("threads.db")).unwrap();
    let env = Env::new(home.path(), [("XDG_DATA_HOME".to_owned(), OsString::from(home.path().join("data")))]);
    let listing = SOURCE.source().list(&env, Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let mut got: Vec<_> = listing.sessions.iter().map(|s| (s.id.as_str(), s.message_count, s.modified_ms)).collect();
    got.sort_unstable();
    assert_eq!(got, [(CURRENT, 5, 1_764_586_810_000), (OLDER, 2, 1_748_768_400_000), (BROKEN, 0, 1_764_590_400_000)]);
    assert_eq!(SOURCE.source().find(&env).rows.len(), 3);
    let alpha = SOURCE.source().list(&env, Scope::Project(Path::new("/home/dev/projects/alpha")));
    assert_eq!(alpha.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [CURRENT]);
}

#[test]
fn the_archived_row_reads_back_as_the_same_thread() {
    let dump = SOURCE.source().rows(&fixture_db(), CURRENT).unwrap();
    assert_eq!(dump.tables.len(), 1);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("threads.db");
    dump.write_database(&copy).unwrap();
    assert_eq!(
        SOURCE.source().load_row(&copy, CURRENT).unwrap(),
        SOURCE.source().load_row(&fixture_db(), CURRENT).unwrap()
    );
    assert!(SOURCE.source().rows(&fixture_db(), "nope").is_err());
}

#[test]
fn a_threads_database_is_recognised_by_its_name() {
    let head = std::fs::read(fixture_db()).unwrap();
    assert_eq!(crate::detect(&fixture_db(), &head[..4096]), Some(SOURCE));
    assert!(SOURCE.source().load(&fixture_db()).is_err());
}
