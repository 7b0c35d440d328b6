//! Readers for the sessions of coding agents: pi-family agents (pi-mono,
//! oh-my-pi, xcsh), Claude Code, Codex, OpenCode, the GitHub Copilot CLI,
//! Qwen Code, the Gemini CLI, Goose, Crush, Zed, the Continue CLI, Cline, Roo Code, Aider,
//! Cursor, Factory Droid, Kilo Code and Auggie.
//!
//! Each agent is one [`Source`], in a folder of its own, listed in the
//! [`registry`]: it finds its sessions in an [`Env`], lists them
//! ([`SessionInfo`]), recognises its files ([`detect`]), loads one as a
//! [`Transcript`]: chat messages made of text, thinking, tool calls with their
//! status, errors, attached context, compaction summaries and images; the
//! files a tool call changed ([`Source::edits`]) become unified diffs on
//! demand ([`add_diffs`]). Reading is lenient: a line that does not parse is
//! skipped and reported, a missing folder lists as empty. The library never reads environment variables; the
//! caller passes the agents' folders.
//!
//! For the archive, a source says what a session is made of: its main file
//! and the other files it reads with it ([`Source::companions`]), how each
//! grows ([`Growth`]), or, for sessions kept in a database, its rows as
//! stored ([`Source::rows`], a [`RowDump`] that can be written back as a
//! database of `sess`'s own). No agent's file is ever written; a
//! [`handoff`] creates one new session of its target, never replacing a file.

pub mod aider;
pub mod auggie;
pub mod claude;
pub mod cline;
pub mod codex;
mod companions;
pub mod continue_cli;
pub mod copilot;
pub mod crush;
pub mod cursor;
mod detect;
pub mod diff;
mod document;
pub mod droid;
mod edit;
mod env;
mod error;
pub mod gemini;
pub mod goose;
pub mod handoff;
mod index;
pub mod jsonl;
pub mod kilo;
mod lenient;
mod line_tree;
mod listing;
pub mod opencode;
mod patch;
pub mod pi;
mod project_folders;
pub mod projects;
pub mod qwen;
pub mod roo;
mod rows;
mod shared_file;
mod source;
mod sqlite;
mod state;
#[cfg(test)]
mod test_support;
mod transcript;
mod usage;
mod verify;
pub mod zed;

pub use detect::{DETECT_BYTES, Head, HeadLine, detect};
pub use diff::{DiffLine, FileDiff, Hunk, LineKind, add_diffs};
pub use edit::{Change, FileEdit, PatchHunk, Replacement};
pub use env::Env;
pub use error::{Error, Result};
pub use index::{Added, Indexed, LateResult};
pub use line_tree::{LineTree, Node};
pub use listing::{Catalogued, FoundFiles, FoundRow, Listed, Listing, Scope, SessionInfo, modified_ms};
pub use patch::parse_patch;
pub use rows::{Cell, RowDump, TableRows};
pub use source::{Growth, HandOff, Outline, Resumable, Source, SourceKind, registry};
pub use state::{STALE_AFTER, SessionState, state};
pub use transcript::{
    Block, DEFAULT_MAX_MESSAGES, Image, Message, Role, ToolCall, ToolStatus, Transcript, content_text, finish_pending,
    first_prompt, input_gist, one_line,
};
pub use usage::{Call, tokens};
pub use verify::Checked;
