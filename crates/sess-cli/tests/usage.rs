//! `sess usage` on copies of the files the real agents wrote: every agent's
//! calls are counted, the filters and the price table do what they say, a
//! session the agent deleted still counts once it is archived and never
//! twice, and bad input is refused with a clear error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails; tests write their inputs.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{agents_home, json_out, sess_at, stderr, stdout};

fn usage(home: &Path, args: &[&str]) -> Value {
    let mut all = vec!["usage", "--timezone", "UTC"];
    all.extend_from_slice(args);
    json_out(&sess_at(home, &all, ""))
}

/// Calls and total tokens per agent, from the `source` report's breakdowns.
fn by_source(report: &Value) -> BTreeMap<String, (u64, u64)> {
    report["totals"]["sourceBreakdowns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["source"].as_str().unwrap().to_owned(),
                (b["calls"].as_u64().unwrap(), b["totalTokens"].as_u64().unwrap()),
            )
        })
        .collect()
}

#[test]
fn every_agent_that_records_usage_is_counted_and_the_views_agree() {
    let home = agents_home();
    let daily = usage(home.path(), &["--json"]);
    let sources = by_source(&daily);
    for agent in ["claude", "codex", "qwen", "gemini", "copilot", "opencode", "pi"] {
        let (calls, tokens) = sources.get(agent).copied().unwrap_or_default();
        assert!(calls > 0 && tokens > 0, "{agent}: {sources:?}");
    }
    let total = daily["totals"]["totalTokens"].as_u64().unwrap();
    let days: u64 = daily["daily"].as_array().unwrap().iter().map(|d| d["totalTokens"].as_u64().unwrap()).sum();
    assert_eq!(days, total);
    for (view, list) in [("monthly", "monthly"), ("session", "sessions"), ("project", "projects"), ("model", "models")]
    {
        let report = usage(home.path(), &[view, "--json"]);
        assert_eq!(report["totals"]["totalTokens"], total, "{view}");
        let lines: u64 = report[list].as_array().unwrap().iter().map(|l| l["totalTokens"].as_u64().unwrap()).sum();
        assert_eq!(lines, total, "{view}");
    }
    // One agent's alone.
    let claude = usage(home.path(), &["--source", "claude", "--json"]);
    assert_eq!(by_source(&claude).keys().collect::<Vec<_>>(), ["claude"]);
    assert_eq!(by_source(&claude)["claude"], sources["claude"]);
    // One project's alone: the sessions `sess list` finds there.
    let sessions = usage(home.path(), &["session", "--json"]);
    let project = sessions["sessions"][0]["project"].as_str().unwrap().to_owned();
    let there = usage(home.path(), &["session", "--cwd", &project, "--json"]);
    assert!(there["sessions"].as_array().unwrap().iter().all(|s| s["project"] == project.as_str()), "{there}");
    // The table says the same totals.
    let table = stdout(&sess_at(home.path(), &["usage", "--timezone", "UTC"], ""));
    let thousands = |n: u64| {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let total_line = table.lines().find(|l| l.starts_with("Total")).unwrap();
    assert!(total_line.contains(&thousands(total)), "{table}");
}

#[test]
fn days_follow_the_time_zone_and_the_bounds() {
    let home = agents_home();
    let all = usage(home.path(), &["--json"]);
    let days: Vec<String> =
        all["daily"].as_array().unwrap().iter().map(|d| d["date"].as_str().unwrap().to_owned()).collect();
    let (first, last) = (days.first().unwrap().clone(), days.last().unwrap().clone());
    let only_last = usage(home.path(), &["--since", &last, "--json"]);
    assert_eq!(only_last["daily"].as_array().unwrap().len(), 1);
    assert_eq!(only_last["daily"][0]["date"], last.as_str());
    let compact = first.replace('-', "");
    let only_first = usage(home.path(), &["--until", &compact, "--json"]);
    assert_eq!(only_first["daily"].as_array().unwrap().len(), 1);
    // Fourteen hours east, some calls move to the next day; none is lost.
    let east = json_out(&sess_at(home.path(), &["usage", "--timezone", "Pacific/Kiritimati", "--json"], ""));
    assert_eq!(east["totals"]["totalTokens"], all["totals"]["totalTokens"]);
}

#[test]
fn a_price_table_given_prices_what_the_bundled_one_does_not() {
    let home = agents_home();
    let before = usage(home.path(), &["model", "--json"]);
    let unpriced: Vec<String> =
        before["unpricedModels"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect();
    assert!(!unpriced.is_empty(), "the real agents ran against a fake model: {before}");
    let model = &unpriced[0];
    let prices = home.path().join("prices.json");
    let table = format!(r#"{{"date": "2026-12-01", "models": {{"{model}": {{"input": 1000000, "output": 0}}}}}}"#);
    fs::write(&prices, table).unwrap();
    let after = usage(home.path(), &["model", "--prices", prices.to_str().unwrap(), "--json"]);
    let line = after["models"].as_array().unwrap().iter().find(|m| m["modelName"] == model.as_str()).unwrap().clone();
    // A dollar a token of input: the cost is the input tokens.
    let (cost, input) = (line["totalCost"].as_f64().unwrap(), line["inputTokens"].as_f64().unwrap());
    assert!(input > 0.0 && (cost - input).abs() < 1e-6, "{line}");
    assert_eq!(after["pricesDate"], "2026-12-01");
    assert!(!after["unpricedModels"].as_array().unwrap().contains(&Value::from(model.as_str())));
    // `--show-prices` prints the table in that shape.
    let shown = json_out(&sess_at(home.path(), &["usage", "--show-prices"], ""));
    assert!(shown["models"]["claude-sonnet-4-5"]["input"].as_f64().unwrap() > 0.0, "{shown}");
}

#[test]
fn bad_input_is_refused_with_what_is_wrong() {
    let home = agents_home();
    let refused = |args: &[&str], expected: &str| {
        let output = sess_at(home.path(), args, "");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
    };
    refused(&["usage", "--timezone", "Mars/Olympus"], "Mars/Olympus");
    refused(&["usage", "--since", "2026-13-01"], "2026-13-01");
    refused(&["usage", "--since", "2026-05-02", "--until", "2026-05-01"], "after --until");
    let bad = home.path().join("prices.json");
    fs::write(&bad, r#"{"date": "2026-12-01", "models": {"m": {"input": "cheap"}}}"#).unwrap();
    refused(&["usage", "--prices", bad.to_str().unwrap()], "prices.json");
    refused(&["usage", "--prices", home.path().join("missing.json").to_str().unwrap()], "missing.json");
    #[cfg(unix)]
    {
        let fifo = home.path().join("prices.fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        // A FIFO is refused before it is opened (opening it would hang).
        refused(&["usage", "--prices", fifo.to_str().unwrap()], "prices.fifo");
    }
}

#[test]
fn a_deleted_session_counts_from_the_archive_once() {
    let home = agents_home();
    let before = usage(home.path(), &["session", "--json"]);
    let archive = sess_at(home.path(), &["archive"], "");
    assert!(archive.status.success(), "{}", stderr(&archive));
    // Archived and still there: counted once.
    assert_eq!(usage(home.path(), &["session", "--json"])["totals"], before["totals"]);
    // The agents delete every Claude Code session: the archive still has them.
    fs::remove_dir_all(home.path().join(".claude/projects")).unwrap();
    let after = usage(home.path(), &["session", "--json"]);
    assert_eq!(after["totals"]["totalTokens"], before["totals"]["totalTokens"], "{after}");
    assert_eq!(by_source(&after), by_source(&before));
    // The archive alone: every session it keeps.
    let url = format!("sqlite:{}", home.path().join(".local/share/sess/archive.sqlite").display());
    let archived = json_out(&sess_at(home.path(), &["--store", &url, "usage", "--timezone", "UTC", "--json"], ""));
    assert_eq!(archived["totals"]["totalTokens"], before["totals"]["totalTokens"]);
}

#[test]
fn no_calls_says_so() {
    let home = tempfile::tempdir().unwrap();
    let output = sess_at(home.path(), &["usage"], "");
    assert!(output.status.success());
    assert_eq!(stdout(&output).trim(), "no model calls");
}

#[test]
fn a_stores_sessions_count_once_beside_the_files_they_were_copied_from() {
    let home = agents_home();
    let pi_file = home.path().join(".pi/agent/sessions/--home-dev-demo-project--/main.jsonl");
    let store = format!("sqlite:{}", home.path().join("store.sqlite").display());
    let copied = sess_at(home.path(), &["copy", pi_file.to_str().unwrap(), &store], "");
    assert!(copied.status.success(), "{}", stderr(&copied));
    let files = usage(home.path(), &["--source", "pi", "--json"]);
    assert!(files["totals"]["calls"].as_u64().unwrap() > 0, "{files}");
    // The store's copy has the same entries: each call once.
    let with_store = json_out(&sess_at(
        home.path(),
        &["--store", &store, "usage", "--timezone", "UTC", "--source", "pi", "--json"],
        "",
    ));
    assert_eq!(with_store["totals"], files["totals"]);
    // The file gone, the store's copy still counts.
    fs::remove_file(&pi_file).unwrap();
    let store_only = json_out(&sess_at(
        home.path(),
        &["--store", &store, "usage", "--timezone", "UTC", "--source", "pi", "--json"],
        "",
    ));
    assert_eq!(store_only["totals"], files["totals"]);
    // Without --store, neither.
    assert_eq!(usage(home.path(), &["--source", "pi", "--json"])["totals"]["calls"], 0);
}

/// Issue 26, item 11: `--prices /dev/zero` said "not a session file". A
/// special file is refused as a price table, and a table without a model's
/// output price (issue 26, item 7) is refused naming what is missing.
#[cfg(unix)]
#[test]
fn a_special_file_or_a_price_without_output_is_refused_as_a_price_table() {
    let home = agents_home();
    let output = sess_at(home.path(), &["usage", "--prices", "/dev/zero"], "");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("price table") && err.contains("character device"), "{err}");
    assert!(!err.contains("session file"), "{err}");
    let table = home.path().join("prices.json");
    fs::write(&table, r#"{"date": "2026-12-01", "models": {"m": {"input": 3}}}"#).unwrap();
    let output = sess_at(home.path(), &["usage", "--prices", table.to_str().unwrap()], "");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("missing field `output`"), "{err}");
}

/// A Claude Code session of one user line and one assistant line whose
/// usage is `usage`.
fn claude_with_usage(home: &Path, id: &str, usage: &str) {
    let folder = home.join(".claude/projects/-work");
    fs::create_dir_all(&folder).unwrap();
    let lines = [
        format!(
            r#"{{"type":"user","sessionId":"{id}","uuid":"u1","timestamp":"2026-03-01T10:00:00Z","cwd":"/work","message":{{"role":"user","content":"hi"}}}}"#
        ),
        format!(
            r#"{{"type":"assistant","sessionId":"{id}","uuid":"a1","parentUuid":"u1","timestamp":"2026-03-01T10:00:01Z","cwd":"/work","requestId":"r-{id}","message":{{"id":"m-{id}","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"hello"}}],"usage":{usage}}}}}"#
        ),
    ];
    fs::write(folder.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}

/// Issue 26, item 7: a token count that is not a count (-5, "12") was read
/// as 0 without a word. It is said, naming the session and the value, by a
/// run that reads the files and by one that answers from the catalog; the
/// rest of the call still counts.
#[test]
fn a_token_count_that_is_not_a_count_is_a_warning_naming_the_session() {
    let home = tempfile::tempdir().unwrap();
    let negative = "5e0a1a2b-0000-4000-8000-000000000001";
    let string = "5e0a1a2b-0000-4000-8000-000000000002";
    claude_with_usage(home.path(), negative, r#"{"input_tokens":-5,"output_tokens":7}"#);
    claude_with_usage(home.path(), string, r#"{"input_tokens":"12","output_tokens":3}"#);
    for run in ["from the files", "from the catalog"] {
        let output = sess_at(home.path(), &["usage", "--timezone", "UTC", "--json"], "");
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{run}: {err}");
        for (id, value) in [(negative, "input_tokens -5"), (string, r#"input_tokens "12""#)] {
            assert!(
                err.lines().any(|line| line.contains(id) && line.contains(value)),
                "{run}: no warning names {id} and {value}: {err}"
            );
        }
        let report = json_out(&output);
        assert_eq!(report["totals"]["outputTokens"], 10, "{run}");
        assert_eq!(report["totals"]["inputTokens"], 0, "{run}");
        assert_eq!(report["totals"]["calls"], 2, "{run}");
    }
}
