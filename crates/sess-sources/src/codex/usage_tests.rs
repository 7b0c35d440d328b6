//! The calls of Codex rollouts: the rules of `codex/usage.rs` on inline
//! lines, and the totals of the recorded rollouts.

#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::source::Source;

const THREAD: &str = "0199aaaa-0000-7000-8000-000000000001";
const PARENT: &str = "0199aaaa-0000-7000-8000-000000000002";

fn lines(values: &[Value]) -> Vec<u8> {
    values.iter().map(|v| v.to_string() + "\n").collect::<String>().into_bytes()
}

fn meta(forked_from: Option<&str>) -> Value {
    let mut payload = json!({"id": THREAD, "cwd": "/w"});
    if let Some(parent) = forked_from {
        payload["forked_from_id"] = json!(parent);
    }
    json!({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": payload})
}

fn turn_context(model: &str) -> Value {
    json!({"timestamp": "2026-01-01T00:00:01Z", "type": "turn_context", "payload": {"model": model}})
}

/// Counts as Codex writes them: input (cached included), cached, output
/// (reasoning included), reasoning.
fn usage(input: u64, cached: u64, output: u64, reasoning: u64) -> Value {
    json!({
        "input_tokens": input, "cached_input_tokens": cached, "output_tokens": output,
        "reasoning_output_tokens": reasoning, "total_tokens": input + output,
    })
}

fn token_count(at: &str, info: impl Into<Value>) -> Value {
    let info: Value = info.into();
    json!({"timestamp": at, "type": "event_msg", "payload": {"type": "token_count", "info": info, "rate_limits": null}})
}

fn counts(call: &Call) -> (u64, u64, u64, u64, u64) {
    (call.input, call.cache_read, call.cache_creation, call.output, call.reasoning)
}

#[test]
fn each_response_counts_once_by_the_rules_of_the_call() {
    let bytes = lines(&[
        meta(None),
        turn_context("gpt-5.1-codex"),
        token_count("t0", Value::Null),
        token_count(
            "t1",
            json!({"total_token_usage": usage(1000, 800, 50, 20), "last_token_usage": usage(1000, 800, 50, 20)}),
        ),
        // Written again when the next turn starts: nothing new.
        token_count(
            "t2",
            json!({"total_token_usage": usage(1000, 800, 50, 20), "last_token_usage": usage(1000, 800, 50, 20)}),
        ),
        // Only the total: what it adds to the one before.
        token_count("t3", json!({"total_token_usage": usage(1500, 1000, 80, 30)})),
        // The event names its model; odd values read as 0, floats are cut,
        // more cached than input is all cached.
        token_count(
            "t4",
            json!({
                "model": "o3",
                "total_token_usage": usage(1600, 1050, 86, 30),
                "last_token_usage": {
                    "input_tokens": 10, "cached_input_tokens": 50, "output_tokens": 5.9,
                    "reasoning_output_tokens": "3", "cache_write_input_tokens": -1,
                },
            }),
        ),
        // Nothing counted: no call.
        token_count(
            "t5",
            json!({"total_token_usage": usage(1700, 1050, 86, 30), "last_token_usage": usage(0, 0, 0, 0)}),
        ),
        // Cache writes (Codex 0.171) are part of the input too.
        token_count(
            "t6",
            json!({
                "total_token_usage": usage(2700, 1550, 136, 30),
                "last_token_usage": {"input_tokens": 1000, "cached_input_tokens": 500, "cache_write_input_tokens": 100, "output_tokens": 50},
            }),
        ),
        json!({"timestamp": "t7", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "\"token_count\""}]}}),
        Value::String("not a line".into()),
    ]);
    let calls = of_rollout(Path::new("/nowhere/rollout.jsonl"), &bytes, THREAD);
    let got: Vec<_> = calls.iter().map(counts).collect();
    assert_eq!(got, [(200, 800, 0, 50, 20), (300, 200, 0, 30, 10), (0, 10, 0, 5, 0), (400, 500, 100, 50, 0)]);
    let models: Vec<_> = calls.iter().map(|c| c.model.as_deref()).collect();
    assert_eq!(models, [Some("gpt-5.1-codex"), Some("gpt-5.1-codex"), Some("o3"), Some("gpt-5.1-codex")]);
    let times: Vec<_> = calls.iter().map(|c| c.timestamp.as_deref()).collect();
    assert_eq!(times, [Some("t1"), Some("t3"), Some("t4"), Some("t6")]);
    assert_eq!(calls[0].key.as_deref(), Some(format!("{THREAD}:1000/800/0/50/20/1050").as_str()));
    assert!(calls.iter().all(|c| c.cost.is_none()));
}

#[test]
fn a_rollout_that_never_names_its_model_ran_gpt_5() {
    let bytes = lines(&[meta(None), token_count("t1", json!({"last_token_usage": usage(10, 0, 2, 0)}))]);
    let calls = of_rollout(Path::new("/nowhere/rollout.jsonl"), &bytes, THREAD);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].model.as_deref(), Some("gpt-5"));
    // Without a total, a call has no key.
    assert_eq!(calls[0].key, None);
}

#[test]
fn added_lines_give_the_same_calls_as_the_whole_file() {
    let head = [
        meta(None),
        turn_context("gpt-5.5"),
        token_count("t1", json!({"total_token_usage": usage(100, 0, 10, 0), "last_token_usage": usage(100, 0, 10, 0)})),
    ];
    let tail = [
        // A repeat: its key is the one of the call it repeats.
        token_count("t2", json!({"total_token_usage": usage(100, 0, 10, 0), "last_token_usage": usage(100, 0, 10, 0)})),
        token_count(
            "t3",
            json!({"total_token_usage": usage(300, 100, 30, 0), "last_token_usage": usage(200, 100, 20, 0)}),
        ),
    ];
    let whole = of_rollout(Path::new("/nowhere/r.jsonl"), &lines(&[head.as_slice(), &tail].concat()), THREAD);
    let first = of_rollout(Path::new("/nowhere/r.jsonl"), &lines(&head), THREAD);
    let added = of_added(&lines(&tail), THREAD);
    assert_eq!(added.len(), 2);
    assert_eq!(added[0].key, first[0].key);
    // The turn's `turn_context` is in the earlier lines: no model.
    assert_eq!(added[1].model, None);
    let mut merged = crate::usage::Calls::default();
    for call in first.into_iter().chain(added) {
        merged.push(call);
    }
    let merged: Vec<_> = merged.finish().iter().map(counts).collect();
    assert_eq!(merged, whole.iter().map(counts).collect::<Vec<_>>());
    assert_eq!(merged, [(100, 0, 0, 10, 0), (100, 100, 0, 20, 0)]);
}

#[test]
fn in_added_lines_a_total_alone_counts_from_the_one_before_it() {
    let bytes = lines(&[
        token_count("t1", json!({"total_token_usage": usage(500, 0, 50, 0)})),
        token_count("t2", json!({"total_token_usage": usage(800, 100, 70, 0)})),
    ]);
    let calls = of_added(&bytes, THREAD);
    assert_eq!(calls.iter().map(counts).collect::<Vec<_>>(), [(200, 100, 0, 20, 0)]);
}

/// A Codex home with the rollout of thread `id` holding `bytes`.
fn put(home: &Path, id: &str, bytes: &[u8]) -> PathBuf {
    let dir = home.join("sessions/2026/01/01");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("rollout-2026-01-01T00-00-00-{id}.jsonl"));
    fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn an_older_forks_copies_of_its_parents_calls_are_the_parents() {
    let first = json!({"total_token_usage": usage(100, 0, 10, 0), "last_token_usage": usage(100, 0, 10, 0)});
    let second = json!({"total_token_usage": usage(300, 50, 30, 0), "last_token_usage": usage(200, 50, 20, 0)});
    let parent = lines(&[
        meta(None),
        turn_context("gpt-5"),
        token_count("p1", first.clone()),
        token_count("p2", second.clone()),
    ]);
    // The copies carry the fork's time, not the parent's.
    let fork = lines(&[
        meta(Some(PARENT)),
        turn_context("gpt-5"),
        token_count("f1", first),
        token_count("f2", second),
        token_count(
            "f3",
            json!({"total_token_usage": usage(700, 250, 60, 0), "last_token_usage": usage(400, 200, 30, 0)}),
        ),
    ]);
    let home = tempfile::tempdir().unwrap();
    let fork_path = put(home.path(), THREAD, &fork);
    // Without the parent, the copies count here.
    assert_eq!(of_rollout(&fork_path, &fork, THREAD).len(), 3);
    put(home.path(), PARENT, &parent);
    let calls = of_rollout(&fork_path, &fork, THREAD);
    assert_eq!(calls.iter().map(counts).collect::<Vec<_>>(), [(200, 200, 0, 30, 0)]);
    assert_eq!(calls[0].timestamp.as_deref(), Some("f3"));
}

fn totals(calls: &[Call]) -> (usize, u64, u64, u64, u64, u64) {
    let sum = |f: fn(&Call) -> u64| calls.iter().map(f).sum();
    (
        calls.len(),
        sum(|c| c.input),
        sum(|c| c.cache_read),
        sum(|c| c.cache_creation),
        sum(|c| c.output),
        sum(|c| c.reasoning),
    )
}

/// The totals of the recorded rollouts, read through `Codex::index`. The
/// expected numbers were computed with a Python script of the same rules
/// over the files (`json.loads` per line; per `token_count` event with an
/// `info`: skip when `total_token_usage` equals the previous total, use
/// `last_token_usage` else the difference of totals, drop all-zero usages,
/// input = input − cached − cache writes).
#[test]
fn the_recorded_rollouts_count_each_response_once() {
    let home =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex/real-0.171.0/codex-home/sessions/2026/11/30");
    let cases = [
        // Two prompts.
        ("rollout-2026-11-30T09-46-17-01a22bd9-1882-7631-acfa-f670d31a90c7.jsonl", (2, 200, 0, 0, 20, 0)),
        // Six responses, a compaction's request and a repeat at each turn's start.
        ("rollout-2026-11-30T09-46-17-01a22bd9-19ce-7201-905a-da235f1ce47e.jsonl", (7, 700, 0, 0, 70, 0)),
        // A fork by reference: only its own response.
        ("rollout-2026-11-30T09-46-18-01a22bd9-1dad-7982-8c13-8e5f854e52d0.jsonl", (1, 100, 0, 0, 10, 0)),
        // The second turn failed: its event repeats the first one's.
        ("rollout-2026-11-30T09-46-19-01a22bd9-1ee1-74c2-a21c-a50299b2e5d3.jsonl", (1, 100, 0, 0, 10, 0)),
    ];
    for (name, expected) in cases {
        let path = home.join(name);
        let bytes = fs::read(&path).unwrap();
        let indexed = super::super::Codex.index(&path, &bytes).unwrap();
        assert_eq!(totals(&indexed.usage), expected, "{name}");
        assert!(indexed.usage.iter().all(|c| c.model.as_deref() == Some("gpt-5.5")), "{name}");
    }
}

/// The older fixtures carry cached and reasoning tokens (the same Python
/// script).
#[test]
fn cached_and_reasoning_tokens_of_the_older_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex");
    let cases = [
        ("codex-basic-rollout.jsonl", (2, 7330, 30080, 0, 512, 240)),
        ("codex-fork-rollback-compact.jsonl", (1, 2700, 6400, 0, 188, 90)),
        ("codex-0.146-null-image.jsonl", (1, 102, 4608, 0, 151, 64)),
    ];
    for (name, expected) in cases {
        let bytes = fs::read(dir.join(name)).unwrap();
        assert_eq!(totals(&of_rollout(&dir.join(name), &bytes, THREAD)), expected, "{name}");
    }
}
