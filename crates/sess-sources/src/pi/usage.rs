//! The model calls of a pi-family session.
//!
//! Each assistant `message` entry is one model call: its `message.usage`
//! holds `input` (without the cache), `output`, `cacheRead`, `cacheWrite`,
//! `totalTokens` and the `cost` pi computed from its model list
//! (`cost.total`, in US dollars), beside `message.model` (or
//! `message.responseModel`, the model that answered, when it differs) and
//! `message.provider`. pi 1.6 also records usage outside the conversation,
//! and counts it as its own totals do: a `usage` entry (a cache warm-up, say:
//! `{kind, provider, model, usage}`) is a call of its model, and a tool
//! result, compaction or branch summary with a `usage` is a call of no model. pi counts cached input apart from `input` for every
//! provider (it subtracts `OpenAI`'s cached tokens itself), so the counts are
//! the call's as they are; pi records no reasoning count. Every entry counts,
//! on every branch: each call was made. A forked or branched session copies
//! entries with their ids and timestamps, so a call's key is
//! `<entry id>@<timestamp>` (ids alone are short, and not unique across
//! sessions), and a copy counts once.

use serde::Deserialize;
use serde_json::Value;
use sess_core::{Entry, EntryKind};

use crate::lenient::string;
use crate::usage::{Call, Calls, Counter};

/// The fields of an agent message, or of a `usage`, `compaction` or
/// `branch_summary` entry, that make a call.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    #[serde(default, deserialize_with = "string")]
    role: Option<String>,
    #[serde(default, deserialize_with = "string")]
    model: Option<String>,
    #[serde(default, deserialize_with = "string")]
    response_model: Option<String>,
    #[serde(default)]
    usage: Value,
}

/// The calls of `entries`, in file order.
pub(super) fn calls(entries: &[Entry]) -> Vec<Call> {
    let mut calls = Calls::default();
    for entry in entries {
        let decode = |json: &str| serde_json::from_str::<Stored>(json).ok();
        let (model, usage) = match entry.kind() {
            EntryKind::Message(message) => {
                let Some(stored) = message.message.as_ref().and_then(|m| decode(m.as_str())) else { continue };
                match stored.role.as_deref() {
                    Some("assistant") => (stored.response_model.or(stored.model), stored.usage),
                    Some("toolResult") => (None, stored.usage),
                    _ => continue,
                }
            }
            EntryKind::Usage => {
                let Some(stored) = decode(entry.json()) else { continue };
                (stored.model, stored.usage)
            }
            EntryKind::Compaction(_) | EntryKind::BranchSummary(_) if entry.json().contains("\"usage\"") => {
                let Some(stored) = decode(entry.json()) else { continue };
                (None, stored.usage)
            }
            _ => continue,
        };
        if !usage.is_object() {
            continue;
        }
        let usage = &usage;
        let timestamp = entry.timestamp().map(str::to_owned);
        let counter = Counter::default();
        let count = |key: &str| counter.count(key, usage.get(key));
        calls.push(Call {
            key: Some(format!("{}@{}", entry.id().as_str(), timestamp.as_deref().unwrap_or_default())),
            timestamp,
            model,
            input: count("input"),
            output: count("output"),
            cache_creation: count("cacheWrite"),
            cache_read: count("cacheRead"),
            reasoning: 0,
            cost: usage.pointer("/cost/total").and_then(Value::as_f64).filter(|c| c.is_finite() && *c >= 0.0),
            not_counts: counter.take(),
        });
    }
    calls.finish()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::source::Source;

    fn entries(lines: &[Value]) -> Vec<Entry> {
        lines.iter().map(|line| Entry::parse(&line.to_string()).unwrap()).collect()
    }

    fn message(id: &str, timestamp: &str, message: impl Into<Value>) -> Value {
        let message: Value = message.into();
        json!({"type": "message", "id": id, "parentId": null, "timestamp": timestamp, "message": message})
    }

    #[test]
    fn each_assistant_message_is_a_call_with_the_cost_pi_recorded() {
        let usage = |input: Value, cost: Value| json!({"input": input, "output": 20, "cacheRead": 300, "cacheWrite": 40, "totalTokens": 460, "cost": {"total": cost}});
        let lines = [
            message(
                "u1",
                "2026-01-01T00:00:00Z",
                json!({"role": "user", "content": "hi", "usage": usage(json!(1), json!(1))}),
            ),
            message(
                "a1",
                "2026-01-01T00:00:01Z",
                json!({"role": "assistant", "model": "claude-sonnet-4-5", "provider": "anthropic", "usage": usage(json!(100), json!(0.0125))}),
            ),
            // Odd values: a string count and a negative cost read as nothing.
            message(
                "a2",
                "2026-01-01T00:00:02Z",
                json!({"role": "assistant", "model": null, "usage": usage(json!("7"), json!(-1))}),
            ),
            // The same entry again (a copy in the file): it replaces the first.
            message(
                "a1",
                "2026-01-01T00:00:01Z",
                json!({"role": "assistant", "model": "claude-sonnet-4-5", "usage": usage(json!(101), json!("x"))}),
            ),
            message("a3", "2026-01-01T00:00:03Z", json!({"role": "assistant", "model": "m", "usage": null})),
            message(
                "a4",
                "2026-01-01T00:00:04Z",
                json!({"role": "assistant", "model": "m", "usage": {"input": 0, "output": 0}}),
            ),
            json!({"type": "compaction", "id": "c1", "parentId": "a2", "timestamp": "2026-01-01T00:00:05Z", "summary": "s", "firstKeptEntryId": "a1", "tokensBefore": 5}),
        ];
        let calls = calls(&entries(&lines));
        assert_eq!(calls.len(), 2, "{calls:#?}");
        assert_eq!(calls[0].key.as_deref(), Some("a1@2026-01-01T00:00:01Z"));
        assert_eq!(calls[0].model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!((calls[0].input, calls[0].output, calls[0].cache_read, calls[0].cache_creation), (101, 20, 300, 40));
        assert_eq!(calls[0].cost, None);
        assert_eq!(calls[1].key.as_deref(), Some("a2@2026-01-01T00:00:02Z"));
        assert_eq!((calls[1].input, calls[1].model.as_deref(), calls[1].cost), (0, None, None));
        assert_eq!(calls[1].timestamp.as_deref(), Some("2026-01-01T00:00:02Z"));
    }

    #[test]
    fn pi_1_6_usage_outside_the_conversation_is_counted_as_pi_counts_it() {
        let usage = |input: u64| json!({"input": input, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 1, "cost": {"total": 0.5}});
        let lines = [
            message(
                "a1",
                "2026-01-01T00:00:01Z",
                json!({"role": "assistant", "model": "alias", "responseModel": "served-model", "usage": usage(10)}),
            ),
            json!({"type": "usage", "id": "w1", "parentId": "a1", "timestamp": "2026-01-01T00:00:02Z", "kind": "cache_warm", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage(20)}),
            message(
                "t1",
                "2026-01-01T00:00:03Z",
                json!({"role": "toolResult", "toolCallId": "c", "content": [], "usage": usage(30)}),
            ),
            json!({"type": "compaction", "id": "k1", "parentId": "t1", "timestamp": "2026-01-01T00:00:04Z", "summary": "s", "firstKeptEntryId": "a1", "tokensBefore": 5, "usage": usage(40)}),
            json!({"type": "branch_summary", "id": "b1", "parentId": null, "timestamp": "2026-01-01T00:00:05Z", "fromId": "k1", "summary": "b", "usage": usage(50)}),
            // Without a usage object, nothing.
            json!({"type": "usage", "id": "w2", "parentId": "b1", "timestamp": "2026-01-01T00:00:06Z", "kind": "cache_warm", "model": "m"}),
            message("t2", "2026-01-01T00:00:07Z", json!({"role": "toolResult", "toolCallId": "c", "content": []})),
        ];
        let calls = calls(&entries(&lines));
        let got: Vec<(&str, Option<&str>, u64)> =
            calls.iter().map(|c| (c.key.as_deref().unwrap(), c.model.as_deref(), c.input)).collect();
        assert_eq!(
            got,
            [
                ("a1@2026-01-01T00:00:01Z", Some("served-model"), 10),
                ("w1@2026-01-01T00:00:02Z", Some("claude-sonnet-4-5"), 20),
                ("t1@2026-01-01T00:00:03Z", None, 30),
                ("k1@2026-01-01T00:00:04Z", None, 40),
                ("b1@2026-01-01T00:00:05Z", None, 50),
            ]
        );
        assert!(calls.iter().all(|c| c.cost == Some(0.5)));
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/../../fixtures/pi-family/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    /// The fixtures' totals, counted with
    /// `python3 -c 'import json,sys; c=[json.loads(l) for l in open(sys.argv[1])]; c=[e for e in c if e.get("type")=="message" and e["message"].get("role")=="assistant"]; print(len(c), sum(e["message"]["usage"]["input"] for e in c), sum(e["message"]["usage"]["output"] for e in c))'`.
    #[test]
    fn the_recorded_sessions_count_every_branch() {
        for (name, expected) in [
            ("pi-mono-0.73.1-main.jsonl", (5, 500, 100)),
            ("pi-mono-0.73.1-createBranchedSession.jsonl", (2, 200, 40)),
            ("oh-my-pi-18.2.3-bun.jsonl", (5, 500, 100)),
        ] {
            let bytes = fixture(name);
            let indexed = super::super::Pi.index(std::path::Path::new(name), &bytes).unwrap();
            let usage = &indexed.usage;
            let got = (usage.len(), usage.iter().map(|c| c.input).sum(), usage.iter().map(|c| c.output).sum());
            assert_eq!(got, expected, "{name}");
            assert!(usage.iter().all(|c| c.model.as_deref() == Some("claude-sonnet-4-5") && c.cost == Some(0.0)));
        }
        // The branched session copies the main one's first calls: same keys.
        let main = super::super::Pi.index(std::path::Path::new("m"), &fixture("pi-mono-0.73.1-main.jsonl")).unwrap();
        let branch = super::super::Pi
            .index(std::path::Path::new("b"), &fixture("pi-mono-0.73.1-createBranchedSession.jsonl"))
            .unwrap();
        let keys = |calls: &[Call]| calls.iter().map(|c| c.key.clone().unwrap()).collect::<Vec<_>>();
        assert_eq!(keys(&branch.usage), keys(&main.usage)[..2]);
    }

    /// pi's own totals of the session pi 1.6.0 wrote, `getUsageCostBreakdown`
    /// in `contexts.json`: tokens and cost per `provider/model`, and
    /// `Tools/summaries` for usage of no model.
    #[test]
    fn a_session_pi_1_6_wrote_counts_as_pi_totals_it() {
        let bytes = fixture("pi-1.6.0/pi-1.6.0.jsonl");
        let indexed = super::super::Pi.index(std::path::Path::new("p"), &bytes).unwrap();
        let expected: Value = serde_json::from_slice(&fixture("pi-1.6.0/contexts.json")).unwrap();
        let mut ours = std::collections::BTreeMap::<String, (u64, f64)>::new();
        for call in &indexed.usage {
            let key = call.model.as_ref().map_or_else(|| "Tools/summaries".to_owned(), |m| format!("anthropic/{m}"));
            let slot = ours.entry(key).or_default();
            slot.0 += call.input + call.output + call.cache_read + call.cache_creation;
            slot.1 += call.cost.unwrap_or_default();
        }
        let theirs: std::collections::BTreeMap<String, (u64, f64)> = expected["usage"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (t["key"].as_str().unwrap().to_owned(), (t["tokens"].as_u64().unwrap(), t["cost"].as_f64().unwrap()))
            })
            .collect();
        assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>());
        for (key, (tokens, cost)) in &theirs {
            assert_eq!(ours[key].0, *tokens, "{key}");
            assert!((ours[key].1 - cost).abs() < 1e-9, "{key}: {} vs {cost}", ours[key].1);
        }
    }

    #[test]
    fn added_lines_give_their_calls() {
        let bytes = fixture("pi-mono-0.73.1-main.jsonl");
        let text = String::from_utf8(bytes).unwrap();
        let tail: String = text.lines().skip(8).flat_map(|l| [l, "\n"]).collect();
        let added = super::super::Pi.index_added("s", tail.as_bytes(), 8).unwrap();
        assert_eq!(added.usage.len(), 3);
    }
}
