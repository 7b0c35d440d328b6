//! A catalog of every agent's sessions on a machine, with full-text search.
//!
//! The catalog is an SQLite database (FTS5) that caches what `sess` reads from
//! the agents' session files — pi-family, Claude Code and Codex: each
//! session's metadata ([`SessionRow`]) and the searchable text of its messages
//! (user and assistant text, tool names and their commands; apart from them,
//! the first 16 KiB of each tool result and error, searched after them; not
//! thinking or images). It never writes to the agents' files, and deleting it
//! loses nothing.
//!
//! - [`Catalog::open`] creates or opens it.
//! - [`Catalog::refresh`] brings it up to date with a list of [`SourceFile`]s:
//!   unchanged files are not read, grown files are read from where the catalog
//!   stopped, files no longer listed drop out, unreadable files are reported
//!   in [`RefreshReport::problems`] and not read again until they change.
//! - [`Catalog::search`] ranks hits ([`Hit`]) with BM25, the conversation's
//!   words before what tools answered (hits of role `tool`); queries take
//!   words, `"phrases"`, `prefix*`, and `OR` / `NOT` between terms.
//! - [`Catalog::refresh_store`] does the same for the sessions of a store
//!   (`--store`), which the caller lists and reads.
//! - [`Catalog::sessions`] and [`Catalog::projects`] list what it holds;
//!   [`Catalog::listed`] gives a source's sessions as `sess list` shows them.
//! - [`Catalog::usage`] gives the model calls the sessions recorded (their
//!   tokens and the costs their agents stored), for `sess usage`.
//!
//! ```
//! use sess_catalog::{Catalog, SearchParams, SourceFile};
//! use sess_sources::SourceKind;
//!
//! let dir = tempfile::tempdir()?;
//! let session = dir.path().join("5f0c1a2b-0000-4000-8000-000000000001.jsonl");
//! std::fs::write(&session, concat!(
//!     r#"{"type":"user","uuid":"u1","sessionId":"s","cwd":"/work/app","timestamp":"2026-01-02T03:04:05.000Z","#,
//!     r#""message":{"role":"user","content":"fix the login form validation"}}"#, "\n",
//! ))?;
//! let mut catalog = Catalog::open(dir.path().join("catalog.sqlite"))?;
//! let files = [SourceFile::new(sess_sources::claude::SOURCE, session)];
//! let report = catalog.refresh(&files, &mut |_| {})?;
//! assert_eq!(report.added, 1);
//!
//! let hits = catalog.search(&SearchParams::new("\"login form\""))?;
//! assert_eq!(hits[0].entry_id.as_deref(), Some("u1"));
//! assert_eq!(hits[0].snippet_text(), "fix the login form validation");
//!
//! // Nothing changed: nothing is read.
//! assert_eq!(catalog.refresh(&files, &mut |_| {})?.unchanged, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod catalog;
mod error;
mod extract;
mod listing;
mod meaning;
mod query;
mod refresh;
mod schema;
mod search;
mod stop;
mod stores;
mod text;
mod usage;
mod vectors;

pub use catalog::{Catalog, ListParams, ProjectRow, SessionRow};
pub use error::{Error, Result};
pub use extract::{Doc, Full, Tail, full_of, tail};
pub use listing::ListedSessions;
pub use meaning::{Bits, CANDIDATES, Fused, Ranked, fuse};
pub use query::{MAX_WORDS, check_words, to_fts, to_tsquery};
pub use refresh::{Problem, Progress, RefreshReport, SourceFile, Within};
pub use search::{Hit, SearchParams, SnippetPart, lead_snippet, snippet_window};
pub use stop::{Stop, Stopped};
pub use stores::StoredSession;
pub use usage::UsageParams;
pub use vectors::EmbedReport;
