//! Golden tests: the transcripts of the Claude Code fixtures, block by block.
//!
//! The expected transcripts are checked in under
//! `fixtures/claude-code/expected/`. `SESS_BLESS=1 cargo test` rewrites them
//! from the code; review the diff against the rules before committing it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Blessing writes the expected files directly.

mod common;

use std::path::PathBuf;

use common::{assert_golden, shape};
use pretty_assertions::assert_eq;
use sess_core::{IssueKind, LineIssue};
use sess_sources::{Block, Role, ToolStatus, Transcript, claude};

fn fixture(name: &str) -> PathBuf {
    common::fixture(&format!("claude-code/{name}"))
}

/// Loads a fixture and compares its transcript with the expected JSON.
fn golden(name: &str) -> Transcript {
    let transcript = claude::load(&fixture(&format!("{name}.jsonl"))).unwrap();
    assert_golden(&transcript, &fixture(&format!("expected/{name}.json")), name);
    transcript
}

#[test]
fn basic_toolcall() {
    let t = golden("claude-basic-toolcall");
    assert_eq!(t.id, "claude-basic-toolcall");
    assert_eq!(t.title.as_deref(), Some("Add /health endpoint to Express app"), "ai-title beats the summary");
    assert_eq!(t.cwd.as_deref(), Some("/home/alice/src/todo-api"));
    assert_eq!(t.issues, [LineIssue { line: 23, kind: IssueKind::TruncatedLastLine }]);
    assert_eq!(
        shape(&t),
        [
            (Role::User, vec!["text"]),
            (
                Role::Assistant,
                vec![
                    "thinking",
                    "text",
                    "tool_call",
                    "tool_call",
                    "tool_call",
                    "text",
                    "tool_call",
                    "tool_call",
                    "text"
                ]
            ),
        ]
    );
    let calls: Vec<_> = t.messages[1]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::ToolCall(c) => Some((c.name.as_str(), c.status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("Read", ToolStatus::Succeeded),
            ("Edit", ToolStatus::Succeeded),
            ("Bash", ToolStatus::Failed),
            ("Edit", ToolStatus::Succeeded),
            ("Bash", ToolStatus::Succeeded),
        ]
    );
}

#[test]
fn compact_branch() {
    let t = golden("claude-compact-branch");
    assert_eq!(t.title.as_deref(), Some("Login card layout"), "custom-title wins");
    assert_eq!(t.cwd.as_deref(), Some("/Users/bob/work/app_v2.1"));
    assert_eq!(t.issues, [LineIssue { line: 25, kind: IssueKind::TruncatedLastLine }]);
    assert_eq!(
        shape(&t),
        [
            (Role::User, vec!["text", "image"]),
            (Role::Assistant, vec!["thinking", "text"]),
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["text"]),
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["text"]),
            (Role::System, vec!["text"]),
            (Role::System, vec!["summary"]),
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["tool_call", "text"]),
            (Role::User, vec!["text"]),
            (Role::Assistant, vec!["error"]),
            (Role::System, vec!["text"]),
        ]
    );
}
