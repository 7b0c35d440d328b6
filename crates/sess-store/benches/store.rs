//! The hot paths of `sess-store` on generated inputs (`cargo bench -p sess-store`):
//! opening a session file and rebuilding its context, reading a session with
//! one 128 MiB line, the `SessionManager` append loop, and listing a tree of
//! sessions.
//!
//! Inputs come from `sess_testkit::workload` (seeded) and are written to a
//! temporary directory once; they are small enough that the suite takes
//! seconds. Whole-command comparisons with the peer are `bench/compare`'s job.
#![allow(clippy::unwrap_used, reason = "a benchmark whose input cannot be set up should stop")]

use std::path::PathBuf;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::{BytesCount, ItemsCount};
use sess_core::{EntryIndex, Leaf, context};
use sess_store::{FileStorage, SessionManager, discovery, read_session_file, write_atomic};
use sess_testkit::workload::{append_messages, pi_session, session_tree};
use tempfile::TempDir;

/// Session sizes for open + context, in bytes.
const SIZES: &[usize] = &[1_000_000, 4_000_000];
/// Messages per append loop.
const APPENDS: &[usize] = &[100, 1_000];
/// Sessions in a listed tree (in a tenth as many projects).
const TREES: &[usize] = &[100, 300];

struct Inputs {
    _dir: TempDir,
    sessions: Vec<(usize, PathBuf)>,
    trees: Vec<(usize, PathBuf)>,
}

static INPUTS: LazyLock<Inputs> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let sessions = SIZES
        .iter()
        .map(|&size| {
            let path = dir.path().join(format!("session-{size}.jsonl"));
            write_atomic(&FileStorage, &path, pi_session(size, 1).as_bytes()).unwrap();
            (size, path)
        })
        .collect();
    let trees = TREES
        .iter()
        .map(|&n| {
            let root = dir.path().join(format!("tree-{n}"));
            session_tree(&root, n, (n / 10).max(1), 1).unwrap();
            (n, root)
        })
        .collect();
    Inputs { _dir: dir, sessions, trees }
});

fn main() {
    divan::main();
}

/// `read_session_file` + index + context at the last entry: `sess context`
/// without printing.
#[divan::bench(args = SIZES)]
fn open_and_context(bencher: Bencher, size: usize) {
    let path = &INPUTS.sessions.iter().find(|(s, _)| *s == size).unwrap().1;
    let len = std::fs::metadata(path).unwrap().len();
    bencher.counter(BytesCount::new(len)).bench(|| {
        let outcome = read_session_file(path).unwrap();
        let entries = outcome.file.entries();
        let index = EntryIndex::new(entries);
        context::build(entries, &index, Leaf::Last)
    });
}

/// The length of the one message line of [`long_line`]'s session.
const LONG_LINE: usize = 128 << 20;

/// `read_session_file` of a session whose one message is a 128 MiB line, far
/// longer than a block: reading must stay linear in the line's length.
#[divan::bench(sample_count = 5)]
fn long_line(bencher: Bencher) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long-line.jsonl");
    let mut text = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n",
    );
    text.push_str("{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",");
    text.push_str("\"message\":{\"role\":\"user\",\"content\":\"");
    text.extend(std::iter::repeat_n('a', LONG_LINE));
    text.push_str("\"}}\n");
    write_atomic(&FileStorage, &path, text.as_bytes()).unwrap();
    let len = text.len() as u64;
    drop(text);
    bencher.counter(BytesCount::new(len)).bench(|| {
        let outcome = read_session_file(&path).unwrap();
        assert_eq!(outcome.file.entries().len(), 1);
        outcome
    });
}

/// A new session in a fresh directory, then `append_message` for each message
/// (every append reaches the OS before it returns), then `close`.
#[divan::bench(args = APPENDS)]
fn append_loop(bencher: Bencher, count: usize) {
    let messages: Vec<serde_json::Value> =
        append_messages(count, 1).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    bencher.counter(ItemsCount::new(count)).with_inputs(|| tempfile::tempdir().unwrap()).bench_local_values(|dir| {
        let mut manager = SessionManager::create("/home/dev/project", dir.path()).unwrap();
        for message in &messages {
            manager.append_message(message).unwrap();
        }
        manager.close().unwrap();
        dir
    });
}

/// `discovery::list_all` over a tree of sessions (each file read once).
#[divan::bench(args = TREES)]
fn list_all(bencher: Bencher, sessions: usize) {
    let root = &INPUTS.trees.iter().find(|(n, _)| *n == sessions).unwrap().1;
    bencher.counter(ItemsCount::new(sessions)).bench(|| discovery::list_all(&FileStorage, root));
}
