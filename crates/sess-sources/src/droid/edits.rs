//! Droid's edit tools as [`FileEdit`]s, by the names and inputs the 0.225.2
//! CLI gives its model:
//!
//! - `Edit`: `{file_path, old_str, new_str, change_all}` (the real session
//!   `fixtures/droid/real-0.225.2`);
//! - `Create`: `{file_path, content}`, a whole file written (same session);
//! - `ApplyPatch`: `{input}`, the patch text in Codex's format, which the CLI
//!   offers to models that take patches (its tool list names it; no fixture
//!   has a call of it).
//!
//! `MultiEdit`, which the CLI still names, is not read: no session or schema
//! at hand shows its input.

use crate::edit::{FileEdit, replace_from, text, write_from};
use crate::patch::parse_patch;
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of Droid's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    match call.name.as_str() {
        "Edit" => replace_from(input, "file_path", "old_str", "new_str", Some("change_all")).into_iter().collect(),
        "Create" => write_from(input, "file_path", "content").into_iter().collect(),
        "ApplyPatch" => text(input, "input").map(parse_patch).unwrap_or_default(),
        _ => Vec::new(),
    }
}
