//! Session paths that are not regular files (FIFOs, devices, folders),
//! symbolic links to sessions, and typos in paths and store URLs.
//!
//! Every command runs with a time limit: a regression that blocks on a FIFO
//! fails the test instead of hanging it. No test writes through a path that
//! leads to a device.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{Home, SessRun, fixture};

/// A command that has not finished after this long is taken as hung.
const LIMIT: Duration = Duration::from_secs(5);

/// Address space for a child that reads a device: a reader that never stops
/// fails on memory instead of taking the machine's.
const MEMORY_KB: u64 = 1 << 20;

/// Runs `sess` in `home` (HOME and the working directory) with `args`,
/// `stdin` on its input; kills it and fails the test after [`LIMIT`].
fn run(home: &Path, args: &[&str], stdin: &str) -> Output {
    SessRun::new(home, args).stdin(stdin).memory_kb(MEMORY_KB).time_limit(LIMIT).output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts `output` is a refusal (exit 2) whose message contains `needle`.
#[track_caller]
fn refused(output: &Output, needle: &str) {
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stdout: {}\nstderr: {err}", text(&output.stdout));
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

fn is_fifo(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

const LINE: &str = "{\"role\":\"user\",\"content\":\"hello\",\"timestamp\":1}\n";

/// Every verb that takes a session, with `session` as that argument.
fn verbs_on(session: &str, dir: &Path) -> Vec<(Vec<String>, &'static str)> {
    let target = format!("dir:{}", dir.join("copied").display());
    let words = |list: &[&str]| list.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
    vec![
        (words(&["show", session]), ""),
        (words(&["tree", session]), ""),
        (words(&["context", session]), ""),
        (words(&["verify", session]), ""),
        (words(&["segments", session]), ""),
        (words(&["migrate", session]), ""),
        (words(&["append", session]), LINE),
        (words(&["label", session, "x", "l"]), ""),
        (words(&["rename", session, "T"]), ""),
        (words(&["fork", session, "--at", "x"]), ""),
        (words(&["copy", session, &target]), ""),
    ]
}

#[test]
fn a_fifo_given_as_a_session_is_refused_by_every_verb_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    for (args, stdin) in verbs_on(s(&fifo), dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = run(dir.path(), &args, stdin);
        refused(&output, "is a FIFO (named pipe), not a session file");
        assert!(is_fifo(&fifo), "`sess {}` replaced the FIFO", args.join(" "));
    }
    assert!(!dir.path().join("copied").exists());
}

#[test]
fn a_symlink_to_a_fifo_is_refused_too() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    for args in [vec!["show", s(&link)], vec!["append", s(&link)], vec!["migrate", s(&link)]] {
        let output = run(dir.path(), &args, LINE);
        refused(&output, "is a FIFO (named pipe), not a session file");
    }
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(is_fifo(&fifo));
}

/// Devices are only ever read here: `/dev/null` is empty, `/dev/zero` never
/// ends. Nothing is written through them.
#[test]
fn devices_are_refused_by_the_readers_before_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    for device in ["/dev/zero", "/dev/null"] {
        for verb in ["show", "tree", "context", "verify", "segments"] {
            let output = run(dir.path(), &[verb, device], "");
            refused(&output, &format!("`{device}` is a character device, not a session file"));
        }
    }
}

#[test]
fn a_folder_named_like_a_session_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("x.jsonl");
    fs::create_dir(&folder).unwrap();
    for (args, stdin) in verbs_on(s(&folder), dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = run(dir.path(), &args, stdin);
        refused(&output, "is a directory, not a session file");
        assert!(folder.is_dir());
    }
}

#[test]
fn verify_of_a_folder_without_sessions_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("empty");
    fs::create_dir(&folder).unwrap();
    refused(&run(dir.path(), &["verify", s(&folder)], ""), "holds no session files");
}

/// Puts a FIFO named like a session in each agent's sessions folder of `home`.
fn fifos_in(home: &Home) -> Vec<PathBuf> {
    let fifos = vec![
        home.path().join(".pi/agent/sessions/--home-dev-demo-project--/pipe.jsonl"),
        home.path().join(".claude/projects/-home-alice-src-todo-api/0badf1f0-0000-4000-8000-000000000000.jsonl"),
        home.path()
            .join(".codex/sessions/2026/08/20/rollout-2026-08-20T11-00-00-0199c3a1-0000-7000-8000-00000000f1f0.jsonl"),
    ];
    for fifo in &fifos {
        mkfifo(fifo);
    }
    fifos
}

#[test]
fn discovery_skips_fifos_with_one_warning_each() {
    let home = Home::new();
    let fifos = fifos_in(&home);
    let catalog = home.path().join("catalog.sqlite");
    let runs: Vec<Vec<&str>> = vec![
        vec!["list", "--all-projects"],
        vec!["list", "--source", "all", "--cwd", "/home/dev/demo-project"],
        vec!["index", "--catalog", s(&catalog)],
        vec!["search", "--catalog", s(&catalog), "uptime"],
        vec!["show", common::CLAUDE_BASIC],
    ];
    for args in runs {
        let output = run(home.path(), &args, "");
        let err = text(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "`sess {}`: {err}", args.join(" "));
        for fifo in &fifos {
            let needle = format!("`{}` is a FIFO (named pipe), not a session file", fifo.display());
            assert_eq!(err.matches(&needle).count(), 1, "`sess {}`, {}: {err}", args.join(" "), fifo.display());
        }
    }
    for fifo in &fifos {
        assert!(is_fifo(fifo));
    }
}

#[test]
fn a_dir_store_with_a_fifo_lists_and_copies_its_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    fs::create_dir_all(root.join("--p--")).unwrap();
    fs::copy(fixture("pi-family/pi-mono-0.73.1-main.jsonl"), root.join("--p--/main.jsonl")).unwrap();
    mkfifo(&root.join("--p--/pipe.jsonl"));
    let url = format!("dir:{}", root.display());
    let warning =
        format!("`{}` is a FIFO (named pipe), not a session file; skipped", root.join("--p--/pipe.jsonl").display());
    let listed = run(dir.path(), &["--store", &url, "list", "--json"], "");
    assert_eq!(listed.status.code(), Some(0), "{}", text(&listed.stderr));
    assert_eq!(text(&listed.stderr).matches(&warning).count(), 1, "{}", text(&listed.stderr));
    let sessions: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(sessions.as_array().unwrap().len(), 1);
    let db = dir.path().join("copy.db");
    let copied = run(dir.path(), &["copy", &url, &format!("sqlite:{}", db.display())], "");
    assert_eq!(copied.status.code(), Some(0), "{}", text(&copied.stderr));
    assert!(text(&copied.stdout).starts_with("copied 1 sessions"), "{}", text(&copied.stdout));
    assert_eq!(text(&copied.stderr).matches(&warning).count(), 1, "{}", text(&copied.stderr));
}

#[test]
fn serve_starts_and_answers_with_fifos_in_the_sessions_folders() {
    let home = Home::new();
    fifos_in(&home);
    let catalog = home.path().join("catalog.sqlite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(["serve", "--port", "0", "--catalog", s(&catalog)])
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, first_line) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line);
        let _ = send.send(line);
    });
    let line = first_line.recv_timeout(LIMIT);
    let answer = line.as_ref().ok().map(|line| {
        let port: u16 =
            line.rsplit(':').next().unwrap().trim_end_matches(|c: char| !c.is_ascii_digit()).parse().unwrap();
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        let request = format!("GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        response
    });
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("`sess serve` did not start");
    assert!(line.starts_with("5 sessions; serving"), "{line}");
    let answer = answer.unwrap_or_default();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[test]
fn writes_through_a_symlink_keep_the_link_and_change_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("real");
    fs::create_dir(&sessions).unwrap();
    let target = sessions.join("v1.jsonl");
    fs::copy(fixture("legacy/v1-basic.jsonl"), &target).unwrap();
    let link = dir.path().join("link.jsonl");
    // A relative link, resolved from the link's folder.
    std::os::unix::fs::symlink("real/v1.jsonl", &link).unwrap();

    let migrated = run(dir.path(), &["migrate", s(&link)], "");
    assert_eq!(migrated.status.code(), Some(0), "{}", text(&migrated.stderr));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "migrate replaced the link");
    let migrated = fs::read_to_string(&target).unwrap();
    assert!(migrated.lines().next().unwrap().contains("\"version\":3"), "{migrated}");

    let renamed = run(dir.path(), &["rename", s(&link), "Through the link"], "");
    assert_eq!(renamed.status.code(), Some(0), "{}", text(&renamed.stderr));
    let appended = run(dir.path(), &["append", s(&link)], LINE);
    assert_eq!(appended.status.code(), Some(0), "{}", text(&appended.stderr));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "a write replaced the link");
    let text = fs::read_to_string(&target).unwrap();
    assert!(text.contains("Through the link"), "{text}");
    assert!(text.ends_with(&format!("{}\n", text.lines().last().unwrap())));
    assert!(text.lines().last().unwrap().contains("\"hello\""), "{text}");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "nothing else beside the link: {names:?}");
}

#[test]
fn a_dir_store_that_does_not_exist_is_an_error_for_readers() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let url = format!("dir:{}", missing.display());
    refused(&run(dir.path(), &["--store", &url, "list"], ""), "does not exist");
    refused(&run(dir.path(), &["--store", &url, "show", "abc"], ""), "does not exist");
    let db = dir.path().join("to.db");
    let copied = run(dir.path(), &["copy", &url, &format!("sqlite:{}", db.display())], "");
    refused(&copied, "does not exist");
    assert!(!text(&copied.stdout).contains("copied"), "{}", text(&copied.stdout));
    assert!(!missing.exists());

    let file = dir.path().join("file");
    fs::write(&file, "").unwrap();
    let url = format!("dir:{}", file.display());
    refused(&run(dir.path(), &["--store", &url, "list"], ""), "is a regular file, not a directory");
}

#[test]
fn copy_makes_its_target_store() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("main.jsonl");
    fs::copy(fixture("pi-family/pi-mono-0.73.1-main.jsonl"), &session).unwrap();
    let target = dir.path().join("new-store");
    let copied = run(dir.path(), &["copy", s(&session), &format!("dir:{}", target.display())], "");
    assert_eq!(copied.status.code(), Some(0), "{}", text(&copied.stderr));
    assert!(target.is_dir());
}

#[test]
fn an_sqlite_store_that_is_a_device_or_missing_is_refused_before_sqlite_opens_it() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Path::new("/dev/zero-journal");
    let journal_before = journal.exists();
    let output = run(dir.path(), &["--store", "sqlite:/dev/zero", "list"], "");
    let journal_made = !journal_before && journal.exists();
    if journal_made {
        // Only a failing run gets here; leave /dev as it was.
        let _ = fs::remove_file(journal);
    }
    refused(&output, "`/dev/zero` is a character device, not a session file");
    assert!(!journal_made, "SQLite made /dev/zero-journal");

    let missing = dir.path().join("missing.db");
    refused(&run(dir.path(), &["--store", &format!("sqlite:{}", missing.display()), "list"], ""), "does not exist");
    assert!(!missing.exists());
}

#[test]
fn a_catalog_in_a_folder_that_does_not_exist_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("no/such/folder/c.db");
    for verb in [vec!["index"], vec!["search", "x"]] {
        let mut args = verb.clone();
        args.extend(["--catalog", s(&catalog)]);
        refused(
            &run(dir.path(), &args, ""),
            &format!("the folder `{}` does not exist", dir.path().join("no/such/folder").display()),
        );
    }
    assert!(!dir.path().join("no").exists());
}

#[test]
fn append_to_a_file_in_a_folder_that_does_not_exist_makes_no_folders() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("no/such/x.jsonl");
    let output = run(dir.path(), &["append", s(&session)], LINE);
    refused(&output, &format!("the folder `{}` does not exist", dir.path().join("no/such").display()));
    assert!(!dir.path().join("no").exists());
    // A new file in a folder that exists is still a new session.
    let session = dir.path().join("x.jsonl");
    let output = run(dir.path(), &["append", s(&session)], LINE);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(session.is_file());
}

#[test]
fn a_damaged_session_behind_a_symlink_is_moved_aside_at_its_target_and_the_link_kept() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/s.jsonl");
    // A pi-family session whose header line was cut.
    let main = fs::read_to_string(fixture("pi-family/pi-mono-0.73.1-main.jsonl")).unwrap();
    let damaged = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"x\n{}",
        main.split_inclusive('\n').skip(1).take(2).collect::<String>()
    );
    fs::write(&target, &damaged).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink("real/s.jsonl", &link).unwrap();

    let output = run(dir.path(), &["append", s(&link)], LINE);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    let mut beside_link: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    beside_link.sort();
    assert_eq!(beside_link, ["link.jsonl", "real"]);
    let moved: Vec<PathBuf> = fs::read_dir(dir.path().join("real"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(moved.len(), 1, "the damaged bytes are kept beside the target");
    assert_eq!(fs::read_to_string(&moved[0]).unwrap(), damaged);
    let new = fs::read_to_string(&target).unwrap();
    assert!(new.lines().next().unwrap().contains("\"type\":\"session\""), "{new}");
    assert!(new.lines().last().unwrap().contains("\"hello\""), "{new}");
}
