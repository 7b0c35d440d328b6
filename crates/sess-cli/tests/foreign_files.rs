//! Writing verbs on another agent's session file: refused, the file left as
//! it is, nothing moved aside.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{SessRun, fixture, stderr};

/// Real files of every other agent from `fixtures/`, with the agent's name as
/// `sess` gives it.
const FOREIGN: &[(&str, &str)] = &[
    ("claude-code/claude-basic-toolcall.jsonl", "Claude Code"),
    ("claude-code/claude-compact-branch.jsonl", "Claude Code"),
    (
        "claude-code/real-2.1.332/claude-config/projects/-tmp-sess-claude-code-x-app---/8b6d40a5-430e-448a-b2d4-e0292f81d519.jsonl",
        "Claude Code",
    ),
    ("codex/codex-basic-rollout.jsonl", "Codex"),
    ("codex/codex-fork-rollback-compact.jsonl", "Codex"),
    (
        "codex/real-0.171.0/codex-home/sessions/2026/11/30/rollout-2026-11-30T09-46-18-01a22bd9-1dad-7982-8c13-8e5f854e52d0.jsonl",
        "Codex",
    ),
    ("gemini/real-0.61.0/home/.gemini/tmp/beta/chats/session-2026-12-01T09-18-2e507ed4.jsonl", "Gemini CLI"),
    (
        "qwen-code/real-0.24.4/qwen-home/projects/-home-dev-projects-beta/chats/8c62ed46-8a29-4c30-a69b-884388bce638.jsonl",
        "Qwen Code",
    ),
    (
        "copilot/real-1.0.102/copilot-home/session-state/16729d8b-29e4-456c-84c4-852e4d5a9056/events.jsonl",
        "Copilot CLI",
    ),
    ("opencode/real-1.18.33/opencode.db", "OpenCode"),
    ("opencode/real-1.1.65/storage/session/global/ses_dcf35c3abffeWH8bszXcPxNyTC.json", "OpenCode"),
    ("goose/hand-written/sessions/sessions.db", "Goose"),
    ("goose/hand-written/sessions/a1b2c3d4.jsonl", "Goose"),
    ("crush/hand-written/alpha/.crush/crush.db", "Crush"),
    ("zed/hand-written/threads/threads.db", "Zed"),
    ("continue/real-1.5.47/continue-home/sessions/7ec94f9e-2ee6-4aa0-9d3d-d893482c6cbe.json", "Continue CLI"),
    ("auggie/hand-written/augment-home/.augment/sessions/5b0e7c1a-2f4d-4e8b-9a63-1c2d3e4f5a6b.json", "Auggie"),
    ("cline/real-3.0.65/home/.cline/data/sessions/1796610452091_l0k44/1796610452091_l0k44.messages.json", "Cline"),
    (
        "cline/hand-written/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1764583200000/api_conversation_history.json",
        "Cline",
    ),
    (
        "roo/hand-written/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/0b4e2c1a-5d6f-4a8b-9c0d-1e2f3a4b5c6d/api_conversation_history.json",
        "Roo Code",
    ),
    ("aider/real-0.86.2/repo/.aider.chat.history.md", "Aider"),
    ("aider/real-0.86.2/moved/chat.md", "Aider"),
    ("cursor/hand-written/User/globalStorage/state.vscdb", "Cursor"),
    (
        "cursor/hand-written/dot-cursor/projects/home-dev-projects-alpha/agent-transcripts/7e1f0c2a-0000-4000-8000-0000000000a1/7e1f0c2a-0000-4000-8000-0000000000a1.jsonl",
        "Cursor",
    ),
    (
        "cursor/hand-written/dot-cursor/projects/home-dev-projects-alpha/agent-transcripts/7e1f0c2a-0000-4000-8000-0000000000a2.jsonl",
        "Cursor",
    ),
    (
        "cursor/hand-written/dot-cursor/chats/827645af339a34f08a47bf6aeab14e49/3c9d2e10-0000-4000-8000-0000000000b1/store.db",
        "Cursor",
    ),
    (
        "droid/real-0.225.2/factory-home/sessions/-home-dev-projects-alpha/01628ddc-721c-484e-af2b-0e59f9158f8f.jsonl",
        "Factory Droid",
    ),
    (
        "droid/hand-written/factory-home/sessions/-home-dev-projects-gamma/8a7f3c21-0d5e-4b9a-a1c4-6e2f9b0d7c35.jsonl",
        "Factory Droid",
    ),
    ("kilo/real-7.7.9/kilo.db", "Kilo Code"),
    (
        "kilo/hand-written/Code/User/globalStorage/kilocode.kilo-code/tasks/7c1d9e2a-3b4f-4c5d-8e6f-0a1b2c3d4e5f/api_conversation_history.json",
        "Kilo Code",
    ),
];

/// An entry id of the file (Claude Code's `uuid`; a Codex rollout has none,
/// any word will do): the verbs that need one get one that exists.
fn some_entry(bytes: &str) -> String {
    bytes.split("\"uuid\":\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("a1").to_owned()
}

/// `sess` in `home` with `stdin` as its input, which it may not read: a
/// refusal comes before it.
fn sess_at(home: &Path, args: &[&str], stdin: &str) -> Output {
    SessRun::new(home, args).stdin(stdin).output()
}

/// Every writing verb, with the arguments it needs.
fn writing_verbs(file: &str, entry: &str) -> Vec<(Vec<String>, &'static str)> {
    let owned = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    vec![
        (owned(&["append", file]), "{\"role\":\"user\",\"content\":\"hello\"}\n"),
        (owned(&["rename", file, "T"]), ""),
        (owned(&["label", file, entry, "L"]), ""),
        (owned(&["fork", file, "--at", entry]), ""),
        (owned(&["fork", file, "--at", entry, "--new-session"]), ""),
        (owned(&["migrate", file]), ""),
    ]
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Where a fixture's file is put in a scratch home, relative to it: a file of
/// a VS Code user folder (`…/globalStorage/…`) in the same folders (Kilo
/// Code's tasks are told from Roo Code's by them), any other alone.
fn placed(path: &str) -> &str {
    if path.contains("/globalStorage/") {
        path.splitn(3, '/').nth(2).unwrap()
    } else {
        Path::new(path).file_name().unwrap().to_str().unwrap()
    }
}

#[test]
fn every_writing_verb_refuses_another_agents_session_and_leaves_it_byte_identical() {
    for (path, agent) in FOREIGN {
        let original = fs::read(fixture(path)).unwrap();
        let entry = some_entry(&String::from_utf8_lossy(&original));
        let name = Path::new(path).file_name().unwrap().to_str().unwrap();
        let at = placed(path);
        let top = at.split('/').next().unwrap();
        for (args, stdin) in writing_verbs(at, &entry) {
            let home = tempfile::tempdir().unwrap();
            let file = home.path().join(at);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(&file, &original).unwrap();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = sess_at(home.path(), &args, stdin);
            let err = stderr(&output);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains(&format!("`{at}` is a {agent} session; sess writes only pi-family sessions")),
                "{args:?}: {err}"
            );
            assert_eq!(fs::read(&file).unwrap(), original, "{args:?} changed the file");
            assert_eq!(names(home.path()), [top], "{args:?} left files beside it");
            assert_eq!(names(file.parent().unwrap()), [name], "{args:?} left files beside it");
            assert!(output.stdout.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&output.stdout));
        }
    }
}

#[test]
fn a_codex_rollout_named_only_by_its_content_is_refused_too() {
    // Renamed: the content alone says it is Codex's.
    let original = fs::read(fixture("codex/codex-basic-rollout.jsonl")).unwrap();
    let home = tempfile::tempdir().unwrap();
    fs::write(home.path().join("notes.jsonl"), &original).unwrap();
    let output = sess_at(home.path(), &["append", "notes.jsonl"], "{\"role\":\"user\",\"content\":\"hi\"}\n");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("`notes.jsonl` is a Codex session"), "{}", stderr(&output));
    assert_eq!(fs::read(home.path().join("notes.jsonl")).unwrap(), original);
    assert_eq!(names(home.path()), ["notes.jsonl"]);
}

#[test]
fn a_compressed_codex_rollout_is_refused() {
    // The zstd frame magic number, as an old rollout begins.
    let original = [0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x05, 0x29, 0x00, 0x00, b'{', b'}', b'\n'];
    let home = tempfile::tempdir().unwrap();
    fs::write(home.path().join("old.jsonl.zst"), original).unwrap();
    let output = sess_at(home.path(), &["append", "old.jsonl.zst"], "{\"role\":\"user\",\"content\":\"hi\"}\n");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("`old.jsonl.zst` is a Codex session"), "{}", stderr(&output));
    assert_eq!(fs::read(home.path().join("old.jsonl.zst")).unwrap(), original);
    assert_eq!(names(home.path()), ["old.jsonl.zst"]);
}

#[test]
fn a_file_of_json_objects_that_are_not_session_lines_is_refused_not_moved_aside() {
    // No agent's session either: the store refuses it rather than taking it
    // for a pi-family session with a damaged header.
    let original = "{\"a\":1}\n{\"b\":[2,3]}\n";
    let home = tempfile::tempdir().unwrap();
    fs::write(home.path().join("data.jsonl"), original).unwrap();
    let output = sess_at(home.path(), &["rename", "data.jsonl", "T"], "");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("`data.jsonl` is not a pi-family session"), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(home.path().join("data.jsonl")).unwrap(), original);
    assert_eq!(names(home.path()), ["data.jsonl"]);
}

#[test]
fn a_pi_session_whose_header_was_cut_is_still_moved_aside_and_restarted() {
    let main = fs::read_to_string(fixture("pi-family/pi-mono-0.73.1-main.jsonl")).unwrap();
    let damaged = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"x\n{}",
        main.split_inclusive('\n').skip(1).collect::<String>()
    );
    let home = tempfile::tempdir().unwrap();
    fs::write(home.path().join("s.jsonl"), &damaged).unwrap();
    let output = sess_at(home.path(), &["rename", "s.jsonl", "T"], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let moved: Vec<String> = names(home.path()).into_iter().filter(|n| n.starts_with("s.jsonl.corrupt-")).collect();
    assert_eq!(moved.len(), 1, "{:?}", names(home.path()));
    assert_eq!(fs::read_to_string(home.path().join(&moved[0])).unwrap(), damaged);
}
