//! The GitHub Copilot CLI's edit tools as [`FileEdit`]s.
//!
//! - `apply_patch`, a custom tool whose `arguments` are the patch text
//!   ([`parse_patch`], Codex's format): the calls of the real 1.0.102 session
//!   `fixtures/copilot/real-1.0.102/…/06b9b199-…/events.jsonl` (an added
//!   file, and an update of a missing file, which failed).
//! - `edit`: `{path, old_str, new_str}`, as the system prompt recorded in the
//!   same session describes it (no call of it in the fixtures).
//!
//! `create` and the older `str_replace_editor` are not read: no fixture shows
//! their inputs.

use serde_json::Value;

use crate::edit::{FileEdit, replace_from};
use crate::patch::parse_patch;
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of Copilot's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    match (call.name.as_str(), &call.input) {
        ("apply_patch", Value::String(patch)) => parse_patch(patch),
        ("edit", input) => replace_from(input, "path", "old_str", "new_str", None).into_iter().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::diff::{DiffLine, LineKind};
    use crate::edit::testing::{calls, fixture};
    use crate::edit::{Change, PatchHunk};

    #[test]
    fn reads_edit_and_apply_patch() {
        let edit = ToolCall::running(
            "c",
            "edit",
            json!({"path": "src/users.js", "old_str": "let userId = guid();", "new_str": "let userID = guid();"}),
        );
        assert_eq!(
            edits(&edit),
            [FileEdit::replace("src/users.js", "let userId = guid();", "let userID = guid();", false)]
        );
        let patch =
            ToolCall::running("c", "apply_patch", json!("*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"));
        assert_eq!(edits(&patch), [FileEdit { path: "a.txt".into(), moved_to: None, change: Change::Delete }]);
        assert_eq!(edits(&ToolCall::running("c", "edit", json!({"path": "a"}))), []);
        assert_eq!(edits(&ToolCall::running("c", "bash", json!({"command": "ls"}))), []);
    }

    #[test]
    fn the_fixtures_patches_are_read() {
        let path = fixture(
            "copilot/real-1.0.102/copilot-home/session-state/06b9b199-0526-4d82-8dae-2b3b31a183d1/events.jsonl",
        );
        let transcript = super::super::load(&path).unwrap();
        let found: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(edits).collect();
        let line = |kind, text: &str| DiffLine { kind, text: text.to_owned() };
        assert_eq!(
            found,
            [
                FileEdit::write("notes.txt", "first note\nsecond note\n"),
                FileEdit {
                    path: "absent.txt".into(),
                    moved_to: None,
                    change: Change::Patch(vec![PatchHunk {
                        lines: vec![line(LineKind::Remove, "old"), line(LineKind::Add, "new")]
                    }]),
                },
            ]
        );
    }
}
