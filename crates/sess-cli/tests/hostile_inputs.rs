//! Every verb against hostile inputs: empty and binary files, bytes that are not
//! UTF-8, torn and header-only sessions, folders and FIFOs named `*.jsonl`, a very
//! deep chain, an entry that is its own parent, huge numbers, deeply nested JSON,
//! other agents' files and paths that do not exist.
//!
//! Each command runs with a time limit and a memory limit; none may panic (exit
//! 101), die of a signal (a stack overflow) or run past its limit, and no write
//! verb may change the bytes of another agent's file. Problems are collected and
//! reported together, so one run shows every command that misbehaves.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::{SessRun, fixture};

/// A command that has not finished after this long is taken as hung.
const LIMIT: Duration = Duration::from_secs(10);

/// Address space for each command (KiB): a reader that never stops fails on
/// memory instead of taking the machine's.
const MEMORY_KB: u64 = 2 << 20;

/// How deep the nested JSON arrays and objects go.
const NESTING: usize = 100_000;

/// How many entries the deep chain has, each the child of the one before.
const CHAIN: usize = 100_000;

/// A message for `sess append`.
const LINE: &str = "{\"role\":\"user\",\"content\":\"hello\",\"timestamp\":1}\n";

/// Runs `sess` with `args` in `home` (HOME, XDG folders and the working
/// directory), `stdin` on its input. Returns a description of what went wrong:
/// a panic, a signal, or a command still running after [`LIMIT`] (it is killed).
fn run(home: &Path, args: &[&str], stdin: &[u8]) -> Result<Output, String> {
    let shown = format!("sess {}", args.iter().map(|a| shorten(a)).collect::<Vec<_>>().join(" "));
    let output = SessRun::new(home, args)
        .stdin(stdin)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("RUST_BACKTRACE", "0")
        .memory_kb(MEMORY_KB)
        .time_limit(LIMIT)
        .try_output()
        .ok_or_else(|| format!("`{shown}` still running after {LIMIT:?}: killed"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0..=2) if !stderr.contains("panicked") => Ok(output),
        code => Err(format!("`{shown}` exited with {code:?} ({}): {}", output.status, shorten(&stderr))),
    }
}

/// At most 300 characters of `text`, for messages.
fn shorten(text: &str) -> String {
    let mut end = text.len().min(300);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len() { format!("{}…", &text[..end]) } else { text.to_owned() }
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A hostile input: its name and how to make it at a path.
struct Input {
    name: &'static str,
    /// Another agent's file: write verbs must leave its bytes alone.
    foreign: bool,
    make: fn(&Path),
    /// Which of [`verbs_on`] run on it.
    runs: fn(&[String], &[u8]) -> bool,
}

fn every_verb(_: &[String], _: &[u8]) -> bool {
    true
}

/// The verbs the 200,000-deep chain of `cli.rs` (`context`, `tree`,
/// `segments`) does not already walk, one of each: a debug build reads
/// 100,000 entries in about a second.
fn not_in_cli_rs(args: &[String], stdin: &[u8]) -> bool {
    match args[0].as_str() {
        "show" | "verify" => args.len() == 2,
        "label" => args[3] != "--clear",
        "fork" => args.iter().any(|a| a == "--new-session"),
        "copy" => args[2].starts_with("dir:"),
        "append" => stdin == LINE.as_bytes(),
        _ => false,
    }
}

const HEADER: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"0a0b0c0d-0000-7000-8000-000000000001\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/work\"}\n";

fn message(id: &str, parent: Option<&str>, content: &str) -> String {
    let parent = parent.map_or_else(|| "null".to_owned(), |p| format!("\"{p}\""));
    format!(
        "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":{content}}}}}\n"
    )
}

/// Bytes that look random, the same every run.
fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

fn nested(open: &str, inner: &str, close: &str) -> String {
    let mut text = String::with_capacity(NESTING * (open.len() + close.len()) + inner.len());
    for _ in 0..NESTING {
        text.push_str(open);
    }
    text.push_str(inner);
    for _ in 0..NESTING {
        text.push_str(close);
    }
    text
}

/// A v3 session with bytes that are not UTF-8 in a message.
fn not_utf8() -> Vec<u8> {
    let mut bytes = HEADER.as_bytes().to_vec();
    bytes.extend_from_slice(message("a", None, "\"caf\u{e9}\"").as_bytes());
    bytes.extend_from_slice(
        b"{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"\xff\xfe\xc3\"}}\n",
    );
    bytes
}

/// [`CHAIN`] entries, each the child of the one before.
fn deep_chain() -> String {
    let mut text = String::from(HEADER);
    for i in 0..CHAIN {
        let parent = if i == 0 { "null".to_owned() } else { format!("\"e{}\"", i - 1) };
        writeln!(
            text,
            "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"message\":{{\"role\":\"user\",\"content\":\"m\"}}}}"
        )
        .unwrap();
    }
    text
}

/// A message, a label and a compaction that are each their own parent (the
/// label its own target, the compaction keeping from itself).
fn own_parent() -> String {
    format!(
        "{HEADER}{}{}{{\"type\":\"label\",\"id\":\"l\",\"parentId\":\"l\",\"targetId\":\"l\",\"label\":\"x\"}}\n\
         {{\"type\":\"compaction\",\"id\":\"c\",\"parentId\":\"c\",\"summary\":\"s\",\"firstKeptEntryId\":\"c\",\"tokensBefore\":1}}\n",
        message("a", Some("a"), "\"me\""),
        message("e1", Some("a"), "\"child\"")
    )
}

/// Numbers out of every range, and an id that is a number.
fn huge_numbers() -> String {
    format!(
        "{HEADER}{{\"type\":\"message\",\"id\":\"e1\",\"parentId\":null,\"timestamp\":1e999999,\"message\":{{\"role\":\"user\",\"content\":\"n\",\"timestamp\":-1e400}}}}\n\
         {{\"type\":\"message\",\"id\":\"e2\",\"parentId\":\"e1\",\"timestamp\":\"99999999-99-99T99:99:99.999Z\",\"message\":{{\"role\":\"assistant\",\"content\":[],\"timestamp\":184467440737095516160000,\"usage\":{{\"input\":1e308,\"output\":-9223372036854775809,\"totalTokens\":1{}}}}}}}\n\
         {{\"type\":\"message\",\"id\":1e999,\"parentId\":\"e2\",\"message\":{{}}}}\n\
         {{\"type\":\"compaction\",\"id\":\"e3\",\"parentId\":\"e2\",\"summary\":\"s\",\"firstKeptEntryId\":\"e1\",\"tokensBefore\":1e999}}\n",
        "0".repeat(10_000)
    )
}

/// A header whose fields have the wrong types and an out-of-range version.
fn odd_header() -> String {
    format!(
        "{{\"type\":\"session\",\"version\":18446744073709551617,\"id\":12,\"timestamp\":-1,\"cwd\":[]}}\n{}",
        message("e1", None, "\"hi\"")
    )
}

/// Arrays and objects [`NESTING`] deep, closed and not, in messages and alone.
fn nested_json() -> String {
    let mut text = String::from(HEADER);
    text.push_str(&message("e1", None, &nested("[", "1", "]")));
    text.push_str(&message("e2", Some("e1"), &nested("{\"a\":", "1", "}")));
    // Unclosed: a line that never ends its arrays.
    text.push_str(&message("e3", Some("e2"), &nested("[", "", "")));
    text.push_str(&nested("[", "", "]"));
    text.push('\n');
    text
}

fn inputs() -> Vec<Input> {
    let input = |name, make| Input { name, foreign: false, runs: every_verb, make };
    vec![
        input("empty", |p| fs::write(p, "").unwrap()),
        input("binary", |p| fs::write(p, noise(64 << 10)).unwrap()),
        input("not-utf8", |p| fs::write(p, not_utf8()).unwrap()),
        input("header-only", |p| fs::write(p, HEADER).unwrap()),
        input("torn-only", |p| fs::write(p, "{\"type\":\"session\",\"vers").unwrap()),
        input("folder", |p| fs::create_dir(p).unwrap()),
        input("fifo", |p| assert!(Command::new("mkfifo").arg(p).status().unwrap().success(), "mkfifo")),
        Input { runs: not_in_cli_rs, ..input("deep-chain", |p| fs::write(p, deep_chain()).unwrap()) },
        input("own-parent", |p| fs::write(p, own_parent()).unwrap()),
        Input {
            foreign: true,
            ..input("claude", |p| {
                fs::copy(fixture("claude-code/claude-compact-branch.jsonl"), p).unwrap();
            })
        },
        Input {
            foreign: true,
            ..input("codex", |p| {
                fs::copy(fixture("codex/codex-fork-rollback-compact.jsonl"), p).unwrap();
            })
        },
        input("legacy-v1", |p| {
            fs::copy(fixture("legacy/v1-basic.jsonl"), p).unwrap();
        }),
        input("huge-numbers", |p| fs::write(p, huge_numbers()).unwrap()),
        input("odd-header", |p| fs::write(p, odd_header()).unwrap()),
        input("nested", |p| fs::write(p, nested_json()).unwrap()),
        input("missing", |_| {}),
    ]
}

/// Every verb that takes one session file, on `path`; output goes under `out`.
fn verbs_on(path: &str, out: &Path) -> Vec<(Vec<String>, Vec<u8>)> {
    let sqlite = format!("sqlite:{}", out.join("copy.db").display());
    let tree = format!("dir:{}", out.join("copy").display());
    let nested_line = format!("{{\"role\":\"user\",\"content\":{}}}\n", nested("[", "", "]"));
    let plain: &[&[&str]] = &[
        &["show", path],
        &["show", "--json", "--all", path],
        &["show", "--leaf", "e1", path],
        &["tree", path],
        &["tree", "--json", path],
        &["context", path],
        &["context", "--compact", path],
        &["segments", path],
        &["segments", "--json", path],
        &["verify", path],
        &["migrate", "--check", path],
        &["migrate", path],
        &["label", path, "e1", "t"],
        &["label", path, "e1", "--clear"],
        &["rename", path, "t"],
        &["fork", path, "--at", "e1"],
        &["fork", path, "--at", "turn:1"],
        &["fork", path, "--at", "e1", "--new-session", "--dir", &out.display().to_string()],
        &["copy", path, &sqlite],
        &["copy", path, &tree],
    ];
    let mut verbs: Vec<(Vec<String>, Vec<u8>)> =
        plain.iter().map(|args| (args.iter().map(|a| (*a).to_owned()).collect(), Vec::new())).collect();
    verbs.push((vec!["append".into(), path.into()], LINE.as_bytes().to_vec()));
    verbs.push((vec!["append".into(), path.into()], noise(4096)));
    verbs.push((vec!["append".into(), path.into()], nested_line.into_bytes()));
    verbs
}

/// Whether a verb writes to the session it names.
fn writes(args: &[String]) -> bool {
    matches!(args[0].as_str(), "migrate" | "label" | "rename" | "fork" | "append") && args[1] != "--check"
}

#[test]
fn no_verb_panics_hangs_or_changes_another_agents_file_on_a_hostile_session() {
    let mut problems = Vec::new();
    for input in inputs() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(format!("{}.jsonl", input.name));
        (input.make)(&path);
        // Only another agent's file is compared (a FIFO is never read here).
        let original = if input.foreign { fs::read(&path).ok() } else { None };
        let out = home.path().join("out");
        fs::create_dir(&out).unwrap();
        for (args, stdin) in verbs_on(s(&path), &out).into_iter().filter(|(args, stdin)| (input.runs)(args, stdin)) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            if let Err(problem) = run(home.path(), &args, &stdin) {
                problems.push(format!("{}: {problem}", input.name));
            }
            if input.foreign && writes(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>()) {
                let now = fs::read(&path).ok();
                if now != original {
                    problems.push(format!("{}: `sess {}` changed another agent's file", input.name, args.join(" ")));
                    fs::write(&path, original.as_ref().unwrap()).unwrap();
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// Where each agent keeps the hostile inputs in a scratch home: pi-family
/// sessions, Claude Code projects and Codex rollouts. Returns the pi-family
/// sessions folder.
fn hostile_home(home: &Path) -> std::path::PathBuf {
    let pi = home.join(".pi/agent/sessions/--work--");
    let claude = home.join(".claude/projects/-work");
    let codex = home.join(".codex/sessions/2026/01/01");
    for dir in [&pi, &claude, &codex] {
        fs::create_dir_all(dir).unwrap();
    }
    // The deep chain is walked by the other test; here it would only be read
    // again by every listing.
    for (n, input) in inputs().into_iter().filter(|i| i.name != "deep-chain").enumerate() {
        let uuid = format!("0b0c0d0e-0000-7000-8000-{n:012}");
        (input.make)(&pi.join(format!("2026-01-01T00-00-00-000Z_{}.jsonl", input.name)));
        (input.make)(&claude.join(format!("{uuid}.jsonl")));
        (input.make)(&codex.join(format!("rollout-2026-01-01T00-00-00-{uuid}.jsonl")));
    }
    home.join(".pi/agent/sessions")
}

#[test]
fn no_listing_search_or_store_verb_panics_or_hangs_over_a_home_of_hostile_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let pi = hostile_home(home);
    let junk = home.join("junk.bin");
    fs::write(&junk, noise(8192)).unwrap();
    let empty = home.join("empty.db");
    fs::write(&empty, "").unwrap();
    let fifo = home.join("fifo.db");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    let db = format!("sqlite:{}", home.join("all.db").display());
    let pi_store = format!("dir:{}", pi.display());
    let id = "0a0b0c0d-0000-7000-8000-000000000001";
    let commands: Vec<Vec<String>> = [
        &["list"][..],
        &["list", "--all-projects"],
        &["list", "--all-projects", "--json", "--limit", "0"],
        &["list", "--source", "claude", "--all-projects", "--json"],
        &["list", "--source", "codex", "--all-projects"],
        &["show", "0b0c0d0e-0000-7000-8000-000000000001"],
        &["show", "0b0c0d0e-0000-7000-8000-000000000005"],
        &["show", "0b0c0d0e-0000-7000-8000-000000000013"],
        &["show", "0b0c0d0e"],
        &["show", "--json", id],
        &["verify", &pi.display().to_string()],
        &["index", "--json"],
        &["search", "hello", "--all-projects", "--json"],
        &["search", "\"", "--all-projects"],
        &["search", "NOT", "--all-projects", "--no-refresh"],
        &["search", "*", "--all-projects", "--no-refresh"],
        &["search", "a OR", "--all-projects", "--no-refresh"],
        &["search", "(((", "--all-projects", "--no-refresh"],
        &["search", "NEAR(a b, -1)", "--all-projects", "--no-refresh"],
        &["search", "", "--all-projects", "--no-refresh"],
        &["search", "\u{1}\u{7f}", "--all-projects", "--no-refresh", "--limit", "0"],
        &["--store", &pi_store, "list", "--all-projects"],
        &["copy", &pi_store, &db],
        &["--store", &db, "list", "--all-projects", "--json"],
        &["--store", &db, "show", id],
        &["--store", &db, "tree", id],
        &["--store", &db, "context", id],
        &["--store", &db, "segments", id],
        &["--store", &db, "label", id, "e1", "t"],
        &["--store", &db, "rename", id, "t"],
        &["--store", &db, "fork", id, "--at", "e1"],
        &["--store", &db, "fork", id, "--at", "e1", "--new-session"],
        &["--store", &db, "index", "--json"],
        &["--store", &db, "search", "hello"],
        &["--store", &format!("sqlite:{}", junk.display()), "list"],
        &["--store", &format!("sqlite:{}", empty.display()), "list"],
        &["--store", &format!("sqlite:{}", fifo.display()), "list"],
        &["--store", &format!("sqlite:{}", pi.display()), "list"],
        &["--store", &format!("dir:{}", junk.display()), "list"],
        &["--store", "postgres://postgres@127.0.0.1:1/test?connect_timeout=1", "list"],
        &["--store", "nothing:at-all", "list"],
        &["--store", "", "list"],
        &["copy", &format!("sqlite:{}", junk.display()), &format!("dir:{}", home.join("out").display())],
        &["index", "--catalog", &junk.display().to_string()],
        &["index", "--catalog", &fifo.display().to_string()],
        &["index", "--catalog", &pi.display().to_string()],
        &["search", "x", "--catalog", &junk.display().to_string()],
    ]
    .iter()
    .map(|args| args.iter().map(|a| (*a).to_owned()).collect())
    .collect();
    let mut problems = Vec::new();
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Err(problem) = run(home, &args, b"") {
            problems.push(problem);
        }
    }
    let appended = run(home, &["--store", &db, "append", id], LINE.as_bytes());
    problems.extend(appended.err());
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn no_verb_panics_on_odd_arguments_or_appended_entries() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let path = home.join("main.jsonl");
    fs::copy(fixture("pi-family/pi-mono-0.73.1-main.jsonl"), &path).unwrap();
    let p = s(&path);
    let mut problems = Vec::new();
    for at in ["turn:0", "turn:-1", "turn:18446744073709551616", "turn:99999", "turn:", "", " ", "ea3e"] {
        problems.extend(run(home, &["fork", p, "--at", at], b"").err());
        problems.extend(run(home, &["fork", p, "--at", at, "--new-session"], b"").err());
    }
    for leaf in ["", "x", "ea3e"] {
        for verb in ["show", "context", "append"] {
            problems.extend(run(home, &[verb, "--leaf", leaf, p], LINE.as_bytes()).err());
        }
    }
    let odd: &[&[&str]] = &[
        &["list", "--limit", "18446744073709551616"],
        &["list", "--cwd", ""],
        &["search", "x", "--limit", "0"],
        &["rename", p, "\t\n"],
        &["rename", p, ""],
        &["label", p, "ea3e2661", ""],
        &["label", p, "", "x"],
    ];
    for args in odd {
        problems.extend(run(home, args, b"").err());
    }
    // Lines `sess append` is given: odd fields, numbers out of range, lone
    // surrogates, and strings around the 500,000-unit cut.
    let entries = [
        "{\"type\":\"session\",\"version\":3,\"id\":\"x\"}".to_owned(),
        "{\"role\":\"user\",\"content\":\"x\",\"timestamp\":1e999}".to_owned(),
        "{\"role\":\"user\",\"content\":\"x\",\"timestamp\":18446744073709551616}".to_owned(),
        "{\"type\":\"label\",\"targetId\":\"nope\",\"label\":\"x\"}".to_owned(),
        "{\"type\":\"compaction\",\"summary\":\"s\",\"firstKeptEntryId\":\"nope\",\"tokensBefore\":1e999}".to_owned(),
        "{\"type\":\"model_change\",\"provider\":[],\"modelId\":{}}".to_owned(),
        "{\"role\":123}".to_owned(),
        "{\"type\":123}".to_owned(),
        "{\"id\":\"x\",\"parentId\":\"x\",\"role\":\"user\",\"content\":\"c\"}".to_owned(),
        "{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"data\":\"!!!!\",\"mimeType\":[]}]}".to_owned(),
        format!("{{\"role\":\"user\",\"content\":\"{}\"}}", "\\ud800".repeat(300_000)),
        format!("{{\"role\":\"user\",\"content\":\"{}{}\"}}", "a".repeat(499_990), "\\ud83d\\ude00".repeat(20)),
        format!("{{\"role\":\"user\",\"content\":\"{}{}\"}}", "a".repeat(499_952), "\\\\".repeat(20)),
    ];
    for entry in &entries {
        problems.extend(run(home, &["append", p], format!("{entry}\n").as_bytes()).err());
    }
    for verb in ["show", "context", "tree", "verify", "segments"] {
        problems.extend(run(home, &[verb, p], b"").err());
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
