//! The `SessionManager` through its public API: the tree operations, persistence
//! rules, and what happens to other writers' entries and damaged files.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use sess_core::SequentialIds;
use sess_store::storage::{MemoryStorage, SessionStorage};
use sess_store::{
    CompactionParams, CustomMessageParams, Notice, SessionManager, SessionManagerBuilder, SteppingClock, TitleSource,
    read_session,
};

const DIR: &str = "/sessions/--p--";

fn builder(storage: &Arc<dyn SessionStorage>) -> SessionManagerBuilder {
    SessionManager::builder()
        .storage(storage.clone())
        .clock(Arc::new(SteppingClock::new(1_767_225_600_000)))
        .ids(Box::new(SequentialIds::new("e")))
}

fn memory() -> Arc<dyn SessionStorage> {
    Arc::new(MemoryStorage::new())
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1})
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m", "timestamp": 2})
}

/// The file's lines as JSON values.
fn lines(storage: &Arc<dyn SessionStorage>, path: &Path) -> Vec<Value> {
    let bytes = storage.read(path).unwrap();
    String::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn ids(storage: &Arc<dyn SessionStorage>, path: &Path) -> Vec<String> {
    lines(storage, path).iter().skip(1).map(|l| l["id"].as_str().unwrap().to_owned()).collect()
}

mod tree_operations {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn every_append_hangs_under_the_leaf_and_becomes_it() {
        let mut sm = SessionManager::in_memory("/p");
        let a = sm.append_message(&user("one")).unwrap();
        let b = sm.append_thinking_level_change(Some("high")).unwrap();
        let c = sm.append_model_change("openai/gpt-4o", None).unwrap();
        let d = sm.append_custom_entry("ext", Some(json!({"n": 1}))).unwrap();
        let entries = sm.entries();
        assert_eq!(entries[0].parent_id(), None);
        assert_eq!(entries[1].parent_id(), Some(&a));
        assert_eq!(entries[2].parent_id(), Some(&b));
        assert_eq!(entries[3].parent_id(), Some(&c));
        assert_eq!(sm.leaf_id(), Some(&d));
        // custom entries keep the agents' key order: base fields last.
        assert!(entries[3].json().starts_with(r#"{"type":"custom","customType":"ext","data":{"n":1},"id":"#));
    }

    #[test]
    fn branch_reset_and_branch_with_summary() {
        let mut sm = builder(&memory()).in_memory("/p");
        let a = sm.append_message(&user("one")).unwrap();
        sm.append_message(&assistant("two")).unwrap();
        sm.branch(a.as_str()).unwrap();
        let c = sm.append_message(&user("three")).unwrap();
        assert_eq!(sm.entry(c.as_str()).unwrap().parent_id(), Some(&a));
        assert!(sm.branch("missing").is_err());

        sm.reset_leaf();
        let root = sm.append_message(&user("new root")).unwrap();
        assert_eq!(sm.entry(root.as_str()).unwrap().parent_id(), None);

        let summary = sm.branch_with_summary(Some(a.as_str()), "left it", None, Some(false)).unwrap();
        let entry = sm.entry(summary.as_str()).unwrap();
        assert_eq!(entry.parent_id(), Some(&a));
        assert!(entry.json().contains(r#""fromId":"e0","summary":"left it","fromExtension":false"#));
        let from_root = sm.branch_with_summary(None, "from the root", None, None).unwrap();
        assert_eq!(sm.entry(from_root.as_str()).unwrap().parent_id(), None);
        assert!(sm.entry(from_root.as_str()).unwrap().json().contains(r#""fromId":"root""#));
    }

    #[test]
    fn labels_need_an_existing_target() {
        let mut sm = SessionManager::in_memory("/p");
        let a = sm.append_message(&user("one")).unwrap();
        sm.append_label_change(a.as_str(), Some("checkpoint")).unwrap();
        assert_eq!(sm.label(a.as_str()), Some("checkpoint"));
        sm.append_label_change(a.as_str(), None).unwrap();
        assert_eq!(sm.label(a.as_str()), None);
        assert!(sm.append_label_change("nope", Some("x")).is_err());
    }

    #[test]
    fn context_follows_the_leaf() {
        let mut sm = SessionManager::in_memory("/p");
        let a = sm.append_message(&user("one")).unwrap();
        sm.append_message(&assistant("two")).unwrap();
        sm.branch(a.as_str()).unwrap();
        sm.append_message(&user("other")).unwrap();
        let ctx = serde_json::to_value(sm.build_session_context()).unwrap();
        let texts: Vec<&str> =
            ctx["messages"].as_array().unwrap().iter().map(|m| m["content"][0]["text"].as_str().unwrap()).collect();
        assert_eq!(texts, ["one", "other"]);
        sm.reset_leaf();
        assert!(sm.build_session_context().messages.is_empty());
    }

    #[test]
    fn compaction_and_custom_message_fields() {
        let mut sm = builder(&memory()).in_memory("/p");
        let a = sm.append_message(&user("one")).unwrap();
        sm.append_compaction(CompactionParams {
            summary: "S".into(),
            short_summary: Some("s".into()),
            first_kept_entry_id: a.to_string(),
            tokens_before: 10,
            ..CompactionParams::default()
        })
        .unwrap();
        sm.append_custom_message_entry(CustomMessageParams {
            custom_type: "ext".into(),
            content: json!("hi"),
            display: true,
            details: None,
            attribution: None,
        })
        .unwrap();
        let entries = sm.entries();
        assert!(
            entries[1].json().contains(r#""summary":"S","shortSummary":"s","firstKeptEntryId":"e0","tokensBefore":10"#)
        );
        assert!(entries[2].json().starts_with(
            r#"{"type":"custom_message","customType":"ext","content":"hi","display":true,"attribution":"agent","id":"#
        ));
    }
}

mod fields_spliced {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn fields_are_written_as_given_with_the_base_fields_first_or_last() {
        let storage = memory();
        let mut sm = builder(&storage).create("/p", Path::new(DIR)).unwrap();
        sm.append_message(&assistant("a")).unwrap();
        let first = sm.append_fields_json("model_change", r#"{"provider":"p","modelId":"m","cost":1e-7}"#).unwrap();
        let last = sm.append_fields_json("custom", r#"{"customType":"x","data":{"b":1,"a":2}}"#).unwrap();
        let empty = sm.append_fields_json("session_info", "{ }").unwrap();
        let file = sm.session_file().unwrap().to_owned();
        let text = String::from_utf8(storage.read(&file).unwrap()).unwrap();
        let written: Vec<&str> = text.lines().skip(2).collect();
        let base = |id: &str, parent: &str, ms: u32| {
            format!(r#""id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:00.{ms:03}Z""#)
        };
        assert_eq!(
            written,
            [
                format!(
                    r#"{{"type":"model_change",{},"provider":"p","modelId":"m","cost":1e-7}}"#,
                    base(first.as_str(), "e0", 2)
                ),
                format!(
                    r#"{{"type":"custom","customType":"x","data":{{"b":1,"a":2}},{}}}"#,
                    base(last.as_str(), first.as_str(), 3)
                ),
                format!(r#"{{"type":"session_info",{}}}"#, base(empty.as_str(), last.as_str(), 4)),
            ]
        );
        assert_eq!(sm.entries().len(), 4);
    }

    #[test]
    fn fields_that_are_no_object_or_name_a_base_field_are_refused() {
        let mut sm = SessionManager::in_memory("/p");
        for fields in ["[1]", r#""text""#, r#"{"id":"x"}"#, r#"{"parentId":null}"#, "{", r#"{"a":1} {"#] {
            assert!(sm.append_fields_json("custom", fields).is_err(), "{fields}");
        }
        assert!(sm.entries().is_empty());
    }
}

mod persistence {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn nothing_is_written_before_the_first_assistant_message() {
        let storage = memory();
        let mut sm = builder(&storage).create("/p", Path::new(DIR)).unwrap();
        let path = sm.session_file().unwrap().to_owned();
        assert!(path.file_name().unwrap().to_str().unwrap().ends_with(&format!("_{}.jsonl", sm.session_id())));
        sm.append_message(&user("hello")).unwrap();
        assert!(!storage.exists(&path));
        sm.append_message(&assistant("hi")).unwrap();
        assert_eq!(ids(&storage, &path), ["e0", "e1"]);
        sm.append_message(&user("more")).unwrap();
        assert_eq!(ids(&storage, &path), ["e0", "e1", "e2"]);
        let header = &lines(&storage, &path)[0];
        assert_eq!(header["type"], "session");
        assert_eq!(header["cwd"], "/p");
        assert_eq!(header["version"], 3);
    }

    #[test]
    fn a_batch_is_written_once_at_its_end_and_reads_back_like_single_appends() {
        let storage = memory();
        let mut sm = builder(&storage).create("/p", Path::new(DIR)).unwrap();
        let path = sm.session_file().unwrap().to_owned();
        let first = sm.append_message(&user("one")).unwrap();
        let texts = [assistant("two"), user("three"), assistant("four")]
            .map(|m| sess_core::JsonText::parse_with(serde_json::to_string(&m).unwrap(), |_| {}).unwrap());
        let ids = sm
            .append_batch(|sm| {
                let ids = sm.append_messages_json(&texts.iter().collect::<Vec<_>>()).unwrap();
                // Inside the batch nothing reaches the file.
                assert!(!storage.exists(&path));
                ids
            })
            .unwrap();
        assert_eq!(ids.len(), 3);
        let written = lines(&storage, &path);
        assert_eq!(written.len(), 5);
        let mut parent = Value::String(first.to_string());
        for (line, (id, text)) in written[2..].iter().zip(ids.iter().zip(&texts)) {
            assert_eq!(line["id"], id.as_str());
            assert_eq!(line["parentId"], parent);
            assert_eq!(line["message"], serde_json::from_str::<Value>(text.as_str()).unwrap());
            parent = line["id"].clone();
        }
        assert_eq!(sm.leaf_id(), ids.last());
        // The same session read back has the same entries.
        let reread = builder(&storage).open(&path).unwrap();
        let json = |sm: &SessionManager| sm.entries().iter().map(|e| e.json().to_owned()).collect::<Vec<_>>();
        assert_eq!(json(&reread), json(&sm));
    }

    #[test]
    fn ensure_on_disk_writes_without_an_assistant() {
        let storage = memory();
        let mut sm = builder(&storage).create("/p", Path::new(DIR)).unwrap();
        sm.append_message(&user("hello")).unwrap();
        sm.ensure_on_disk().unwrap();
        let path = sm.session_file().unwrap().to_owned();
        assert_eq!(ids(&storage, &path), ["e0"]);
        sm.append_message(&user("again")).unwrap();
        assert_eq!(ids(&storage, &path), ["e0", "e1"]);
    }

    #[test]
    fn an_opened_file_persists_every_append_and_its_leaf_is_the_last_entry() {
        let storage = memory();
        let path = {
            let mut sm = builder(&storage).create("/p", Path::new(DIR)).unwrap();
            let a = sm.append_message(&user("one")).unwrap();
            sm.append_message(&assistant("two")).unwrap();
            sm.branch(a.as_str()).unwrap();
            sm.append_message(&user("three")).unwrap();
            sm.session_file().unwrap().to_owned()
        };
        let mut sm = builder(&storage).open(&path).unwrap();
        assert_eq!(sm.cwd(), "/p");
        assert_eq!(sm.leaf_id().unwrap().as_str(), "e2");
        let id = sm.append_custom_entry("ext", None).unwrap();
        assert_ne!(id.as_str(), "e0");
        assert_eq!(ids(&storage, &path).len(), 4);
        assert_eq!(sm.entries().last().unwrap().parent_id().unwrap().as_str(), "e2");
    }

    #[test]
    fn a_missing_file_starts_a_session_at_that_path() {
        let storage = memory();
        let path = PathBuf::from("/sessions/explicit.jsonl");
        let mut sm = builder(&storage).open(&path).unwrap();
        assert_eq!(sm.session_file(), Some(path.as_path()));
        assert_eq!(lines(&storage, &path).len(), 1);
        sm.append_message(&user("hi")).unwrap();
        assert_eq!(lines(&storage, &path).len(), 2);
    }

    #[test]
    fn legacy_files_are_migrated_and_rewritten_on_open() {
        let storage = memory();
        let path = Path::new("/s/v1.jsonl");
        let v1 = "{\"type\":\"session\",\"id\":\"old\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n\
                  {\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"hookMessage\",\"content\":\"x\"}}\n";
        sess_store::write_atomic(storage.as_ref(), path, v1.as_bytes()).unwrap();
        let sm = builder(&storage).open(path).unwrap();
        let lines = lines(&storage, path);
        assert_eq!(lines[0]["version"], 3);
        assert_eq!(lines[1]["message"]["role"], "custom");
        assert_eq!(lines[1]["id"], sm.entries()[0].id().as_str());
    }

    #[test]
    fn a_corrupt_header_is_moved_aside_never_overwritten() {
        let storage = memory();
        let path = Path::new("/s/bad.jsonl");
        let original = "{\"type\":\"sess\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}\n";
        sess_store::write_atomic(storage.as_ref(), path, original.as_bytes()).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        let notices = sm.drain_notices();
        let Some(Notice::CorruptFileMoved { moved_to }) = notices.first() else { panic!("{notices:?}") };
        assert!(moved_to.to_str().unwrap().starts_with("/s/bad.jsonl.corrupt-"));
        assert_eq!(storage.read(moved_to).unwrap(), original.as_bytes());
        assert_eq!(lines(&storage, path).len(), 1);
        assert!(sm.entries().is_empty());
    }

    /// Another agent's session (real Claude Code and Codex files), or lines
    /// of JSON that are no session at all, have no pi header either: they
    /// are refused, and neither moved aside nor overwritten.
    #[test]
    fn a_file_with_no_pi_line_is_refused_never_moved_aside() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut files: Vec<Vec<u8>> = [
            "claude-code/claude-basic-toolcall.jsonl",
            "claude-code/claude-compact-branch.jsonl",
            "codex/codex-basic-rollout.jsonl",
            "codex/codex-fork-rollback-compact.jsonl",
        ]
        .iter()
        .map(|name| std::fs::read(fixtures.join(name)).unwrap())
        .collect();
        files.push(b"{\"a\":1}\nnot json\n{\"id\":\"x\",\"type\":\"whatever\"}\n".to_vec());
        for original in files {
            let storage = memory();
            let path = Path::new("/s/other.jsonl");
            sess_store::write_atomic(storage.as_ref(), path, &original).unwrap();
            let err = builder(&storage).open(path).err().expect("opened another agent's file");
            assert!(matches!(err, sess_store::Error::NotAPiSession { .. }), "{err:?}");
            assert!(err.to_string().contains("`/s/other.jsonl` is not a pi-family session"), "{err}");
            assert_eq!(storage.read(path).unwrap(), original);
            let names: Vec<PathBuf> = storage.list_dir(Path::new("/s")).unwrap().into_iter().map(|e| e.path).collect();
            assert_eq!(names, [PathBuf::from("/s/other.jsonl")]);
        }
    }

    /// A pi-family session cut inside its header line, before any entry was
    /// written, is still taken for a damaged one.
    #[test]
    fn a_header_cut_before_any_entry_is_moved_aside() {
        let storage = memory();
        let path = Path::new("/s/cut.jsonl");
        let original = "{\"type\":\"session\",\"version\":3,\"id\":\"01a2";
        sess_store::write_atomic(storage.as_ref(), path, original.as_bytes()).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        let notices = sm.drain_notices();
        let Some(Notice::CorruptFileMoved { moved_to }) = notices.first() else { panic!("{notices:?}") };
        assert_eq!(storage.read(moved_to).unwrap(), original.as_bytes());
    }

    #[test]
    fn a_torn_last_line_is_cut_before_the_next_append() {
        let storage = memory();
        let path = Path::new("/s/torn.jsonl");
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/p\"}\n\
                    {\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\"}}\n\
                    {\"type\":\"message\",\"id\":\"b\",\"par";
        sess_store::write_atomic(storage.as_ref(), path, text.as_bytes()).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        sm.append_message(&user("after")).unwrap();
        let notices = sm.drain_notices();
        assert!(matches!(notices.as_slice(), [Notice::TornTailRemoved { bytes: 31, .. }]), "{notices:?}");
        let outcome = read_session(storage.as_ref(), path).unwrap();
        assert!(outcome.issues.is_empty());
        assert_eq!(outcome.file.entries().len(), 2);
        assert_eq!(outcome.file.entries()[1].parent_id().unwrap().as_str(), "a");
    }

    /// A reader that opens the file while another writer's line is half
    /// written sees a "torn" tail. By the time it appends, that writer has
    /// finished its line and written more: the append, under the lock, must
    /// see the finished lines and cut nothing.
    #[test]
    fn a_tail_torn_only_while_it_was_read_is_not_cut_later() {
        let storage = memory();
        let path = Path::new("/s/busy.jsonl");
        let head = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/p\"}\n\
                    {\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\"}}\n";
        let other = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"user\"}}\n\
                     {\"type\":\"message\",\"id\":\"c\",\"parentId\":\"b\",\"message\":{\"role\":\"user\"}}\n";
        // The other writer is in the middle of its write when this one reads.
        sess_store::write_atomic(storage.as_ref(), path, format!("{head}{}", &other[..30]).as_bytes()).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        // Its write completes before this writer takes the lock.
        let mut writer = storage.open_append(path).unwrap();
        writer.write_all(&other.as_bytes()[30..]).unwrap();
        drop(writer);
        sm.append_message(&user("mine")).unwrap();
        let notices = sm.drain_notices();
        assert!(!notices.iter().any(|n| matches!(n, Notice::TornTailRemoved { .. })), "{notices:?}");
        assert_eq!(ids(&storage, path), ["a", "b", "c", "e0"]);
        assert!(!notices.iter().any(|n| matches!(n, Notice::SkippedLines { .. })), "{notices:?}");
    }

    /// A line is torn only when nobody holds the lock: a tail that is still
    /// torn when the lock is taken is cut, even if the file grew meanwhile.
    #[test]
    fn a_tail_still_torn_under_the_lock_is_cut() {
        let storage = memory();
        let path = Path::new("/s/torn-later.jsonl");
        let head = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/p\"}\n\
                    {\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\"}}\n";
        sess_store::write_atomic(storage.as_ref(), path, head.as_bytes()).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        // Another process died in the middle of its line after this one read the file.
        let mut writer = storage.open_append(path).unwrap();
        writer.write_all(b"{\"type\":\"message\",\"id\":\"b\",\"par").unwrap();
        drop(writer);
        sm.append_message(&user("mine")).unwrap();
        let notices = sm.drain_notices();
        assert!(notices.iter().any(|n| matches!(n, Notice::TornTailRemoved { bytes: 31, .. })), "{notices:?}");
        assert_eq!(ids(&storage, path), ["a", "e0"]);
    }

    #[test]
    fn a_complete_last_line_without_newline_gets_one() {
        let storage = memory();
        let path = Path::new("/s/nonl.jsonl");
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}";
        sess_store::write_atomic(storage.as_ref(), path, text.as_bytes()).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        sm.append_message(&user("after")).unwrap();
        assert_eq!(ids(&storage, path).len(), 2);
    }

    #[test]
    fn a_deleted_file_is_written_again_with_its_header() {
        let storage = memory();
        let mut sm = builder(&storage).create("/p", Path::new(DIR)).unwrap();
        sm.append_message(&assistant("hi")).unwrap();
        let path = sm.session_file().unwrap().to_owned();
        storage.remove_file(&path).unwrap();
        sm.append_message(&user("again")).unwrap();
        let lines = lines(&storage, &path);
        assert_eq!(lines[0]["type"], "session");
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn unreadable_lines_are_copied_aside_before_a_rewrite() {
        let storage = memory();
        let path = Path::new("/s/damaged.jsonl");
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{broken\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}\n";
        sess_store::write_atomic(storage.as_ref(), path, text.as_bytes()).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        assert!(matches!(sm.drain_notices().as_slice(), [Notice::SkippedLines { lines }] if lines == &[2]));
        sm.set_session_name("renamed", TitleSource::User).unwrap();
        let notices = sm.drain_notices();
        let Some(Notice::OriginalKept { copy }) = notices.first() else { panic!("{notices:?}") };
        assert_eq!(storage.read(copy).unwrap(), text.as_bytes());
        assert_eq!(lines(&storage, path)[0]["title"], "renamed");
    }

    /// A v3 session whose message holds a byte that is not UTF-8.
    const INVALID_UTF8_V3: &[u8] = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n";

    #[test]
    fn opening_a_file_with_bytes_that_are_not_utf8_says_which_lines() {
        let storage = memory();
        let path = Path::new("/s/latin1.jsonl");
        sess_store::write_atomic(storage.as_ref(), path, INVALID_UTF8_V3).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        assert_eq!(sm.drain_notices(), [Notice::InvalidUtf8 { lines: vec![2] }]);
        assert_eq!(storage.read(path).unwrap(), INVALID_UTF8_V3, "opening writes nothing");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_copied_aside_before_a_rewrite() {
        let storage = memory();
        let path = Path::new("/s/latin1.jsonl");
        sess_store::write_atomic(storage.as_ref(), path, INVALID_UTF8_V3).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        sm.drain_notices();
        sm.set_session_name("renamed", TitleSource::User).unwrap();
        let notices = sm.drain_notices();
        let Some(Notice::OriginalKept { copy }) = notices.first() else { panic!("{notices:?}") };
        assert_eq!(storage.read(copy).unwrap(), INVALID_UTF8_V3);
        assert_eq!(lines(&storage, path)[0]["title"], "renamed");
    }

    #[test]
    fn a_legacy_file_with_bytes_that_are_not_utf8_is_copied_aside_before_its_migration() {
        let storage = memory();
        let path = Path::new("/s/legacy.jsonl");
        let text: &[u8] = b"{\"type\":\"session\",\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n";
        sess_store::write_atomic(storage.as_ref(), path, text).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        let notices = sm.drain_notices();
        let copy = notices.iter().find_map(|n| match n {
            Notice::OriginalKept { copy } => Some(copy.clone()),
            _ => None,
        });
        let Some(copy) = copy else { panic!("no copy of the original bytes: {notices:?}") };
        assert_eq!(storage.read(&copy).unwrap(), text);
        assert_eq!(lines(&storage, path)[0]["version"], 3, "the file itself is migrated");
    }

    #[test]
    fn bytes_that_are_not_utf8_another_writer_appended_are_copied_aside_before_a_rewrite() {
        let storage = memory();
        let path = Path::new("/s/shared.jsonl");
        let header = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n";
        sess_store::write_atomic(storage.as_ref(), path, header).unwrap();
        let mut sm = builder(&storage).open(path).unwrap();
        // Another writer appends a line holding a byte that is not UTF-8.
        let foreign: &[u8] = b"{\"type\":\"message\",\"id\":\"f\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n";
        let mut writer = storage.open_append(path).unwrap();
        writer.write_all(foreign).unwrap();
        drop(writer);
        sm.append_message(&user("mine")).unwrap();
        sm.drain_notices();
        let before = storage.read(path).unwrap();
        sm.set_session_name("renamed", TitleSource::User).unwrap();
        let notices = sm.drain_notices();
        let Some(Notice::OriginalKept { copy }) = notices.first() else { panic!("{notices:?}") };
        assert_eq!(storage.read(copy).unwrap(), before);
    }
}

mod new_sessions {
    use super::*;
    use pretty_assertions::assert_eq;

    fn populated(storage: &Arc<dyn SessionStorage>) -> SessionManager {
        let mut sm = builder(storage).create("/p", Path::new(DIR)).unwrap();
        let a = sm.append_message(&user("one")).unwrap();
        sm.append_label_change(a.as_str(), Some("start")).unwrap();
        sm.append_message(&assistant("two")).unwrap();
        sm.branch(a.as_str()).unwrap();
        sm.append_message(&user("other")).unwrap();
        sm
    }

    #[test]
    fn create_branched_session_copies_the_path_and_its_labels() {
        let storage = memory();
        let mut sm = populated(&storage);
        let old = sm.session_file().unwrap().to_owned();
        let new = sm.create_branched_session("e3").unwrap().unwrap();
        assert_ne!(old, new);
        let lines = lines(&storage, &new);
        assert_eq!(lines[0]["parentSession"], old.display().to_string());
        let kinds: Vec<(&str, &str)> =
            lines[1..].iter().map(|l| (l["type"].as_str().unwrap(), l["id"].as_str().unwrap())).collect();
        assert_eq!(kinds, [("message", "e0"), ("message", "e3"), ("label", "e4")]);
        assert_eq!(lines[3]["parentId"], "e3");
        assert_eq!(lines[3]["targetId"], "e0");
        assert_eq!(lines[3]["label"], "start");
        // The label keeps the time it was set.
        assert_eq!(lines[3]["timestamp"], "2026-01-01T00:00:00.002Z");
        assert_eq!(sm.session_file(), Some(new.as_path()));
        assert_eq!(sm.leaf_id().unwrap().as_str(), "e4");
        assert!(sm.create_branched_session("missing").is_err());
    }

    /// Label entries on the path are not copied; what followed one hangs under
    /// the entry before it, and a compaction that kept from one keeps from the
    /// entry after it, so the new session has the context the old one had.
    #[test]
    fn create_branched_session_keeps_the_chain_whole_where_labels_were() {
        let storage = memory();
        let mut sm = builder(&storage).create("/p", Path::new(DIR)).unwrap();
        let one = sm.append_message(&user("one")).unwrap();
        let off = sm.append_message(&assistant("off the path")).unwrap();
        sm.branch(one.as_str()).unwrap();
        // A label on the path whose target is off the path: not written again.
        let label_off = sm.append_label_change(off.as_str(), Some("elsewhere")).unwrap();
        let two = sm.append_message(&assistant("two")).unwrap();
        // A label on the path whose target is on it: written again at the end.
        let label_on = sm.append_label_change(one.as_str(), Some("start")).unwrap();
        let kept_from = sm.append_label_change(two.as_str(), Some("kept")).unwrap();
        let three = sm.append_message(&user("three")).unwrap();
        let compaction = sm
            .append_compaction(CompactionParams {
                summary: "so far".into(),
                first_kept_entry_id: kept_from.to_string(),
                tokens_before: 10,
                ..CompactionParams::default()
            })
            .unwrap();
        let four = sm.append_message(&assistant("four")).unwrap();
        let old = sm.session_file().unwrap().to_owned();
        let mut original = builder(&storage).open(&old).unwrap();
        original.branch(four.as_str()).unwrap();
        let expected = serde_json::to_value(original.build_session_context()).unwrap();
        assert_eq!(expected["messages"].as_array().unwrap().len(), 3, "{expected}");

        let new = sm.create_branched_session(four.as_str()).unwrap().unwrap();
        let lines = lines(&storage, &new);
        let line = |id: &sess_core::EntryId| lines.iter().find(|l| l["id"] == id.as_str()).unwrap();
        for dropped in [&label_off, &label_on, &kept_from] {
            assert!(lines.iter().all(|l| l["id"] != dropped.as_str()), "{dropped} was copied");
        }
        assert_eq!(line(&two)["parentId"], one.as_str());
        assert_eq!(line(&three)["parentId"], two.as_str());
        assert_eq!(line(&compaction)["firstKeptEntryId"], three.as_str());
        // Only those fields changed: the rest of each line is the original's text.
        let old_lines: Vec<String> =
            String::from_utf8(storage.read(&old).unwrap()).unwrap().lines().map(str::to_owned).collect();
        let new_text = String::from_utf8(storage.read(&new).unwrap()).unwrap();
        let two_old = old_lines.iter().find(|l| l.contains(&format!("\"id\":\"{two}\""))).unwrap();
        assert!(
            new_text.contains(
                &two_old.replace(&format!("\"parentId\":\"{label_off}\""), &format!("\"parentId\":\"{one}\""))
            )
        );
        // Every entry's parent is in the file.
        for l in &lines[1..] {
            let parent = l["parentId"].as_str();
            assert!(parent.is_none_or(|p| lines.iter().any(|o| o["id"] == p)), "dangling parent in {l}");
        }
        let labels: Vec<(&str, &str)> = lines[1..]
            .iter()
            .filter(|l| l["type"] == "label")
            .map(|l| (l["targetId"].as_str().unwrap(), l["label"].as_str().unwrap()))
            .collect();
        assert_eq!(labels, [(one.as_str(), "start"), (two.as_str(), "kept")]);

        // The new session read back has the old one's context at that entry.
        let reopened = builder(&storage).open(&new).unwrap();
        assert_eq!(serde_json::to_value(reopened.build_session_context()).unwrap(), expected);
        assert_eq!(serde_json::to_value(sm.build_session_context()).unwrap(), expected);
    }

    #[test]
    fn fork_copies_the_whole_tree_under_a_new_id() {
        let storage = memory();
        let mut sm = populated(&storage);
        let old_id = sm.session_id().to_owned();
        let (old, new) = sm.fork().unwrap();
        assert_eq!(ids(&storage, &old), ids(&storage, &new));
        let header = &lines(&storage, &new)[0];
        assert_eq!(header["parentSession"], old_id);
        assert_ne!(header["id"], old_id);
        assert!(SessionManager::in_memory("/p").fork().is_err());
    }

    #[test]
    fn fork_from_copies_another_file() {
        let storage = memory();
        let source = populated(&storage).session_file().unwrap().to_owned();
        let source_id = lines(&storage, &source)[0]["id"].clone();
        let forked = builder(&storage).fork_from(&source, "/q", Path::new("/sessions/--q--")).unwrap();
        let path = forked.session_file().unwrap().to_owned();
        assert!(path.starts_with("/sessions/--q--"));
        assert_eq!(ids(&storage, &path), ids(&storage, &source));
        assert_eq!(lines(&storage, &path)[0]["parentSession"], source_id);
        assert_eq!(lines(&storage, &path)[0]["cwd"], "/q");
    }

    #[test]
    fn a_fork_may_name_its_source_file_as_its_parent() {
        let storage = memory();
        let source = populated(&storage).session_file().unwrap().to_owned();
        let named = source.display().to_string();
        let forked =
            builder(&storage).fork_from_naming(&source, "/q", Path::new("/sessions/--q--"), Some(&named)).unwrap();
        let path = forked.session_file().unwrap().to_owned();
        assert_eq!(lines(&storage, &path)[0]["parentSession"], named.as_str());
        assert_eq!(ids(&storage, &path), ids(&storage, &source));
    }

    #[test]
    fn a_new_session_may_have_the_id_asked_for() {
        let storage = memory();
        let mut sm = populated(&storage);
        sm.start_session(Some(Path::new(DIR)), Some("given-id"), Some("/old.jsonl")).unwrap();
        assert_eq!(sm.session_id(), "given-id");
        assert!(sm.entries().is_empty());
        assert_eq!(sm.leaf_id(), None);
        let file = sm.session_file().unwrap().to_owned();
        assert!(file.starts_with(DIR) && file.to_string_lossy().ends_with("_given-id.jsonl"), "{}", file.display());
        sm.append_message(&user("q")).unwrap();
        sm.append_message(&assistant("a")).unwrap();
        let header = &lines(&storage, &file)[0];
        assert_eq!(header["id"], "given-id");
        assert_eq!(header["parentSession"], "/old.jsonl");
    }

    #[test]
    fn a_new_session_id_that_would_lead_out_of_its_folder_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("agent").join("sessions");
        let mut sm = SessionManager::create("/p", &dir).unwrap();
        let file = sm.session_file().unwrap().to_owned();
        // The id is part of the file's name: this one names `agent/escape.jsonl`.
        for id in ["x/../../escape", "x\\..\\escape", "a\0b"] {
            let err = sm.start_session(Some(&dir), Some(id), None).unwrap_err();
            assert!(matches!(err, sess_store::Error::InvalidEntry { .. }), "{id}: {err}");
        }
        sm.append_message(&user("q")).unwrap();
        sm.append_message(&assistant("a")).unwrap();
        assert_eq!(sm.session_file(), Some(file.as_path()));
        assert!(file.exists());
        assert!(!root.path().join("agent").join("escape.jsonl").exists());
    }

    #[test]
    fn session_names_are_sanitized_and_user_titles_win() {
        let storage = memory();
        let mut sm = populated(&storage);
        assert!(sm.set_session_name("  My\tsession\u{7}  name ", TitleSource::User).unwrap());
        assert_eq!(sm.session_name().as_deref(), Some("My session name"));
        assert!(!sm.set_session_name("auto title", TitleSource::Auto).unwrap());
        assert!(!sm.set_session_name(" \n ", TitleSource::User).unwrap());
        let header = &lines(&storage, sm.session_file().unwrap())[0];
        assert_eq!(header["title"], "My session name");
        assert_eq!(header["titleSource"], "user");
    }

    #[test]
    fn move_to_moves_file_and_artifacts_and_updates_cwd() {
        let storage = memory();
        let mut sm = populated(&storage);
        let old = sm.session_file().unwrap().to_owned();
        let artifacts = old.with_extension("");
        sess_store::write_atomic(storage.as_ref(), &artifacts.join("out.txt"), b"artifact").unwrap();
        sm.move_to("/q", Path::new("/sessions/--q--")).unwrap();
        let new = sm.session_file().unwrap().to_owned();
        assert!(!storage.exists(&old));
        assert_eq!(lines(&storage, &new)[0]["cwd"], "/q");
        assert_eq!(storage.read(&new.with_extension("").join("out.txt")).unwrap(), b"artifact");
        assert_eq!(sm.cwd(), "/q");
    }
}

mod resuming {
    use super::*;
    use sess_store::Breadcrumbs;
    use sess_testkit::{FaultStorage, Op};

    #[test]
    fn continue_recent_prefers_this_terminals_session_then_the_newest_file() {
        let storage = memory();
        let crumbs = Breadcrumbs { dir: PathBuf::from("/state/terminal-sessions"), terminal_id: "pts-1".into() };
        let mut older = builder(&storage).breadcrumbs(crumbs.clone()).create("/p", Path::new(DIR)).unwrap();
        older.append_message(&assistant("old")).unwrap();
        let older_path = older.session_file().unwrap().to_owned();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let mut newer = builder(&storage).create("/p", Path::new(DIR)).unwrap();
        newer.append_message(&assistant("new")).unwrap();
        let newer_path = newer.session_file().unwrap().to_owned();

        // This terminal's breadcrumb points at the older session.
        let resumed = builder(&storage).breadcrumbs(crumbs.clone()).continue_recent("/p", Path::new(DIR)).unwrap();
        assert_eq!(resumed.session_file(), Some(older_path.as_path()));
        // Another terminal gets the newest file.
        let other = Breadcrumbs { dir: crumbs.dir.clone(), terminal_id: "pts-2".into() };
        let resumed = builder(&storage).breadcrumbs(other).continue_recent("/p", Path::new(DIR)).unwrap();
        assert_eq!(resumed.session_file(), Some(newer_path.as_path()));
        // An empty directory starts a new session.
        let fresh = builder(&storage).continue_recent("/q", Path::new("/sessions/--q--")).unwrap();
        assert!(fresh.entries().is_empty());
    }

    #[test]
    fn move_to_rolls_back_when_a_step_fails() {
        let inner = memory();
        let storage = FaultStorage::new(inner.clone());
        let faulty: Arc<dyn SessionStorage> = Arc::new(storage.clone());
        let mut sm = builder(&faulty).create("/p", Path::new(DIR)).unwrap();
        sm.append_message(&assistant("hi")).unwrap();
        let old = sm.session_file().unwrap().to_owned();
        sess_store::write_atomic(inner.as_ref(), &old.with_extension("").join("a.txt"), b"artifact").unwrap();
        // Rename 1 moves the file, rename 2 the artifacts: fail the second.
        storage.fail_on(Op::Rename, 2);
        assert!(sm.move_to("/q", Path::new("/sessions/--q--")).is_err());
        assert_eq!(sm.session_file(), Some(old.as_path()));
        assert_eq!(sm.cwd(), "/p");
        assert!(inner.exists(&old));
        assert_eq!(inner.read(&old.with_extension("").join("a.txt")).unwrap(), b"artifact");
        assert!(!inner.exists(Path::new("/sessions/--q--").join(old.file_name().unwrap()).as_path()));
        // The rewrite at the new place fails: everything moves back too.
        storage.fail_on(Op::Rename, 3);
        assert!(sm.move_to("/q", Path::new("/sessions/--q--")).is_err());
        assert!(inner.exists(&old));
        assert_eq!(lines(&inner, &old)[0]["cwd"], "/p");
    }
}
