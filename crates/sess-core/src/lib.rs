//! The session model of `sess`, with no I/O.
//!
//! A pi-family session is a JSONL file: a header line, then one entry per line.
//! Entries form a tree through `id`/`parentId`; the agent appends under a moving
//! leaf. This crate reads that format leniently ([`read`]), migrates old
//! versions ([`migrate`]), indexes the tree ([`EntryIndex`], [`Tree`]), rebuilds
//! the model context from any leaf ([`context::build`]), derives the linear
//! segments the database backends store ([`segment::derive`]) and checks
//! integrity ([`integrity::check`]).
//!
//! Entries keep their exact JSON text, so unknown types and fields are written
//! back unchanged.
//!
//! ```
//! use sess_core::{context, read, EntryIndex, Leaf};
//!
//! let text = concat!(
//!     r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#, "\n",
//!     r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#, "\n",
//!     r#"{"type":"thinking_level_change","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","thinkingLevel":"high"}"#, "\n",
//! );
//! let outcome = read(text.as_bytes());
//! assert!(outcome.issues.is_empty());
//! let entries = outcome.file.entries();
//! let index = EntryIndex::new(entries);
//! let ctx = context::build(entries, &index, Leaf::Last);
//! let json = serde_json::to_value(&ctx)?;
//! assert_eq!(json["thinkingLevel"], "high");
//! assert_eq!(json["messages"][0]["content"], "hi");
//! # Ok::<(), serde_json::Error>(())
//! ```

pub mod context;
mod entry;
mod envelope;
mod file_kind;
mod header;
mod id;
pub mod integrity;
mod json_text;
mod jsonl;
pub mod migrate;
mod projection;
mod raw;
pub mod segment;
mod session_file;
mod time;
mod title;
mod tree;
pub mod turn;

pub use context::{Leaf, SessionContext};
pub use entry::{
    BranchSummary, Compaction, ContextChange, ContextEdit, CustomEntry, CustomMessage, Entry, EntryError, EntryKind,
    Label, McpToolSelection, MessageEntry, ModeChange, ModelChange, ServiceTierChange, SessionInfo, SessionInit,
    ThinkingLevelChange, TitleChange, TtsrInjection, UnknownEntry, joined_lines,
};
pub use file_kind::FileKind;
pub use header::{CURRENT_VERSION, SessionHeader, Version};
pub use id::{EntryId, IdSource, SequentialIds, fresh_id, line_id};
pub use json_text::JsonText;
pub use jsonl::{
    BLOCK_BYTES, IssueKind, LineIssue, Lines, ReadOutcome, SessionReader, block_end, machine_threads, read,
};
pub use raw::{RawJson, json_is_truthy, replace_lone_surrogate_escapes};
pub use session_file::SessionFile;
pub use time::{format_iso_millis, parse_iso_millis};
pub use title::{SessionNames, TITLE_SLOT_BYTES, TitleSlot, TitleSource};
pub use tree::{EntryIndex, Path, Tree};
