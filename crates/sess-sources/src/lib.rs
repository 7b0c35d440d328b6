//! Readers for the sessions of coding agents: pi-family agents (pi-mono,
//! oh-my-pi, xcsh), Claude Code and Codex.
//!
//! Each source lists its sessions ([`SessionInfo`]) and loads one as a
//! [`Transcript`]: chat messages made of text, thinking, tool calls with their
//! status, errors, attached context, compaction summaries and images. Reading
//! is lenient: a line that does not parse is skipped and reported, a missing
//! folder lists as empty. The library never reads environment variables; the
//! caller passes the agents' folders.

pub mod claude;
pub mod codex;
mod detect;
mod error;
pub mod jsonl;
mod lenient;
mod listing;
pub mod pi;
mod transcript;
mod verify;

pub use detect::{DETECT_BYTES, detect};
pub use error::{Error, Result};
pub use listing::{FoundFiles, Listing, Scope, SessionInfo, modified_ms};
pub use transcript::{
    Block, DEFAULT_MAX_MESSAGES, Image, Message, Role, SourceKind, ToolCall, ToolStatus, Transcript, content_text,
    finish_pending, first_prompt, input_gist,
};
pub use verify::Checked;
