//! Real processes: two `sess append` at once, and `kill -9` in the middle of an
//! append or a migration. Whatever a process acknowledged is in the file, and
//! the file always reads cleanly.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use sess_store::read_session_file;

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn messages(from: usize, count: usize, tag: &str) -> String {
    let mut text = String::new();
    for n in from..from + count {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        writeln!(
            text,
            r#"{{"role":"{role}","content":[{{"type":"text","text":"{tag} {n}"}}],"provider":"p","model":"m"}}"#
        )
        .unwrap();
    }
    text
}

/// Entries of the file, which must read with at most a torn last line.
fn entries(path: &Path) -> Vec<(String, Option<String>)> {
    let outcome = read_session_file(path).unwrap();
    assert!(outcome.issues.iter().all(|i| i.kind == sess_core::IssueKind::TruncatedLastLine), "{:?}", outcome.issues);
    assert!(outcome.file.header().is_some());
    outcome.file.entries().iter().map(|e| (e.id().to_string(), e.parent_id().map(ToString::to_string))).collect()
}

#[test]
fn two_processes_appending_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let path_str = path.to_str().unwrap();
    let mut first = spawn(&["append", path_str]);
    first.stdin.take().unwrap().write_all(messages(0, 2, "seed").as_bytes()).unwrap();
    assert!(first.wait_with_output().unwrap().status.success());

    let mut writers: Vec<Child> = (0..2).map(|_| spawn(&["append", path_str])).collect();
    let inputs: Vec<_> = writers
        .iter_mut()
        .enumerate()
        .map(|(w, child)| {
            let mut stdin = child.stdin.take().unwrap();
            let text = messages(0, 400, &format!("writer {w}"));
            std::thread::spawn(move || stdin.write_all(text.as_bytes()).unwrap())
        })
        .collect();
    for input in inputs {
        input.join().unwrap();
    }
    let outputs: Vec<_> = writers.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    let all = entries(&path);
    assert_eq!(all.len(), 2 + 800);
    for output in outputs {
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let ids: Vec<String> = String::from_utf8(output.stdout).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(ids.len(), 400);
        // Each writer's entries form an unbroken chain.
        for pair in ids.windows(2) {
            let parent = &all.iter().find(|(id, _)| *id == pair[1]).unwrap().1;
            assert_eq!(parent.as_deref(), Some(pair[0].as_str()));
        }
    }
}

/// Many writers, each handing `sess append` its whole input at once: every id
/// a writer printed is in the file, and every parent is there too.
#[test]
fn thirty_two_bulk_writers_lose_no_acknowledged_entry() {
    const WRITERS: usize = 32;
    const LINES: usize = 200;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let path_str = path.to_str().unwrap();
    // Lines of about 300 bytes make each writer's batch span many pages, so a
    // reader can see one half written.
    let padding = "p".repeat(200);
    for round in 0..3 {
        std::fs::remove_file(&path).ok();
        let mut first = spawn(&["append", path_str]);
        first.stdin.take().unwrap().write_all(messages(0, 2, "seed").as_bytes()).unwrap();
        assert!(first.wait_with_output().unwrap().status.success());
        let mut writers: Vec<Child> = (0..WRITERS).map(|_| spawn(&["append", path_str])).collect();
        for (w, child) in writers.iter_mut().enumerate() {
            let text = messages(0, LINES, &format!("writer {w} {padding}"));
            let mut stdin = child.stdin.take().unwrap();
            std::thread::spawn(move || stdin.write_all(text.as_bytes()).unwrap());
        }
        let all = entries(&path_after(writers, &path, round, LINES));
        assert_eq!(all.len(), 2 + WRITERS * LINES, "round {round}");
        let ids: std::collections::HashSet<&str> = all.iter().map(|(id, _)| id.as_str()).collect();
        for (id, parent) in &all {
            if let Some(parent) = parent {
                assert!(ids.contains(parent.as_str()), "round {round}: {id}'s parent {parent} is missing");
            }
        }
    }
}

/// Waits for the writers, checks each printed `lines` ids and that they are
/// in the file, and gives the file back.
fn path_after(writers: Vec<Child>, path: &Path, round: usize, lines: usize) -> std::path::PathBuf {
    let outputs: Vec<_> = writers.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    let in_file: std::collections::HashSet<String> = entries(path).into_iter().map(|(id, _)| id).collect();
    for output in outputs {
        assert!(output.status.success(), "round {round}: {}", String::from_utf8_lossy(&output.stderr));
        let printed: Vec<String> = String::from_utf8(output.stdout).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(printed.len(), lines, "round {round}");
        for id in &printed {
            assert!(in_file.contains(id), "round {round}: acknowledged {id} is missing");
        }
    }
    path.to_owned()
}

#[test]
fn kill_9_during_append_keeps_every_acknowledged_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let path_str = path.to_str().unwrap();
    for round in 0..5 {
        let mut child = spawn(&["append", path_str]);
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let feeder = std::thread::spawn(move || {
            // Keep feeding until the process dies.
            for n in 0.. {
                if stdin.write_all(messages(n, 1, "killed").as_bytes()).is_err() {
                    break;
                }
            }
        });
        let mut acknowledged = Vec::new();
        let mut line = String::new();
        while acknowledged.len() < 50 + round * 37 {
            line.clear();
            stdout.read_line(&mut line).unwrap();
            acknowledged.push(line.trim().to_owned());
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        feeder.join().unwrap();
        let ids: Vec<String> = entries(&path).into_iter().map(|(id, _)| id).collect();
        for id in &acknowledged {
            assert!(ids.contains(id), "round {round}: acknowledged {id} is missing");
        }
    }
    // The next writer repairs whatever the kills left and appends cleanly.
    let mut child = spawn(&["append", path_str]);
    child.stdin.take().unwrap().write_all(messages(0, 1, "after").as_bytes()).unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    let outcome = read_session_file(&path).unwrap();
    assert!(outcome.issues.is_empty(), "{:?}", outcome.issues);
}

#[test]
fn kill_9_during_migrate_leaves_the_old_file_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.jsonl");
    let mut original = String::from(
        "{\"type\":\"session\",\"id\":\"big\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n",
    );
    let body = "x".repeat(2000);
    for n in 0..20_000 {
        writeln!(
            original,
            r#"{{"type":"message","timestamp":"t","message":{{"role":"user","content":"{n} {body}"}}}}"#
        )
        .unwrap();
    }
    let mut outcomes = (0, 0);
    for delay_ms in [0u64, 20, 100, 400, 1000, 1600, 2000, 2300, 2600, 3000] {
        std::fs::write(&path, &original).unwrap();
        let mut child = spawn(&["migrate", path.to_str().unwrap()]);
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        if bytes == original.as_bytes() {
            outcomes.0 += 1;
        } else {
            let outcome = read_session_file(&path).unwrap();
            assert!(outcome.issues.is_empty(), "delay {delay_ms}: {:?}", &outcome.issues[..1]);
            assert_eq!(outcome.migrated_from, None, "delay {delay_ms}: a complete v3 file");
            assert_eq!(outcome.file.entries().len(), 20_000);
            outcomes.1 += 1;
        }
    }
    eprintln!("kills before/after the rename: {outcomes:?}");
    assert!(outcomes.0 > 0, "some kills happened before the rename: {outcomes:?}");
}

/// A tree of `sessions` pi-family files of `entries` messages each.
fn session_tree(root: &Path, sessions: usize, entries: usize) {
    let project = root.join("--work--");
    std::fs::create_dir_all(&project).unwrap();
    for s in 0..sessions {
        let id = format!("0199c000-0000-7000-8000-{s:012}");
        let mut text = format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/work\"}}\n"
        );
        for n in 0..entries {
            let parent = if n == 0 { "null".to_owned() } else { format!("\"{s}-{}\"", n - 1) };
            writeln!(
                text,
                r#"{{"type":"message","id":"{s}-{n}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{s} {n}"}}}}"#
            )
            .unwrap();
        }
        std::fs::write(project.join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl")), &text).unwrap();
    }
}

#[test]
fn kill_9_during_copy_leaves_whole_sessions_and_a_re_run_copies_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("from");
    session_tree(&source, 20, 100);
    let from = format!("dir:{}", source.display());
    let sqlite = |round: usize| format!("sqlite:{}", dir.path().join(format!("to-{round}.db")).display());
    // A kill at any moment; the later ones may come after the copy finished.
    let trials = [(sqlite(0), 40u64), (sqlite(1), 200), (format!("dir:{}", dir.path().join("to").display()), 300)];
    for (to, delay_ms) in trials {
        let mut child = spawn(&["copy", &from, &to]);
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let copy = || Command::new(env!("CARGO_BIN_EXE_sess")).args(["copy", &from, &to]).output().unwrap();
        let again = copy();
        let out = String::from_utf8_lossy(&again.stdout);
        let err = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(0), "{to} after {delay_ms} ms: {out}{err}");
        // Each session was copied in one step: the kill left none of them half there.
        assert!(!out.contains("completed"), "{to} after {delay_ms} ms: {out}");
        // Every session is there with the source's entries, byte for byte.
        let last = copy();
        let out = String::from_utf8_lossy(&last.stdout);
        assert_eq!(last.status.code(), Some(0), "{to}: {out}");
        assert!(out.contains("copied 0 sessions") && out.contains("20 sessions were already there"), "{to}: {out}");
    }
}
