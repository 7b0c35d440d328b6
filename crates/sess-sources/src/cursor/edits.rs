//! The files Cursor's edit tools change. The CLI's (and `store.db`'s):
//! `StrReplace` (`path`, `old_string`, `new_string`, `replace_all`) and
//! `Write` (`path`, `contents`). The IDE's: `search_replace` (`file_path`,
//! `old_string`, `new_string`) and `write` (`file_path`, `contents`).
//! `edit_file` gives a sketch of the change with the unchanged parts elided,
//! not a change that can be shown as a diff.

use crate::edit::{FileEdit, replace_from, write_from};
use crate::transcript::ToolCall;

pub(crate) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let path = if input.get("path").is_some() { "path" } else { "file_path" };
    let edit = match call.name.as_str() {
        "StrReplace" | "search_replace" => replace_from(input, path, "old_string", "new_string", Some("replace_all")),
        "Write" | "write" => write_from(input, path, "contents").or_else(|| write_from(input, path, "content")),
        _ => None,
    };
    edit.into_iter().collect()
}
