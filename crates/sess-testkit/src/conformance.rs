//! The conformance suite every [`Backend`] runs.
//!
//! A backend crate calls [`conformance_tests!`](crate::conformance_tests) in a
//! test file with an expression that makes a fresh, empty backend; every check
//! below becomes a `#[test]`. The checks are test code: they panic on failure.

#![allow(clippy::unwrap_used, clippy::missing_panics_doc)]

use std::sync::Arc;

use serde_json::json;
use sess_core::segment::Origin;
use sess_core::{Entry, SessionHeader};
use sess_store::{Appended, At, Backend, Cursor, Error, NewSegment, Notice, SessionManager, append_or_fork, is_leaf};

/// Makes the backend under test.
pub type Make<'a> = &'a dyn Fn() -> Arc<dyn Backend>;

/// Generates one `#[test]` per conformance check. With `run_if: condition`,
/// each test first evaluates the condition and passes without running the
/// check when it is false (a backend that needs a server the environment does
/// not provide; the condition says why it skipped).
#[macro_export]
macro_rules! conformance_tests {
    ($make:expr) => {
        $crate::conformance_tests!(@each [$make] {});
    };
    ($make:expr, run_if: $run:expr) => {
        $crate::conformance_tests!(@each [$make] { if !$run { return; } });
    };
    (@each [$make:expr] $guard:tt) => {
        $crate::conformance_tests!(@tests [$make] $guard;
            round_trip_keeps_bytes_and_order,
            forks_and_compactions_record_lineage,
            leaves_come_from_the_data,
            bad_fork_points_and_chains_are_errors,
            a_moved_tail_writes_nothing,
            concurrent_appenders_fork_and_lose_nothing,
            cursors_swap_atomically,
            blobs_round_trip,
            sessions_are_created_once_and_listed,
            a_session_manager_round_trips,
            a_session_manager_resumes_by_cursor,
            a_past_state_is_read_only_until_branched,
            session_managers_writing_at_once_auto_fork,
            an_imported_session_keeps_bytes_and_segments,
            appends_to_a_session_with_no_entries_are_stored,
        );
    };
    (@tests [$make:expr] $guard:tt; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                $guard
                $crate::conformance::$check(&|| $make);
            }
        )*
    };
}

fn header(id: &str) -> SessionHeader {
    SessionHeader::new(id, "2026-01-01T00:00:00.000Z", "/conformance/project", None)
}

/// An entry; `extra` adds fields (and may be a compaction's).
fn entry(kind: &str, id: &str, parent: Option<&str>, n: u64) -> Entry {
    let mut object = json!({"type": kind, "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z"});
    match kind {
        "message" => object["message"] = json!({"role": "user", "content": format!("message {n}"), "n": 1.50}),
        "compaction" => {
            object["summary"] = json!("S");
            object["firstKeptEntryId"] = json!(parent);
            object["tokensBefore"] = json!(n);
        }
        _ => {}
    }
    Entry::parse(&object.to_string()).unwrap()
}

/// `ids[0]` under `parent`, each next under the previous.
fn chain(ids: &[&str], parent: Option<&str>) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        let parent = if n == 0 { parent.map(str::to_owned) } else { Some(ids[n - 1].to_owned()) };
        out.push(entry("message", id, parent.as_deref(), n as u64));
    }
    out
}

fn jsons(entries: &[Entry]) -> Vec<String> {
    entries.iter().map(|e| e.json().to_owned()).collect()
}

/// A session `s` with one segment `a`…`e`.
fn five(backend: &dyn Backend) -> Vec<Entry> {
    backend.create_session(&header("s"), None).unwrap();
    let first = chain(&["a", "b", "c"], None);
    let info = backend.create_segment("s", &NewSegment::New, &first).unwrap();
    assert_eq!((info.id.as_str(), info.origin, info.len), ("a", Origin::New, 3));
    let more = chain(&["d", "e"], Some("c"));
    assert_eq!(backend.append("s", "a", 3, &more).unwrap(), Appended::Done { first_seq: 3 });
    first.into_iter().chain(more).collect()
}

/// Entries written come back with the same bytes, in order.
pub fn round_trip_keeps_bytes_and_order(make: Make<'_>) {
    let backend = make();
    let written = five(backend.as_ref());
    assert_eq!(jsons(&backend.read_session("s").unwrap()), jsons(&written));
    assert_eq!(jsons(&backend.read_segment("s", "a", 1..3).unwrap()), jsons(&written[1..3]));
    assert_eq!(jsons(&backend.read_segment("s", "a", 3..99).unwrap()), jsons(&written[3..]));
    let segments = backend.segments("s").unwrap();
    assert_eq!(segments.len(), 1);
    assert_eq!((segments[0].len, segments[0].parent.clone()), (5, None));
    let stored = backend.session("s").unwrap();
    assert_eq!(stored.header.json(), header("s").json());
}

/// Forks and compactions are segments with their origin and fork point.
pub fn forks_and_compactions_record_lineage(make: Make<'_>) {
    let backend = make();
    five(backend.as_ref());
    let fork = backend
        .create_segment("s", &NewSegment::Fork { parent: "a".into(), fork_at: 1 }, &chain(&["x", "y"], Some("b")))
        .unwrap();
    assert_eq!((fork.origin, fork.parent.clone(), fork.len), (Origin::Fork, Some(("a".to_owned(), 1)), 2));
    let compaction = vec![entry("compaction", "k", Some("e"), 9), entry("message", "z", Some("k"), 10)];
    let compact =
        backend.create_segment("s", &NewSegment::Compact { parent: "a".into(), fork_at: 4 }, &compaction).unwrap();
    assert_eq!((compact.origin, compact.parent.clone()), (Origin::Compact, Some(("a".to_owned(), 4))));
    let nested = backend
        .create_segment("s", &NewSegment::Fork { parent: "x".into(), fork_at: 0 }, &chain(&["w"], Some("x")))
        .unwrap();
    let ids = |v: Vec<sess_store::SegmentInfo>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(backend.segments("s").unwrap()), ["a", "x", "k", "w"]);
    assert_eq!(ids(backend.ancestors("s", &nested.id).unwrap()), ["x", "a"]);
    let mut descendants = ids(backend.descendants("s", "a").unwrap());
    descendants.sort();
    assert_eq!(descendants, ["k", "w", "x"]);
    // The source segment is untouched.
    assert_eq!(backend.read_segment("s", "a", 0..99).unwrap().len(), 5);
}

/// Which segments are leaves is computed from the data.
pub fn leaves_come_from_the_data(make: Make<'_>) {
    let backend = make();
    five(backend.as_ref());
    backend
        .create_segment("s", &NewSegment::Fork { parent: "a".into(), fork_at: 2 }, &chain(&["x"], Some("c")))
        .unwrap();
    let all = backend.segments("s").unwrap();
    assert!(all.iter().all(|s| is_leaf(&all, s)), "a fork from the middle leaves the source a leaf");
    backend
        .create_segment(
            "s",
            &NewSegment::Compact { parent: "a".into(), fork_at: 4 },
            &[entry("compaction", "k", Some("e"), 1)],
        )
        .unwrap();
    let all = backend.segments("s").unwrap();
    let leaves: Vec<&str> = all.iter().filter(|s| is_leaf(&all, s)).map(|s| s.id.as_str()).collect();
    assert_eq!(leaves, ["x", "k"]);
    // A compaction at the tail does not take the tail: by the derivation rule an
    // entry under `e` still continues segment `a` (regression: such sessions,
    // written by pi-mono after `branch(e)`, could not be copied).
    assert_eq!(backend.append("s", "a", 5, &chain(&["f"], Some("e"))).unwrap(), Appended::Done { first_seq: 5 });
    let entries = backend.read_session("s").unwrap();
    let derived = sess_core::segment::derive(&entries);
    let stored = backend.segments("s").unwrap();
    let lens: Vec<u64> = stored.iter().map(|s| s.len).collect();
    let derived_lens: Vec<u64> = derived.segments.iter().map(|s| s.entries.len() as u64).collect();
    assert_eq!(lens, derived_lens);
}

/// Unknown fork points, broken chains and misplaced compactions are errors, never a silent fallback.
pub fn bad_fork_points_and_chains_are_errors(make: Make<'_>) {
    let backend = make();
    five(backend.as_ref());
    let before = jsons(&backend.read_session("s").unwrap());
    let fork = |parent: &str, at: u64, entries: &[Entry]| {
        backend.create_segment("s", &NewSegment::Fork { parent: parent.into(), fork_at: at }, entries)
    };
    assert!(matches!(fork("nope", 0, &chain(&["x"], Some("a"))), Err(Error::SegmentNotFound { .. })));
    assert!(fork("a", 7, &chain(&["x"], Some("a"))).is_err(), "no seq 7");
    assert!(fork("a", 1, &chain(&["x"], Some("c"))).is_err(), "first entry does not hang under seq 1");
    assert!(fork("a", 4, &chain(&["x"], Some("e"))).is_err(), "a fork at the tail is an append");
    assert!(
        fork("a", 1, &[entry("message", "x", Some("b"), 0), entry("message", "y", Some("a"), 1)]).is_err(),
        "not a chain"
    );
    assert!(
        backend.append("s", "a", 5, &[entry("compaction", "k", Some("e"), 0)]).is_err(),
        "compactions open segments"
    );
    assert!(backend.append("s", "a", 5, &chain(&["x"], Some("b"))).is_err(), "must continue the tail");
    assert!(fork("a", 1, &chain(&["c"], Some("b"))).is_err(), "ids are unique");
    assert!(matches!(backend.segments("nope"), Err(Error::SessionNotFound { .. })));
    assert_eq!(jsons(&backend.read_session("s").unwrap()), before, "nothing was written");
}

/// An append whose expected tail is stale writes nothing.
pub fn a_moved_tail_writes_nothing(make: Make<'_>) {
    let backend = make();
    let written = five(backend.as_ref());
    assert_eq!(backend.append("s", "a", 3, &chain(&["x"], Some("c"))).unwrap(), Appended::TailMoved { len: 5 });
    assert_eq!(jsons(&backend.read_session("s").unwrap()), jsons(&written));
    let placed = append_or_fork(backend.as_ref(), "s", "a", 3, &chain(&["x"], Some("c"))).unwrap();
    assert_eq!((placed.segment.as_str(), placed.forked_from), ("x", Some(("a".to_owned(), 2))));
}

/// Several writers appending to one segment at once: losers fork with the
/// lineage recorded; every entry lands; every writer's chain stays unbroken.
pub fn concurrent_appenders_fork_and_lose_nothing(make: Make<'_>) {
    let backend = make();
    five(backend.as_ref());
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let backend = backend.clone();
            std::thread::spawn(move || {
                let (mut segment, mut len, mut parent) = ("a".to_owned(), 5, "e".to_owned());
                let mut forks = 0;
                for n in 0..25 {
                    let id = format!("w{w}-{n}");
                    let placed =
                        append_or_fork(backend.as_ref(), "s", &segment, len, &chain(&[&id], Some(&parent))).unwrap();
                    if placed.forked_from.is_some() {
                        forks += 1;
                    }
                    (segment, len, parent) = (placed.segment, placed.first_seq + 1, id);
                }
                forks
            })
        })
        .collect();
    let forks: usize = writers.into_iter().map(|w| w.join().unwrap()).sum();
    let entries = backend.read_session("s").unwrap();
    assert_eq!(entries.len(), 5 + 100, "every entry landed and no marker was written");
    for w in 0..4 {
        for n in 1..25 {
            let child = entries.iter().find(|e| e.id().as_str() == format!("w{w}-{n}")).unwrap();
            assert_eq!(child.parent_id().unwrap().as_str(), format!("w{w}-{}", n - 1));
        }
    }
    let segments = backend.segments("s").unwrap();
    assert_eq!(segments.iter().filter(|s| s.origin == Origin::Fork).count(), forks);
    assert_eq!(backend.read_segment("s", "a", 0..5).unwrap().len(), 5);
    let derived = sess_core::segment::derive(&entries);
    assert_eq!(derived.segments.len(), segments.len(), "the lineage matches the entries' own tree");
}

/// Cursors are created, read and swapped with compare-and-swap.
pub fn cursors_swap_atomically(make: Make<'_>) {
    let backend = make();
    five(backend.as_ref());
    assert_eq!(backend.cursor("agent-1").unwrap(), None);
    let state = Cursor { session: "s".into(), segment: "a".into(), last_seq: 4, children: vec![], version: 0 };
    let stored = backend.swap_cursor("agent-1", None, &state).unwrap().unwrap();
    assert!(backend.swap_cursor("agent-1", None, &state).unwrap().is_none(), "it exists now");
    let moved = Cursor { last_seq: 5, children: vec!["child".into()], ..state.clone() };
    let next = backend.swap_cursor("agent-1", Some(stored.version), &moved).unwrap().unwrap();
    assert!(next.version > stored.version);
    assert!(backend.swap_cursor("agent-1", Some(stored.version), &state).unwrap().is_none(), "stale version");
    assert_eq!(backend.cursor("agent-1").unwrap(), Some(next));
    assert!(backend.cursor("../escape").is_err() || backend.cursor("../escape").unwrap().is_none());
}

/// Blobs are content-addressed and verified.
pub fn blobs_round_trip(make: Make<'_>) {
    let backend = make();
    let reference = backend.put(b"image bytes").unwrap();
    assert!(reference.starts_with("blob:sha256:"));
    assert_eq!(backend.put(b"image bytes").unwrap(), reference);
    assert_eq!(backend.get(&reference).unwrap().as_deref(), Some(&b"image bytes"[..]));
    let missing = format!("blob:sha256:{}", "0".repeat(64));
    assert_eq!(backend.get(&missing).unwrap(), None);
    assert!(backend.get("blob:sha256:../../etc/passwd").is_err());
}

/// A session id is created once; every session is listed.
pub fn sessions_are_created_once_and_listed(make: Make<'_>) {
    let backend = make();
    five(backend.as_ref());
    assert!(matches!(backend.create_session(&header("s"), None), Err(Error::Conflict { .. })));
    backend.create_session(&header("t"), None).unwrap();
    backend.create_segment("t", &NewSegment::New, &chain(&["a"], None)).unwrap();
    assert!(matches!(backend.session("nope"), Err(Error::SessionNotFound { .. })));
    let mut ids: Vec<String> = backend.list_sessions().unwrap().into_iter().map(|s| s.id).collect();
    ids.sort();
    assert_eq!(ids, ["s", "t"]);
    let listed = backend.list_sessions().unwrap().into_iter().find(|s| s.id == "s").unwrap();
    assert_eq!((listed.message_count, listed.cwd.as_str()), (5, "/conformance/project"));
}

fn user(text: &str) -> serde_json::Value {
    json!({"role": "user", "content": text, "timestamp": 1})
}

fn assistant(text: &str) -> serde_json::Value {
    json!({"role": "assistant", "content": text, "provider": "p", "model": "m", "timestamp": 2})
}

fn texts(manager: &SessionManager) -> Vec<String> {
    let context = serde_json::to_value(manager.build_session_context()).unwrap();
    context["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A `SessionManager` on the backend: appends, branches and compactions are
/// stored as segments; reopening gives the same entries and context.
pub fn a_session_manager_round_trips(make: Make<'_>) {
    let backend = make();
    let mut sm = SessionManager::builder().backend(backend.clone()).create_in("/project").unwrap();
    let first = sm.append_message(&user("one")).unwrap();
    sm.append_message(&assistant("two")).unwrap();
    sm.append_message(&user("three")).unwrap();
    sm.branch(first.as_str()).unwrap();
    sm.append_message(&assistant("other")).unwrap();
    let kept = sm.entries()[0].id().to_string();
    sm.append_compaction(sess_store::CompactionParams {
        summary: "S".into(),
        first_kept_entry_id: kept,
        tokens_before: 1,
        ..Default::default()
    })
    .unwrap();
    sm.append_message(&user("after")).unwrap();
    let id = sm.session_id().to_owned();
    let origins: Vec<Origin> = backend.segments(&id).unwrap().iter().map(|s| s.origin).collect();
    assert_eq!(origins, [Origin::New, Origin::Fork, Origin::Compact]);
    let reopened = SessionManager::builder().backend(backend.clone()).open_in(&id, None).unwrap();
    assert_eq!(jsons(reopened.entries()), jsons(sm.entries()));
    assert_eq!(texts(&reopened), ["", "one", "other", "after"]);
    assert_eq!(reopened.header().json(), sm.header().json());
}

/// A stored session with a header and no entries yet (a header-only file
/// copied in): every entry appended to it is stored, the first one as the
/// root, in order, and reads back after a reopen.
pub fn appends_to_a_session_with_no_entries_are_stored(make: Make<'_>) {
    let backend = make();
    backend.create_session(&header("empty"), None).unwrap();
    let mut sm = SessionManager::builder().backend(backend.clone()).open_in("empty", None).unwrap();
    let first = sm.append_message(&user("one")).unwrap();
    let second = sm.append_message(&user("two")).unwrap();
    sm.close().unwrap();
    let stored = backend.read_session("empty").unwrap();
    let ids: Vec<String> = stored.iter().map(|e| e.id().to_string()).collect();
    assert_eq!(ids, [first.to_string(), second.to_string()]);
    assert_eq!(stored[0].parent_id(), None);
    assert_eq!(stored[1].parent_id(), Some(&first));
    let reopened = SessionManager::builder().backend(backend.clone()).open_in("empty", None).unwrap();
    assert_eq!(texts(&reopened), ["one", "two"]);
}

/// A named cursor follows the writer; resuming by name continues there.
pub fn a_session_manager_resumes_by_cursor(make: Make<'_>) {
    let backend = make();
    let mut sm = SessionManager::builder().backend(backend.clone()).cursor("pod-1").create_in("/project").unwrap();
    let first = sm.append_message(&user("one")).unwrap();
    sm.append_message(&assistant("two")).unwrap();
    sm.branch(first.as_str()).unwrap();
    let forked = sm.append_message(&assistant("fork")).unwrap();
    sm.add_cursor_child("child-session").unwrap();
    let cursor = backend.cursor("pod-1").unwrap().unwrap();
    assert_eq!(
        (cursor.session.as_str(), cursor.segment.as_str(), cursor.last_seq),
        (sm.session_id(), forked.as_str(), 0)
    );
    assert_eq!(cursor.children, ["child-session"]);
    let mut resumed = SessionManager::builder().backend(backend.clone()).resume("pod-1").unwrap();
    assert_eq!(resumed.leaf_id(), Some(&forked));
    assert_eq!(resumed.read_only(), None);
    let next = resumed.append_message(&user("continued")).unwrap();
    assert_eq!(resumed.entry(next.as_str()).unwrap().parent_id(), Some(&forked));
    assert_eq!(backend.cursor("pod-1").unwrap().unwrap().last_seq, 1);
}

/// Opening at a segment that is not a leaf, or inside a segment, is a read-only
/// view of that past state; branching from it (a past fork) is allowed.
pub fn a_past_state_is_read_only_until_branched(make: Make<'_>) {
    let backend = make();
    let mut sm = SessionManager::builder().backend(backend.clone()).create_in("/project").unwrap();
    let first = sm.append_message(&user("one")).unwrap();
    let second = sm.append_message(&assistant("two")).unwrap();
    let kept = first.to_string();
    sm.append_compaction(sess_store::CompactionParams {
        summary: "S".into(),
        first_kept_entry_id: kept,
        tokens_before: 1,
        ..Default::default()
    })
    .unwrap();
    let id = sm.session_id().to_owned();
    let segment = first.to_string();
    let mut past = SessionManager::builder().backend(backend.clone()).open_in(&id, Some(At::Segment(segment))).unwrap();
    assert!(past.read_only().is_some(), "the first segment continues into the compaction");
    assert_eq!(past.leaf_id(), Some(&second));
    assert!(matches!(past.append_message(&user("no")), Err(Error::ReadOnly { .. })));
    assert_eq!(past.entries().len(), 3, "a refused append changes nothing");
    let mut inside =
        SessionManager::builder().backend(backend.clone()).open_in(&id, Some(At::Entry(first.to_string()))).unwrap();
    assert!(inside.read_only().is_some());
    inside.branch(first.as_str()).unwrap();
    let fork = inside.append_message(&assistant("past fork")).unwrap();
    let segments = backend.segments(&id).unwrap();
    let info = segments.iter().find(|s| s.id == fork.as_str()).unwrap();
    assert_eq!((info.origin, info.parent.clone()), (Origin::Fork, Some((first.to_string(), 0))));
    assert!(SessionManager::builder().backend(backend.clone()).open_in(&id, Some(At::Segment("nope".into()))).is_err());
}

/// Two managers on one session, appending in turn from the same leaf: the
/// second one's entries go to a fork segment, reported, with nothing lost.
pub fn session_managers_writing_at_once_auto_fork(make: Make<'_>) {
    let backend = make();
    let mut a = SessionManager::builder().backend(backend.clone()).create_in("/project").unwrap();
    a.append_message(&user("one")).unwrap();
    let shared = a.append_message(&assistant("two")).unwrap();
    let id = a.session_id().to_owned();
    let mut b = SessionManager::builder().backend(backend.clone()).open_in(&id, None).unwrap();
    let from_a = a.append_message(&user("from a")).unwrap();
    let from_b = b.append_message(&user("from b")).unwrap();
    let notices = b.drain_notices();
    assert_eq!(
        notices,
        [Notice::AutoForked { segment: from_b.to_string(), from: a.entries()[0].id().to_string(), at: 1 }]
    );
    assert_eq!(b.entry(from_b.as_str()).unwrap().parent_id(), Some(&shared));
    let again = b.append_message(&assistant("b continues")).unwrap();
    let all = backend.read_session(&id).unwrap();
    let ids: Vec<&str> = all.iter().map(|e| e.id().as_str()).collect();
    assert_eq!(ids.len(), 5);
    assert!(ids.contains(&from_a.as_str()) && ids.contains(&from_b.as_str()) && ids.contains(&again.as_str()));
    let segments = backend.segments(&id).unwrap();
    let fork = segments.iter().find(|s| s.id == from_b.as_str()).unwrap();
    assert_eq!((fork.origin, fork.len), (Origin::Fork, 2));
}

/// A whole session imported (as `sess copy` does) keeps every entry's bytes
/// and order, and its segments are the entries' own derivation.
pub fn an_imported_session_keeps_bytes_and_segments(make: Make<'_>) {
    let backend = make();
    let text = concat!(
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x","n":1.0}}"#,
        "\n",
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":"y"}}"#,
        "\n",
        r#"{"type":"message","id":"c","parentId":"a","timestamp":"t","message":{"role":"user","content":"fork"}}"#,
        "\n",
        r#"{"type":"message", "id":"d","parentId":"b","timestamp":"t","unknown":{"kept":[1,2]}}"#,
        "\n",
        r#"{"type":"compaction","id":"k","parentId":"d","timestamp":"t","summary":"S","firstKeptEntryId":"b","tokensBefore":5}"#,
        "\n",
        r#"{"type":"custom","customType":"ext","id":"e","parentId":"c","timestamp":"t"}"#,
        "\n",
        r#"{"type":"message","id":"r","parentId":null,"timestamp":"t","message":{"role":"user","content":"after reset"}}"#,
        "\n",
        r#"{"type":"compaction","id":"k2","parentId":null,"timestamp":"t","summary":"root compaction","firstKeptEntryId":"r","tokensBefore":1}"#,
        "\n",
        r#"{"type":"message","id":"z","parentId":"k2","timestamp":"t","message":{"role":"user","content":"after it"}}"#,
        "\n",
        r#"{"type":"message","id":"y","parentId":"d","timestamp":"t","message":{"role":"user","content":"d again, after its compaction"}}"#,
        "\n",
    );
    let entries: Vec<Entry> = text.lines().map(|l| Entry::parse(l).unwrap()).collect();
    let mut stored = 0;
    backend.import_session(&header("imported"), None, &entries, &mut |n| stored += n).unwrap();
    assert_eq!(stored, 10);
    assert_eq!(jsons(&backend.read_session("imported").unwrap()), jsons(&entries));
    let derived = sess_core::segment::derive(&entries);
    let segments = backend.segments("imported").unwrap();
    let shape: Vec<(String, Origin, u64)> = segments.iter().map(|s| (s.id.clone(), s.origin, s.len)).collect();
    let expected: Vec<(String, Origin, u64)> = derived
        .segments
        .iter()
        .map(|s| (entries[s.entries[0]].id().to_string(), s.origin, s.entries.len() as u64))
        .collect();
    assert_eq!(shape, expected);
}
