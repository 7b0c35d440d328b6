use std::collections::HashSet;

use pretty_assertions::assert_eq;
use sess_core::{EntryIndex, Leaf, context, integrity, read, segment};
use sess_store::{FileStorage, discovery};

use super::*;

fn kinds(text: &str) -> Vec<String> {
    let outcome = read(text.as_bytes());
    outcome.file.entries().iter().map(|e| e.type_name().to_owned()).collect()
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    assert_eq!(pi_session(300_000, 1), pi_session(300_000, 1));
    assert_ne!(pi_session(300_000, 1), pi_session(300_000, 2));
    assert_eq!(append_messages(500, 3), append_messages(500, 3));
}

#[test]
fn the_size_is_near_the_target() {
    for target in [0, 5_000, 100_000, 3_000_000] {
        let len = pi_session(target, 9).len();
        assert!(len >= target, "{len} < {target}");
        // A turn ends the file: at most a few big tool outputs past the target.
        assert!(len <= target + 800_000, "{len} is far past {target}");
    }
}

#[test]
fn a_big_session_is_clean_and_has_every_feature() {
    let session = PiSessionSpec::new(8_000_000, 42).generate();
    let outcome = read(session.text.as_bytes());
    assert_eq!(outcome.issues, []);
    assert_eq!(integrity::check(&outcome), []);
    assert_eq!(outcome.migrated_from, None);
    let entries = outcome.file.entries();
    assert_eq!(entries.len(), session.stats.entries);
    let stats = session.stats;
    assert!(stats.branches > 3, "{stats:?}");
    assert!(stats.branch_summaries > 0, "{stats:?}");
    assert!(stats.compactions > 3, "{stats:?}");
    assert!(stats.labels > 3, "{stats:?}");
    assert!(stats.images > 0, "{stats:?}");
    assert!(stats.big_outputs > 3, "{stats:?}");
    let present: HashSet<&str> = entries.iter().map(sess_core::Entry::type_name).collect();
    for kind in [
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "label",
        "custom",
        "custom_message",
        "session_info",
    ] {
        assert!(present.contains(kind), "no {kind}");
    }
    // Branching and compaction show up as segments of every origin.
    let segments = segment::derive(entries);
    let origins: HashSet<&str> = segments.segments.iter().map(|s| s.origin.as_str()).collect();
    assert_eq!(origins, HashSet::from(["new", "fork", "compact"]));
    // The leaf's context starts at the last compaction's summary.
    let ctx = context::build(entries, &EntryIndex::new(entries), Leaf::Last);
    let json = serde_json::to_value(&ctx).unwrap();
    assert_eq!(json["messages"][0]["role"], "compactionSummary");
    assert!(json["messages"].as_array().unwrap().len() > 3);
}

#[test]
fn small_sessions_are_still_sessions() {
    assert_eq!(kinds(&pi_session(0, 1)), Vec::<String>::new());
    let small = kinds(&pi_session(1_000, 1));
    assert!(small.iter().any(|k| k == "message"));
}

#[test]
fn append_messages_are_agent_messages() {
    let text = append_messages(100, 5);
    let roles: Vec<String> = text
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["role"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(roles.len(), 100);
    assert_eq!(roles[..3], ["user", "assistant", "toolResult"]);
    assert!(roles.iter().all(|r| ["user", "assistant", "toolResult"].contains(&r.as_str())));
}

#[test]
fn a_tree_lists_with_the_counts_it_was_made_with() {
    let dir = tempfile::tempdir().unwrap();
    let stats = session_tree(dir.path(), 60, 7, 11).unwrap();
    assert_eq!(stats.files, 60);
    let listed = discovery::list_all(&FileStorage, dir.path());
    assert_eq!(listed.len(), 60);
    assert_eq!(listed.iter().map(|s| s.message_count).sum::<usize>(), stats.messages);
    let projects: HashSet<&str> = listed.iter().map(|s| s.cwd.as_str()).collect();
    assert_eq!(projects.len(), 7);
    // Each file is where pi-mono puts it: the project's directory, named by
    // the header's time and id.
    for summary in &listed {
        let name = summary.path.file_name().unwrap().to_str().unwrap();
        assert!(name.ends_with(&format!("_{}.jsonl", summary.id)), "{name}");
        let dir = summary.path.parent().unwrap().file_name().unwrap().to_str().unwrap();
        assert_eq!(dir, format!("--{}--", summary.cwd[1..].replace('/', "-")));
    }
    let again = tempfile::tempdir().unwrap();
    session_tree(again.path(), 60, 7, 11).unwrap();
    for summary in &listed {
        let relative = summary.path.strip_prefix(dir.path()).unwrap();
        assert_eq!(std::fs::read(&summary.path).unwrap(), std::fs::read(again.path().join(relative)).unwrap());
    }
}

#[test]
fn claude_transcripts_are_in_claude_codes_layout() {
    let dir = tempfile::tempdir().unwrap();
    let stats = claude_transcripts(dir.path(), 45, 3).unwrap();
    assert_eq!(stats.files, 45);
    let projects: Vec<_> = std::fs::read_dir(dir.path().join("projects")).unwrap().collect();
    assert_eq!(projects.len(), 2);
    let mut files = 0;
    for project in projects {
        let project = project.unwrap().path();
        let slug = project.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(slug.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "{slug}");
        for file in std::fs::read_dir(&project).unwrap() {
            let path = file.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let session_id = path.file_stem().unwrap().to_str().unwrap();
            let mut messages = 0;
            for line in text.lines() {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                if let Some(id) = value.get("sessionId") {
                    assert_eq!(id, session_id);
                }
                if value.get("cwd").is_some() {
                    assert_eq!(value["cwd"].as_str().unwrap().replace(|c: char| !c.is_ascii_alphanumeric(), "-"), slug);
                }
                messages += usize::from(matches!(value["type"].as_str(), Some("user" | "assistant")));
            }
            assert!(messages > 0);
            files += 1;
        }
    }
    assert_eq!(files, 45);
}
