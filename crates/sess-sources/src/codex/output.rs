//! What a tool's output says: its text, and whether the tool failed.
//!
//! `function_call_output.output` and `custom_tool_call_output.output` come in
//! several shapes across Codex builds:
//!
//! - a JSON text `{"output": "…", "metadata": {"exit_code": N, …}}` (the
//!   classic shell and `apply_patch` tools): the result is the inner `output`,
//!   and the call failed when `exit_code` is present and not 0;
//! - a text that starts with the line `Exit code: N` (newer shell tools:
//!   `Exit code: N\nWall time: …\nOutput:\n…`): the result is the whole text,
//!   failed when N is not 0;
//! - a text whose header, the lines before an `Output:` line, has a line
//!   `Process exited with code N` (the unified exec tool, `exec_command`, of
//!   Codex 0.171: `Chunk ID: …\nWall time: …\nProcess exited with code
//!   N\nOriginal token count: …\nOutput:\n…`): the whole text, failed when N
//!   is not 0 (a command still running says `Process running with session ID`
//!   instead, and has not failed);
//! - a text that starts with `apply_patch verification failed` (Codex 0.171
//!   answers a patch it cannot apply with only that text, and writes no event
//!   for it): the text, failed;
//! - any other text: the result as is, succeeded;
//! - content parts `[{type: "input_text", text}, {type: "input_image", …}]`:
//!   the texts joined by newlines, other parts named in brackets; succeeded;
//! - an object `{"content": "…", "success": false}` (older builds): the content,
//!   failed when `success` is `false`.

use serde::Deserialize;
use serde_json::Value;

use crate::transcript::content_text;

/// A tool's output.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ToolOutput {
    /// The result text.
    pub(crate) text: String,
    /// Whether the tool reported a failure.
    pub(crate) failed: bool,
}

#[derive(Deserialize)]
struct Wrapped {
    output: String,
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    exit_code: Option<i64>,
}

/// Reads an `output` field.
pub(crate) fn interpret(output: &Value) -> ToolOutput {
    match output {
        Value::String(text) => interpret_text(text),
        Value::Object(map) => {
            if let Ok(wrapped) = Wrapped::deserialize(output) {
                return from_wrapped(wrapped);
            }
            let text = map.get("content").map_or_else(|| output.to_string(), content_text);
            let failed = map.get("success").and_then(Value::as_bool) == Some(false);
            ToolOutput { text, failed }
        }
        other => ToolOutput { text: content_text(other), failed: false },
    }
}

fn interpret_text(text: &str) -> ToolOutput {
    if text.trim_start().starts_with('{')
        && let Ok(wrapped) = serde_json::from_str::<Wrapped>(text)
    {
        return from_wrapped(wrapped);
    }
    let failed = exit_code(text).is_some_and(|code| code != 0) || text.starts_with(PATCH_VERIFICATION_FAILED);
    ToolOutput { text: text.to_owned(), failed }
}

/// How Codex's `apply_patch` answers a patch that does not apply.
const PATCH_VERIFICATION_FAILED: &str = "apply_patch verification failed";

fn from_wrapped(wrapped: Wrapped) -> ToolOutput {
    let failed = wrapped.metadata.and_then(|m| m.exit_code).is_some_and(|code| code != 0);
    ToolOutput { text: wrapped.output, failed }
}

/// N in a first line `Exit code: N`, or in a line `Process exited with code
/// N` of the header that ends at an `Output:` line.
fn exit_code(text: &str) -> Option<i64> {
    if let Some(code) = text.lines().next()?.strip_prefix("Exit code: ") {
        return code.trim().parse().ok();
    }
    let mut code = None;
    for line in text.lines() {
        if line == "Output:" {
            return code;
        }
        if let Some(n) = line.strip_prefix("Process exited with code ") {
            code = n.trim().parse().ok();
        }
    }
    // No header: the line was part of some output.
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn out(text: &str, failed: bool) -> ToolOutput {
        ToolOutput { text: text.to_owned(), failed }
    }

    #[test]
    fn wrapped_json_text_gives_the_inner_output_and_the_exit_code() {
        let failing =
            json!("{\"output\": \"1 failed\\n\", \"metadata\": {\"exit_code\": 1, \"duration_seconds\": 0.8}}");
        assert_eq!(interpret(&failing), out("1 failed\n", true));
        let passing = json!("{\"output\": \"ok\", \"metadata\": {\"exit_code\": 0}}");
        assert_eq!(interpret(&passing), out("ok", false));
        assert_eq!(interpret(&json!("{\"output\": \"no metadata\"}")), out("no metadata", false));
        assert_eq!(
            interpret(&json!({"output": "as an object", "metadata": {"exit_code": 2}})),
            out("as an object", true)
        );
    }

    #[test]
    fn an_exit_code_header_decides_the_status() {
        let text = "Exit code: 127\nWall time: 0.1 seconds\nOutput:\nbash: nope: command not found\n";
        assert_eq!(interpret(&json!(text)), out(text, true));
        let text = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nfine\n";
        assert_eq!(interpret(&json!(text)), out(text, false));
    }

    #[test]
    fn a_unified_exec_header_decides_the_status() {
        // As Codex 0.171's exec_command answers (fixtures/codex/real-0.171.0).
        let text = "Chunk ID: 5d8194\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 11\nOutput:\ncat: missing.txt: No such file or directory\n";
        assert_eq!(interpret(&json!(text)), out(text, true));
        let text = "Chunk ID: 0ba5db\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n";
        assert_eq!(interpret(&json!(text)), out(text, false));
        let text = "Chunk ID: 1\nWall time: 5.0 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\n";
        assert_eq!(interpret(&json!(text)), out(text, false));
        // Only the header counts: the same words in a command's output do not.
        let text = "Chunk ID: 2\nProcess exited with code 0\nOutput:\nProcess exited with code 3\n";
        assert_eq!(interpret(&json!(text)), out(text, false));
        let text = "log:\nProcess exited with code 3\n";
        assert_eq!(interpret(&json!(text)), out(text, false));
    }

    #[test]
    fn a_patch_that_does_not_apply_failed() {
        let text = "apply_patch verification failed: Failed to read file to update /w/absent.txt: No such file or directory (os error 2)";
        assert_eq!(interpret(&json!(text)), out(text, true));
        let text = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA notes.txt\n";
        assert_eq!(interpret(&json!(text)), out(text, false));
    }

    #[test]
    fn other_text_is_a_success_as_is() {
        assert_eq!(
            interpret(&json!("Success. Updated the following files")),
            out("Success. Updated the following files", false)
        );
        assert_eq!(interpret(&json!("{not json")), out("{not json", false));
        assert_eq!(interpret(&json!("{\"unrelated\": 1}")), out("{\"unrelated\": 1}", false));
    }

    #[test]
    fn content_parts_and_legacy_objects() {
        let parts = json!([{"type": "input_text", "text": "a"}, {"type": "input_image", "image_url": "data:…"}]);
        assert_eq!(interpret(&parts), out("a\n[input_image]", false));
        assert_eq!(interpret(&json!({"content": "err: timeout", "success": false})), out("err: timeout", true));
        assert_eq!(interpret(&json!({"content": "fine", "success": true})), out("fine", false));
        assert_eq!(interpret(&Value::Null), out("", false));
    }
}
