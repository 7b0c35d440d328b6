//! `sess list` answers from the search catalog: on every agent's fixtures its
//! output (text and JSON, warnings included) is the one of reading every file
//! (`--no-catalog`), for every scope, source and limit, and stays so after a
//! session file grows and after one is deleted.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::Output;

use common::{CLAUDE_BASIC, CODEX_BASIC, agents_home, fixture, place, sess_at};

/// Every agent's fixtures where the agents keep them: the real agents'
/// homes, the pi-family sessions in each pi agent's folder, the older Claude
/// Code and Codex fixtures, and a FIFO among the Claude Code sessions.
fn home() -> tempfile::TempDir {
    let home = agents_home();
    let root = home.path();
    for (name, dir) in [
        ("oh-my-pi-18.2.3-bun.jsonl", ".omp/agent/sessions/--home-dev-demo-project--"),
        ("pi-mono-0.73.1-createBranchedSession.jsonl", ".pi/agent/sessions/--home-dev-other--"),
        ("pi-mono-0.73.1-main.jsonl", ".xcsh/agent/sessions/--home-dev-demo-project--"),
    ] {
        place(&fixture(&format!("pi-family/{name}")), &root.join(dir).join(name), 15);
    }
    for (index, name) in [
        "claude-1.0.98-task-sidechains.jsonl",
        "claude-2.0.14-snapshot-first.jsonl",
        "claude-basic-toolcall.jsonl",
        "claude-compact-branch.jsonl",
        "claude-health-endpoint.jsonl",
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c0{index}");
        place(
            &fixture(&format!("claude-code/{name}")),
            &root.join(format!(".claude/projects/-home-alice-src-todo-api/{id}.jsonl")),
            20 + index as u64,
        );
    }
    place(
        &fixture("claude-code/claude-basic-toolcall.jsonl"),
        &root.join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl")),
        40,
    );
    for (index, name) in
        ["codex-0.146-null-image.jsonl", "codex-basic-rollout.jsonl", "codex-fork-rollback-compact.jsonl"]
            .into_iter()
            .enumerate()
    {
        let id = if name == "codex-basic-rollout.jsonl" {
            CODEX_BASIC.to_owned()
        } else {
            format!("0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a9{index}")
        };
        place(
            &fixture(&format!("codex/{name}")),
            &root.join(format!(".codex/sessions/2026/08/2{index}/rollout-2026-08-2{index}T10-02-11-{id}.jsonl")),
            30 + index as u64,
        );
    }
    let fifo = root.join(".claude/projects/-home-alice-src-todo-api/pipe.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // Links to files that are gone: reading them fails.
    for link in [
        ".claude/projects/-home-alice-src-todo-api/5f0c1a2b-0000-4000-8000-0000000000aa.jsonl",
        ".codex/sessions/2026/08/20/rollout-2026-08-20T11-00-00-0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7aaa.jsonl",
        ".pi/agent/sessions/--home-dev-demo-project--/gone.jsonl",
    ] {
        std::os::unix::fs::symlink(root.join("no-such-file.jsonl"), root.join(link)).unwrap();
    }
    home
}

fn run(home: &Path, args: &[&str]) -> Output {
    let output = sess_at(home, args, "");
    assert_eq!(output.status.code(), Some(0), "`sess {}`: {}", args.join(" "), String::from_utf8_lossy(&output.stderr));
    output
}

/// The directories the sessions worked in, and one no session did.
fn cwds(home: &Path) -> BTreeSet<String> {
    let listed: serde_json::Value =
        serde_json::from_slice(&run(home, &["list", "--all-projects", "--json", "--no-catalog"]).stdout).unwrap();
    let mut cwds: BTreeSet<String> =
        listed.as_array().unwrap().iter().filter_map(|s| s["cwd"].as_str().map(str::to_owned)).collect();
    cwds.insert("/nowhere/at/all".to_owned());
    cwds
}

/// Every listing asked both ways gives the same output and warnings.
fn assert_same_both_ways(home: &Path) {
    let mut runs: Vec<Vec<String>> = vec![vec!["--all-projects".into()], vec![]];
    for cwd in cwds(home) {
        runs.push(vec!["--cwd".into(), cwd]);
    }
    for source in ["all", "pi", "claude", "codex", "qwen", "gemini", "copilot", "opencode"] {
        runs.push(vec!["--all-projects".into(), "--source".into(), source.into()]);
    }
    runs.push(vec!["--all-projects".into(), "--limit".into(), "3".into()]);
    runs.push(vec![
        "--cwd".into(),
        "/home/dev/demo-project".into(),
        "--source".into(),
        "pi".into(),
        "--limit".into(),
        "1".into(),
    ]);
    let mut listed = 0;
    for run_args in &runs {
        for json in [true, false] {
            let mut args: Vec<&str> = vec!["list"];
            args.extend(run_args.iter().map(String::as_str));
            if json {
                args.push("--json");
            }
            let from_catalog = run(home, &args);
            args.push("--no-catalog");
            let from_files = run(home, &args);
            let shown = args.join(" ");
            assert_eq!(
                String::from_utf8_lossy(&from_catalog.stdout),
                String::from_utf8_lossy(&from_files.stdout),
                "`sess {shown}`"
            );
            assert_eq!(
                String::from_utf8_lossy(&from_catalog.stderr),
                String::from_utf8_lossy(&from_files.stderr),
                "`sess {shown}`"
            );
            if json {
                let sessions: serde_json::Value = serde_json::from_slice(&from_catalog.stdout).unwrap();
                listed += sessions.as_array().unwrap().len();
            }
        }
    }
    assert!(listed > 20, "the listings compared hold {listed} sessions");
}

#[test]
fn the_catalog_lists_what_reading_the_files_lists() {
    let home = home();
    let root = home.path();
    assert_same_both_ways(root);
    assert!(root.join(".local/share/sess/catalog.sqlite").is_file());
    // The warnings compared are there: the FIFO, and the links whose files are gone.
    let warned = String::from_utf8(run(root, &["list", "--all-projects"]).stderr).unwrap();
    assert!(warned.contains("is a FIFO (named pipe), not a session file"), "{warned}");
    assert!(warned.contains("5f0c1a2b-0000-4000-8000-0000000000aa.jsonl` does not exist"), "{warned}");
    assert!(warned.contains("0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7aaa.jsonl` does not exist"), "{warned}");

    // Sessions grow: whole lines appended (read from where the catalog stopped).
    for (path, from) in [
        (
            root.join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl")),
            fixture("claude-code/claude-compact-branch.jsonl"),
        ),
        (
            root.join(".pi/agent/sessions/--home-dev-demo-project--/main.jsonl"),
            fixture("pi-family/pi-mono-0.73.1-createBranchedSession.jsonl"),
        ),
        (
            root.join(format!(".codex/sessions/2026/08/21/rollout-2026-08-21T10-02-11-{CODEX_BASIC}.jsonl")),
            fixture("codex/codex-basic-rollout.jsonl"),
        ),
    ] {
        let text = fs::read_to_string(&from).unwrap();
        let lines: Vec<&str> = text.lines().skip(1).take(6).collect();
        let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
        writeln!(file, "{}", lines.join("\n")).unwrap();
    }
    assert_same_both_ways(root);

    // A session file is deleted.
    fs::remove_file(root.join(".xcsh/agent/sessions/--home-dev-demo-project--/pi-mono-0.73.1-main.jsonl")).unwrap();
    fs::remove_file(root.join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl"))).unwrap();
    assert_same_both_ways(root);
}

#[test]
fn a_catalog_that_cannot_be_made_leaves_the_listing_to_the_files() {
    let home = home();
    let root = home.path();
    // The catalog's folder is a file: no catalog can be made there.
    fs::create_dir_all(root.join(".local/share")).unwrap();
    fs::write(root.join(".local/share/sess"), "").unwrap();
    let from_files = run(root, &["list", "--all-projects", "--json", "--no-catalog"]);
    let listed = run(root, &["list", "--all-projects", "--json"]);
    assert_eq!(String::from_utf8_lossy(&listed.stdout), String::from_utf8_lossy(&from_files.stdout));
    let err = String::from_utf8_lossy(&listed.stderr);
    assert_eq!(err.matches("listing by reading the session files").count(), 1, "{err}");
    assert!(err.contains("catalog"), "{err}");
}

/// Issue 26, item 11: `sess list` takes `--catalog PATH` as `index`, `search`,
/// `serve` and `mcp` do, and lists from that catalog alone.
#[test]
fn a_catalog_named_with_catalog_is_the_one_listed_from() {
    let home = home();
    let root = home.path();
    let elsewhere = root.join("elsewhere/my-catalog.sqlite");
    fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    let catalog = elsewhere.display().to_string();
    let from_files = run(root, &["list", "--all-projects", "--json", "--no-catalog"]);
    let listed = run(root, &["list", "--all-projects", "--json", "--catalog", &catalog]);
    assert_eq!(String::from_utf8_lossy(&listed.stdout), String::from_utf8_lossy(&from_files.stdout));
    assert!(elsewhere.is_file(), "the catalog named was made");
    assert!(!root.join(".local/share/sess/catalog.sqlite").exists(), "the default catalog was not made");
    // The catalog made by `sess list` is the one `sess search` reads as it is.
    let found = run(root, &["search", "--catalog", &catalog, "--no-refresh", "--json", "health"]);
    assert!(!String::from_utf8_lossy(&found.stdout).trim().is_empty());
    // Reading every file and naming a catalog contradict each other.
    let both = sess_at(root, &["list", "--no-catalog", "--catalog", &catalog], "");
    assert_eq!(both.status.code(), Some(2), "{}", String::from_utf8_lossy(&both.stderr));
}
