//! Qwen Code sessions: `projects/<slug>/chats/<session id>.jsonl` under the
//! runtime folder (`$QWEN_RUNTIME_DIR`, `$QWEN_HOME` or `~/.qwen`).
//!
//! - [`runtime_dirs`] and [`project_dir_name`] find the folders;
//!   [`find_session_files`] and [`list`] find the sessions (`chats/archive/`
//!   holds archived ones); [`load`] reads one; [`tree`] gives its records as a
//!   tree by `uuid`/`parentUuid` and [`verify`] what is damaged in it.
//! - A record is a Gemini-API content (`message.parts`: text, thoughts,
//!   function calls and responses, inline data) in an envelope
//!   (`uuid`, `parentUuid`, `sessionId`, `timestamp`, `type`, `cwd`).
//! - A transcript follows the file in order, rewound turns included (a rewind
//!   is a notice after them), as Claude Code's do. Prompts, assistant turns
//!   and tool results make messages; a compression's summary, a rewind and
//!   notifications are system messages; API errors from the CLI's telemetry
//!   records are `error` blocks; other records only feed the title, the cwd
//!   and the parent session.
//! - A subagent's transcript (`subagents/<session id>/agent-*.jsonl`) is
//!   folded under the `agent` call that started it.
//! - The model calls are the CLI's telemetry events of its API responses,
//!   a subagent's included, each once (`qwen/usage.rs`).
//! - Lines that do not parse are skipped and reported in
//!   [`Transcript::issues`](crate::Transcript::issues); a cut last line is
//!   normal. Only I/O errors are errors.

mod conversation;
mod edits;
mod handoff;
mod listing;
mod parse;
mod parts;
mod paths;
mod record;
mod source;
mod subagents;
mod tree;
mod usage;

#[cfg(test)]
mod tests;

use std::path::Path;

pub use listing::list;
pub use paths::{find_session_files, project_dir_name, runtime_dirs};
pub use source::{Qwen, SOURCE};
pub use tree::verify;

use crate::error::Result;
use crate::jsonl::read_file;
use crate::line_tree::LineTree;
use crate::transcript::Transcript;

/// Loads one session file as a full transcript (no 300 cap: the caller calls
/// [`Transcript::keep_newest`]), its subagents folded under their calls. The
/// id is the file stem; title and cwd are filled in.
pub fn load(path: &Path) -> Result<Transcript> {
    let bytes = read_file(path)?;
    let id = session_id(path);
    let mut transcript = parse(&bytes, &id);
    subagents::attach(path, &id, &mut transcript.messages, false);
    Ok(transcript)
}

/// The pure part of [`load`], without subagents: a transcript from the bytes
/// of a file with this session id.
pub fn parse(bytes: &[u8], id: &str) -> Transcript {
    parse::parse(bytes, id, false).transcript
}

/// The record tree of the session file at `path`.
pub fn tree(path: &Path) -> Result<LineTree> {
    Ok(tree::record_tree(&read_file(path)?).0)
}

/// Checks the session file at `path` ([`verify`]).
pub fn verify_file(path: &Path) -> Result<crate::Checked> {
    Ok(verify(&read_file(path)?))
}

/// A session's id: its file's stem.
fn session_id(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}
