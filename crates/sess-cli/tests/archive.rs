//! `sess archive` and `sess restore`, and the read verbs on an archive, on
//! copies of the files the real agents wrote: every session survives its
//! agent deleting it, comes back byte for byte, and a file that grows, is
//! rewritten, or is archived by a process killed half-way loses and
//! duplicates nothing. With `SESS_TEST_PG_URL`, two homes archive into one
//! PostgreSQL schema at once as two machines, and it is searched there.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods, clippy::print_stderr)] // A panic is how a test fails; tests write their inputs.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{AGENTS, agents_home, copy_dir, fixture, json_out, pg_schema};

/// Every file under `dir`, by path.
fn files_under(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().unwrap().is_dir() {
                files.extend(files_under(&entry.path()));
            } else {
                files.insert(entry.path(), fs::read(entry.path()).unwrap());
            }
        }
    }
    files
}

fn command(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
    command
        .args(args)
        .env("HOME", home)
        .env("HOSTNAME", "test-host")
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in ["XDG_DATA_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "NO_COLOR"]
    {
        command.env_remove(var);
    }
    command
}

fn run(home: &Path, args: &[&str]) -> Output {
    command(home, args).output().unwrap()
}

fn ok(home: &Path, args: &[&str]) -> String {
    let output = run(home, args);
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn json(home: &Path, args: &[&str]) -> Value {
    serde_json::from_str(&ok(home, args)).unwrap()
}

fn archive_url(home: &Path) -> String {
    format!("sqlite:{}", home.join(".local/share/sess/archive.sqlite").display())
}

/// The archive's listing: id → (source, original).
fn archived(home: &Path, store: &str, extra: &[&str]) -> BTreeMap<String, (String, String)> {
    let mut args = vec!["--store", store, "list", "--json"];
    args.extend_from_slice(extra);
    json(home, &args)
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = s["id"].as_str().unwrap().to_owned();
            (id, (s["source"].as_str().unwrap().to_owned(), s["original"].as_str().unwrap().to_owned()))
        })
        .collect()
}

/// A transcript without the file path it was read from (an archived one is
/// read from a private copy).
fn transcript(home: &Path, args: &[&str]) -> Value {
    let mut value = json(home, args);
    value.as_object_mut().unwrap().remove("path");
    value
}

#[test]
fn every_agents_sessions_survive_their_deletion_and_come_back_byte_for_byte() {
    let home = agents_home();
    let home = home.path();
    let store = archive_url(home);
    let listed = json(home, &["list", "--all-projects", "--json"]);
    let ids: Vec<String> = listed.as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect();
    assert!(ids.len() >= 25, "{}", ids.len());
    let sources: std::collections::BTreeSet<&str> =
        listed.as_array().unwrap().iter().map(|s| s["source"].as_str().unwrap()).collect();
    assert_eq!(sources.len(), 7, "{sources:?}");
    let before: BTreeMap<PathBuf, Vec<u8>> = [".claude", ".codex", ".qwen", ".gemini", ".copilot", ".pi"]
        .iter()
        .flat_map(|folder| files_under(&home.join(folder)))
        .collect();
    let shown: BTreeMap<&String, Value> =
        ids.iter().map(|id| (id, transcript(home, &["show", "--all", "--json", id]))).collect();

    let report = json(home, &["archive", "--json"]);
    assert_eq!(report["added"], ids.len(), "{report}");
    assert_eq!(report["failed"], serde_json::json!([]), "{report}");
    let again = json(home, &["archive", "--json"]);
    assert_eq!((again["unchanged"].as_u64(), again["filesStored"].as_u64()), (Some(ids.len() as u64), Some(0)));
    let archive = archived(home, &store, &[]);
    assert_eq!(archive.len(), ids.len());
    assert!(archive.values().all(|(_, original)| original == "present"));

    // The agents delete everything.
    for (folder, _) in AGENTS {
        fs::remove_dir_all(home.join(folder)).unwrap();
    }
    fs::remove_dir_all(home.join(".pi")).unwrap();
    let report = json(home, &["archive", "--json"]);
    assert_eq!(
        (report["newlyGone"].as_u64(), report["keptGone"].as_u64()),
        (Some(ids.len() as u64), Some(ids.len() as u64))
    );
    let text = ok(home, &["archive"]);
    assert!(text.contains(&format!("{} sessions the agents no longer have are kept", ids.len())), "{text}");
    assert!(archived(home, &store, &[]).values().all(|(_, original)| original == "deleted"));

    // pi-family sessions are entries in the store too: the store's verbs work.
    let segments = json(home, &["--store", &store, "segments", "--json", "01a22b45-5c27-7725-b56f-8270ebb2b80e"]);
    assert!(!segments.as_array().unwrap().is_empty(), "{segments}");

    // Every session reads as it did, from the archive.
    for (id, want) in &shown {
        assert_eq!(&transcript(home, &["--store", &store, "show", "--all", "--json", id]), want, "{id}");
    }
    // Search without --store includes the default archive's deleted sessions.
    let hits = json(home, &["search", "--all-projects", "--json", "subagent counted"]);
    assert!(hits.as_array().unwrap().iter().any(|h| h["id"] == "d0320bc2-9f9f-4dd3-b19b-6e52d18059d0"), "{hits}");
    let hits = json(home, &["--store", &store, "search", "--json", "subagent counted"]);
    assert!(!hits.as_array().unwrap().is_empty());

    // Restored where they were: every file as it was.
    for (id, (source, _)) in &archived(home, &store, &[]) {
        if source == "opencode" {
            let refused = run(home, &["restore", id]);
            assert_eq!(refused.status.code(), Some(2));
            assert!(String::from_utf8_lossy(&refused.stderr).contains("restore it with --to DIR"));
            let to = home.join("restored-db");
            let done = json(home, &["restore", "--json", "--to", to.to_str().unwrap(), id]);
            assert!(Path::new(done["files"][0]["path"].as_str().unwrap()).is_file());
            continue;
        }
        let done = json(home, &["restore", "--json", id]);
        for file in done["files"].as_array().unwrap() {
            let path = PathBuf::from(file["path"].as_str().unwrap());
            assert_eq!(fs::read(&path).unwrap(), before[&path], "{}", path.display());
        }
    }
    let session_files: Vec<&PathBuf> = before
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && !p.ends_with("session_index.jsonl"))
        .collect();
    for path in session_files {
        assert!(path.exists(), "not restored: {}", path.display());
    }
    let claude =
        home.join(".claude/projects/-tmp-sess-claude-code-x-app---/d0320bc2-9f9f-4dd3-b19b-6e52d18059d0.jsonl");
    assert_eq!(
        transcript(home, &["show", "--all", "--json", "d0320bc2"]),
        shown[&"d0320bc2-9f9f-4dd3-b19b-6e52d18059d0".to_owned()]
    );

    // Again: nothing to write. Over another file: refused, nothing written.
    let again = json(home, &["restore", "--json", "d0320bc2"]);
    assert!(again["files"].as_array().unwrap().iter().all(|f| f["unchanged"] == true));
    fs::write(&claude, b"{}\n").unwrap();
    let refused = run(home, &["restore", "d0320bc2"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("exists and differs"));
    assert_eq!(fs::read(&claude).unwrap(), b"{}\n");
}

fn claude_session(home: &Path, name: &str) -> PathBuf {
    let path = home.join(format!(".claude/projects/-work/{name}.jsonl"));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut bytes = fs::read(fixture("claude-code/claude-basic-toolcall.jsonl")).unwrap();
    if bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    fs::write(&path, bytes).unwrap();
    path
}

fn restored_bytes(home: &Path, store: &str, id: &str) -> Vec<u8> {
    let to = tempfile::tempdir().unwrap();
    let done = json(home, &["--store", store, "restore", "--json", "--to", to.path().to_str().unwrap(), id]);
    fs::read(done["files"][0]["path"].as_str().unwrap()).unwrap()
}

#[test]
fn a_grown_file_stores_its_new_lines_and_a_rewritten_one_a_new_version() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let store = archive_url(home);
    let id = "8d4e1f2a-0000-4000-8000-000000000001";
    let path = claude_session(home, id);
    ok(home, &["archive"]);
    let original = fs::read(&path).unwrap();

    // Lines added, the last one still being written.
    let line = b"{\"type\":\"user\",\"uuid\":\"n1\",\"message\":{\"role\":\"user\",\"content\":\"more\"}}\n";
    let torn = b"{\"type\":\"us";
    let mut grown = original.clone();
    grown.extend_from_slice(line);
    grown.extend_from_slice(torn);
    fs::write(&path, &grown).unwrap();
    let report = json(home, &["archive", "--json"]);
    let stored = (report["updated"].as_u64(), report["bytesStored"].as_u64());
    assert_eq!(stored, (Some(1), Some(line.len() as u64)), "{report}");
    assert_eq!(restored_bytes(home, &store, id), grown);

    // The line finished.
    grown.extend_from_slice(b"er\"}\n");
    fs::write(&path, &grown).unwrap();
    let report = json(home, &["archive", "--json"]);
    assert_eq!(report["bytesStored"].as_u64(), Some(torn.len() as u64 + 5), "{report}");
    assert_eq!(restored_bytes(home, &store, id), grown);

    // Rewritten in place, shorter: a new version, stored whole; the old one
    // is kept.
    fs::write(&path, &original[..original.len() / 2]).unwrap();
    let report = json(home, &["archive", "--json"]);
    assert_eq!(report["updated"].as_u64(), Some(1), "{report}");
    assert_eq!(restored_bytes(home, &store, id), &original[..original.len() / 2]);
    let to = tempfile::tempdir().unwrap();
    let done = json(home, &["restore", "--json", "--version", "1", "--to", to.path().to_str().unwrap(), id]);
    assert_eq!(fs::read(done["files"][0]["path"].as_str().unwrap()).unwrap(), grown);
    let missing = run(home, &["restore", "--version", "3", "--to", to.path().to_str().unwrap(), id]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("has no version 3 in the archive (it keeps 1, 2)"));
}

/// `bytes` with the letter at about the middle in the other case.
fn changed_in_the_middle(bytes: &[u8]) -> Vec<u8> {
    let mut changed = bytes.to_vec();
    let at = (bytes.len() / 2..bytes.len()).find(|&i| bytes[i].is_ascii_alphabetic()).unwrap();
    changed[at] ^= 0x20;
    changed
}

/// Writes `bytes` to `path` with a modification time `seconds` later than
/// its last.
fn rewrite(path: &Path, bytes: &[u8], seconds: u64) {
    let mtime = fs::metadata(path).unwrap().modified().unwrap() + Duration::from_secs(seconds);
    fs::write(path, bytes).unwrap();
    fs::File::options().write(true).open(path).unwrap().set_modified(mtime).unwrap();
}

// Issue 26, item 2: a file rewritten in place to the same size was reported
// `updated` while the archive kept its old bytes, and a change in the middle
// with lines appended was stored as the appended lines only (restore gave a
// file that never existed: the old middle, the new tail).
#[test]
fn a_file_rewritten_in_place_is_archived_as_a_new_version() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let store = archive_url(home);
    let id = "8d4e1f2a-0000-4000-8000-000000000003";
    let path = claude_session(home, id);
    ok(home, &["archive"]);
    let original = fs::read(&path).unwrap();
    assert!(original.len() > 3 * 4096, "the change must be past the probes: {}", original.len());

    let same_size = changed_in_the_middle(&original);
    rewrite(&path, &same_size, 10);
    let report = json(home, &["archive", "--json"]);
    assert_eq!(report["updated"].as_u64(), Some(1), "{report}");
    assert_eq!(restored_bytes(home, &store, id), same_size);

    let mut grown = changed_in_the_middle(&same_size);
    grown.extend_from_slice(b"{\"type\":\"summary\",\"summary\":\"more\"}\n");
    rewrite(&path, &grown, 20);
    json(home, &["archive", "--json"]);
    assert_eq!(restored_bytes(home, &store, id), grown);
    let to = tempfile::tempdir().unwrap();
    let first = json(home, &["restore", "--json", "--version", "1", "--to", to.path().to_str().unwrap(), id]);
    assert_eq!(fs::read(first["files"][0]["path"].as_str().unwrap()).unwrap(), original);
}

// Issue 26, item 11: a symbolic link loop named like a pi session was
// skipped in silence (exit 0), though README says a file that could not be
// read is exit 1.
#[test]
fn a_link_loop_among_the_sessions_is_a_file_that_could_not_be_read() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    claude_session(home, "8d4e1f2a-0000-4000-8000-000000000007");
    let folder = home.join(".pi/agent/sessions/--work--");
    fs::create_dir_all(&folder).unwrap();
    let name = "2026-01-01T00-00-00-000Z_0199a000-0000-7000-8000-000000000001.jsonl";
    std::os::unix::fs::symlink(name, folder.join(name)).unwrap();
    let output = run(home, &["archive", "--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(name) && stderr.contains("symbolic links"), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["added"], 1, "{report}");
}

// Issue 26, item 11: a symbolic link loop where an agent keeps a project
// folder (Claude Code's `projects/<slug>`, pi's `sessions/<folder>`, a Codex
// date folder, a Gemini project, a Copilot session folder) was left out in
// silence: `sess archive` exited 0 and `sess list` said nothing.
#[test]
fn a_link_loop_as_a_project_folder_is_a_folder_that_could_not_be_read() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    claude_session(home, "8d4e1f2a-0000-4000-8000-000000000007");
    let loops = [
        ".claude/projects/-loop",
        ".pi/agent/sessions/--loop--",
        ".codex/sessions/2026/01/01",
        ".gemini/tmp/loop",
        ".copilot/session-state/0199a000-0000-7000-8000-00000000000c",
    ];
    for name in loops {
        let link = home.join(name);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(link.file_name().unwrap(), &link).unwrap();
    }
    let output = run(home, &["archive", "--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    for name in loops {
        assert!(stderr.contains(name), "{name} not named: {stderr}");
    }
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["added"], 1, "{report}");
    let listed = run(home, &["list", "--all-projects"]);
    let warnings = String::from_utf8_lossy(&listed.stderr);
    assert_eq!(listed.status.code(), Some(0), "{warnings}");
    for name in loops {
        let warned = format!("{name}` is a symbolic link to no file");
        assert!(warnings.contains(&warned), "{name} not named by sess list: {warnings}");
    }
}

// Issue 26, item 11: a symbolic link loop as a session's companion (a
// Claude Code subagent's transcript) was left out of the session in silence,
// and `sess archive` exited 0.
#[test]
fn a_link_loop_as_a_companion_is_a_file_that_could_not_be_read() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let main = claude_session(home, "8d4e1f2a-0000-4000-8000-000000000007");
    let subagents = main.with_extension("").join("subagents");
    fs::create_dir_all(&subagents).unwrap();
    fs::write(subagents.join("agent-a1.jsonl"), "{}\n").unwrap();
    std::os::unix::fs::symlink("agent-b2.jsonl", subagents.join("agent-b2.jsonl")).unwrap();
    let output = run(home, &["archive", "--json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("subagents/agent-b2.jsonl"), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["added"], 1, "{report}");
}

// Issue 26, item 11: `restore ''` took the empty id as a prefix of every
// session (and restored the one session there was).
#[test]
fn restore_of_an_empty_id_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let id = "8d4e1f2a-0000-4000-8000-000000000004";
    let path = claude_session(home, id);
    ok(home, &["archive"]);
    fs::remove_file(&path).unwrap();
    for empty in ["", " "] {
        let refused = run(home, &["restore", empty]);
        assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stdout));
        assert!(String::from_utf8_lossy(&refused.stderr).contains("the session id is empty"));
        assert!(!path.exists(), "restored");
    }
}

// Issue 26, item 5: a dangling link where restore writes a file was
// followed, and the file written where it pointed.
#[test]
fn restore_writes_no_file_through_a_link() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let id = "8d4e1f2a-0000-4000-8000-000000000005";
    let path = claude_session(home, id);
    ok(home, &["archive"]);
    fs::remove_file(&path).unwrap();
    let elsewhere = home.join("elsewhere.jsonl");
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    let refused = run(home, &["restore", id]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is a symbolic link"), "{refused:?}");
    assert!(!elsewhere.exists(), "written through the link");
}

/// A Claude Code line of the user's words.
fn user_line(n: usize, words: &str) -> String {
    format!(
        "{{\"type\":\"user\",\"uuid\":\"u{n}\",\"parentUuid\":\"u{}\",\"message\":{{\"role\":\"user\",\"content\":\"{words}\"}}}}\n",
        n.saturating_sub(1)
    )
}

/// The bytes of the archive's files (the database and its log).
fn archive_bytes(home: &Path) -> u64 {
    let folder = home.join(".local/share/sess");
    ["archive.sqlite", "archive.sqlite-wal"]
        .iter()
        .map(|name| fs::metadata(folder.join(name)).map_or(0, |m| m.len()))
        .sum()
}

// Issue 26, item 9: a line appended to a large session rebuilt the session's
// text index (57 runs over a 15 MB session left a 150 MB archive): the work
// and the archive's growth must be those of the line.
#[test]
fn a_line_appended_to_a_large_session_adds_only_that_line() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let id = "8d4e1f2a-0000-4000-8000-000000000006";
    let path = claude_session(home, id);
    let filler = "lorem ipsum dolor sit amet consectetur ".repeat(12);
    let text: String = (1..4_000).map(|n| user_line(n, &format!("word{n} {filler}"))).collect();
    fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(text.as_bytes()).unwrap();
    ok(home, &["archive"]);
    let before = archive_bytes(home);
    for n in 0..5 {
        let line = user_line(5_000 + n, &format!("appended{n} wombat"));
        fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(line.as_bytes()).unwrap();
        let report = json(home, &["archive", "--json"]);
        assert_eq!((report["updated"].as_u64(), report["bytesStored"].as_u64()), (Some(1), Some(line.len() as u64)));
    }
    let grew = archive_bytes(home) - before;
    assert!(grew < 512 * 1024, "five lines grew the archive by {grew} bytes (the session has {} bytes)", text.len());
    let store = archive_url(home);
    assert_eq!(restored_bytes(home, &store, id), fs::read(&path).unwrap());
    // The text of the new lines and of the old ones is searched.
    for word in ["appended4", "word17"] {
        let hits = json(home, &["--store", &store, "search", "--json", word]);
        assert_eq!(hits.as_array().map(Vec::len), Some(1), "{word}: {hits}");
    }
    let listed = json(home, &["--store", &store, "list", "--json"]);
    let count = listed[0]["messageCount"].as_u64().or_else(|| listed[0]["messages"].as_u64());
    assert!(count.is_some_and(|c| c >= 4_000), "{}", listed[0]);
}

#[test]
fn an_archive_killed_at_any_point_and_run_again_loses_and_duplicates_nothing() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let store = archive_url(home);
    let big = fixture(
        "claude-code/real-2.1.332/claude-config/projects/-tmp-sess-claude-code-x-demo-app-v2/71f8a678-1406-4c5a-95db-a506ea6e61c4.jsonl",
    );
    let folder = home.join(".claude/projects/-work");
    fs::create_dir_all(&folder).unwrap();
    let ids: Vec<String> = (0..300).map(|i| format!("00000000-0000-4000-8000-{i:012}")).collect();
    for id in &ids {
        fs::copy(&big, folder.join(format!("{id}.jsonl"))).unwrap();
    }
    let bytes = fs::read(&big).unwrap();
    // Kill it at several points, one of them random (printed); grow some
    // files between the runs.
    let random =
        u64::from(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() % 600);
    eprintln!("killed after 40, 150, 400 and {random} ms");
    for (round, delay) in [40u64, 150, 400, random].into_iter().enumerate() {
        let mut child = command(home, &["archive"]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap();
        child.wait().unwrap();
        let grown = folder.join(format!("{}.jsonl", ids[round * 7]));
        let mut file = fs::OpenOptions::new().append(true).open(grown).unwrap();
        std::io::Write::write_all(&mut file, b"{\"type\":\"summary\",\"summary\":\"more\"}\n").unwrap();
    }
    let report = json(home, &["archive", "--json"]);
    assert_eq!(report["raced"], 0, "{report}");
    let listed = archived(home, &store, &[]);
    assert_eq!(listed.len(), ids.len());
    for (i, id) in ids.iter().enumerate().step_by(23) {
        assert_eq!(restored_bytes(home, &store, id), fs::read(folder.join(format!("{id}.jsonl"))).unwrap(), "{i}");
    }
    for round in 0..4 {
        let id = &ids[round * 7];
        let mut want = bytes.clone();
        want.extend_from_slice(b"{\"type\":\"summary\",\"summary\":\"more\"}\n");
        assert_eq!(restored_bytes(home, &store, id), want, "{id}");
    }
    let again = json(home, &["archive", "--json"]);
    assert_eq!(again["unchanged"], ids.len(), "{again}");
}

#[test]
fn watch_archives_a_change_within_seconds() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let store = archive_url(home);
    let id = "8d4e1f2a-0000-4000-8000-000000000002";
    let path = claude_session(home, id);
    let mut child = command(home, &["archive", "--watch"]).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !home.join(".local/share/sess/archive.sqlite").exists() || archived(home, &store, &[]).is_empty() {
        assert!(Instant::now() < deadline, "the first run did not finish");
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(&mut file, b"{\"type\":\"summary\",\"summary\":\"watched\"}\n").unwrap();
    let want = fs::read(&path).unwrap();
    let archived_it = loop {
        if restored_bytes(home, &store, id) == want {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(archived_it, "not archived: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn two_machines_archive_into_one_postgres_schema_at_once() {
    let Some(schema) = pg_schema("two_machines_archive_into_one_postgres_schema_at_once") else { return };
    let url = schema.url.clone();
    let homes: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (alpha, beta) = (homes[0].path(), homes[1].path());
    copy_dir(&fixture("claude-code/real-2.1.332/claude-config"), &alpha.join(".claude"));
    copy_dir(&fixture("codex/real-0.171.0/codex-home"), &beta.join(".codex"));
    copy_dir(&fixture("qwen-code/real-0.24.4/qwen-home"), &beta.join(".qwen"));
    for (home, name) in [(alpha, "alpha"), (beta, "beta")] {
        let data = home.join(".local/share/sess");
        fs::create_dir_all(&data).unwrap();
        fs::write(
            data.join("machine.json"),
            format!("{{\"id\":\"{name}-{}\",\"name\":\"{name}\"}}", uuid::Uuid::new_v4()),
        )
        .unwrap();
    }
    let count = |home: &Path| json_out(&run(home, &["list", "--all-projects", "--json"])).as_array().unwrap().len();
    let (in_alpha, in_beta) = (count(alpha), count(beta));
    // Two processes per machine, all at once.
    let children: Vec<_> = [alpha, beta, alpha, beta]
        .iter()
        .map(|home| command(home, &["--store", &url, "archive", "--json"]).spawn().unwrap())
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let of_alpha = archived(alpha, &url, &["--machine", "alpha"]);
    let of_beta = archived(alpha, &url, &["--machine", "beta"]);
    assert_eq!((of_alpha.len(), of_beta.len()), (in_alpha, in_beta));
    assert!(of_alpha.values().all(|(source, _)| source == "claude"));
    let listed = json(beta, &["--store", &url, "list", "--json"]);
    assert!(listed.as_array().unwrap().iter().all(|s| s["machine"] == "alpha" || s["machine"] == "beta"));

    // No line twice: each file comes back as it is.
    for (home, sessions) in [(alpha, &of_alpha), (beta, &of_beta)] {
        for id in sessions.keys() {
            let to = tempfile::tempdir().unwrap();
            let done = json(home, &["--store", &url, "restore", "--json", "--to", to.path().to_str().unwrap(), id]);
            for file in done["files"].as_array().unwrap() {
                let restored = fs::read(file["path"].as_str().unwrap()).unwrap();
                let name = Path::new(file["path"].as_str().unwrap()).file_name().unwrap().to_owned();
                let original = files_under(home).into_iter().find(|(p, _)| p.file_name() == Some(&name)).unwrap();
                assert_eq!(restored, original.1, "{id}");
            }
        }
    }

    // Searched in PostgreSQL, across machines and by machine.
    let hits = json(beta, &["--store", &url, "search", "--json", "subagent counted"]);
    assert!(hits.as_array().unwrap().iter().any(|h| h["id"] == "d0320bc2-9f9f-4dd3-b19b-6e52d18059d0"), "{hits}");
    let hits = json(beta, &["--store", &url, "search", "--json", "--machine", "beta", "subagent counted"]);
    assert!(hits.as_array().unwrap().iter().all(|h| h["id"] != "d0320bc2-9f9f-4dd3-b19b-6e52d18059d0"), "{hits}");

    // alpha's agent deletes its sessions: marked, still readable from beta.
    fs::remove_dir_all(alpha.join(".claude")).unwrap();
    ok(alpha, &["--store", &url, "archive"]);
    assert!(archived(beta, &url, &["--machine", "alpha"]).values().all(|(_, original)| original == "deleted"));
    assert!(archived(beta, &url, &["--machine", "beta"]).values().all(|(_, original)| original == "present"));
    let shown = ok(beta, &["--store", &url, "show", "d0320bc2"]);
    assert!(shown.contains("The subagent counted 2 files."), "{shown}");
}
