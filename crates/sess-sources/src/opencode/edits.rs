//! OpenCode's edit tools as [`FileEdit`]s.
//!
//! - `edit`: `{filePath, oldString, newString, replaceAll?}`: a call (which
//!   failed: the file did not exist) in both real fixtures,
//!   `fixtures/opencode/real-1.1.65/storage/part/msg_230ca18a9…/prt_230ca18c0….json`
//!   and session `ses_dcf368e1bffeR5L3DPS64OHxh6` of
//!   `fixtures/opencode/real-1.18.33/opencode.db`. `replaceAll` is the
//!   tool's own option (not in the fixtures' calls).
//! - `write`: `{filePath, content}`: a call in the same sessions.
//!
//! `patch` and `multiedit` are not read: no fixture shows their inputs.

use crate::edit::{FileEdit, replace_from, write_from};
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of OpenCode's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let edit = match call.name.as_str() {
        "edit" => replace_from(input, "filePath", "oldString", "newString", Some("replaceAll")),
        "write" => write_from(input, "filePath", "content"),
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
    fn reads_edit_and_write() {
        let edit = ToolCall::running(
            "c",
            "edit",
            json!({"filePath": "/p/a.ts", "oldString": "a", "newString": "b", "replaceAll": true}),
        );
        assert_eq!(edits(&edit), [FileEdit::replace("/p/a.ts", "a", "b", true)]);
        let write = ToolCall::running("c", "write", json!({"filePath": "/p/n.txt", "content": "n\n"}));
        assert_eq!(edits(&write), [FileEdit::write("/p/n.txt", "n\n")]);
        assert_eq!(edits(&ToolCall::running("c", "read", json!({"filePath": "/p/n.txt"}))), []);
    }

    #[test]
    fn the_fixtures_edits_are_read() {
        let expected = [
            FileEdit::write("/home/dev/projects/beta/notes.txt", "first note\nsecond note\n"),
            FileEdit::replace("/home/dev/projects/beta/absent.txt", "old", "new", false),
        ];
        let storage = super::super::load(&fixture(
            "opencode/real-1.1.65/storage/session/global/ses_dcf35e957ffeYpP6w6S9vvo8QB.json",
        ))
        .unwrap();
        let found: Vec<FileEdit> = calls(&storage).into_iter().flat_map(edits).collect();
        assert_eq!(found, expected);
        let database =
            super::super::load_session(&fixture("opencode/real-1.18.33/opencode.db"), "ses_dcf368e1bffeR5L3DPS64OHxh6")
                .unwrap();
        let found: Vec<FileEdit> = calls(&database).into_iter().flat_map(edits).collect();
        assert_eq!(found, expected);
    }
}
