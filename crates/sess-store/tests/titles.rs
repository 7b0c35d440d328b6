//! Titles through the `SessionManager`: renaming a file with oh-my-pi's title
//! slot in place, a file without one, and the title a branch or a fork keeps,
//! each against what the real oh-my-pi 18.2.3 wrote in the same case.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::Value;
use sess_core::{SequentialIds, TITLE_SLOT_BYTES, TitleSlot};
use sess_store::storage::FileStorage;
use sess_store::{SessionManager, SessionManagerBuilder, SteppingClock, TitleSource, read_session};

const TITLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/pi-family/oh-my-pi-18.2.3-titles");
const FIXED: &str = "Fix the parser: \"last line\" été";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(TITLES).join(name)).unwrap()
}

fn builder() -> SessionManagerBuilder {
    SessionManager::builder()
        .storage(Arc::new(FileStorage))
        .clock(Arc::new(SteppingClock::new(1_796_100_000_000)))
        .ids(Box::new(SequentialIds::new("e")))
}

/// `text` as a session file in a new folder.
fn session(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2026-12-02T01-01-56-147Z_01a23445-c033-7000-85b4-d76997f81cc1.jsonl");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn values(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn keys(value: &Value) -> Vec<&str> {
    value.as_object().unwrap().keys().map(String::as_str).collect()
}

#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
}

#[test]
fn a_rename_appends_a_title_change_and_writes_the_slot_in_place() {
    let before = fixture("renamed.jsonl");
    let (_dir, path) = session(&before);
    #[cfg(unix)]
    let file = inode(&path);
    let mut sm = builder().open(&path).unwrap();
    assert_eq!(sm.session_name().as_deref(), Some(FIXED));
    assert_eq!(sm.title_source(), Some(TitleSource::User));
    assert!(sm.set_session_name("  Parser\tfixed ", TitleSource::User).unwrap());
    sm.close().unwrap();

    let after = std::fs::read_to_string(&path).unwrap();
    #[cfg(unix)]
    assert_eq!(inode(&path), file, "the file was replaced, not written in place");
    // Every byte after the slot is kept; one line is added.
    assert_eq!(&after[TITLE_SLOT_BYTES..before.len()], &before[TITLE_SLOT_BYTES..]);
    let added = values(&after[before.len()..]);
    assert_eq!(added.len(), 1);
    let change = &added[0];
    assert_eq!(keys(change), ["type", "id", "parentId", "timestamp", "title", "source", "previousTitle"]);
    assert_eq!(change["type"], "title_change");
    let last = values(&before).pop().unwrap();
    assert_eq!(change["parentId"], last["id"], "it hangs under the last entry");
    assert_eq!((change["title"].as_str(), change["source"].as_str()), (Some("Parser fixed"), Some("user")));
    assert_eq!(change["previousTitle"], FIXED);
    // The slot: the new title, dated as the entry, at its fixed width.
    let slot_line = &after[..TITLE_SLOT_BYTES];
    assert!(slot_line.ends_with('\n'));
    let slot = TitleSlot::parse(slot_line).unwrap();
    assert_eq!(slot.title, "Parser fixed");
    assert_eq!(slot.source, Some(TitleSource::User));
    assert_eq!(slot.updated_at, change["timestamp"].as_str().unwrap());
    assert_eq!(slot.to_line().unwrap(), slot_line, "keys and padding as oh-my-pi writes them");

    let reread = builder().open(&path).unwrap();
    assert_eq!(reread.session_name().as_deref(), Some("Parser fixed"));
    assert_eq!(reread.leaf_id().map(|id| id.as_str().to_owned()), change["id"].as_str().map(str::to_owned));
    assert!(read_session(&FileStorage, &path).unwrap().issues.is_empty());
}

#[test]
fn an_automatic_title_never_replaces_the_users() {
    let before = fixture("renamed.jsonl");
    let (_dir, path) = session(&before);
    let mut sm = builder().open(&path).unwrap();
    assert!(!sm.set_session_name("Something else", TitleSource::Auto).unwrap());
    sm.close().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    // The slot's source decides, not the header's (which has none here).
    let (_dir, auto) = session(&fixture("auto-title.jsonl"));
    let mut sm = builder().open(&auto).unwrap();
    assert!(sm.set_session_name("Better", TitleSource::Auto).unwrap());
    assert_eq!(sm.session_name().as_deref(), Some("Better"));
}

#[test]
fn two_renames_in_a_row_each_write_the_slot() {
    let (_dir, path) = session(&fixture("auto-title.jsonl"));
    let mut sm = builder().open(&path).unwrap();
    sm.set_session_name("One", TitleSource::User).unwrap();
    sm.set_session_name("Two", TitleSource::User).unwrap();
    sm.close().unwrap();
    let lines = values(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(lines[0]["title"], "Two");
    let changes: Vec<(&str, &str)> = lines
        .iter()
        .filter(|l| l["type"] == "title_change")
        .map(|l| (l["title"].as_str().unwrap(), l["previousTitle"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(changes, [("Parser drops last line", ""), ("One", "Parser drops last line"), ("Two", "One")]);
}

/// The lines of a file oh-my-pi and sess both wrote, without what differs
/// from run to run (ids, times, the session id).
fn shape(text: &str) -> Vec<Value> {
    let mut lines = values(text);
    for line in &mut lines {
        for key in ["id", "parentId", "timestamp", "updatedAt", "pad"] {
            if let Some(value) = line.get_mut(key) {
                *value = Value::Null;
            }
        }
    }
    lines
}

#[test]
fn a_file_without_a_slot_that_has_title_changes_is_rewritten_as_oh_my_pi_rewrites_it() {
    let (_dir, path) = session(&fixture("no-slot.jsonl"));
    let mut sm = builder().open(&path).unwrap();
    assert!(sm.set_session_name("Renamed without a slot", TitleSource::User).unwrap());
    sm.close().unwrap();
    let ours = std::fs::read_to_string(&path).unwrap();
    let theirs = fixture("no-slot-renamed.jsonl");
    assert_eq!(ours.lines().next().unwrap().len() + 1, TITLE_SLOT_BYTES);
    assert_eq!(shape(&ours), shape(&theirs));
    let (ours, theirs) = (values(&ours), values(&theirs));
    assert_eq!(keys(&ours[1]), keys(&theirs[1]), "the header's keys, in order");
    assert_eq!(keys(&ours[6]), keys(&theirs[6]), "no previousTitle: the file had no slot and no header title");
}

#[test]
fn a_slot_of_another_width_is_replaced_by_a_whole_rewrite() {
    let text = fixture("renamed.jsonl");
    let wide = text.replacen("\"pad\":\"", "\"pad\":\"    ", 1);
    let (_dir, path) = session(&wide);
    let mut sm = builder().open(&path).unwrap();
    assert_eq!(sm.session_name().as_deref(), Some(FIXED));
    sm.set_session_name("Narrow again", TitleSource::User).unwrap();
    sm.close().unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    assert_eq!(after.find('\n'), Some(TITLE_SLOT_BYTES - 1));
    let lines = values(&after);
    assert_eq!(lines[0]["title"], "Narrow again");
    assert_eq!((lines[1]["title"].as_str(), lines[1]["titleSource"].as_str()), (Some("Narrow again"), Some("user")));
    assert_eq!(lines.len(), values(&text).len() + 1);
    assert_eq!(lines.last().unwrap()["type"], "title_change");
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
const MESSAGE: &str = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#;

#[test]
fn set_session_name_puts_the_title_of_a_file_without_a_slot_in_its_header() {
    let (_dir, path) = session(&format!("{HEADER}\n{MESSAGE}\n"));
    let mut sm = builder().open(&path).unwrap();
    sm.set_session_name("Plain", TitleSource::User).unwrap();
    sm.close().unwrap();
    let lines = values(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(lines.len(), 2, "no entry is added");
    assert_eq!(keys(&lines[0]), ["type", "version", "id", "timestamp", "cwd", "title", "titleSource"]);
    assert_eq!(lines[0]["title"], "Plain");
}

#[test]
fn a_rename_writes_the_name_where_the_sessions_agent_reads_it() {
    let info = r#"{"type":"session_info","id":"i","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","name":"Old"}"#;
    let titled = HEADER.replace(r#""cwd":"/p""#, r#""cwd":"/p","title":"Old""#);
    // Without a title of its own kind (pi-mono's files): a session_info, every byte kept.
    for text in [format!("{HEADER}\n{MESSAGE}\n"), format!("{HEADER}\n{MESSAGE}\n{info}\n")] {
        let (_dir, path) = session(&text);
        let mut sm = builder().open(&path).unwrap();
        assert!(sm.rename(" New\tname ").unwrap());
        sm.close().unwrap();
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(&after[..text.len()], text);
        let added = values(&after[text.len()..]);
        assert_eq!(added.len(), 1);
        assert_eq!((added[0]["type"].as_str(), added[0]["name"].as_str()), (Some("session_info"), Some("New name")));
        assert_eq!(builder().open(&path).unwrap().session_name().as_deref(), Some("New name"));
    }
    // A title in the header (xcsh): the header, and a session_info when the file has them.
    for (text, entries) in [(format!("{titled}\n{MESSAGE}\n"), 1), (format!("{titled}\n{MESSAGE}\n{info}\n"), 3)] {
        let (_dir, path) = session(&text);
        let mut sm = builder().open(&path).unwrap();
        assert!(sm.rename("New").unwrap());
        sm.close().unwrap();
        let lines = values(&std::fs::read_to_string(&path).unwrap());
        assert_eq!((lines[0]["title"].as_str(), lines.len() - 1), (Some("New"), entries));
        assert_eq!(builder().open(&path).unwrap().session_name().as_deref(), Some("New"));
    }
    // A title slot: oh-my-pi's way, and no session_info.
    let (_dir, path) = session(&fixture("renamed.jsonl"));
    let mut sm = builder().open(&path).unwrap();
    assert!(sm.rename("New").unwrap());
    assert_eq!(sm.entries().last().unwrap().kind().type_name(), "title_change");
    assert!(!sm.rename(" \u{7} ").unwrap(), "an empty name");
}

#[test]
fn a_branch_of_a_session_with_a_slot_keeps_its_name_as_oh_my_pis_does() {
    let (_dir, path) = session(&fixture("renamed.jsonl"));
    let mut sm = builder().open(&path).unwrap();
    let answer = values(&fixture("renamed.jsonl"))[3]["id"].as_str().unwrap().to_owned();
    let new = sm.create_branched_session(&answer).unwrap().unwrap();
    sm.close().unwrap();
    let ours = std::fs::read_to_string(&new).unwrap();
    let theirs = fixture("createBranchedSession.jsonl");
    assert_eq!(ours.find('\n'), Some(TITLE_SLOT_BYTES - 1));
    let (ours, theirs) = (values(&ours), values(&theirs));
    assert_eq!(keys(&ours[0]), keys(&theirs[0]));
    assert_eq!(keys(&ours[1]), keys(&theirs[1]), "the header's keys, in order");
    assert_eq!((ours[0]["title"].as_str(), ours[0]["source"].as_str()), (Some(FIXED), Some("user")));
    assert_eq!(ours[0]["updatedAt"], ours[1]["timestamp"]);
    assert_eq!((ours[1]["title"].as_str(), ours[1]["titleSource"].as_str()), (Some(FIXED), Some("user")));
    assert_eq!(ours[1]["parentSession"], path.display().to_string());
    assert_eq!(ours[2..], theirs[2..]);
    let reread = builder().open(&new).unwrap();
    assert_eq!(reread.session_name().as_deref(), Some(FIXED));
}

#[test]
fn a_fork_and_a_copy_of_a_session_with_a_slot_keep_its_name() {
    let (dir, path) = session(&fixture("renamed.jsonl"));
    let fork = builder().fork_from(&path, "/home/dev/demo", dir.path()).unwrap();
    let new = fork.session_file().unwrap().to_owned();
    let ours = values(&std::fs::read_to_string(&new).unwrap());
    let theirs = values(&fixture("forkFrom.jsonl"));
    assert_eq!(keys(&ours[0]), keys(&theirs[0]));
    let without_cache_key: Vec<&str> =
        keys(&theirs[1]).into_iter().filter(|&k| k != "providerPromptCacheKey").collect();
    assert_eq!(keys(&ours[1]), without_cache_key, "the header's keys, in order");
    assert_eq!((ours[0]["title"].as_str(), ours[1]["title"].as_str()), (Some(FIXED), Some(FIXED)));
    assert_eq!(ours[2..], theirs[2..]);

    let mut sm = builder().open(&path).unwrap();
    let (_, copy) = sm.fork().unwrap();
    let copy = values(&std::fs::read_to_string(copy).unwrap());
    assert_eq!((copy[0]["title"].as_str(), copy[0]["source"].as_str()), (Some(FIXED), Some("user")));
    assert_eq!(copy[1]["title"], FIXED);
}

#[test]
fn a_branch_of_a_session_without_a_slot_carries_no_title() {
    let header = HEADER.replace(r#""cwd":"/p""#, r#""cwd":"/p","title":"Mine""#);
    let (_dir, path) = session(&format!("{header}\n{MESSAGE}\n"));
    let mut sm = builder().open(&path).unwrap();
    let new = sm.create_branched_session("a").unwrap().unwrap();
    let lines = values(&std::fs::read_to_string(new).unwrap());
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0].get("title"), None);
}
