//! The Gemini CLI's edit tools as [`FileEdit`]s.
//!
//! - `write_file`: `{file_path, content}`, the path as the model gave it
//!   (relative to the project, or absolute): the call of the real 0.61.0
//!   session `fixtures/gemini/real-0.61.0/…/beta/chats/session-2026-12-01T09-17-2e507ed4.jsonl`.
//! - `replace`: `{file_path, old_string, new_string}`, the fields of the
//!   CLI's own declaration of the tool (no call of it in the fixtures).

use crate::edit::{FileEdit, replace_from, write_from};
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of the Gemini CLI's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let edit = match call.name.as_str() {
        "write_file" => write_from(input, "file_path", "content"),
        "replace" => replace_from(input, "file_path", "old_string", "new_string", None),
        _ => None,
    };
    edit.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::edit::testing::{calls, fixture};

    #[test]
    fn reads_write_file_and_replace() {
        let write = ToolCall::running("c", "write_file", json!({"file_path": "a.txt", "content": "x\n"}));
        assert_eq!(edits(&write), [FileEdit::write("a.txt", "x\n")]);
        let replace = ToolCall::running(
            "c",
            "replace",
            json!({"file_path": "/p/a.py", "old_string": "a = 1", "new_string": "a = 2", "expected_replacements": 1}),
        );
        assert_eq!(edits(&replace), [FileEdit::replace("/p/a.py", "a = 1", "a = 2", false)]);
        assert_eq!(edits(&ToolCall::running("c", "read_file", json!({"file_path": "a.txt"}))), []);
        assert_eq!(edits(&ToolCall::running("c", "write_file", json!({"file_path": "a.txt"}))), []);
    }

    #[test]
    fn the_fixtures_write_is_read() {
        let path = fixture("gemini/real-0.61.0/home/.gemini/tmp/beta/chats/session-2026-12-01T09-17-2e507ed4.jsonl");
        let transcript = super::super::load(&path).unwrap();
        let found: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(edits).collect();
        assert_eq!(found, [FileEdit::write("notes.txt", "first note\nsecond note\n")]);
    }
}
