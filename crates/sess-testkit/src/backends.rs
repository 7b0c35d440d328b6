//! Small sessions, a JSONL backend holding one file, a step-by-step copy and
//! an export, for backend tests.

use std::path::Path;
use std::sync::Arc;

use sess_core::segment::{Origin, derive};
use sess_core::{Entry, SessionFile, SessionHeader};
use sess_store::{Appended, Backend, JsonlBackend, MemoryStorage, NewSegment, SessionStorage, write_atomic};

/// A v3 header with this id, started 2026-01-01 in `/p`.
pub fn header(id: &str) -> SessionHeader {
    SessionHeader::new(id, "2026-01-01T00:00:00.000Z", "/p", None)
}

/// A user message entry whose content is its id.
#[allow(clippy::unwrap_used, reason = "the JSON is well formed for any id the tests use")]
pub fn message(id: &str, parent: Option<&str>) -> Entry {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    Entry::parse(&format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{id}"}}}}"#
    ))
    .unwrap()
}

/// Copies `session` from `from` to `to` one entry at a time, placing each as
/// the segment derivation says: the append and fork paths of a backend, not
/// its bulk import.
///
/// # Panics
///
/// When a backend call fails, or an append is not taken where the derivation
/// places it: this is for tests.
#[allow(clippy::unwrap_used, reason = "a test helper: a failed call fails the test")]
pub fn copy_entry_by_entry(from: &dyn Backend, to: &dyn Backend, session: &str) {
    let stored = from.session(session).unwrap();
    to.create_session(&stored.header, stored.title_line.as_deref()).unwrap();
    let entries = from.read_session(session).unwrap();
    let derived = derive(&entries);
    for (entry, placement) in entries.iter().zip(&derived.placements) {
        let segment = &derived.segments[placement.segment];
        if placement.seq == 0 {
            let lineage =
                segment.parent.zip(segment.fork_at).map(|(p, at)| (derived.id(&entries, p).to_string(), at as u64));
            let start = match (segment.origin, lineage) {
                (Origin::New, _) => NewSegment::New,
                (Origin::Fork, Some((parent, fork_at))) => NewSegment::Fork { parent, fork_at },
                (Origin::Compact, Some((parent, fork_at))) => NewSegment::Compact { parent, fork_at },
                (origin, None) => panic!("{origin} without a parent"),
            };
            to.create_segment(session, &start, std::slice::from_ref(entry)).unwrap();
        } else {
            let id = derived.id(&entries, placement.segment).as_str();
            let appended = to.append(session, id, placement.seq as u64, std::slice::from_ref(entry)).unwrap();
            assert_eq!(appended, Appended::Done { first_seq: placement.seq as u64 });
        }
    }
}

/// A JSONL backend in memory holding `text` as its one session file, and that
/// session's id.
///
/// # Panics
///
/// When `text` is not a session file: this is for tests.
#[allow(clippy::unwrap_used, reason = "a test helper: a failed call fails the test")]
pub fn jsonl_with(text: &str) -> (JsonlBackend, String) {
    let storage = MemoryStorage::new();
    let root = Path::new("/agent/sessions");
    let dir = root.join("--p--");
    storage.create_dir_all(&dir).unwrap();
    write_atomic(&storage, &dir.join("2026-01-01T00-00-00-000Z_s.jsonl"), text.as_bytes()).unwrap();
    let backend = JsonlBackend::new(Arc::new(storage), root);
    let id = backend.list_sessions().unwrap()[0].id.clone();
    (backend, id)
}

/// `session` of `backend` as a pi-family file: title line, header, entries.
///
/// # Panics
///
/// When a backend call fails: this is for tests.
#[allow(clippy::unwrap_used, reason = "a test helper: a failed call fails the test")]
pub fn export(backend: &dyn Backend, session: &str) -> String {
    let stored = backend.session(session).unwrap();
    let entries = backend.read_session(session).unwrap();
    SessionFile::from_entries(Some(stored.header), stored.title_line.as_deref(), entries).to_jsonl()
}
