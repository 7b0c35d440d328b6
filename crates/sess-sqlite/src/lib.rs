//! The SQLite backend of `sess`: sessions in one embedded database file.
//!
//! [`SqliteBackend`] implements [`sess_store::Backend`] over seed 001's tables:
//! `sessions` (the header's exact JSON), `segments` (`parent_segment_key`,
//! `fork_at`, `origin` new / fork / compact) and `entries` (each entry's exact
//! JSON at `(segment, seq)`, with its insertion order in the session), plus
//! `blobs` (content-addressed, verified on read) and `cursors`. It behaves as
//! the JSONL backend does under the same calls and passes the same
//! conformance suite; a pi-family session copied in and back out is
//! byte-identical.
//!
//! The database runs in WAL mode with a busy timeout, so several processes can
//! share the file: every call is one transaction, and writes take the write
//! lock up front (`BEGIN IMMEDIATE`). [`Synchronous`] chooses whether a commit
//! is synced before it returns. The schema carries its version and migrates
//! forward on open; a database from a newer `sess` is refused
//! ([`Error::VersionTooNew`]).
//!
//! ```
//! use sess_core::{Entry, SessionHeader};
//! use sess_sqlite::SqliteBackend;
//! use sess_store::{Appended, Backend, NewSegment, append_or_fork};
//!
//! let dir = tempfile::tempdir()?;
//! let store = SqliteBackend::open(dir.path().join("sessions.db"))?;
//! store.create_session(&SessionHeader::new("s1", "2026-01-01T00:00:00.000Z", "/project", None), None)?;
//! let hello = Entry::parse(r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hello"}}"#)?;
//! let segment = store.create_segment("s1", &NewSegment::New, &[hello])?;
//!
//! let reply = Entry::parse(r#"{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"hi"}}"#)?;
//! assert_eq!(store.append("s1", &segment.id, 1, &[reply])?, Appended::Done { first_seq: 1 });
//!
//! // A writer that still thinks the segment has one entry forks instead.
//! let late = Entry::parse(r#"{"type":"message","id":"c","parentId":"a","message":{"role":"user","content":"?"}}"#)?;
//! let placed = append_or_fork(&store, "s1", &segment.id, 1, &[late])?;
//! assert_eq!(placed.forked_from, Some(("a".to_owned(), 0)));
//!
//! let listed = store.list_sessions()?;
//! assert_eq!((listed[0].message_count, listed[0].first_message.as_str()), (3, "hello"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod backend;
mod error;
mod schema;

pub use backend::{Builder, SqliteBackend, Synchronous};
pub use error::{Error, Result};
pub use schema::SCHEMA_VERSION;
