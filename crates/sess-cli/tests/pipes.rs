//! A reader that goes away: `sess … | head -1`, `2>&1 | head -1`. A closed
//! stdout or stderr ends the command quietly, never with a panic (exit 101).
//!
//! The pipes are closed before `sess` starts (the reading end is dropped
//! first), so every write fails: no run depends on timing.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;
use common::{fixture, stderr, stdout};

/// How many times each case runs.
const RUNS: usize = 10;

/// A pipe whose reading end is already closed.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

/// A pipe read to its end by a thread.
struct Drained(std::thread::JoinHandle<Vec<u8>>);

/// Which of the standard streams are closed.
#[derive(Clone, Copy, Debug)]
enum Closed {
    Stdout,
    Stderr,
    /// Both: `2>&1 | head -1` once `head` is gone.
    Both,
}

/// `sess args` with the streams `closed` closed; the other is read.
fn run(args: &[&str], closed: Closed) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
    command.args(args).stdin(Stdio::null());
    let (out_closed, err_closed) = match closed {
        Closed::Stdout => (true, false),
        Closed::Stderr => (false, true),
        Closed::Both => (true, true),
    };
    command.stdout(if out_closed { closed_pipe() } else { Stdio::piped() });
    command.stderr(if err_closed { closed_pipe() } else { Stdio::piped() });
    let mut child = command.spawn().unwrap();
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        Drained(std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut bytes).unwrap();
            }
            bytes
        }))
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let status = child.wait().unwrap();
    Output { status, stdout: out.0.join().unwrap(), stderr: err.0.join().unwrap() }
}

/// A pi-family session with a damaged line, so that reading it warns on stderr.
fn damaged_session(dir: &Path) -> PathBuf {
    let path = dir.join("damaged.jsonl");
    let mut text = fs::read_to_string(fixture("pi-family/pi-mono-0.73.1-main.jsonl")).unwrap();
    for _ in 0..30 {
        text.insert_str(text.find('\n').unwrap() + 1, "{not json\n");
    }
    fs::write(&path, text).unwrap();
    path
}

fn assert_code(output: &Output, code: i32, what: &str) {
    assert_eq!(output.status.code(), Some(code), "{what}: stdout {:?}, stderr {:?}", stdout(output), stderr(output));
}

#[test]
fn tree_with_warnings_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let path = damaged_session(dir.path());
    let path = path.to_str().unwrap();
    for _ in 0..RUNS {
        assert_code(&run(&["tree", path], Closed::Both), 0, "both closed");
        let output = run(&["tree", path], Closed::Stdout);
        assert_code(&output, 0, "stdout closed");
        assert!(stderr(&output).contains("line 2: invalid JSON"), "{}", stderr(&output));
        let output = run(&["tree", path], Closed::Stderr);
        assert_code(&output, 0, "stderr closed");
        assert!(stdout(&output).contains("user: hello"), "{}", stdout(&output));
    }
}

#[test]
fn an_error_with_stderr_closed_keeps_its_exit_code() {
    for _ in 0..RUNS {
        assert_code(&run(&["tree", "/nonexistent/s.jsonl"], Closed::Stderr), 2, "stderr closed");
        assert_code(&run(&["tree", "/nonexistent/s.jsonl"], Closed::Both), 2, "both closed");
        assert_code(&run(&["list", "--limit", "x"], Closed::Both), 2, "usage error, both closed");
    }
}

#[test]
fn help_and_long_output_into_a_closed_stdout_end_quietly() {
    let show = fixture("claude-code/claude-compact-branch.jsonl");
    for _ in 0..RUNS {
        assert_code(&run(&["--help"], Closed::Both), 0, "help");
        assert_code(&run(&["show", show.to_str().unwrap(), "--all"], Closed::Stdout), 0, "show");
        assert_code(&run(&["show", show.to_str().unwrap(), "--json"], Closed::Both), 0, "show --json");
    }
}
