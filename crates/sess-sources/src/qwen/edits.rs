//! Qwen Code's edit tools as [`FileEdit`]s.
//!
//! - `write_file`: `{file_path, content}`: the call of the real 0.24.4
//!   session `fixtures/qwen-code/real-0.24.4/…/alpha/chats/d1f9c7a1-….jsonl`.
//! - `edit`: `{file_path, old_string, new_string, replace_all?}`, the fields
//!   of the CLI's own declaration of the tool (no call of it in the
//!   fixtures).

use crate::edit::{FileEdit, replace_from, write_from};
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of Qwen Code's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let edit = match call.name.as_str() {
        "write_file" => write_from(input, "file_path", "content"),
        "edit" => replace_from(input, "file_path", "old_string", "new_string", Some("replace_all")),
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
    fn reads_write_file_and_edit() {
        let write = ToolCall::running("c", "write_file", json!({"file_path": "/p/a.txt", "content": ""}));
        assert_eq!(edits(&write), [FileEdit::write("/p/a.txt", "")]);
        let edit = ToolCall::running(
            "c",
            "edit",
            json!({"file_path": "/p/a.py", "old_string": "a", "new_string": "b", "replace_all": true}),
        );
        assert_eq!(edits(&edit), [FileEdit::replace("/p/a.py", "a", "b", true)]);
        assert_eq!(edits(&ToolCall::running("c", "run_shell_command", json!({"command": "ls"}))), []);
    }

    #[test]
    fn the_fixtures_write_is_read() {
        let path = fixture(
            "qwen-code/real-0.24.4/qwen-home/projects/-home-dev-projects-alpha/chats/d1f9c7a1-d9ad-4127-80e5-d0e5fec1fd1b.jsonl",
        );
        let transcript = super::super::load(&path).unwrap();
        let found: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(edits).collect();
        assert_eq!(found, [FileEdit::write("/home/dev/projects/alpha/notes.txt", "first note\nsecond note\n")]);
    }
}
