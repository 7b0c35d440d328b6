//! Running the `sess` binary from the integration tests.

#![allow(dead_code, unreachable_pub)] // Each test crate uses some of these.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

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
    let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
    command
        .args(args)
        .env("HOME", home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("NO_COLOR")
        .current_dir(home);
    run_with_stdin(&mut command, stdin)
}

/// `sess` with these arguments, `stdin` on its standard input.
pub fn sess_with(args: &[&str], stdin: &str) -> Output {
    run_with_stdin(Command::new(env!("CARGO_BIN_EXE_sess")).args(args), stdin)
}

fn run_with_stdin(command: &mut Command, stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The output of `child` once it exits; a panic (after killing it) if it is
/// still running after `limit`. Its stdout and stderr are read as it runs.
pub fn wait_at_most(mut child: std::process::Child, limit: Duration) -> Output {
    fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    }
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
}

/// Standard output as text, after checking the exit code is 0.
pub fn ok(output: &Output) -> String {
    pretty_assertions::assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(output));
    stdout(output)
}

pub const CLAUDE_BASIC: &str = "3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c01";
pub const CLAUDE_COMPACT: &str = "8d4e1f20-3c5b-4a69-b7e8-0f1a2b3c4d55";
pub const CODEX_BASIC: &str = "0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81";
pub const CODEX_FORK: &str = "0199c4f0-11aa-7b22-8c33-d44e55f66a77";
pub const PI_MAIN: &str = "01a22b45-5c27-7725-b56f-8270ebb2b80e";

/// Copies `from` to `to` and sets its modification time to `age` before now.
pub fn place(from: &Path, to: &Path, age_minutes: u64) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(from, to).unwrap();
    let file = fs::File::options().write(true).open(to).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(age_minutes * 60)).unwrap();
}

/// A scratch home where pi-mono, Claude Code and Codex each keep sessions.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        place(
            &fixture("pi-family/pi-mono-0.73.1-main.jsonl"),
            &home.join(".pi/agent/sessions/--home-dev-demo-project--/main.jsonl"),
            50,
        );
        place(
            &fixture("claude-code/claude-basic-toolcall.jsonl"),
            &home.join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl")),
            40,
        );
        place(
            &fixture("claude-code/claude-compact-branch.jsonl"),
            &home.join(format!(".claude/projects/-Users-bob-work-app-v2-1/{CLAUDE_COMPACT}.jsonl")),
            10,
        );
        // A subagent transcript beside the sessions is not a session.
        place(
            &fixture("claude-code/claude-basic-toolcall.jsonl"),
            &home.join(".claude/projects/-home-alice-src-todo-api/agent-a1b2c3.jsonl"),
            5,
        );
        place(
            &fixture("codex/codex-basic-rollout.jsonl"),
            &home.join(format!(".codex/sessions/2026/08/20/rollout-2026-08-20T10-02-11-{CODEX_BASIC}.jsonl")),
            30,
        );
        place(
            &fixture("codex/codex-fork-rollback-compact.jsonl"),
            &home.join(format!(".codex/sessions/2026/08/22/rollout-2026-08-22T08-30-00-{CODEX_FORK}.jsonl")),
            20,
        );
        place(&fixture("codex/codex-session_index.jsonl"), &home.join(".codex/session_index.jsonl"), 20);
        Self { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn run(&self, args: &[&str]) -> std::process::Output {
        sess_at(self.path(), args, "")
    }

    pub fn json(&self, args: &[&str]) -> Value {
        json_out(&self.run(args))
    }
}
