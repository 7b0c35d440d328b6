//! Claude Code sessions: `projects/<slug>/<uuid>.jsonl` under the config folder
//! (formats.md §1, seed 003).
//!
//! - [`config_dirs`] and [`project_dir_name`] find the folders; [`list`] and
//!   [`session_files`] find the sessions; [`load`] and [`parse`] read one;
//!   [`tree`] gives its lines as a tree by `uuid`/`parentUuid` and [`verify`]
//!   what is damaged in it (`claude/tree.rs`).
//! - Sessions are the `*.jsonl` files directly in a project folder, except
//!   `agent-*.jsonl` (subagents of the old flat layout). Folders beside them
//!   (`<uuid>/subagents/`, `<uuid>/tool-results/`) are not searched.
//! - A transcript follows the file in order, abandoned branches included
//!   (formats.md §1.7). User, assistant and compact-summary lines make
//!   messages; every other line type only feeds the title and the cwd.
//! - Subagent (`isSidechain`) lines are folded under the `Task` call that
//!   started them (the `sidechain` module).
//! - Lines that do not parse are skipped and reported in
//!   [`Transcript::issues`](crate::Transcript::issues); a cut last line is
//!   normal. Only I/O errors are errors.

mod edits;
mod handoff;
mod line;
mod listing;
mod messages;
mod parse;
mod paths;
mod sidechain;
mod source;
mod text;
mod title;
mod tree;
mod usage;
mod verify;

use std::path::Path;

pub use listing::{find_session_files, list, session_files};
pub use paths::{config_dirs, project_dir_name};
pub use source::{Claude, SOURCE};
pub use tree::line_tree;
pub use verify::verify;

use crate::error::Result;
use crate::jsonl::read_file;
use crate::line_tree::LineTree;
use crate::transcript::Transcript;

/// Loads one session file as a full transcript (no 300 cap: the caller calls
/// [`Transcript::keep_newest`]). The id is the file stem; title and cwd are
/// filled in.
pub fn load(path: &Path) -> Result<Transcript> {
    let bytes = read_file(path)?;
    let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(parse(&bytes, &id))
}

/// The line tree of the session file at `path` ([`line_tree`]).
pub fn tree(path: &Path) -> Result<LineTree> {
    Ok(line_tree(&read_file(path)?))
}

/// Checks the session file at `path` ([`verify`]).
pub fn verify_file(path: &Path) -> Result<crate::Checked> {
    Ok(verify(&read_file(path)?))
}

/// The pure part of [`load`]: a transcript from the bytes of a file with this
/// session id.
pub fn parse(bytes: &[u8], id: &str) -> Transcript {
    parse::parse(bytes, id, false).transcript
}

/// Lines of a session file read for an index: the lines may be the whole
/// file or the lines added since an earlier read.
#[derive(Debug)]
pub struct Part {
    /// The lines' transcript, title and cwd filled in.
    pub transcript: Transcript,
    /// The first line's timestamp.
    pub created: Option<String>,
    /// The first real prompt.
    pub first_prompt: Option<String>,
    /// The title the lines themselves set (`custom-title`, `ai-title`, a
    /// `summary` of one of them), without the first-prompt fallback.
    pub explicit_title: Option<String>,
    /// Lines added since an earlier read: the turns of subagents whose call
    /// is in the earlier lines (they belong to that call, not to these
    /// lines' messages).
    pub earlier_subagents: Vec<crate::Message>,
    /// The model calls the lines recorded, each response once.
    pub usage: Vec<crate::Call>,
}

/// [`parse`] of a whole file, telling a title the lines set from the
/// first-prompt fallback.
pub fn parse_part(bytes: &[u8], id: &str) -> Part {
    part(parse::parse(bytes, id, false))
}

/// [`parse_part`] of the lines added to a file since an earlier read.
pub fn parse_tail(bytes: &[u8], id: &str) -> Part {
    part(parse::parse(bytes, id, true))
}

fn part(parsed: parse::Parsed) -> Part {
    Part {
        transcript: parsed.transcript,
        created: parsed.created,
        first_prompt: parsed.first_prompt,
        explicit_title: parsed.explicit_title,
        earlier_subagents: parsed.earlier_subagents,
        usage: parsed.usage,
    }
}
