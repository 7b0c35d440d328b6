//! Roo Code's tasks: Cline's task folders, under Roo Code's own extension id.
//!
//! # Where
//!
//! `globalStorage/rooveterinaryinc.roo-cline/tasks/<task id>/` in the user
//! folder of VS Code, Code - Insiders, Cursor, Windsurf or `VSCodium`, or of the
//! VS Code server (as for Cline's extension). Each task folder holds
//! `api_conversation_history.json` (the session's file), `ui_messages.json`
//! and `history_item.json`, the task's entry of the history (`task`,
//! `workspace`, `tokensIn`, `tokensOut`, `cacheWrites`, `cacheReads`,
//! `totalCost`). The task id is the folder's name (a UUID).
//!
//! # Listing, transcript and usage
//!
//! As for Cline's tasks ([`crate::cline`]): one reader, parameterised by
//! the extension. The cwd is `history_item.json`'s `workspace`, else the
//! `# Current Workspace Directory (…)` line of the first message. Later
//! prompts are wrapped in `<user_message>` (or `<feedback>`), shown without
//! it; a condensed context (`say: condense_context`) is a summary. Usage is
//! each `api_req_started` record's, its `tokensIn` counted without the cached
//! input when its `apiProtocol` is `openai`.

mod source;
#[cfg(test)]
mod tests;

pub use source::{Roo, SOURCE};

/// Roo Code's extension id: the name of its storage folder.
pub(crate) const EXTENSION_ID: &str = "rooveterinaryinc.roo-cline";
