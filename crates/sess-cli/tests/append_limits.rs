//! `sess append` reads stdin lines of a bounded length: a longer line stops
//! the command (exit 2, naming the line) before any of it is kept, and the
//! lines before it are written.
//!
//! Every command runs under a time limit and a memory limit: a regression
//! that reads an endless line fails the test instead of hanging it or taking
//! the machine's memory.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use common::{SessRun, stderr, stdout};

/// A command that has not finished after this long is taken as hung.
const LIMIT: Duration = Duration::from_secs(10);

/// Address space of the child, in KiB.
const MEMORY_KB: u64 = 1 << 20;

/// `sess append ARGS` in `home`, under [`LIMIT`] and [`MEMORY_KB`].
fn append(home: &Path, args: &[&str]) -> SessRun {
    SessRun::new(home, &[&["append"], args].concat()).memory_kb(MEMORY_KB).time_limit(LIMIT)
}

/// Runs `sess append ARGS` with `input` written to its stdin (it may stop
/// reading at the long line: a broken pipe is expected then).
fn append_text(home: &Path, args: &[&str], input: String) -> Output {
    append(home, args).stdin(input).output()
}

fn message(text: &str) -> String {
    format!("{{\"role\":\"user\",\"content\":\"{text}\"}}\n")
}

#[test]
fn a_line_longer_than_max_line_bytes_is_refused_naming_it_and_nothing_of_it_is_written() {
    let home = tempfile::tempdir().unwrap();
    let long = format!("LONG{}", "x".repeat(2000));
    let input = [message("first"), message("second"), message(&long), message("after")].concat();
    let output = append_text(home.path(), &["s.jsonl", "--max-line-bytes", "1000"], input);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("stdin line 3"), "{err}");
    assert!(err.contains("longer than 1000 bytes"), "{err}");
    assert_eq!(stdout(&output).lines().count(), 2, "the two lines before it are acknowledged");
    let file = fs::read_to_string(home.path().join("s.jsonl")).unwrap();
    assert!(file.contains("\"first\"") && file.contains("\"second\""), "{file}");
    assert!(!file.contains("LONG"), "part of the long line was written");
    assert!(!file.contains("\"after\""), "a line after the long one was written");
}

#[test]
fn a_line_exactly_at_the_limit_is_appended() {
    let home = tempfile::tempdir().unwrap();
    let line = message("y");
    // The limit counts the line without its newline.
    let text = "y".repeat(1000 - (line.len() - 1) + 1);
    let line = message(&text);
    assert_eq!(line.len() - 1, 1000);
    let output = append_text(home.path(), &["s.jsonl", "--max-line-bytes", "1000"], line);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(fs::read_to_string(home.path().join("s.jsonl")).unwrap().contains(&text));
}

#[test]
fn dev_zero_as_stdin_stops_at_the_limit_with_bounded_memory() {
    let home = tempfile::tempdir().unwrap();
    let zero = fs::File::open("/dev/zero").unwrap();
    let output = append(home.path(), &["s.jsonl", "--max-line-bytes", "1000"]).stdin_from(Stdio::from(zero)).output();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("stdin line 1: longer than 1000 bytes"), "{err}");
    assert!(output.stdout.is_empty());
    // The session file was started; nothing of stdin is in it.
    let file = fs::read(home.path().join("s.jsonl")).unwrap();
    assert!(!file.contains(&0), "NUL bytes were written");
}

#[test]
fn dev_zero_as_stdin_stops_at_the_default_limit_of_256_mib() {
    let home = tempfile::tempdir().unwrap();
    let zero = fs::File::open("/dev/zero").unwrap();
    let output = append(home.path(), &["s.jsonl"]).stdin_from(Stdio::from(zero)).output();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("stdin line 1: longer than 268435456 bytes"), "{err}");
    assert!(!fs::read(home.path().join("s.jsonl")).unwrap().contains(&0), "NUL bytes were written");
}
