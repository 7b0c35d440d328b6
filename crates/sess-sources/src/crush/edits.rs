//! The files Crush's edit tools change: `edit` (`file_path`, `old_string`,
//! `new_string`, `replace_all`), `multiedit` (`file_path` and `edits`, each
//! with those fields) and `write` (`file_path`, `content`).

use crate::edit::{FileEdit, replace_from, replacements_from, write_from};
use crate::transcript::ToolCall;

pub(crate) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let edit = match call.name.as_str() {
        "edit" => replace_from(input, "file_path", "old_string", "new_string", Some("replace_all")),
        "multiedit" => {
            replacements_from(input, "file_path", "edits", ["old_string", "new_string"], Some("replace_all"))
        }
        "write" => write_from(input, "file_path", "content"),
        _ => None,
    };
    edit.into_iter().collect()
}
