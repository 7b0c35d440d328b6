//! Conformance of `sess-core` with seed 000 (session storage and entry model),
//! checked against files written by the real pi-mono 0.73.1 and oh-my-pi 18.2.3
//! and against what those agents computed from them (`fixtures/pi-family/*-output.txt`),
//! plus v1/v2 files written from the seed (`fixtures/legacy/`).
//!
//! One module per section of the seed; one case per rule.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::path::PathBuf;

use serde_json::{Value, json};
use sess_core::{EntryIndex, Leaf, ReadOutcome, Tree, context, read};

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(path)
}

fn load(path: &str) -> ReadOutcome {
    let bytes = std::fs::read(fixture(path)).unwrap();
    read(&bytes)
}

fn context_json(outcome: &ReadOutcome, leaf: Leaf<'_>) -> Value {
    let entries = outcome.file.entries();
    serde_json::to_value(context::build(entries, &EntryIndex::new(entries), leaf)).unwrap()
}

/// The JSON value printed after `marker` in a peer's script output.
fn peer_output(file: &str, marker: &str) -> Value {
    let text = std::fs::read_to_string(fixture(file)).unwrap();
    let start = text.find(marker).unwrap_or_else(|| panic!("{marker} not in {file}")) + marker.len();
    let rest = &text[start..];
    let end = if rest.starts_with('{') && !rest.starts_with("{\"") {
        rest.find("\n}").unwrap() + 2
    } else {
        rest.find('\n').unwrap()
    };
    serde_json::from_str(&rest[..end]).unwrap()
}

const PI_MAIN: &str = "pi-family/pi-mono-0.73.1-main.jsonl";
const PI_OUTPUT: &str = "pi-family/pi-mono-0.73.1-script-output.txt";
const OMP: &str = "pi-family/oh-my-pi-18.2.3-bun.jsonl";
const OMP_OUTPUT: &str = "pi-family/oh-my-pi-18.2.3-context-output.txt";

/// Section "ファイルフォーマット" and "読み込みと互換性の動作": the file format and loading.
mod file_format {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn first_line_is_the_header_and_the_rest_are_entries() {
        let outcome = load(PI_MAIN);
        let header = outcome.file.header().unwrap();
        assert_eq!(header.id(), "01a22b45-5c27-7725-b56f-8270ebb2b80e");
        assert_eq!(header.cwd(), Some("/home/dev/demo-project"));
        assert_eq!(outcome.file.entries().len(), 18);
        assert!(outcome.issues.is_empty());
    }

    #[test]
    fn every_entry_type_of_both_peers_is_understood() {
        for path in [PI_MAIN, OMP] {
            let outcome = load(path);
            for entry in outcome.file.entries() {
                assert!(
                    !matches!(entry.kind(), sess_core::EntryKind::Unknown(_)),
                    "{path}: {} is unknown",
                    entry.type_name()
                );
            }
        }
    }

    #[test]
    fn oh_my_pi_title_line_precedes_the_header_and_is_kept() {
        let outcome = load(OMP);
        assert!(outcome.file.title_line().unwrap().starts_with(r#"{"type":"title""#));
        assert_eq!(outcome.file.header().unwrap().id(), "01a22b46-5ef8-7000-9e30-b866ca7c6997");
        assert!(outcome.issues.is_empty());
    }

    #[test]
    fn writing_back_reproduces_the_peer_files_byte_for_byte() {
        for path in [PI_MAIN, OMP, "pi-family/pi-mono-0.73.1-createBranchedSession.jsonl"] {
            let original = std::fs::read_to_string(fixture(path)).unwrap();
            assert_eq!(load(path).file.to_jsonl(), original, "{path}");
        }
    }

    #[test]
    fn an_entry_id_may_be_any_string() {
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n\
                    {\"type\":\"message\",\"id\":\"1\",\"parentId\":null,\"message\":{}}\n\
                    {\"type\":\"message\",\"id\":\"V1StGXR8_Z5jdHi6B-myT\",\"parentId\":\"1\",\"message\":{}}\n\
                    {\"type\":\"message\",\"id\":\"0189f7ea-ae8e-7d2c-8a8f-4c6f8a9b0c1d\",\"parentId\":\"V1StGXR8_Z5jdHi6B-myT\",\"message\":{}}\n";
        let outcome = read(text.as_bytes());
        let entries = outcome.file.entries();
        let path = EntryIndex::new(entries).path(entries, 2);
        assert_eq!(path.entries, [0, 1, 2]);
    }
}

/// Section "バージョニングとマイグレーション": migrations v1 → v2 → v3.
mod migration {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn v1_gets_ids_a_linear_chain_and_version_3() {
        let outcome = load("legacy/v1-basic.jsonl");
        assert_eq!(outcome.migrated_from.map(|v| v.0), Some(1.0));
        let expected = std::fs::read_to_string(fixture("legacy/v1-basic.migrated.jsonl")).unwrap();
        assert_eq!(outcome.file.to_jsonl(), expected);
    }

    #[test]
    fn v1_first_kept_index_counts_the_header_as_zero() {
        let outcome = load("legacy/v1-basic.jsonl");
        let compaction = &outcome.file.entries()[5];
        let sess_core::EntryKind::Compaction(c) = compaction.kind() else { panic!("not a compaction") };
        // Index 4 of the parsed file is the fourth entry, "second question".
        assert_eq!(c.first_kept_entry_id.as_ref().unwrap(), outcome.file.entries()[3].id());
        assert!(!compaction.json().contains("firstKeptEntryIndex"));
    }

    #[test]
    fn v2_renames_hook_messages_and_keeps_ids() {
        let outcome = load("legacy/v2-hook-message.jsonl");
        assert_eq!(outcome.migrated_from.map(|v| v.0), Some(2.0));
        let ids: Vec<&str> = outcome.file.entries().iter().map(|e| e.id().as_str()).collect();
        assert_eq!(ids, ["a1", "a2", "a3", "b1"]);
        let expected = std::fs::read_to_string(fixture("legacy/v2-hook-message.migrated.jsonl")).unwrap();
        assert_eq!(outcome.file.to_jsonl(), expected);
    }

    #[test]
    fn v3_files_are_not_migrated() {
        assert_eq!(load(PI_MAIN).migrated_from, None);
        assert_eq!(load(OMP).migrated_from, None);
    }

    #[test]
    fn migrating_a_migrated_file_changes_nothing() {
        let once = load("legacy/v1-basic.jsonl").file.to_jsonl();
        let twice = read(once.as_bytes());
        assert_eq!(twice.migrated_from, None);
        assert_eq!(twice.file.to_jsonl(), once);
    }

    /// Regression (interop suite): `JSON.stringify` writes a lone UTF-16 surrogate
    /// as an escape. It is valid JSON, but a Rust string cannot hold it, and the
    /// v1 migration used to skip such lines. Now they are migrated, the lone
    /// surrogate becoming U+FFFD.
    #[test]
    fn a_lone_surrogate_does_not_cost_a_line() {
        let outcome = load("regressions/v1-lone-surrogate.jsonl");
        assert!(outcome.issues.is_empty(), "{:?}", outcome.issues);
        assert_eq!(outcome.file.entries().len(), 2);
        assert!(outcome.file.entries()[0].json().contains("emoji: \u{fffd}"));
    }

    #[test]
    fn a_migrated_v1_file_rebuilds_the_expected_context() {
        let outcome = load("legacy/v1-basic.jsonl");
        let ctx = context_json(&outcome, Leaf::Last);
        let roles: Vec<&str> =
            ctx["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["compactionSummary", "user", "assistant", "custom", "user"]);
        assert_eq!(ctx["thinkingLevel"], "high");
        assert_eq!(ctx["models"], json!({"default": "anthropic/claude-sonnet-4-5"}));
    }
}

/// Section "ツリーとリーフのセマンティクス": the tree and the leaf.
mod tree {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The tree as `(depth, type, id, label)` rows, depth-first.
    fn rows(outcome: &ReadOutcome) -> Vec<String> {
        let entries = outcome.file.entries();
        let index = EntryIndex::new(entries);
        let tree = Tree::build(entries, &index);
        let mut out = Vec::new();
        let mut stack: Vec<(usize, usize)> = tree.roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((position, depth)) = stack.pop() {
            let entry = &entries[position];
            let label = index.label(entry.id().as_str()).map(|l| format!(" [{l}]")).unwrap_or_default();
            out.push(format!("{}{} {}{label}", "  ".repeat(depth), entry.type_name(), entry.id()));
            stack.extend(tree.children[position].iter().rev().map(|&c| (c, depth + 1)));
        }
        out
    }

    #[test]
    fn the_tree_matches_pi_mono_get_tree() {
        let printed = std::fs::read_to_string(fixture(PI_OUTPUT)).unwrap();
        let start = printed.find("TREE:\n").unwrap() + "TREE:\n".len();
        let expected: Vec<&str> =
            printed[start..].lines().take_while(|l| !l.starts_with("createBranchedSession")).collect();
        assert_eq!(rows(&load(PI_MAIN)), expected);
    }

    #[test]
    fn after_load_the_leaf_is_the_last_entry_of_the_file() {
        let outcome = load(PI_MAIN);
        let ctx = context_json(&outcome, Leaf::Last);
        let printed = std::fs::read_to_string(fixture(PI_OUTPUT)).unwrap();
        assert!(printed.contains(&format!("reloaded leaf {} entries 18", outcome.file.entries()[17].id())));
        assert_eq!(ctx["messages"].as_array().unwrap().len(), 6);
    }

    #[test]
    fn labels_resolve_to_the_last_label_entry() {
        let outcome = load(PI_MAIN);
        let index = EntryIndex::new(outcome.file.entries());
        assert_eq!(index.label("ea3e2661"), Some("checkpoint"));
    }
}

/// Section "コンテキスト再構築（buildSessionContext）": context rebuild.
mod context_rebuild {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn pi_mono_context_at_the_leaf_after_reload() {
        let expected = peer_output(PI_OUTPUT, "CONTEXT(reloaded, leaf) = ");
        let ctx = context_json(&load(PI_MAIN), Leaf::Last);
        assert_eq!(ctx["messages"], expected["messages"]);
        assert_eq!(ctx["thinkingLevel"], expected["thinkingLevel"]);
    }

    #[test]
    fn pi_mono_context_on_the_other_branch() {
        let expected = peer_output(PI_OUTPUT, "CONTEXT(leaf=a2, other branch) = ");
        let ctx = context_json(&load(PI_MAIN), Leaf::Id("19238abe"));
        assert_eq!(ctx["messages"], expected["messages"]);
        assert_eq!(ctx["thinkingLevel"], expected["thinkingLevel"]);
    }

    #[test]
    fn pi_mono_context_at_a_null_leaf_is_empty() {
        let expected = peer_output(PI_OUTPUT, "CONTEXT(leaf=null) = ");
        let ctx = context_json(&load(PI_MAIN), Leaf::None);
        assert_eq!(ctx["messages"], expected["messages"]);
        assert_eq!(ctx["thinkingLevel"], expected["thinkingLevel"]);
    }

    /// DESIGN.md §3: an explicit `model_change` wins over a later assistant message.
    /// pi-mono lets the assistant override it (its `model` is anthropic/claude-sonnet-4-5);
    /// oh-my-pi 18.2.3 agrees with the seed. This difference is intended.
    #[test]
    fn an_explicit_model_change_wins_unlike_pi_mono() {
        let expected = peer_output(PI_OUTPUT, "CONTEXT(reloaded, leaf) = ");
        assert_eq!(expected["model"], json!({"provider": "anthropic", "modelId": "claude-sonnet-4-5"}));
        let ctx = context_json(&load(PI_MAIN), Leaf::Last);
        assert_eq!(ctx["models"], json!({"default": "openai/gpt-4o"}));
    }

    #[test]
    fn oh_my_pi_context_at_the_leaf() {
        let expected = peer_output(OMP_OUTPUT, "CONTEXT ");
        let ctx = context_json(&load(OMP), Leaf::Last);
        let messages = ctx["messages"].as_array().unwrap();
        let expected_messages = expected["messages"].as_array().unwrap();
        assert_eq!(messages.len(), expected_messages.len());
        for (ours, theirs) in messages.iter().zip(expected_messages) {
            assert_eq!(ours["role"], theirs["role"]);
            let text = ours["content"][0]["text"].as_str().or(ours["content"].as_str()).or(ours["summary"].as_str());
            let expected_text = theirs["text"].as_str().or(theirs["summary"].as_str());
            assert_eq!(text, expected_text);
            // Keys the peer wrote with values; oh-my-pi's compaction adds keys we do not synthesize.
            let keys: Vec<&str> = ours.as_object().unwrap().keys().map(String::as_str).collect();
            for key in &keys {
                assert!(theirs["keys"].as_array().unwrap().iter().any(|k| k == key), "{key} not in peer keys");
            }
        }
        for key in ["thinkingLevel", "models", "injectedTtsrRules", "mode", "modeData"] {
            assert_eq!(ctx[key], expected[key], "{key}");
        }
    }

    #[test]
    fn the_kept_range_starts_at_first_kept_entry_id() {
        // pi-mono: compaction keeps from u4 (6e0ceeb6); the branch summary before it is dropped.
        let ctx = context_json(&load(PI_MAIN), Leaf::Last);
        assert_eq!(ctx["messages"][1]["content"][0]["text"], "third question");
        assert!(ctx["messages"].as_array().unwrap().iter().all(|m| m["role"] != "branchSummary"));
    }

    #[test]
    fn a_branch_summary_on_the_path_joins_the_context() {
        let ctx = context_json(&load(PI_MAIN), Leaf::Id("bab2f192"));
        assert_eq!(
            ctx["messages"][2],
            json!({"role":"branchSummary","summary":"User explored an alternative and abandoned it.","fromId":"edb3d6a1","timestamp":1_796_022_295_593_i64})
        );
    }
}
