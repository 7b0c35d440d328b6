//! Running the `sess` binary from the integration tests.

#![allow(dead_code, unreachable_pub)] // Each test crate uses some of these.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A file under the repository's `fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(path)
}

/// `sess` with these arguments.
pub fn sess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sess")).args(args).output().unwrap()
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// Standard output as JSON, after checking the exit code is 0.
pub fn json_out(output: &Output) -> Value {
    pretty_assertions::assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// `sess` with `HOME` in a scratch directory and no agent variables set.
pub fn sess_at(home: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(args)
        .env("HOME", home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("NO_COLOR")
        .current_dir(home)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}
