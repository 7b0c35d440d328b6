//! `sess tail`: a session followed as a writer appends to it (its last
//! messages, then each new one, as text or NDJSON), every session followed
//! (`--all`), and the errors of a tail that has nothing to follow.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write the agents' files directly.

mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{sess_at, sess_command, stderr};
use serde_json::{Value, json};

const ID: &str = "5d1e2f3a-0000-4000-8000-00000000aa01";

/// A Claude Code session of two messages whose agent worked in `cwd`.
fn claude_session(home: &Path, cwd: &Path) -> PathBuf {
    let path = home.join(format!(".claude/projects/-work/{ID}.jsonl"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "").unwrap();
    append(&path, &line(cwd, "u1", None, "user", &json!("Which tests are slow?")));
    append(&path, &line(cwd, "u2", Some("u1"), "assistant", &json!([{"type": "text", "text": "The parser's."}])));
    path
}

fn line(cwd: &Path, uuid: &str, parent: Option<&str>, role: &str, content: &Value) -> Value {
    json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": ID,
        "version": "2.1.230", "type": role, "uuid": uuid, "timestamp": "2026-08-20T09:30:00.000Z",
        "message": {"role": role, "content": content}
    })
}

fn append(path: &Path, line: &Value) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(format!("{line}\n").as_bytes()).unwrap();
}

/// `sess tail ARGS` running in `home` (from `cwd`): its stdout lines as they
/// come, once it said on stderr that it follows.
struct Tail {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Tail {
    fn start(home: &Path, cwd: &Path, args: &[&str]) -> Tail {
        let mut child = sess_command(home)
            .current_dir(cwd)
            .arg("tail")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut said = String::new();
        while !said.contains("Ctrl-C stops") {
            let mut line = String::new();
            assert!(err.read_line(&mut line).unwrap() > 0, "sess tail ended: {said}");
            said.push_str(&line);
        }
        let lines = lines_of(child.stdout.take().unwrap());
        Tail { child, lines }
    }

    /// The next line it prints, within 20 s.
    fn next(&self) -> String {
        self.lines.recv_timeout(Duration::from_secs(20)).expect("sess tail printed nothing in 20 s")
    }

    /// The lines it prints until one contains `text`, within 20 s.
    fn until(&self, text: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.next();
            let done = line.contains(text);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }
}

impl Drop for Tail {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lines_of(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    lines
}

#[test]
fn a_session_named_prints_its_last_messages_then_each_new_one_as_json() {
    let home = tempfile::tempdir().unwrap();
    let path = claude_session(home.path(), Path::new("/work/app"));
    let tail = Tail::start(home.path(), home.path(), &["5d1e2f3a", "--json", "-n", "1"]);
    let first: Value = serde_json::from_str(&tail.next()).unwrap();
    assert_eq!(first["role"], "assistant");
    assert_eq!(first["blocks"][0]["text"], "The parser's.");

    append(&path, &line(Path::new("/work/app"), "u3", Some("u2"), "user", &json!("Make it faster.")));
    let next: Value = serde_json::from_str(&tail.next()).unwrap();
    assert_eq!((next["role"].as_str(), next["blocks"][0]["text"].as_str()), (Some("user"), Some("Make it faster.")));

    let call = json!([
        {"type": "text", "text": "Timing it first."},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cargo bench"}}
    ]);
    append(&path, &line(Path::new("/work/app"), "u4", Some("u3"), "assistant", &call));
    let next: Value = serde_json::from_str(&tail.next()).unwrap();
    let kinds: Vec<&str> = next["blocks"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["text", "tool_call"], "{next}");
}

#[test]
fn by_default_it_follows_the_session_of_this_directory_as_sess_show_prints_it() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("app");
    std::fs::create_dir(&project).unwrap();
    let path = claude_session(home.path(), &project);
    let tail = Tail::start(home.path(), &project, &["-n", "0"]);

    let call = json!([
        {"type": "text", "text": "Running the slow tests."},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cargo nextest run slow"}}
    ]);
    append(&path, &line(&project, "u3", Some("u2"), "assistant", &call));
    let shown = tail.until("cargo nextest run slow").join("\n");
    assert!(shown.contains("Running the slow tests."), "{shown}");
    // What `sess show` prints of that message.
    let show = common::stdout(&sess_at(home.path(), &["show", ID], ""));
    let last = &show[show.rfind("Running the slow tests.").unwrap()..];
    assert!(last.contains("cargo nextest run slow"), "{show}");
}

#[test]
fn every_session_is_followed_one_line_per_change() {
    let home = tempfile::tempdir().unwrap();
    let path = claude_session(home.path(), Path::new("/work/app"));
    let tail = Tail::start(home.path(), home.path(), &["--all"]);
    append(&path, &line(Path::new("/work/app"), "u3", Some("u2"), "user", &json!("One more.")));
    let changed = tail.until("5d1e2f3a");
    assert!(changed.last().unwrap().contains("+1 message"), "{changed:?}");

    let json_tail = Tail::start(home.path(), home.path(), &["--all", "--json"]);
    std::fs::remove_file(&path).unwrap();
    let gone: Value = serde_json::from_str(&json_tail.next()).unwrap();
    assert_eq!((gone["kind"].as_str(), gone["session"]["sessionId"].as_str()), (Some("gone"), Some(ID)), "{gone}");
    assert!(tail.until("gone").last().unwrap().contains("5d1e2f3a"));
}

#[test]
fn nothing_to_follow_is_an_error_that_says_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    let output = sess_at(home.path(), &["tail"], "");
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("no agent's session worked in") && err.contains("sess tail --all"), "{err}");

    let output = sess_at(home.path(), &["--store", "sqlite:x.sqlite", "tail", "--all"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not those of a store"), "{}", stderr(&output));
}
