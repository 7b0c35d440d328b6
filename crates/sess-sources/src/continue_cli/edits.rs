//! The Continue CLI's edit tools as [`FileEdit`]s (their fields from the
//! tools' declarations in `@continuedev/cli` 1.5.47):
//!
//! - `Edit`: `{file_path, old_string, new_string, replace_all}`;
//! - `MultiEdit`: `{file_path, edits: [{old_string, new_string,
//!   replace_all}]}`, applied in order (the call of the real session
//!   `fixtures/continue/real-1.5.47/steps/2-resume/…/7ec94f9e-….json`);
//! - `Write`: `{filepath, content}`, the whole file.

use crate::edit::{FileEdit, replace_from, replacements_from, write_from};
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of the CLI's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let edit = match call.name.as_str() {
        "Edit" => replace_from(input, "file_path", "old_string", "new_string", Some("replace_all")),
        "MultiEdit" => {
            replacements_from(input, "file_path", "edits", ["old_string", "new_string"], Some("replace_all"))
        }
        "Write" => write_from(input, "filepath", "content"),
        _ => None,
    };
    edit.into_iter().collect()
}
