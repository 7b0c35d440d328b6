//! The PostgreSQL backend of `sess`: one store for many agents on many machines.
//!
//! [`PostgresBackend`] implements [`sess_store::Backend`] over seed 001's
//! tables in one schema: `sessions` (the header's exact JSON, the next
//! insertion order, the listing's running totals), `segments` (a `bigserial`
//! key, `parent_segment_key`, `fork_at`, `origin` new / fork / compact) and
//! `entries` (each entry's exact JSON text at `(segment_key, seq)`, with its
//! insertion order `ord` in the session), plus `message_texts`, `blobs`
//! (content-addressed, verified on read) and `cursors`. It behaves as the JSONL
//! and SQLite backends do under the same calls and passes the same conformance
//! suite; a pi-family session copied in and back out is byte-identical.
//!
//! **Concurrency.** Any number of processes may share a schema. An append is
//! one statement: when two writers append to the same segment at once, the
//! `(segment_key, seq)` primary key decides who was first and the other is
//! answered [`Appended::TailMoved`](sess_store::Appended::TailMoved), with
//! nothing written (then [`sess_store::append_or_fork`] opens a fork). Writers
//! of one session take turns on its row for the insertion order; cursors swap
//! by version.
//!
//! **Connecting.** A libpq-style URL, `postgres://user@host:port/database`;
//! `?options=-csearch_path=NAME` chooses the schema (`public` without it). The
//! schema and its tables are created on first use under an advisory lock, so
//! several processes may start at once; an older schema is migrated and a
//! newer one refused ([`Error::VersionTooNew`]). Calls borrow connections from
//! a small pool ([`Builder::pool_size`]); [`SynchronousCommit`] chooses whether
//! a commit waits for the disk.
//!
//! **Timeouts.** Nothing waits without end on a server that stops answering:
//! opening a connection (TCP, startup, authentication) takes at most the URL's
//! `connect_timeout` per host, 10 s when it is absent or `0`
//! ([`Error::ConnectTimeout`]), and a statement that runs or waits for a lock
//! longer than [`Builder::statement_timeout`] (30 s by default; the URL's
//! `options=-cstatement_timeout%3D…` wins) is cancelled by the server.
//!
//! **Bulk.** [`Backend::import_session`](sess_store::Backend::import_session)
//! writes a whole session in one transaction (segments in one statement,
//! entries by binary `COPY`); an append of a batch is one multi-row statement.
//! Lineage ([`Backend::ancestors`](sess_store::Backend::ancestors),
//! [`descendants`](sess_store::Backend::descendants)) is a recursive query
//! over the adjacency list, chosen over an ltree path by measurement (the
//! crate's README).
//!
//! ```no_run
//! use sess_core::{Entry, SessionHeader};
//! use sess_postgres::{PostgresBackend, SynchronousCommit};
//! use sess_store::{Appended, Backend, NewSegment, append_or_fork};
//!
//! let store = PostgresBackend::builder()
//!     .pool_size(8)
//!     .synchronous_commit(SynchronousCommit::On)
//!     .connect("postgres://sess@db.internal:5432/agents?options=-csearch_path=sess")?;
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
//! assert_eq!(store.ancestors("s1", &placed.segment)?[0].id, "a");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod backend;
mod client;
mod config;
mod error;
mod pool;
mod schema;

pub use backend::{Builder, DEFAULT_STATEMENT_TIMEOUT, PostgresBackend, SynchronousCommit};
pub use client::{Connected, connect};
pub use config::DEFAULT_CONNECT_TIMEOUT;
pub use error::{Error, Result};
pub use schema::SCHEMA_VERSION;
