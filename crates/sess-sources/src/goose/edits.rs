//! The files Goose's edit tool changes: the developer extension's
//! `text_editor` (`developer__text_editor`), whose `command` is `write`
//! (`path`, `file_text`) or `str_replace` (`path`, `old_str`, `new_str`).

use crate::edit::{FileEdit, replace_from, text, write_from};
use crate::transcript::ToolCall;

pub(crate) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    if !call.name.ends_with("text_editor") {
        return Vec::new();
    }
    let input = &call.input;
    let edit = match text(input, "command") {
        Some("write") => write_from(input, "path", "file_text"),
        Some("str_replace") => replace_from(input, "path", "old_str", "new_str", None),
        _ => None,
    };
    edit.into_iter().collect()
}
