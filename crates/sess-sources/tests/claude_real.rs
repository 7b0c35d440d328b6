//! Golden tests over session files the real Claude Code CLI 2.1.332 wrote
//! (`interop/claude-code` ran it against a fake Messages API; the files are
//! kept in `fixtures/claude-code/real-2.1.332/claude-config`, with the
//! driver's `report.json`, the kernel version scrubbed).
//!
//! Each session's transcript is checked in under `expected/<scenario>.json`.
//! `SESS_BLESS=1 cargo test` rewrites them from the code; review the diff
//! against the rules (and against `report.json`) before committing it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Blessing writes the expected files directly.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{assert_golden, calls, read_json, shape};
use pretty_assertions::assert_eq;
use serde_json::Value;
use sess_sources::{Block, Role, Scope, ToolStatus, Transcript, claude};

fn fixture() -> PathBuf {
    common::fixture("claude-code/real-2.1.332")
}

fn report() -> Value {
    read_json(&fixture().join("report.json"))
}

/// The sessions of the report: `(scenario, id, cwd)`.
fn sessions(report: &Value) -> Vec<(String, String, String)> {
    let field = |s: &Value, k: &str| s[k].as_str().unwrap().to_owned();
    report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (field(s, "scenario"), field(s, "id"), field(s, "cwd")))
        .collect()
}

fn config() -> PathBuf {
    fixture().join("claude-config")
}

/// The session file with this id.
fn file(id: &str) -> PathBuf {
    claude::session_files(&[config()]).into_iter().find(|(found, _)| found == id).unwrap().1
}

/// Loads a session and compares its transcript with `expected/<scenario>.json`.
fn golden(scenario: &str, id: &str) -> Transcript {
    let transcript = claude::load(&file(id)).unwrap();
    assert_golden(&transcript, &fixture().join(format!("expected/{scenario}.json")), scenario);
    transcript
}

#[test]
fn every_real_session_reads_cleanly_and_as_checked_in() {
    let report = report();
    for (scenario, id, cwd) in sessions(&report) {
        let t = golden(&scenario, &id);
        assert_eq!(t.issues, [], "{scenario}: every line the CLI wrote parses");
        assert_eq!(t.cwd.as_deref(), Some(cwd.as_str()), "{scenario}");
        assert_eq!(t.id, id);
    }
}

#[test]
fn transcripts_of_the_real_sessions() {
    use Role::{Assistant, System, User};
    use ToolStatus::{Failed, Succeeded};
    let report = report();
    let by_scenario = |name: &str| {
        let (_, id, _) = sessions(&report).into_iter().find(|(s, _, _)| s == name).unwrap();
        claude::load(&file(&id)).unwrap()
    };

    let t = by_scenario("ascii");
    assert_eq!(t.title.as_deref(), Some("Say hello."));
    assert_eq!(
        shape(&t),
        [
            (User, vec!["text"]),
            (Assistant, vec!["text"]),
            (User, vec!["text"]),
            (Assistant, vec!["thinking", "text", "tool_call", "tool_call", "tool_call", "text"]),
            (System, vec!["summary"]),
            (System, vec!["text"]),
            (System, vec!["text"]),
        ]
    );
    assert_eq!(calls(&t.messages), [("Bash", Succeeded), ("Read", Succeeded), ("Bash", Failed)]);
    let Block::Summary { text } = &t.messages[4].blocks[0] else { panic!("no summary") };
    assert!(text.contains(report["summary"].as_str().unwrap()) && !text.contains("<system-reminder>"), "{text}");

    let t = by_scenario("ascii-api-error");
    assert_eq!(shape(&t), [(User, vec!["text"]), (Assistant, vec!["error"])]);

    for name in ["cjk", "cjk-fork"] {
        let t = by_scenario(name);
        assert_eq!(t.title.as_deref(), Some("メモを読んで要約して。"), "{name}");
        assert_eq!(calls(&t.messages), [("Read", Succeeded)], "{name}");
    }
    assert_eq!(shape(&by_scenario("cjk-fork")).len(), 4, "the fork holds its parent's history");

    let t = by_scenario("emoji-subagent");
    assert_eq!(t.title.as_deref(), Some("Rocket 🚀 launch"), "the name given with -n");
    assert_eq!(shape(&t), [(User, vec!["text"]), (Assistant, vec!["text", "tool_call", "text"])]);
    assert_eq!(calls(&t.messages), [("Agent", Succeeded)]);

    let t = by_scenario("emoji-background");
    assert_eq!(
        shape(&t),
        [
            (User, vec!["text"]),
            (Assistant, vec!["tool_call", "text"]),
            (System, vec!["text"]),
            (Assistant, vec!["text"])
        ]
    );
    assert_eq!(t.messages[2].blocks, [Block::text("Background command \"Slow build\" completed (exit code 0)")]);

    let t = by_scenario("long-one");
    assert_eq!(calls(&t.messages), [("Write", Failed), ("Read", Failed)], "a refused write, a missing file");
}

#[test]
fn listings_of_the_real_config_folder() {
    let report = report();
    let config = [config()];
    let all = claude::list(&config, Scope::All);
    assert_eq!(all.problems.len(), 0);
    let listed: BTreeSet<String> = all.sessions.iter().map(|s| s.id.clone()).collect();
    let made: BTreeSet<String> = sessions(&report).into_iter().map(|(_, id, _)| id).collect();
    assert_eq!(listed, made, "every session, no subagent");
    let cwds: BTreeSet<String> = sessions(&report).into_iter().map(|(_, _, cwd)| cwd).collect();
    for cwd in cwds {
        let found: BTreeSet<String> =
            claude::list(&config, Scope::Project(Path::new(&cwd))).sessions.into_iter().map(|s| s.id).collect();
        let wanted: BTreeSet<String> =
            sessions(&report).into_iter().filter(|(_, _, c)| *c == cwd).map(|(_, id, _)| id).collect();
        assert_eq!(found, wanted, "{cwd}");
    }
}

#[test]
fn a_session_is_made_of_its_subagents_transcripts() {
    use sess_sources::{Growth, Source as _};
    let projects = fixture().join("claude-config/projects");
    let found = claude::find_session_files(&[fixture().join("claude-config")]).files;
    assert!(!found.is_empty());
    let mut with_subagents = 0;
    for (id, main) in &found {
        assert_eq!(claude::Claude.growth(main), Growth::Lines, "{id}");
        let companions = claude::Claude.companions(main);
        // What the driver saw under the session's own folder.
        let folder = main.with_extension("");
        let expected: Vec<PathBuf> = report()["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| projects.join(f.as_str().unwrap()))
            .filter(|f| f.starts_with(folder.join("subagents")))
            .collect();
        assert_eq!(companions, expected, "{id}");
        if !companions.is_empty() {
            with_subagents += 1;
            let growth: Vec<Growth> = companions.iter().map(|c| claude::Claude.growth(c)).collect();
            assert_eq!(growth, [Growth::Lines, Growth::Whole], "{companions:?}");
        }
    }
    assert_eq!(with_subagents, 1);
}
