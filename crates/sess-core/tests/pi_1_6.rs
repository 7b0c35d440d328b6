//! The context at every entry of a session the real pi 1.6.0 wrote
//! (`fixtures/pi-family/pi-1.6.0/`: context edits, a system message carried by
//! a compaction, messages without content), against pi's own
//! `buildSessionContext` there.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::Value;
use sess_core::{EntryIndex, EntryKind, Leaf, context, read};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-family/pi-1.6.0").join(name)
}

#[test]
fn the_context_at_every_entry_is_pis() {
    let outcome = read(&std::fs::read(fixture("pi-1.6.0.jsonl")).unwrap());
    assert!(outcome.issues.is_empty(), "{:?}", outcome.issues);
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(fixture("contexts.json")).unwrap()).unwrap();
    let entries = outcome.file.entries();
    let index = EntryIndex::new(entries);
    let contexts = expected["contexts"].as_object().unwrap();
    assert_eq!(contexts.len(), entries.len());
    for entry in entries {
        let ours = serde_json::to_value(context::build(entries, &index, Leaf::Id(entry.id().as_str()))).unwrap();
        let theirs = &contexts[entry.id().as_str()];
        assert_eq!(ours["messages"], theirs["messages"], "at {} ({})", entry.id(), entry.type_name());
        assert_eq!(ours["thinkingLevel"], theirs["thinkingLevel"], "at {}", entry.id());
    }
    // Every entry type pi wrote is one sess knows.
    for kind in ["context_edit", "usage", "compaction"] {
        assert!(entries.iter().any(|e| e.type_name() == kind), "{kind}");
    }
    assert!(entries.iter().all(|e| !matches!(e.kind(), EntryKind::Unknown(_))));
}
