//! A rename of a file with oh-my-pi's title slot, interrupted at every write:
//! the `title_change` append, each write of the slot in place, a short write
//! of any length, a failed sync, a process that dies after any operation and
//! a machine that crashes then. Every file left behind reads, in sess and as
//! oh-my-pi reads it: the header and every entry intact, the slot the old
//! one, the new one or no slot, the entry there or not (a cut one is a torn
//! last line), and the name the old or the new one, never a mix. A second
//! rename then leaves a clean file.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use sess_core::{IssueKind, SequentialIds, TITLE_SLOT_BYTES, TitleSlot};
use sess_store::discovery::summarize_bytes;
use sess_store::storage::{MemoryStorage, SessionStorage};
use sess_store::{Durability, SessionManager, SteppingClock, TitleSource, write_atomic};
use sess_testkit::{CrashStorage, FaultStorage, Op};

const BEFORE: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/renamed.jsonl");
const OLD: &str = "Fix the parser: \"last line\" été";
const NEW: &str = "Le parseur réparé";
const PATH: &str = "/s/2026-12-02T01-01-56-147Z_01a23445-c033-7000-85b4-d76997f81cc1.jsonl";

/// What an interrupted rename left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Left {
    /// The file as it was.
    Untouched,
    /// A cut `title_change` line at the end, the old slot.
    TornEntry,
    /// The entry, the old slot.
    Appended,
    /// The entry, and a first line that is no slot (its first byte was
    /// overwritten, the rest maybe in part).
    NoSlot,
    /// The entry and the new slot.
    Renamed,
}

/// The name `text` (a session file, lossily decoded) has for a reader that
/// follows oh-my-pi 18.2.3's `parseSessionContent`: a valid slot on the first
/// line names it; the rest (the whole text without one) is read as Bun's
/// `JSONL.parseChunk` and oh-my-pi's `parseJsonlLenient` read it, value after
/// value, skipping to the next line from where a value fails to parse; the
/// first value must be a session header with a string id (else oh-my-pi
/// refuses the file: "the session header is missing or malformed").
fn oh_my_pi_reads(text: &str) -> Option<String> {
    let (first, rest) = text.split_once('\n').unwrap();
    let slot = TitleSlot::parse(first);
    let mut body = if slot.is_some() { rest } else { text };
    let header = loop {
        let mut values = serde_json::Deserializer::from_str(body).into_iter::<serde_json::Value>();
        match values.next() {
            Some(Ok(value)) => break value,
            Some(Err(_)) => {
                let read = values.byte_offset();
                let next = body[read..].find('\n').expect("a line that parses");
                body = &body[read + next + 1..];
            }
            None => panic!("no value"),
        }
    };
    assert_eq!(header["type"], "session", "oh-my-pi finds no header: {header}");
    assert!(header["id"].is_string());
    match slot {
        Some(slot) => slot.name().map(str::to_owned),
        None => header["title"].as_str().map(str::to_owned),
    }
}

/// Checks `bytes`, what a rename of [`BEFORE`] to [`NEW`] left, with every
/// reader; says what it is.
fn check(bytes: &[u8], context: &str) -> Left {
    let before = BEFORE.as_bytes();
    assert!(bytes.len() >= before.len(), "{context}: the file shrank");
    // Only the slot and what follows the old end can have changed.
    assert_eq!(bytes[TITLE_SLOT_BYTES - 1], b'\n', "{context}: the slot's line end moved");
    assert_eq!(&bytes[TITLE_SLOT_BYTES..before.len()], &before[TITLE_SLOT_BYTES..], "{context}: a byte changed");
    let tail = &bytes[before.len()..];

    // sess.
    let outcome = sess_core::read(bytes);
    let old = sess_core::read(before);
    assert_eq!(outcome.file.header().unwrap().json(), old.file.header().unwrap().json(), "{context}");
    let ids = |o: &sess_core::ReadOutcome| o.file.entries().iter().map(|e| e.id().to_string()).collect::<Vec<_>>();
    let (ours, theirs) = (ids(&outcome), ids(&old));
    assert_eq!(ours[..theirs.len()], theirs[..], "{context}: an entry was lost");
    let appended = ours.len() > theirs.len();
    if appended {
        let entry = outcome.file.entries().last().unwrap();
        assert_eq!(entry.kind().type_name(), "title_change", "{context}");
        assert!(entry.json().contains(&format!("\"title\":\"{NEW}\"")), "{context}");
        assert_eq!(ours.len(), theirs.len() + 1, "{context}");
    }
    // The overwritten first line is skipped; so is a cut last line (which may
    // end inside a character).
    let last_line = BEFORE.lines().count() + 1;
    for issue in &outcome.issues {
        let first_line = issue.line == 1
            && matches!(issue.kind, IssueKind::InvalidJson(_) | IssueKind::NotAnObject | IssueKind::InvalidUtf8);
        let torn_entry = issue.line == last_line
            && matches!(issue.kind, IssueKind::TruncatedLastLine | IssueKind::InvalidUtf8)
            && !tail.is_empty()
            && !appended;
        assert!(first_line || torn_entry, "{context}: {issue:?}");
    }
    let names = outcome.file.names();
    let name = names.name().unwrap();
    assert!(name == OLD || name == NEW, "{context}: {name:?}");
    let left = match names.slot().map(|s| s.title.as_str()) {
        Some(title) if title == NEW => Left::Renamed,
        Some(title) => {
            assert_eq!(title, OLD, "{context}");
            match (appended, tail.is_empty()) {
                (true, _) => Left::Appended,
                (false, true) => Left::Untouched,
                (false, false) => Left::TornEntry,
            }
        }
        None => Left::NoSlot,
    };
    // The new slot is written only after the entry; without a slot the entry names it.
    if matches!(left, Left::Renamed | Left::NoSlot) {
        assert!(appended, "{context}: {left:?} without the entry");
        assert_eq!(name, NEW, "{context}");
    }

    // oh-my-pi, and the listing of `sess list`.
    let text = String::from_utf8_lossy(bytes);
    let shown = oh_my_pi_reads(&text);
    match left {
        Left::Renamed => assert_eq!(shown.as_deref(), Some(NEW), "{context}"),
        Left::NoSlot => assert_eq!(shown, None, "{context}: the header has no title"),
        _ => assert_eq!(shown.as_deref(), Some(OLD), "{context}"),
    }
    let summary = summarize_bytes(bytes, PATH.into(), || Some(0)).unwrap();
    assert_eq!(summary.title.as_deref(), Some(name), "{context}");
    left
}

/// Renames the session at [`PATH`] in `storage` as `sess rename` does.
fn rename(storage: Arc<dyn SessionStorage>, durability: Durability) -> sess_store::Result<()> {
    let mut sm = SessionManager::builder()
        .storage(storage)
        .durability(durability)
        .clock(Arc::new(SteppingClock::new(1_796_100_000_000)))
        .ids(Box::new(SequentialIds::new("e")))
        .open(Path::new(PATH))?;
    sm.set_session_name(NEW, TitleSource::User)?;
    sm.close()
}

/// A second rename of what an interrupted one left gives a clean file with the new name.
fn renamed_again(storage: &Arc<dyn SessionStorage>, context: &str) {
    let mut sm = SessionManager::builder().storage(storage.clone()).open(Path::new(PATH)).unwrap();
    sm.set_session_name(NEW, TitleSource::User).unwrap();
    sm.close().unwrap();
    let bytes = storage.read(Path::new(PATH)).unwrap();
    let outcome = sess_core::read(&bytes);
    assert!(outcome.issues.is_empty(), "{context}: {:?}", outcome.issues);
    let slot = outcome.file.names().slot().cloned();
    assert_eq!(slot.map(|s| s.title).as_deref(), Some(NEW), "{context}");
    assert_eq!(bytes.iter().position(|&b| b == b'\n'), Some(TITLE_SLOT_BYTES - 1), "{context}");
}

fn memory_with_the_session() -> Arc<dyn SessionStorage> {
    let memory: Arc<dyn SessionStorage> = Arc::new(MemoryStorage::new());
    write_atomic(memory.as_ref(), Path::new(PATH), BEFORE.as_bytes()).unwrap();
    memory
}

#[test]
fn a_rename_that_fails_at_any_write_sync_or_open_leaves_a_readable_file() {
    let mut seen = BTreeSet::new();
    for durability in [Durability::Flushed, Durability::Synced] {
        for (op, nth) in (1..=4).map(|n| (Op::Write, n)).chain((1..=3).map(|n| (Op::Sync, n))).chain([(Op::Open, 1)]) {
            let memory = memory_with_the_session();
            let faulty = FaultStorage::new(memory.clone());
            faulty.fail_on(op, nth);
            let result = rename(Arc::new(faulty.clone()), durability);
            let context = format!("{durability:?}, {op:?} #{nth} fails: {result:?}");
            let left = check(&memory.read(Path::new(PATH)).unwrap(), &context);
            if result.is_ok() {
                assert_eq!(left, Left::Renamed, "{context}");
            } else if op != Op::Sync {
                // (A failed sync comes after the writes it would have made durable.)
                assert_ne!(left, Left::Renamed, "{context}: the failure was reported, but everything was written");
            }
            seen.insert(left);
            renamed_again(&memory, &context);
        }
    }
    assert_eq!(seen, BTreeSet::from([Left::Untouched, Left::Appended, Left::NoSlot, Left::Renamed]));
}

#[test]
fn a_short_write_of_any_length_at_any_step_leaves_a_readable_file() {
    let mut seen = BTreeSet::new();
    let mut runs = 0;
    // The append, the first byte of the slot, the rest of it, the first byte again.
    for nth in 1..=4 {
        for keep in 0..TITLE_SLOT_BYTES + 64 {
            let memory = memory_with_the_session();
            let faulty = FaultStorage::new(memory.clone());
            faulty.tear_on(nth, keep);
            let result = rename(Arc::new(faulty.clone()), Durability::Flushed);
            let context = format!("write #{nth} cut after {keep} bytes: {result:?}");
            let left = check(&memory.read(Path::new(PATH)).unwrap(), &context);
            seen.insert(left);
            if result.is_ok() {
                // The write was shorter than `keep`: nothing was cut.
                assert_eq!(left, Left::Renamed, "{context}");
                break;
            }
            runs += 1;
            renamed_again(&memory, &context);
        }
    }
    assert_eq!(seen, BTreeSet::from([Left::Untouched, Left::TornEntry, Left::Appended, Left::NoSlot, Left::Renamed]));
    assert!(runs > 400, "{runs} short writes");
}

#[test]
fn a_process_that_dies_and_a_machine_that_crashes_at_any_point_leave_a_readable_file() {
    for durability in [Durability::Flushed, Durability::Synced] {
        let mut seen = BTreeSet::new();
        let mut kill_at = 0;
        loop {
            let storage = CrashStorage::new();
            write_atomic(&storage, Path::new(PATH), BEFORE.as_bytes()).unwrap();
            storage.kill_after(kill_at);
            let result = rename(Arc::new(storage.clone()), durability);
            let context = format!("{durability:?}, killed after {kill_at} operations: {result:?}");
            // The process died; what it wrote is with the OS.
            let died = check(&storage.contents(Path::new(PATH)).unwrap(), &context);
            storage.crash();
            let crashed = check(&storage.contents(Path::new(PATH)).unwrap(), &format!("{context}, then a crash"));
            seen.extend([died, crashed]);
            if result.is_ok() {
                // Closed: synced, so the new name survives the crash.
                assert_eq!((died, crashed), (Left::Renamed, Left::Renamed), "{context}");
                break;
            }
            renamed_again(&(Arc::new(storage) as Arc<dyn SessionStorage>), &context);
            kill_at += 1;
        }
        assert!(kill_at >= 4, "{durability:?}: {kill_at} points");
        assert!(seen.contains(&Left::NoSlot) && seen.contains(&Left::Appended), "{durability:?}: {seen:?}");
    }
}
