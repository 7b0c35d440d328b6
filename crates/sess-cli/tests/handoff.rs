//! `sess resume` and `sess handoff`: each agent's own resume command, the
//! agent run (or named when it is not installed), and a handoff that writes
//! one new file and never touches the original.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{SessRun, agents_home, copy_dir, fixture, json_out, stderr, stdout};

/// `sess ARGS --json` in `home`, parsed; it must succeed.
fn json(home: &Path, args: &[&str]) -> Value {
    let output = SessRun::new(home, args).output();
    assert!(output.status.success(), "sess {args:?}: {}", stderr(&output));
    json_out(&output)
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn resume_gives_each_agents_own_command_in_the_sessions_directory() {
    let home = agents_home();
    copy_dir(&fixture("cline/real-3.0.65/home/.cline"), &home.path().join(".cline"));
    copy_dir(&fixture("droid/real-0.225.2/factory-home"), &home.path().join(".factory"));
    let omp = home.path().join(".omp/agent/sessions/--home-dev-omp--/s.jsonl");
    fs::create_dir_all(omp.parent().unwrap()).unwrap();
    fs::copy(fixture("pi-family/oh-my-pi-18.2.3-bun.jsonl"), &omp).unwrap();
    let listed = json(home.path(), &["list", "--json", "--all-projects"]);
    let mut seen = Vec::new();
    for session in listed.as_array().unwrap() {
        let (source, id, path) =
            (session["source"].as_str().unwrap(), session["id"].as_str().unwrap(), session["path"].as_str().unwrap());
        let want: Vec<String> = match source {
            "claude" => vec!["claude".into(), "--resume".into(), id.into()],
            "codex" => vec!["codex".into(), "resume".into(), id.into()],
            "qwen" => vec!["qwen".into(), "--resume".into(), id.into()],
            "gemini" => vec!["gemini".into(), "--resume".into(), id.into()],
            "copilot" => vec!["copilot".into(), "--resume".into(), id.into()],
            "opencode" => vec!["opencode".into(), "--session".into(), id.into()],
            "cline" => vec!["cline".into(), "--id".into(), id.into()],
            "droid" => vec!["droid".into(), "--resume".into(), id.into()],
            "pi" if path.contains("/.omp/") => vec!["omp".into(), "--session".into(), path.into()],
            "pi" => vec!["pi".into(), "--session".into(), path.into()],
            other => panic!("a {other} session in the home"),
        };
        let got = json(home.path(), &["resume", "--json", id]);
        assert_eq!(got["argv"], serde_json::json!(want), "{source} {id}");
        assert_eq!(got["cwd"], session["cwd"], "{source} {id}");
        let printed = SessRun::new(home.path(), &["resume", "--print", id]).output();
        assert!(printed.status.success(), "{}", stderr(&printed));
        let line = stdout(&printed);
        assert_eq!(line.trim_end(), got["command"].as_str().unwrap());
        // The directory as one shell word (quoted where it must be).
        assert!(line.starts_with("cd ") && line.contains(session["cwd"].as_str().unwrap()), "{line}");
        seen.push(source.to_owned());
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen, ["claude", "cline", "codex", "copilot", "droid", "gemini", "opencode", "pi", "qwen"]);
}

#[test]
fn resume_says_when_an_agent_has_no_command_and_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join(".continue/sessions");
    copy_dir(&fixture("continue/real-1.5.47/continue-home/sessions"), &sessions);
    let before = snapshot(home.path());
    let output = SessRun::new(home.path(), &["resume", "7ec94f9e"]).output();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("Continue CLI resumes no session by a command"), "{}", stderr(&output));
    assert!(stderr(&output).contains("sess handoff 7ec94f9e --to AGENT"), "{}", stderr(&output));
    assert_eq!(snapshot(home.path()), before);
}

/// A folder with a program `name` that writes where it ran and its
/// arguments to `log`, and exits with `code`.
fn fake_agent(dir: &Path, name: &str, log: &Path, code: i32) {
    let script = format!("#!/bin/sh\npwd > '{}'\necho \"$@\" >> '{}'\nexit {code}\n", log.display(), log.display());
    let path = dir.join(name);
    fs::write(&path, script).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn resume_runs_the_agent_in_the_sessions_directory_and_exits_with_its_code() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    fs::create_dir_all(&work).unwrap();
    copy_dir(&fixture("codex/real-0.171.0/codex-home"), &home.path().join(".codex"));
    let handed =
        json(home.path(), &["handoff", "01a22bd9-19", "--to", "claude", "--cwd", work.to_str().unwrap(), "--json"]);
    let id = handed["id"].as_str().unwrap();
    let bin = home.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let log = home.path().join("ran.txt");
    fake_agent(&bin, "claude", &log, 7);
    let output = SessRun::new(home.path(), &["resume", id]).env("PATH", &bin).output();
    assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
    let ran = fs::read_to_string(&log).unwrap();
    assert_eq!(ran, format!("{}\n--resume {id}\n", work.canonicalize().unwrap().display()));

    // Without the agent on PATH: said, the command printed, exit 1.
    let empty = home.path().join("empty");
    fs::create_dir_all(&empty).unwrap();
    let output = SessRun::new(home.path(), &["resume", id]).env("PATH", &empty).output();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("`claude` is not installed"), "{}", stderr(&output));
    assert_eq!(stdout(&output), format!("cd {} && claude --resume {id}\n", work.display()));
}

#[test]
fn handoff_writes_one_new_session_each_time_and_never_the_original() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    fs::create_dir_all(&work).unwrap();
    copy_dir(&fixture("codex/real-0.171.0/codex-home"), &home.path().join(".codex"));
    let codex = home.path().join(".codex");
    let originals = snapshot(&codex);
    let cwd = work.to_str().unwrap();
    // The Gemini CLI has run in the work folder: it names its folder for it.
    let gemini = home.path().join(".gemini");
    fs::create_dir_all(&gemini).unwrap();
    let projects = serde_json::json!({"projects": {cwd: "work"}});
    fs::write(gemini.join("projects.json"), projects.to_string()).unwrap();
    let registry = fs::read(gemini.join("projects.json")).unwrap();
    for to in ["claude", "codex", "qwen", "gemini", "pi"] {
        let mut paths = Vec::new();
        for _ in 0..2 {
            let output =
                SessRun::new(home.path(), &["handoff", "01a22bd9-19", "--to", to, "--cwd", cwd, "--print"]).output();
            assert!(output.status.success(), "{}", stderr(&output));
            let path = stdout(&output).lines().last().unwrap().to_owned();
            assert!(Path::new(&path).is_file(), "{path}");
            assert!(stderr(&output).contains("resume it with: cd "), "{}", stderr(&output));
            paths.push(path);
        }
        assert_ne!(paths[0], paths[1], "a second handoff is a second session");
        for path in &paths {
            let shown = json(home.path(), &["show", "--json", path]);
            assert_eq!(shown["source"], to);
            assert_eq!(shown["cwd"], cwd);
            // Claude Code, Qwen Code and pi keep the title; a Codex rollout has no place
            // for one (Codex names threads in an index of its own, which a
            // handoff does not write), so its first prompt after the summary is.
            let title = if to == "codex" {
                "Summarize what you did in one line."
            } else {
                "Check the workspace: echo hi, read a file that is missing, then write notes.txt."
            };
            assert_eq!(shown["title"], title, "{to}");
            let text = SessRun::new(home.path(), &["show", path]).output();
            assert!(
                stdout(&text).contains("handed over from Codex session 01a22bd9-19ce-7201-905a-da235f1ce47e"),
                "{}",
                stdout(&text)
            );
        }
    }
    // The Codex home holds the originals as they were, and the two new rollouts.
    let after = snapshot(&codex);
    for (path, bytes) in &originals {
        assert!(after.iter().any(|(p, b)| p == path && b == bytes), "{} changed", path.display());
    }
    assert_eq!(after.len(), originals.len() + 2);
    assert_eq!(fs::read(gemini.join("projects.json")).unwrap(), registry, "the Gemini CLI's projects are its own");
}

#[test]
fn handoff_refuses_what_does_not_apply_and_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    copy_dir(&fixture("codex/real-0.171.0/codex-home"), &home.path().join(".codex"));
    let before = snapshot(home.path());
    let empty = fixture("gemini/real-0.61.0/home/.gemini/tmp/beta/chats/session-2026-12-01T09-18-2e507ed4.jsonl");
    let empty = empty.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["handoff", empty, "--to", "claude", "--cwd", "/tmp"], "has no messages to hand over"),
        (
            &["handoff", "01a22bd9-19", "--to", "gemini", "--print"],
            "the Gemini CLI has not run in `/home/dev/projects/beta`",
        ),
        (&["handoff", "01a22bd9-19", "--to", "goose"], "sessions can be handed to pi, codex, qwen, gemini, claude"),
        (&["handoff", "01a22bd9-19", "--to", "claude", "--leaf", "abc"], "--leaf works on pi-family sessions"),
        (&["--store", "sqlite:x.db", "handoff", "01a22bd9-19", "--to", "pi"], "not those of a store"),
    ];
    for (args, says) in cases {
        let output = SessRun::new(home.path(), args).output();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(says), "{args:?}: {}", stderr(&output));
    }
    assert_eq!(snapshot(home.path()), before);
}

#[test]
fn a_pi_session_is_handed_over_at_a_leaf() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    fs::create_dir_all(&work).unwrap();
    let file = fixture("pi-family/pi-mono-0.73.1-main.jsonl");
    let file = file.to_str().unwrap();
    let tree = json(home.path(), &["tree", "--json", file]);
    // An entry that is not the last: the conversation up to it goes over.
    let leaf = "19238abe";
    assert!(tree.to_string().contains(leaf));
    let at_leaf = json(home.path(), &["show", "--json", "--all", "--leaf", leaf, file]);
    let handed = json(
        home.path(),
        &["handoff", file, "--to", "claude", "--leaf", leaf, "--cwd", work.to_str().unwrap(), "--json"],
    );
    let shown = json(home.path(), &["show", "--json", "--all", handed["path"].as_str().unwrap()]);
    let texts = |v: &Value| -> Vec<String> {
        v["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["blocks"].as_array().unwrap())
            .filter(|b| b["type"] == "text")
            .map(|b| b["text"].as_str().unwrap().to_owned())
            .filter(|t| !t.starts_with("[Handed over by sess"))
            .collect()
    };
    assert_eq!(texts(&shown), texts(&at_leaf));
    assert!(!texts(&at_leaf).is_empty());
}

#[test]
fn a_conversation_larger_than_the_targets_window_goes_whole_with_a_warning() {
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    fs::create_dir_all(&work).unwrap();
    // Hand-written: a Claude Code session whose one answer is 1.2 MB.
    let long = "word ".repeat(240_000);
    let lines = [
        serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "big", "cwd": "/w",
            "timestamp": "2026-12-01T00:00:00.000Z", "message": {"role": "user", "content": "Write a lot."}}),
        serde_json::json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "big", "cwd": "/w",
            "timestamp": "2026-12-01T00:00:01.000Z",
            "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": long}]}}),
    ];
    let file = home.path().join(".claude/projects/-w/big.jsonl");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    fs::write(&file, text.join("\n") + "\n").unwrap();
    let output = SessRun::new(
        home.path(),
        &["handoff", file.to_str().unwrap(), "--to", "codex", "--cwd", work.to_str().unwrap(), "--print"],
    )
    .output();
    assert!(output.status.success(), "{}", stderr(&output));
    let warning = stderr(&output);
    assert!(warning.contains("the conversation is about 300"), "{warning}");
    assert!(warning.contains("`--leaf`"), "{warning}");
    let path = stdout(&output).lines().last().unwrap().to_owned();
    assert!(fs::read_to_string(path).unwrap().contains(&long));
}
