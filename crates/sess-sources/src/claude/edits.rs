//! Claude Code's edit tools as [`FileEdit`]s.
//!
//! - `Edit`: `{file_path, old_string, new_string, replace_all?}`. Calls in
//!   `fixtures/claude-code/claude-basic-toolcall.jsonl` and
//!   `claude-1.0.98-task-sidechains.jsonl`; the field list (with
//!   `replace_all`) in the tool declarations that the real 2.1.332 sessions
//!   of `fixtures/claude-code/real-2.1.332/` record.
//! - `Write`: `{file_path, content}`. A call in the real 2.1.332 session
//!   `8eab360e-….jsonl`, and its declaration in the same files.
//! - `MultiEdit`: `{file_path, edits: [{old_string, new_string,
//!   replace_all?}]}`, the replacements applied in order. No fixture has it
//!   (2.1.332 no longer declares it); its items are `Edit`'s fields.

use crate::edit::{FileEdit, replace_from, replacements_from, write_from};
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of Claude Code's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let edit = match call.name.as_str() {
        "Edit" => replace_from(input, "file_path", "old_string", "new_string", Some("replace_all")),
        "Write" => write_from(input, "file_path", "content"),
        "MultiEdit" => {
            replacements_from(input, "file_path", "edits", ["old_string", "new_string"], Some("replace_all"))
        }
        _ => None,
    };
    edit.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    use super::*;
    use crate::edit::Replacement;
    use crate::edit::testing::{calls, fixture};

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall::running("t", name, input)
    }

    #[test]
    fn reads_edit_multi_edit_and_write() {
        let edit =
            call("Edit", json!({"file_path": "/p/a.rs", "old_string": "a", "new_string": "b", "replace_all": true}));
        assert_eq!(edits(&edit), [FileEdit::replace("/p/a.rs", "a", "b", true)]);
        let multi = call(
            "MultiEdit",
            json!({"file_path": "/p/a.rs", "edits": [
                {"old_string": "x", "new_string": "y"},
                {"old_string": "u", "new_string": "v", "replace_all": true},
            ]}),
        );
        assert_eq!(
            edits(&multi),
            [FileEdit::replacements(
                "/p/a.rs",
                vec![
                    Replacement { old: "x".into(), new: "y".into(), all: false },
                    Replacement { old: "u".into(), new: "v".into(), all: true },
                ]
            )]
        );
        let write = call("Write", json!({"file_path": "/p/new.txt", "content": "hi\n"}));
        assert_eq!(edits(&write), [FileEdit::write("/p/new.txt", "hi\n")]);
    }

    #[test]
    fn other_tools_and_incomplete_inputs_change_nothing() {
        assert_eq!(edits(&call("Read", json!({"file_path": "/p/a.rs"}))), []);
        assert_eq!(edits(&call("Edit", json!({"file_path": "/p/a.rs", "old_string": "a"}))), []);
        assert_eq!(edits(&call("MultiEdit", json!({"file_path": "/p/a.rs", "edits": [{"old_string": "a"}]}))), []);
        assert_eq!(edits(&call("Write", Value::Null)), []);
        // The names are Claude Code's: another agent's `edit` is not one.
        assert_eq!(edits(&call("edit", json!({"file_path": "/p/a.rs", "old_string": "a", "new_string": "b"}))), []);
    }

    #[test]
    fn the_fixtures_edits_are_read() {
        let transcript = super::super::load(&fixture("claude-code/claude-basic-toolcall.jsonl")).unwrap();
        let found: Vec<FileEdit> = calls(&transcript).into_iter().flat_map(edits).collect();
        assert_eq!(
            found,
            [
                FileEdit::replace(
                    "/home/alice/src/todo-api/src/server.js",
                    "app.use('/todos', require('./todos'));",
                    "app.get('/health', (req, res) => res.json({ ok: true }));\napp.use('/todos', require('./todos'));",
                    false,
                ),
                FileEdit::replace(
                    "/home/alice/src/todo-api/src/server.js",
                    "res.json({ ok: true })",
                    "res.json({ ok: true, uptime: process.uptime() })",
                    false,
                ),
            ]
        );
        // A subagent's Edit, folded under its Task call.
        let sidechains = super::super::load(&fixture("claude-code/claude-1.0.98-task-sidechains.jsonl")).unwrap();
        let found: Vec<FileEdit> = calls(&sidechains).into_iter().flat_map(edits).collect();
        assert_eq!(
            found,
            [FileEdit::replace(
                "/home/dev/shop/src/cart/CartRow.jsx",
                "<td>{item.price}</td>",
                "<td>${formatCents(item.priceCents)}</td>",
                false
            )]
        );
        let real = fixture(
            "claude-code/real-2.1.332/claude-config/projects/-tmp-sess-claude-code-x-------a-rather-long-folder-name-for-the-claude-code-interop-test-1-a-rather-long-folder-name-for-the-claude-code-interop-test-2-a-rather-long-folder-name-for-the-claude-code-in-y1pwji/8eab360e-9c43-4512-978f-9fd1f656a70c.jsonl",
        );
        let written: Vec<FileEdit> = calls(&super::super::load(&real).unwrap()).into_iter().flat_map(edits).collect();
        assert_eq!(written.len(), 1);
        assert!(written[0].path.ends_with("/one/out.txt"), "{}", written[0].path);
        assert_eq!(written[0].change, crate::Change::Write("x\n".into()));
    }
}
