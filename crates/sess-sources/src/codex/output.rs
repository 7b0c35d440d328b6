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
    let failed = exit_code_line(text).is_some_and(|code| code != 0);
    ToolOutput { text: text.to_owned(), failed }
}

fn from_wrapped(wrapped: Wrapped) -> ToolOutput {
    let failed = wrapped.metadata.and_then(|m| m.exit_code).is_some_and(|code| code != 0);
    ToolOutput { text: wrapped.output, failed }
}

/// N in a first line `Exit code: N`.
fn exit_code_line(text: &str) -> Option<i64> {
    text.lines().next()?.strip_prefix("Exit code: ")?.trim().parse().ok()
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
