//! Running the `sess` binary from the integration tests.

#![allow(dead_code, unreachable_pub)] // Each test crate uses some of these.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

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

/// Points `command` at a scratch home: `HOME` and the working directory are
/// `home`, and none of the agents' variables (nor `NO_COLOR`) is set.
fn in_scratch_home<'c>(command: &'c mut Command, home: &Path) -> &'c mut Command {
    command
        .env("HOME", home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GOOSE_PATH_ROOT")
        .env_remove("CRUSH_GLOBAL_DATA")
        .env_remove("CONTINUE_GLOBAL_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("APPDATA")
        .env_remove("CLINE_DIR")
        .env_remove("CLINE_DATA_DIR")
        .env_remove("CLINE_SESSION_DATA_DIR")
        .env_remove("SESS_PROJECT_DIRS")
        .env_remove("CURSOR_CONFIG_DIR")
        .env_remove("FACTORY_HOME_OVERRIDE")
        .env_remove("PRIME_AGENT_CODING_AGENT_DIR")
        .env_remove("PRIME_AGENT_SESSION_DIR")
        .env_remove("PRIME_AGENT_CODING_AGENT_SESSION_DIR")
        .env_remove("NO_COLOR")
        .current_dir(home)
}

/// `sess` with `HOME` in a scratch directory and no agent variables set.
pub fn sess_at(home: &Path, args: &[&str], stdin: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
    run_with_stdin(in_scratch_home(&mut command, home).args(args), stdin)
}

/// The `sess` command in a scratch home (as [`sess_at`] runs it), for a
/// test to add a variable or more.
pub fn sess_command(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
    in_scratch_home(&mut command, home);
    command
}

/// `sess mcp ARGS` started in a scratch home (as [`sess_at`] runs a verb):
/// its standard input and output piped, for a test to speak JSON-RPC to it,
/// and its standard error dropped.
pub fn spawn_mcp(home: &Path, args: &[&str]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
    in_scratch_home(&mut command, home)
        .arg("mcp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// `sess` with these arguments, `stdin` on its standard input.
pub fn sess_with(args: &[&str], stdin: &str) -> Output {
    run_with_stdin(Command::new(env!("CARGO_BIN_EXE_sess")).args(args), stdin)
}

fn run_with_stdin(command: &mut Command, stdin: &str) -> Output {
    use std::io::Write as _;
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// A run of `sess` in a scratch home (see [`sess_at`]), optionally under a
/// memory limit and a time limit. Its input is written on a thread (a broken
/// pipe is not an error: `sess` may stop reading) and its output is read as
/// it runs.
pub struct SessRun {
    home: PathBuf,
    args: Vec<String>,
    stdin: Stdin,
    env: Vec<(&'static str, OsString)>,
    memory_kb: Option<u64>,
    time_limit: Option<Duration>,
}

enum Stdin {
    Bytes(Vec<u8>),
    From(Stdio),
}

impl SessRun {
    /// `sess ARGS` in `home`, with an empty input and no limits.
    pub fn new(home: &Path, args: &[&str]) -> Self {
        Self {
            home: home.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            stdin: Stdin::Bytes(Vec::new()),
            env: Vec::new(),
            memory_kb: None,
            time_limit: None,
        }
    }

    /// These bytes on its standard input.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Stdin::Bytes(bytes.into());
        self
    }

    /// `source` (a file, say) as its standard input.
    pub fn stdin_from(mut self, source: Stdio) -> Self {
        self.stdin = Stdin::From(source);
        self
    }

    /// One more variable, set after the scratch home's.
    pub fn env(mut self, key: &'static str, value: impl AsRef<OsStr>) -> Self {
        self.env.push((key, value.as_ref().to_owned()));
        self
    }

    /// Address space of the process, in KiB (`ulimit -v`): a reader that
    /// never stops fails on memory instead of taking the machine's.
    pub fn memory_kb(mut self, kb: u64) -> Self {
        self.memory_kb = Some(kb);
        self
    }

    /// It is killed if it is still running after `limit`.
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Its output; `None` when it was killed at the time limit.
    pub fn try_output(self) -> Option<Output> {
        let mut command = match self.memory_kb {
            // `exec` keeps the pid, so a kill reaches `sess`.
            Some(kb) => {
                let mut sh = Command::new("sh");
                sh.arg("-c").arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_sess"));
                sh
            }
            None => Command::new(env!("CARGO_BIN_EXE_sess")),
        };
        in_scratch_home(&mut command, &self.home).args(&self.args).envs(self.env);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let (stdin, bytes) = match self.stdin {
            Stdin::Bytes(bytes) => (Stdio::piped(), Some(bytes)),
            Stdin::From(source) => (source, None),
        };
        let mut child = command.stdin(stdin).spawn().unwrap();
        let writer = bytes.map(|bytes| {
            let mut pipe = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                use std::io::Write as _;
                let _ = pipe.write_all(&bytes);
            })
        });
        let output = wait_until(child, self.time_limit);
        if let Some(writer) = writer {
            writer.join().unwrap();
        }
        output
    }

    /// Its output; a panic if it was killed at the time limit.
    pub fn output(self) -> Output {
        let (shown, limit) = (format!("sess {}", self.args.join(" ")), self.time_limit.unwrap_or_default());
        self.try_output().unwrap_or_else(|| panic!("`{shown}` still running after {limit:?}: killed"))
    }
}

/// The output of `child` once it exits; a panic (after killing it) if it is
/// still running after `limit`. Its stdout and stderr are read as it runs.
pub fn wait_at_most(child: Child, limit: Duration) -> Output {
    wait_until(child, Some(limit)).unwrap_or_else(|| panic!("still running after {limit:?}: killed"))
}

/// The output of `child` once it exits, its stdout and stderr read as it
/// runs; `None` (after killing it) if it is still running after `limit`.
fn wait_until(mut child: Child, limit: Option<Duration>) -> Option<Output> {
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
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if limit.is_some_and(|limit| started.elapsed() > limit) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Some(Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() })
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

/// A fresh schema on the PostgreSQL server the tests use (`SESS_TEST_PG_URL`),
/// dropped when done.
pub struct PgSchema {
    pub server: String,
    pub name: String,
    pub url: String,
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.server, postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name));
        }
    }
}

/// The schema, or `None` after printing that the test skipped (a failure with
/// `SESS_REQUIRE_PG=1`).
#[allow(clippy::print_stderr)] // A skipped test says so.
pub fn pg_schema(test: &str) -> Option<PgSchema> {
    match std::env::var("SESS_TEST_PG_URL") {
        Ok(server) if !server.trim().is_empty() => {
            let name = format!("sess_cli_{}", uuid::Uuid::new_v4().simple());
            let separator = if server.contains('?') { '&' } else { '?' };
            let url = format!("{server}{separator}options=-csearch_path%3D{name}");
            Some(PgSchema { server, name, url })
        }
        _ => {
            assert!(
                std::env::var("SESS_REQUIRE_PG").as_deref() != Ok("1"),
                "SESS_TEST_PG_URL is not set and SESS_REQUIRE_PG=1"
            );
            eprintln!("skipped {test}: SESS_TEST_PG_URL is not set");
            None
        }
    }
}

/// Copies the folder `from` into `to`, made with its parents.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A home where the real Claude Code 2.1.332 and Codex 0.171.0 sessions of
/// the fixtures are, and the pi-mono session, each where its agent keeps it.
pub fn claude_codex_pi_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_dir(&fixture("claude-code/real-2.1.332/claude-config"), &home.path().join(".claude"));
    copy_dir(&fixture("codex/real-0.171.0/codex-home"), &home.path().join(".codex"));
    let pi = home.path().join(".pi/agent/sessions/--home-dev-demo-project--");
    fs::create_dir_all(&pi).unwrap();
    fs::copy(fixture("pi-family/pi-mono-0.73.1-main.jsonl"), pi.join("main.jsonl")).unwrap();
    home
}

/// Where every agent keeps sessions in a home, and the fixture folder the
/// real agent wrote that is copied there.
pub const AGENTS: [(&str, &str); 6] = [
    (".claude", "claude-code/real-2.1.332/claude-config"),
    (".codex", "codex/real-0.171.0/codex-home"),
    (".qwen", "qwen-code/real-0.24.4/qwen-home"),
    (".gemini", "gemini/real-0.61.0/home/.gemini"),
    (".copilot", "copilot/real-1.0.102/copilot-home"),
    (".local/share/opencode", "opencode/real-1.18.33"),
];

/// A home where every agent `sess` reads keeps the sessions it wrote (and
/// the pi-mono session).
pub fn agents_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for (folder, from) in AGENTS {
        copy_dir(&fixture(from), &home.path().join(folder));
    }
    let pi = home.path().join(".pi/agent/sessions/--home-dev-demo-project--");
    fs::create_dir_all(&pi).unwrap();
    fs::copy(fixture("pi-family/pi-mono-0.73.1-main.jsonl"), pi.join("main.jsonl")).unwrap();
    home
}
