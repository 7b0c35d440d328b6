//! Codex's edit tool as [`FileEdit`]s.
//!
//! - `apply_patch` as a custom tool: its input is the patch text
//!   ([`parse_patch`]): the `custom_tool_call`s of
//!   `fixtures/codex/codex-basic-rollout.jsonl` (an update) and of the real
//!   0.171.0 rollout `…-01a22bd9-19ce-….jsonl` (an added file, and an update
//!   of a file that does not exist, which failed).
//! - `apply_patch` as a function tool, for models without custom tools: its
//!   arguments are `{"input": patch}`. No fixture has it.
//!
//! A `shell` call that runs `apply_patch` with a heredoc is not read: no
//! fixture shows one.

use serde_json::Value;

use crate::edit::FileEdit;
use crate::patch::parse_patch;
use crate::transcript::ToolCall;

/// The files `call` changes, when it is Codex's `apply_patch`.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    if call.name != "apply_patch" {
        return Vec::new();
    }
    match &call.input {
        Value::String(patch) => parse_patch(patch),
        input => input.get("input").and_then(Value::as_str).map(parse_patch).unwrap_or_default(),
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

    fn update(path: &str, lines: &[(LineKind, &str)]) -> FileEdit {
        let lines = lines.iter().map(|&(kind, text)| DiffLine { kind, text: text.to_owned() }).collect();
        FileEdit { path: path.into(), moved_to: None, change: Change::Patch(vec![PatchHunk { lines }]) }
    }

    #[test]
    fn reads_the_patch_of_either_form() {
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch\n";
        let expected = [update("a.txt", &[(LineKind::Remove, "old"), (LineKind::Add, "new")])];
        assert_eq!(edits(&ToolCall::running("c", "apply_patch", json!(patch))), expected);
        assert_eq!(edits(&ToolCall::running("c", "apply_patch", json!({"input": patch}))), expected);
        assert_eq!(edits(&ToolCall::running("c", "apply_patch", json!({"patch": 1}))), []);
        assert_eq!(edits(&ToolCall::running("c", "shell", json!({"command": ["apply_patch", patch]}))), []);
    }

    fn fixture_edits(path: &str) -> Vec<FileEdit> {
        let transcript = super::super::load(&fixture(path)).unwrap();
        calls(&transcript).into_iter().flat_map(edits).collect()
    }

    #[test]
    fn the_fixtures_patches_are_read() {
        assert_eq!(
            fixture_edits("codex/codex-basic-rollout.jsonl"),
            [update(
                "src/parsekit/dates.py",
                &[(LineKind::Remove, "    fmt = \"%m/%d/%Y\""), (LineKind::Add, "    fmt = \"%d/%m/%Y\"")]
            )]
        );
        assert_eq!(
            fixture_edits(
                "codex/real-0.171.0/codex-home/sessions/2026/11/30/rollout-2026-11-30T09-46-17-01a22bd9-19ce-7201-905a-da235f1ce47e.jsonl"
            ),
            [
                FileEdit::write("notes.txt", "first note\nsecond note\n"),
                update("absent.txt", &[(LineKind::Remove, "old"), (LineKind::Add, "new")]),
            ]
        );
    }
}
