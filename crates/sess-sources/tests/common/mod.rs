//! What the tests over the fixtures share: finding them, reading their
//! scenario, comparing a transcript with the one checked in, and short views
//! of a transcript and of model calls.

#![allow(dead_code, unreachable_pub)] // Each test crate uses some of these.
#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Blessing writes the expected files directly.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;
use sess_sources::{Block, Call, Message, Role, ToolStatus, Transcript};

/// A file or folder under the repository's `fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(path)
}

/// The JSON file at `path` (a driver's report or scenario).
pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Compares `transcript` with the one checked in at `expected` (`name` says
/// which in a failure). `SESS_BLESS=1 cargo test` rewrites the file from the
/// code; review the diff before committing it.
pub fn assert_golden(transcript: &Transcript, expected: &Path, name: &str) {
    let actual = serde_json::to_string_pretty(transcript).unwrap() + "\n";
    if std::env::var_os("SESS_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(expected.parent().unwrap()).unwrap();
        std::fs::write(expected, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(expected).unwrap();
    assert_eq!(actual, expected, "{name}: set SESS_BLESS=1 to rewrite, then review");
}

/// `(role, block kinds)` of each message.
pub fn shape(transcript: &Transcript) -> Vec<(Role, Vec<&'static str>)> {
    transcript.messages.iter().map(|m| (m.role, m.blocks.iter().map(Block::kind).collect())).collect()
}

/// `(tool name, status)` of each call.
pub fn calls(messages: &[Message]) -> Vec<(&str, ToolStatus)> {
    messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(c) => Some((c.name.as_str(), c.status)),
            _ => None,
        })
        .collect()
}

/// `(calls, input, cache_read, cache_creation, output, reasoning)`: how many
/// calls, and the sum of each kind of token.
pub fn usage_totals(calls: &[Call]) -> (usize, u64, u64, u64, u64, u64) {
    let sum = |f: fn(&Call) -> u64| calls.iter().map(f).sum();
    (
        calls.len(),
        sum(|c| c.input),
        sum(|c| c.cache_read),
        sum(|c| c.cache_creation),
        sum(|c| c.output),
        sum(|c| c.reasoning),
    )
}
