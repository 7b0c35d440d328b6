//! Factory Droid sessions: `sessions/<cwd slug>/<session id>.jsonl` under the
//! Factory folder (`$FACTORY_HOME_OVERRIDE/.factory`, else `~/.factory`).
//!
//! # Where
//!
//! Droid keeps each session as a JSONL file named by its id (a UUID) in a
//! folder that spells the session's cwd with `/` as `-`
//! (`-home-dev-projects-alpha`), or directly in `sessions/` (sessions without
//! a project); folders whose names do not start with `-` are not Droid's.
//! Beside each file, `<id>.settings.json` holds the session's model, autonomy
//! and token totals (Droid keeps a `.settings.json.bak` of it, not read);
//! `~/.factory/sessions-index.json` and `cache/` are Droid's own caches of
//! what the files say, not read. `FACTORY_HOME_OVERRIDE` replaces the home
//! folder, as Droid reads it.
//!
//! # Listing
//!
//! The cwd and title come from the first line, the times from the messages;
//! a subagent's session (its first line names the session and the `Task`
//! call that started it) is left out of listings and shown under that call.
//!
//! # From lines to a transcript
//!
//! The first line is `session_start` (`id`, `title`, `sessionTitle`, `cwd`,
//! `isSessionTitleManuallySet`, `sessionTitleAutoStage`, and
//! `callingSessionId`/`callingToolUseId` for a subagent's session). Then each
//! line is a record of its `type`:
//!
//! - `message`: an Anthropic-style message (`message.role`, `message.content`
//!   of `text`, `thinking`, `tool_use`, `tool_result` and `image` blocks)
//!   with its `id`, `parentId` and `timestamp`. A user message of
//!   `visibility: llm_only` is what Droid tells the model around a prompt
//!   (tools, skills, the system it runs on, the workspace's state): attached
//!   to the next prompt as context, never shown as the person's words. A user
//!   message of `tool_result` blocks completes the calls it answers
//!   (`is_error` fails them; ended at its timestamp). The assistant's lines
//!   until the next prompt are one assistant message; a call is started at the
//!   timestamp of its line.
//! - `agent_turn_outcome` (how a turn ended): nothing when it `completed`,
//!   else the record is kept as a system message (folded).
//! - `todo_state` (the plan the `TodoWrite` call also holds) and
//!   `session_end` show nothing; a record of another type is kept as a
//!   system message (folded), never dropped.
//! - A line that does not parse is skipped and reported in
//!   [`Transcript::issues`]; a cut last line is normal. Only I/O errors are
//!   errors.
//!
//! The title is `sessionTitle`, else `title`: Droid's own rule. Until Droid
//! names a session (`sessionTitleAutoStage`) or the person does
//! (`isSessionTitleManuallySet`), it holds the first prompt, which the catalog
//! does not count as a title of the session's own.
//!
//! # Usage
//!
//! Droid records no tokens per model call: `tokenUsage` in the settings file
//! is the session's running total (its own calls; a subagent's are in its own
//! session's file). It is one call in `sess usage`, of the settings file's
//! `model` (`droid/usage.rs`).

mod edits;
mod files;
mod parse;
mod source;
mod subagents;
#[cfg(test)]
mod tests;
mod usage;

use std::path::{Path, PathBuf};

pub use files::{find_session_files, list, sessions_dir};
pub use source::{Droid, SOURCE};

use crate::env::Env;
use crate::error::Result;
use crate::jsonl::read_file;
use crate::transcript::Transcript;

/// The Factory folder in `env`: `$FACTORY_HOME_OVERRIDE/.factory`, else
/// `~/.factory`.
pub fn factory_dir(env: &Env) -> PathBuf {
    env.path("FACTORY_HOME_OVERRIDE").unwrap_or_else(|| env.home().to_owned()).join(".factory")
}

/// Loads one session file as a full transcript (the caller keeps the newest
/// messages it wants), its subagents' sessions folded under their calls.
pub fn load(path: &Path) -> Result<Transcript> {
    let bytes = read_file(path)?;
    let mut transcript = parse(&bytes, &session_id(path));
    subagents::attach(path, &mut transcript.messages);
    Ok(transcript)
}

/// The pure part of [`load`], without subagents: a transcript from the bytes
/// of a file of the session `id` (the file's stem; its first line's `id`
/// when it has one).
pub fn parse(bytes: &[u8], id: &str) -> Transcript {
    parse::parse(bytes, id, 0, true).transcript
}

/// Checks the session file at `path`: the lines that do not parse, and a
/// cut last line. `entries` counts the lines that parse.
pub fn verify_file(path: &Path) -> Result<crate::Checked> {
    Ok(verify(&read_file(path)?))
}

/// [`verify_file`] of bytes.
pub fn verify(bytes: &[u8]) -> crate::Checked {
    let issues = parse::parse(bytes, "", 0, true).transcript.issues;
    let lines = crate::jsonl::JsonLines::new(bytes).count();
    crate::Checked {
        entries: lines.saturating_sub(issues.len()),
        findings: issues.iter().map(sess_core::integrity::line_finding).collect(),
    }
}

/// A session's id: its file's stem.
fn session_id(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The settings file beside the session file at `path`: `<id>.settings.json`.
fn settings_file(path: &Path) -> PathBuf {
    path.with_file_name(format!("{}.settings.json", session_id(path)))
}
