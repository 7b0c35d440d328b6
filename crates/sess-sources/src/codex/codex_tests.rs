//! Golden tests over the Codex fixtures, and the listing and loading of a
//! Codex home.
//!
//! The expected transcripts are `fixtures/codex/expected/*.json`. After a
//! deliberate change, regenerate them with `SESS_BLESS=1 cargo test -p
//! sess-sources codex` and review the diff against the rules in the module
//! docs before committing it.

#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use ruzstd::encoding::{CompressionLevel, compress_to_vec};
use sess_core::IssueKind;
use tempfile::TempDir;

use super::*;
use crate::transcript::{Block, Role, ToolStatus};

const BASIC_ID: &str = "0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81";
const FORK_ID: &str = "0199c4f0-11aa-7b22-8c33-d44e55f66a77";
const CWD: &str = "/home/alice/src/parsekit";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex")
}

fn fixture(name: &str) -> Vec<u8> {
    fs::read(fixtures().join(name)).unwrap()
}

/// A Codex home holding both fixture rollouts and the session index.
struct Home {
    dir: TempDir,
    basic: PathBuf,
    fork: PathBuf,
}

impl Home {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let basic = Self::put(
            dir.path(),
            "2026/08/20",
            &format!("rollout-2026-08-20T10-02-11-{BASIC_ID}.jsonl"),
            &fixture("codex-basic-rollout.jsonl"),
        );
        let fork = Self::put(
            dir.path(),
            "2026/08/22",
            &format!("rollout-2026-08-22T08-30-00-{FORK_ID}.jsonl"),
            &fixture("codex-fork-rollback-compact.jsonl"),
        );
        fs::write(dir.path().join("session_index.jsonl"), fixture("codex-session_index.jsonl")).unwrap();
        Self { dir, basic, fork }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn put(home: &Path, day: &str, name: &str, bytes: &[u8]) -> PathBuf {
        let dir = home.join("sessions").join(day);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        fs::write(&path, bytes).unwrap();
        path
    }
}

/// Compares `transcript` with `fixtures/codex/expected/<name>.json`, or
/// writes that file when `SESS_BLESS` is set.
fn golden(name: &str, transcript: &Transcript) {
    golden_at(&fixtures().join("expected").join(format!("{name}.json")), transcript);
}

/// Compares `transcript` with the JSON at `path`, or writes it there when
/// `SESS_BLESS` is set.
fn golden_at(path: &Path, transcript: &Transcript) {
    let name = path.display();
    let actual = serde_json::to_string_pretty(transcript).unwrap() + "\n";
    if std::env::var_os("SESS_BLESS").is_some() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, &actual).unwrap();
        return;
    }
    let expected = fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("{}: {err}; run with SESS_BLESS=1 to create it", path.display()));
    assert_eq!(actual, expected, "{name}: run with SESS_BLESS=1 to accept, then review the diff");
}

/// Per message: its id (line number), role and one string per block.
fn shape(transcript: &Transcript) -> Vec<(String, Role, Vec<String>)> {
    transcript
        .messages
        .iter()
        .map(|m| {
            let blocks = m
                .blocks
                .iter()
                .map(|b| match b {
                    Block::Text { text } => format!("text:{}", first_line(text)),
                    Block::Thinking { text } => format!("thinking:{}", first_line(text)),
                    Block::ToolCall(call) => format!("tool:{}:{}", call.name, call.status.as_str()),
                    Block::Error { text } => format!("error:{text}"),
                    Block::Context { title, .. } => format!("context:{title}"),
                    Block::Summary { text } => format!("summary:{text}"),
                    Block::Image(_) => "image".to_owned(),
                    Block::Unknown { what, .. } => format!("unknown:{what}"),
                })
                .collect();
            (m.id.clone().unwrap_or_default(), m.role, blocks)
        })
        .collect()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn row(id: &str, role: Role, blocks: &[&str]) -> (String, Role, Vec<String>) {
    (id.to_owned(), role, blocks.iter().map(|b| (*b).to_owned()).collect())
}

fn call(transcript: &Transcript, message: usize, block: usize) -> &crate::ToolCall {
    match &transcript.messages[message].blocks[block] {
        Block::ToolCall(call) => call,
        other => panic!("not a tool call: {other:?}"),
    }
}

#[test]
fn golden_basic_rollout() {
    let home = Home::new();
    let transcript = load(&home.basic).unwrap();
    assert_eq!(transcript.id, BASIC_ID);
    assert_eq!(transcript.cwd.as_deref(), Some(CWD));
    // The index's last entry for the id, not the first.
    assert_eq!(transcript.title.as_deref(), Some("parsekit: day/month bug"));
    // Developer permissions and <environment_context> hidden; the user_message,
    // agent_reasoning and agent_message echoes dropped; one assistant bubble.
    assert_eq!(
        shape(&transcript),
        [
            row("6", Role::User, &["text:Why is test_parse_dates failing?"]),
            row(
                "8",
                Role::Assistant,
                &[
                    "thinking:**Reproducing the failure**",
                    "tool:shell:failed",
                    "tool:apply_patch:succeeded",
                    "tool:shell:succeeded",
                    "text:The parser used month-first (`%m/%d/%Y`) but the fixtures are day-first. I switched the format in `dates.py`; all 10 tests pass.",
                ],
            ),
        ]
    );
    let pytest = call(&transcript, 1, 1);
    assert_eq!(pytest.id, "call_Qm3x1");
    assert_eq!(pytest.input["command"][2], "pytest -q tests/test_dates.py::test_parse_dates");
    assert_eq!(
        pytest.result.as_deref(),
        Some("F\nE   AssertionError: assert datetime(2026, 1, 2) == datetime(2026, 2, 1)\n1 failed in 0.21s\n")
    );
    assert_eq!(
        (pytest.started_at.as_deref(), pytest.ended_at.as_deref()),
        (Some("2026-08-20T10:02:22.950Z"), Some("2026-08-20T10:02:24.410Z"))
    );
    let patch = call(&transcript, 1, 2);
    assert!(patch.input.as_str().is_some_and(|input| input.starts_with("*** Begin Patch\n")));
    assert_eq!(patch.result.as_deref(), Some("Success. Updated the following files:\nM src/parsekit/dates.py\n"));
    assert_eq!(call(&transcript, 1, 3).result.as_deref(), Some("..........\n10 passed in 0.44s\n"));
    // The cut `turn_context` at the end.
    assert_eq!(transcript.issues, [sess_core::LineIssue { line: 22, kind: IssueKind::TruncatedLastLine }]);
    golden("codex-basic-rollout", &transcript);
}

#[test]
fn golden_fork_rollback_compact() {
    let home = Home::new();
    let transcript = load(&home.fork).unwrap();
    assert_eq!(transcript.id, FORK_ID);
    assert_eq!(transcript.cwd.as_deref(), Some(CWD));
    assert_eq!(transcript.title.as_deref(), Some("Day-first flag"));
    assert_eq!(
        shape(&transcript),
        [
            // The parent's items, copied by the fork with their old timestamps.
            row("2", Role::User, &["text:Why is test_parse_dates failing?"]),
            row(
                "4",
                Role::Assistant,
                &[
                    "text:The parser used month-first (`%m/%d/%Y`) but the fixtures are day-first. I switched the format in `dates.py`; all 10 tests pass."
                ]
            ),
            row("7", Role::User, &["text:Instead, auto-detect day-first vs month-first."]),
            row(
                "9",
                Role::Assistant,
                &[
                    "thinking:**Weighing ambiguity**",
                    "tool:shell:succeeded",
                    "text:Auto-detection is ambiguous for dates like 03/04. Do you want a `--day-first` flag instead?",
                ],
            ),
            // The rolled-back turn above stays shown.
            row("14", Role::System, &["text:Rolled back 1 turn"]),
            row("17", Role::User, &["text:Add a --day-first CLI flag."]),
            // The summary is only kept encrypted in replacement_history.
            row("19", Role::System, &["summary:Context compacted"]),
            row(
                "21",
                Role::Assistant,
                &["text:Added `--day-first` (default off) and threaded it through `parse_date`."]
            ),
            // Only the event copy exists: its item is the cut last line.
            row("27", Role::User, &["text:Also update the README"]),
            row("28", Role::System, &["text:Turn aborted (interrupted)"]),
        ]
    );
    assert_eq!(transcript.messages[0].timestamp.as_deref(), Some("2026-08-20T10:02:19.006Z"));
    assert_eq!(call(&transcript, 3, 1).status, ToolStatus::Succeeded);
    assert_eq!(transcript.issues, [sess_core::LineIssue { line: 29, kind: IssueKind::TruncatedLastLine }]);
    golden("codex-fork-rollback-compact", &transcript);
}

#[test]
fn lists_every_session_with_its_facts() {
    let home = Home::new();
    let listing = list(home.path(), Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let [basic, fork] = listing.sessions.as_slice() else { panic!("{:?}", listing.sessions) };
    assert_eq!(
        basic,
        &SessionInfo {
            source: super::SOURCE,
            flavor: None,
            id: BASIC_ID.to_owned(),
            path: home.basic.clone(),
            cwd: Some(CWD.to_owned()),
            title: Some("parsekit: day/month bug".to_owned()),
            created: Some("2026-08-20T10:02:11.488Z".to_owned()),
            // Its last message's time, not its file's (issue 26, item 10).
            modified_ms: sess_core::parse_iso_millis("2026-08-20T10:02:22.700Z").unwrap(),
            message_count: 2,
            first_message: Some("Why is test_parse_dates failing?".to_owned()),
            parent_session: None,
        }
    );
    assert!(basic.modified_ms > 0);
    assert_eq!(
        (fork.id.as_str(), fork.title.as_deref(), fork.parent_session.as_deref(), fork.message_count),
        (FORK_ID, Some("Day-first flag"), Some(BASIC_ID), 10)
    );
    assert_eq!(fork.created.as_deref(), Some("2026-08-22T08:30:00.090Z"));
}

#[test]
fn a_project_scope_keeps_the_sessions_of_that_cwd() {
    let home = Home::new();
    let other = "{\"timestamp\":\"2026-08-21T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"other\",\"cwd\":\"/srv/other\"}}\n";
    Home::put(home.path(), "2026/08/21", "rollout-2026-08-21T00-00-00-other.jsonl", other.as_bytes());
    let ids = |scope| list(home.path(), scope).sessions.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(Scope::Project(Path::new(CWD))), [BASIC_ID, FORK_ID]);
    assert_eq!(ids(Scope::Project(Path::new("/home/alice/src/parsekit/"))), [BASIC_ID, FORK_ID]);
    assert_eq!(ids(Scope::Project(Path::new("/srv/other"))), ["other"]);
    assert!(ids(Scope::Project(Path::new("/home/alice/src"))).is_empty());
    assert_eq!(ids(Scope::All), [BASIC_ID, "other", FORK_ID]);
}

#[test]
fn a_project_scope_finds_a_meta_that_is_not_a_short_first_line() {
    let home = tempfile::tempdir().unwrap();
    let meta = |id: &str, instructions: &str| {
        format!(
            "{{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"{id}\",\"cwd\":\"{CWD}\",\"base_instructions\":{{\"text\":\"{instructions}\"}}}}}}\n"
        )
    };
    let broken_first = format!("{{broken\n{}", meta("after-a-broken-line", "short"));
    Home::put(home.path(), "2026/08/20", "rollout-2026-08-20T00-00-00-a.jsonl", broken_first.as_bytes());
    let long = meta("long-first-line", &"x".repeat(1_200_000));
    Home::put(home.path(), "2026/08/20", "rollout-2026-08-20T00-00-01-b.jsonl", long.as_bytes());
    let zst = compress_to_vec(meta("compressed", "short").as_bytes(), CompressionLevel::Fastest);
    Home::put(home.path(), "2026/08/20", "rollout-2026-08-20T00-00-02-c.jsonl.zst", &zst);
    let listing = list(home.path(), Scope::Project(Path::new(CWD)));
    let ids: Vec<_> = listing.sessions.iter().map(|s| s.id.as_str()).collect();
    // Each by the id its name gives, which every verb finds it by, not the
    // `session_meta`'s (issue 26, item 10).
    assert_eq!(ids, ["a", "b", "c"]);
}

#[test]
fn without_an_index_entry_the_title_is_the_first_prompt() {
    let home = Home::new();
    fs::remove_file(home.path().join("session_index.jsonl")).unwrap();
    let titles: Vec<_> = list(home.path(), Scope::All).sessions.into_iter().map(|s| s.title).collect();
    assert_eq!(
        titles,
        [Some("Why is test_parse_dates failing?".to_owned()), Some("Why is test_parse_dates failing?".to_owned())]
    );
    // Loading titles the thread the way the listing does.
    assert_eq!(load(&home.basic).unwrap().title.as_deref(), Some("Why is test_parse_dates failing?"));
}

#[test]
fn a_missing_home_lists_nothing() {
    let listing = list(Path::new("/nonexistent/sess-codex-home"), Scope::All);
    assert!(listing.sessions.is_empty() && listing.problems.is_empty());
    assert!(session_files(Path::new("/nonexistent/sess-codex-home")).is_empty());
    let empty = tempfile::tempdir().unwrap();
    assert!(list(empty.path(), Scope::Project(Path::new(CWD))).sessions.is_empty());
}

#[test]
fn unreadable_files_are_problems_and_the_rest_still_lists() {
    let home = Home::new();
    let day = home.path().join("sessions/2026/08/23");
    fs::create_dir_all(&day).unwrap();
    // A dangling link cannot be read (permissions do not stop root).
    let dangling = day.join("rollout-2026-08-23T00-00-00-0199c3a1-0000-7000-8000-00000000dead.jsonl");
    std::os::unix::fs::symlink(day.join("gone"), &dangling).unwrap();
    let corrupt = day.join("rollout-2026-08-23T01-00-00-0199c3a1-0000-7000-8000-00000000beef.jsonl.zst");
    fs::write(&corrupt, b"not zstd").unwrap();
    let listing = list(home.path(), Scope::All);
    assert_eq!(listing.sessions.len(), 2);
    let problems: Vec<String> = listing.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(matches!(&listing.problems[0], Error::NotFound { path } if *path == dangling), "{problems:?}");
    assert!(matches!(&listing.problems[1], Error::Decompress { path, .. } if *path == corrupt), "{problems:?}");
}

#[test]
fn compressed_rollouts_read_like_plain_ones() {
    let home = Home::new();
    let plain = load(&home.basic).unwrap();
    let zst = home.basic.with_file_name(format!("{}.zst", home.basic.file_name().unwrap().to_str().unwrap()));
    fs::write(&zst, compress_to_vec(fixture("codex-basic-rollout.jsonl").as_slice(), CompressionLevel::Fastest))
        .unwrap();
    fs::remove_file(&home.basic).unwrap();
    assert_eq!(load(&zst).unwrap(), plain);
    // The plain name of a file compressed since it was listed.
    assert_eq!(load(&home.basic).unwrap(), plain);
    let listing = list(home.path(), Scope::All);
    assert_eq!(listing.sessions[0].path, zst);
    assert_eq!((listing.sessions[0].id.as_str(), listing.sessions[0].message_count), (BASIC_ID, 2));
}

#[test]
fn the_plain_rollout_wins_over_its_compressed_twin() {
    let home = Home::new();
    // The twin holds something else, so reading it would show.
    let zst = home.basic.with_file_name(format!("{}.zst", home.basic.file_name().unwrap().to_str().unwrap()));
    fs::write(
        &zst,
        compress_to_vec(
            b"{\"type\":\"session_meta\",\"payload\":{\"id\":\"twin\"}}\n".as_slice(),
            CompressionLevel::Fastest,
        ),
    )
    .unwrap();
    let files = session_files(home.path());
    assert_eq!(files, [(BASIC_ID.to_owned(), home.basic.clone()), (FORK_ID.to_owned(), home.fork.clone())]);
    let listing = list(home.path(), Scope::All);
    assert_eq!(listing.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [BASIC_ID, FORK_ID]);
    assert_eq!(listing.sessions[0].path, home.basic);
}

#[test]
fn session_files_read_only_names() {
    let home = Home::new();
    let junk = Home::put(
        home.path(),
        "2026/08/24",
        "rollout-2026-08-24T00-00-00-0199c3a1-0000-7000-8000-000000000024.jsonl",
        b"junk",
    );
    let files = session_files(home.path());
    assert_eq!(files.len(), 3);
    assert_eq!(files[2], ("0199c3a1-0000-7000-8000-000000000024".to_owned(), junk));
}

#[test]
fn archived_sessions_are_not_listed_but_load_with_their_title() {
    let home = Home::new();
    let archived = home.path().join("archived_sessions");
    fs::create_dir_all(&archived).unwrap();
    let path = archived.join(home.fork.file_name().unwrap());
    fs::rename(&home.fork, &path).unwrap();
    assert_eq!(list(home.path(), Scope::All).sessions.len(), 1);
    assert_eq!(session_files(home.path()).len(), 1);
    assert_eq!(load(&path).unwrap().title.as_deref(), Some("Day-first flag"));
}

#[test]
fn load_takes_the_id_from_the_file_name_when_there_is_no_meta() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("rollout-2026-08-20T10-02-11-{BASIC_ID}.jsonl"));
    fs::write(&path, b"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]}}\n").unwrap();
    let transcript = load(&path).unwrap();
    assert_eq!(
        (transcript.id.as_str(), transcript.title.as_deref(), transcript.messages.len()),
        (BASIC_ID, Some("hi"), 1)
    );
    assert!(matches!(load(&dir.path().join("rollout-missing.jsonl")), Err(Error::NotFound { .. })));
}

#[test]
fn parse_is_load_without_the_file() {
    let transcript = parse(&fixture("codex-basic-rollout.jsonl"));
    assert_eq!((transcript.id.as_str(), transcript.title.as_deref(), transcript.messages.len()), (BASIC_ID, None, 2));
}

#[test]
fn the_codex_home_is_codex_home_or_dot_codex() {
    let home = Path::new("/home/alice");
    assert_eq!(home_dir(Some("/opt/codex"), home), Path::new("/opt/codex"));
    assert_eq!(home_dir(Some(""), home), Path::new("/home/alice/.codex"));
    assert_eq!(home_dir(None, home), Path::new("/home/alice/.codex"));
}

/// Lines of a rollout as Codex 0.171 writes them: each with its `ordinal`,
/// counting from `first`.
fn with_ordinals(first: u64, lines: &[serde_json::Value]) -> String {
    lines
        .iter()
        .zip(first..)
        .map(|(line, ordinal)| {
            let mut line = line.clone();
            line["ordinal"] = ordinal.into();
            line["timestamp"] = format!("2026-11-30T09:00:{ordinal:02}.000Z").into();
            line.to_string() + "\n"
        })
        .collect()
}

fn meta_line(id: &str, base: Option<(&str, u64, usize)>) -> serde_json::Value {
    let mut payload = serde_json::json!({"id": id, "session_id": id, "timestamp": "2026-11-30T09:00:00.000Z", "cwd": CWD, "cli_version": "0.171.0", "history_mode": "paginated"});
    if let Some((parent, end, offset)) = base {
        payload["forked_from_id"] = parent.into();
        payload["forked_from_ordinal_exclusive"] = end.into();
        payload["history_base"] =
            serde_json::json!({"thread_id": parent, "end_ordinal_exclusive": end, "end_byte_offset": offset});
    }
    serde_json::json!({"type": "session_meta", "payload": payload})
}

fn said(role: &str, text: &str) -> serde_json::Value {
    let part = if role == "user" { "input_text" } else { "output_text" };
    serde_json::json!({"type": "response_item", "payload": {"type": "message", "role": role, "content": [{"type": part, "text": text}]}})
}

const PARENT: &str = "01a22bca-0000-7000-8000-00000000000a";
const CHILD: &str = "01a22bca-0000-7000-8000-00000000000b";
const GRANDCHILD: &str = "01a22bca-0000-7000-8000-00000000000c";

/// A parent of two turns; a child forked after its first turn (ordinals 0–2),
/// with one turn of its own; a grandchild forked from the whole child.
fn lineage_home() -> (TempDir, [PathBuf; 3]) {
    let home = tempfile::tempdir().unwrap();
    let parent = with_ordinals(
        0,
        &[
            meta_line(PARENT, None),
            said("user", "one"),
            said("assistant", "1"),
            said("user", "two"),
            said("assistant", "2"),
        ],
    );
    let cut = parent.lines().take(3).map(|l| l.len() + 1).sum();
    let child =
        with_ordinals(3, &[meta_line(CHILD, Some((PARENT, 3, cut))), said("user", "three"), said("assistant", "3")]);
    let grandchild = with_ordinals(
        6,
        &[meta_line(GRANDCHILD, Some((CHILD, 6, child.len()))), said("user", "four"), said("assistant", "4")],
    );
    let put = |n: u8, id: &str, text: &str| {
        Home::put(home.path(), "2026/11/30", &format!("rollout-2026-11-30T09-00-0{n}-{id}.jsonl"), text.as_bytes())
    };
    let paths = [put(0, PARENT, &parent), put(1, CHILD, &child), put(2, GRANDCHILD, &grandchild)];
    (home, paths)
}

#[test]
fn a_fork_by_reference_continues_the_history_of_its_bases() {
    let (home, [_, child, grandchild]) = lineage_home();
    let transcript = load(&grandchild).unwrap();
    assert_eq!((transcript.id.as_str(), transcript.cwd.as_deref()), (GRANDCHILD, Some(CWD)));
    // Ids are ordinals + 1: unique across the rollouts of the thread.
    assert_eq!(
        shape(&transcript),
        [
            row("2", Role::User, &["text:one"]),
            row("3", Role::Assistant, &["text:1"]),
            row("5", Role::User, &["text:three"]),
            row("6", Role::Assistant, &["text:3"]),
            row("8", Role::User, &["text:four"]),
            row("9", Role::Assistant, &["text:4"]),
        ]
    );
    assert!(transcript.issues.is_empty(), "{:?}", transcript.issues);
    assert_eq!(load(&child).unwrap().messages.len(), 4);
    // `parse` has no files to follow: only the rollout's own lines.
    assert_eq!(parse(&fs::read(&grandchild).unwrap()).messages.len(), 2);

    let listing = list(home.path(), Scope::All);
    let facts: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.title.as_deref(), s.message_count, s.parent_session.as_deref()))
        .collect();
    // Titled by their own first prompts, as Codex titles them.
    assert_eq!(
        facts,
        [
            (PARENT, Some("one"), 4, None),
            (CHILD, Some("three"), 4, Some(PARENT)),
            (GRANDCHILD, Some("four"), 6, Some(CHILD)),
        ]
    );
    assert_eq!(listing.sessions[2].first_message.as_deref(), Some("four"));
}

#[test]
fn a_base_is_cut_by_byte_offset_when_its_lines_have_no_ordinals() {
    let home = tempfile::tempdir().unwrap();
    // A parent written before ordinals.
    let parent: String = [meta_line(PARENT, None), said("user", "one"), said("assistant", "1"), said("user", "two")]
        .iter()
        .map(|l| l.to_string() + "\n")
        .collect();
    let cut = parent.lines().take(3).map(|l| l.len() + 1).sum();
    let mut meta = meta_line(CHILD, Some((PARENT, 3, cut)));
    meta["payload"]["history_base"].as_object_mut().unwrap().remove("end_ordinal_exclusive");
    let child = with_ordinals(3, &[meta, said("user", "three")]);
    Home::put(home.path(), "2026/11/30", &format!("rollout-2026-11-30T09-00-00-{PARENT}.jsonl"), parent.as_bytes());
    let path =
        Home::put(home.path(), "2026/11/30", &format!("rollout-2026-11-30T09-00-01-{CHILD}.jsonl"), child.as_bytes());
    let transcript = load(&path).unwrap();
    assert_eq!(
        shape(&transcript),
        [
            row("2", Role::User, &["text:one"]),
            row("3", Role::Assistant, &["text:1"]),
            row("5", Role::User, &["text:three"]),
        ]
    );
}

#[test]
fn a_base_may_be_archived() {
    let (home, [parent, child, _]) = lineage_home();
    let archived = home.path().join("archived_sessions");
    fs::create_dir_all(&archived).unwrap();
    fs::rename(&parent, archived.join(parent.file_name().unwrap())).unwrap();
    assert_eq!(load(&child).unwrap().messages.len(), 4);
    let listing = list(home.path(), Scope::All);
    assert_eq!(listing.sessions.iter().map(|s| s.message_count).collect::<Vec<_>>(), [4, 6]);
}

#[test]
fn a_missing_or_looping_base_is_a_notice_before_the_history_that_was_found() {
    let (home, [parent, child, grandchild]) = lineage_home();
    fs::remove_file(&parent).unwrap();
    let notice = format!("text:Forked from rollout {PARENT}, whose history was not found");
    let expected = [
        (String::new(), Role::System, vec![notice]),
        row("5", Role::User, &["text:three"]),
        row("6", Role::Assistant, &["text:3"]),
        row("8", Role::User, &["text:four"]),
        row("9", Role::Assistant, &["text:4"]),
    ];
    assert_eq!(shape(&load(&grandchild).unwrap()), expected);
    let listing = list(home.path(), Scope::All);
    assert_eq!(listing.sessions.iter().map(|s| s.message_count).collect::<Vec<_>>(), [3, 5]);
    assert_eq!(listing.sessions[1].title.as_deref(), Some("four"));

    // The child claims to continue the grandchild, which continues the child.
    let looped = fs::read_to_string(&child)
        .unwrap()
        .replace(&format!("\"thread_id\":\"{PARENT}\""), &format!("\"thread_id\":\"{GRANDCHILD}\""));
    fs::write(&child, looped).unwrap();
    let mut expected = expected;
    expected[0].2 = vec![format!("text:Forked from rollout {GRANDCHILD}, whose history was not found")];
    assert_eq!(shape(&load(&grandchild).unwrap()), expected);
}

const REAL: &str = "real-0.171.0";
const REAL_ALPHA: &str = "01a22bd9-1882-7631-acfa-f670d31a90c7";
const REAL_BETA: &str = "01a22bd9-19ce-7201-905a-da235f1ce47e";
const REAL_FORK: &str = "01a22bd9-1dad-7982-8c13-8e5f854e52d0";
const REAL_IMAGE: &str = "01a22bd9-1ee1-74c2-a21c-a50299b2e5d3";

/// The rollouts the real Codex CLI 0.171.0 wrote (`interop/codex/`; the
/// scenario is in `scenario.json` beside them): a reply with reasoning,
/// resumed; shell commands and patches, one of each failing, resumed with
/// `--last` and compacted first; a fork of the first; a prompt with an image,
/// resumed for a turn whose model request failed.
#[test]
fn golden_real_0_171_0() {
    let dir = fixtures().join(REAL);
    let listing = list(&dir.join("codex-home"), Scope::All);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let facts: Vec<_> = listing
        .sessions
        .iter()
        .map(|s| (s.id.as_str(), s.cwd.as_deref(), s.title.as_deref(), s.message_count, s.parent_session.as_deref()))
        .collect();
    let (alpha, beta) = (Some("/home/dev/projects/alpha"), Some("/home/dev/projects/beta"));
    assert_eq!(
        facts,
        [
            (REAL_ALPHA, alpha, Some("Say hello in one short sentence."), 4, None),
            (
                REAL_BETA,
                beta,
                Some("Check the workspace: echo hi, read a file that is missing, then write notes.txt."),
                5,
                None
            ),
            (REAL_FORK, alpha, Some("Take another path: say goodbye instead."), 6, Some(REAL_ALPHA)),
            (REAL_IMAGE, alpha, Some("What is in this picture?"), 4, None),
        ]
    );
    for session in &listing.sessions {
        let transcript = load(&session.path).unwrap();
        assert!(transcript.issues.is_empty(), "{}: {:?}", session.id, transcript.issues);
        golden_at(&dir.join("expected").join(format!("{}.json", session.id)), &transcript);
    }

    let beta = load(&listing.sessions[1].path).unwrap();
    assert_eq!(
        shape(&beta),
        [
            row(
                "8",
                Role::User,
                &["text:Check the workspace: echo hi, read a file that is missing, then write notes.txt."]
            ),
            row(
                "11",
                Role::Assistant,
                &[
                    "thinking:**Looking around**",
                    "thinking:**Plan**",
                    "tool:exec_command:succeeded",
                    "tool:exec_command:failed",
                    "tool:exec_command:succeeded",
                    "tool:apply_patch:succeeded",
                    "tool:apply_patch:failed",
                    "text:Done: `echo hi` printed hi, missing.txt does not exist, and notes.txt now has two notes.",
                ]
            ),
            // Compacted before the second prompt: the summary, not the model's answer to the request.
            row(
                "45",
                Role::System,
                &[
                    "summary:Handoff: ran echo hi, cat missing.txt (failed) and printf; added notes.txt; the patch to absent.txt failed."
                ]
            ),
            row("51", Role::User, &["text:Summarize what you did in one line."]),
            row(
                "54",
                Role::Assistant,
                &[
                    "thinking:**Summing up**",
                    "text:Ran two commands (one failed), added notes.txt, and a patch to absent.txt failed."
                ]
            ),
        ]
    );
    // The two calls of one response, paired with outputs that came back in another order.
    assert_eq!((call(&beta, 1, 3).id.as_str(), call(&beta, 1, 4).id.as_str()), ("call_missing", "call_printf"));
    assert!(call(&beta, 1, 4).result.as_deref().is_some_and(|r| r.ends_with("Output:\na\nb\n")));

    // The fork by reference: alpha's two turns, then its own.
    let fork = load(&listing.sessions[2].path).unwrap();
    let prompts: Vec<_> = shape(&fork).into_iter().filter(|(_, role, _)| *role == Role::User).collect();
    assert_eq!(
        prompts,
        [
            row("8", Role::User, &["text:Say hello in one short sentence."]),
            row("20", Role::User, &["text:Now say it in French."]),
            row("32", Role::User, &["text:Take another path: say goodbye instead."]),
        ]
    );

    // A prompt with an image; resumed, and the model request failed.
    let image = load(&listing.sessions[3].path).unwrap();
    assert_eq!(shape(&image)[0], row("8", Role::User, &["image", "text:What is in this picture?"]));
    assert_eq!(
        shape(&image)[2..],
        [
            row("18", Role::User, &["text:Describe it in more detail."]),
            row("21", Role::Assistant, &["error:stream disconnected before completion: The fake model is down."]),
        ]
    );
}

#[test]
fn a_fork_by_reference_is_made_of_the_rollouts_its_history_continues() {
    use crate::source::{Growth, Source};
    let home = fixtures().join("real-0.171.0/codex-home");
    let found = session_files(&home);
    assert_eq!(found.len(), 4);
    let path_of = |id: &str| found.iter().find(|(found, _)| found == id).unwrap().1.clone();
    let (fork, base) = ("01a22bd9-1dad-7982-8c13-8e5f854e52d0", "01a22bd9-1882-7631-acfa-f670d31a90c7");
    for (id, path) in &found {
        assert_eq!(Codex.growth(path), Growth::Lines, "{id}");
        let expected = if id == fork { vec![path_of(base)] } else { Vec::new() };
        assert_eq!(Codex.companions(path), expected, "{id}");
    }

    // A fork of the fork, compressed: its history is the fork's, then the
    // base's; one that names itself continues nothing.
    let dir = TempDir::new().unwrap();
    let copy = dir.path().join("sessions/2026/11/30");
    fs::create_dir_all(&copy).unwrap();
    for (_, path) in &found {
        fs::copy(path, copy.join(path.file_name().unwrap())).unwrap();
    }
    let meta = |own: &str, base: &str| {
        format!(
            "{{\"timestamp\":\"2026-11-30T10:00:00Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"{own}\",\
             \"cwd\":\"/p\",\"history_base\":{{\"thread_id\":\"{base}\",\"end_ordinal_exclusive\":1}}}}}}\n"
        )
    };
    let grandchild = "01a22bd9-ffff-7000-8000-000000000001";
    let zst = copy.join(format!("rollout-2026-11-30T10-00-00-{grandchild}.jsonl.zst"));
    fs::write(&zst, compress_to_vec(meta(grandchild, fork).as_bytes(), CompressionLevel::Fastest)).unwrap();
    let name = |id: &str| copy.join(path_of(id).file_name().unwrap());
    let mut chain = [name(fork), name(base)];
    chain.sort();
    assert_eq!(Codex.companions(&zst), chain);
    assert_eq!(Codex.growth(&zst), Growth::Whole);
    let looped = copy.join(format!("rollout-2026-11-30T10-00-01-{grandchild}.jsonl"));
    fs::write(&looped, meta(grandchild, grandchild)).unwrap();
    assert!(Codex.companions(&looped).is_empty());
}
