//! Cline's sessions: the CLI's and the VS Code extension's tasks.
//!
//! # Where
//!
//! - **CLI** (npm `cline` 3.x): `<sessions>/<id>/<id>.messages.json`, the
//!   conversation (the session's file), beside `<id>.json`, the manifest (cwd,
//!   prompt, title, model, times, usage) and, once compacted,
//!   `<id>.compaction.json`. `<sessions>` is `$CLINE_SESSION_DATA_DIR`, else
//!   `$CLINE_DATA_DIR/sessions`, else `data/sessions` in `$CLINE_DIR` or
//!   `~/.cline` (the CLI's own order; its `--data-dir` flag is not seen). The
//!   CLI's `db/sessions.db` repeats the manifests and is not read.
//! - **Extension** (`saoudrizwan.claude-dev`): task folders
//!   `globalStorage/saoudrizwan.claude-dev/tasks/<task id>/` in the user folder
//!   of VS Code, Code - Insiders, Cursor, Windsurf or `VSCodium`
//!   (`$XDG_CONFIG_HOME` or `~/.config`, `~/Library/Application Support`,
//!   `%APPDATA%`) or of the VS Code server (`~/.vscode-server/data/User`),
//!   and the CLI's data folder's `tasks/` (the CLI before 3.0 kept the
//!   extension's shape). Their reading (`tasks.rs`) is shared with Roo Code and
//!   Kilo Code's legacy extension, which keep the same shape.
//!
//! # Listing
//!
//! A CLI session's cwd, title and start are its manifest's `cwd`,
//! `metadata.title` and `started_at`; a subagent's session (its manifest names
//! a parent) is left out. A task's cwd is its entry of the task history
//! (`state/taskHistory.json`: `cwdOnTaskInitialization`; Roo Code's
//! `history_item.json`: `workspace`), else the `# Current Working Directory
//! (…)` line of its first message; it has no title but its prompt; it started
//! at its first UI record. Both are dated by their newest message.
//!
//! # From messages to a transcript
//!
//! Both keep Anthropic-shaped messages (`convert.rs`): `text`, `thinking`,
//! `image` (base64), `tool_use` calls completed by the `tool_result` blocks
//! of the next user message (failed on `is_error`, or a CLI result item with
//! `success: false`; their text is the CLI items' `result` or `error`), and
//! timed by the messages' `ts`. A user message that holds only results shows
//! no message of its own. The person's words are shown without the
//! wrappers around them (`<task>`, `<feedback>`, `<answer>`, Roo Code's
//! `<user_message>`, the CLI's `<user_input mode="…">`); the
//! `<environment_details>` appended to prompts, and the results the older
//! extensions reported in text (`[tool for 'x'] Result:`), are context. The
//! CLI's compaction summary (a message whose `metadata.kind` is
//! `compaction_summary`) is a summary block.
//!
//! A task's `ui_messages.json` (`ui.rs`) adds what the conversation lacks:
//! the times of messages without `ts` (the last UI record said while the
//! message before was the conversation's last), errors (`say: error`,
//! `ask: api_req_failed`, a request's `streamingFailedMessage` or
//! cancellation, `diff_error`, `mistake_limit_reached`) and compactions (Roo
//! Code's `condense_context` summary; Cline's `condense` and
//! `summarize_task`), placed after the message their
//! `conversationHistoryIndex` names. Calls without a result at the end are
//! pending.
//!
//! # Usage
//!
//! The CLI: each assistant message's `metrics` (`inputTokens`,
//! `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`, `cost`) with its
//! `modelInfo.id`, keyed by the message's id. A task: each `say:
//! api_req_started` record's JSON (`tokensIn`, `tokensOut`, `cacheWrites`,
//! `cacheReads`, `cost`; Roo Code's `apiProtocol: "openai"` counts cached
//! input inside `tokensIn`, taken out), else the history entry's totals as
//! one call.

mod cli;
mod convert;
mod edits;
mod source;
pub(crate) mod tasks;
#[cfg(test)]
mod tests;
mod ui;

pub use source::{Cline, SOURCE};

/// The VS Code extension's id: the name of its storage folder.
pub(crate) const EXTENSION_ID: &str = "saoudrizwan.claude-dev";

/// Whether the first bytes of a task's conversation name Roo Code's (or its
/// forks') mode by its `<slug>` in the environment details, which Cline's
/// do not.
pub(crate) fn roo_like(head: &crate::detect::Head<'_>) -> bool {
    memchr::memmem::find(head.bytes, b"<slug>").is_some()
}

/// The edit tools of Cline and of the agents that keep its shape, for their
/// sources.
pub(crate) fn edits(call: &crate::transcript::ToolCall) -> Vec<crate::edit::FileEdit> {
    edits::edits(call)
}
