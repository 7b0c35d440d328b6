//! The pi-family's edit tools as [`FileEdit`]s. No fixture of
//! `fixtures/pi-family/` calls a tool; the shapes are pi-mono's tool schemas,
//! which `sess-testkit`'s pi workload writes too:
//!
//! - `edit`: `{path, oldText, newText}`, or, in later releases, `{path,
//!   edits: [{oldText, newText}]}`, the replacements applied in order;
//! - `write`: `{path, content}`.
//!
//! A pi-family agent whose `edit` takes other fields (oh-my-pi's
//! line-addressed edits) shows no diff.

use crate::edit::{FileEdit, replace_from, replacements_from, write_from};
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of pi's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    let edit = match call.name.as_str() {
        "edit" if input.get("edits").is_some() => {
            replacements_from(input, "path", "edits", ["oldText", "newText"], None)
        }
        "edit" => replace_from(input, "path", "oldText", "newText", None),
        "write" => write_from(input, "path", "content"),
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

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall::running("c", name, input)
    }

    #[test]
    fn reads_edit_of_either_shape_and_write() {
        let edit = call("edit", json!({"path": "src/a.ts", "oldText": "a", "newText": "b"}));
        assert_eq!(edits(&edit), [FileEdit::replace("src/a.ts", "a", "b", false)]);
        let several = call(
            "edit",
            json!({"path": "src/a.ts", "edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}]}),
        );
        assert_eq!(
            edits(&several),
            [FileEdit::replacements(
                "src/a.ts",
                vec![
                    Replacement { old: "a".into(), new: "b".into(), all: false },
                    Replacement { old: "c".into(), new: "d".into(), all: false },
                ]
            )]
        );
        let write = call("write", json!({"path": "notes.md", "content": "# Notes\n"}));
        assert_eq!(edits(&write), [FileEdit::write("notes.md", "# Notes\n")]);
        assert_eq!(edits(&call("edit", json!({"path": "a", "edits": [{"oldText": "x"}]}))), []);
        assert_eq!(edits(&call("bash", json!({"command": "ls"}))), []);
    }

    #[test]
    fn a_pi_session_with_an_edit_gets_its_diff() {
        let lines = [
            json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}),
            json!({"type": "message", "id": "a1", "parentId": null, "timestamp": "2026-01-01T00:00:01.000Z",
                   "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "edit",
                   "arguments": {"path": "src/a.ts", "oldText": "let a = 1;\n", "newText": "let a = 2;\n"}}],
                   "timestamp": 1}}),
        ];
        let text = lines.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        let outcome = sess_core::read(text.as_bytes());
        assert!(outcome.issues.is_empty(), "{:?}", outcome.issues);
        let mut transcript = super::super::transcript(&outcome.file, sess_core::Leaf::Last);
        crate::add_diffs(&mut transcript);
        let crate::Block::ToolCall(call) = &transcript.messages[0].blocks[0] else { panic!("{transcript:?}") };
        assert_eq!(call.diffs.len(), 1);
        assert_eq!((call.diffs[0].path.as_str(), call.diffs[0].added, call.diffs[0].removed), ("src/a.ts", 1, 1));
    }
}
