//! Every text of a message, for the redactor: block texts, tool inputs'
//! strings (with the name each has in its object), results, the lines of
//! their diffs, subagents' messages.

use serde_json::Value;
use sess_sources::{Block, Message};

/// What a visit gets: where the text is (built on demand), the name the text
/// has in a JSON object when it is a value of one, and the text.
pub(super) type Visit<'v> = dyn FnMut(&dyn Fn() -> String, Option<&str>, &mut String) + 'v;

/// Visits every text of `msg`; `prefix` goes before each place (the tool
/// call a subagent's message is under).
pub(super) fn message(msg: &mut Message, prefix: &str, visit: &mut Visit<'_>) {
    let at = |what: &str| format!("{prefix}{what}");
    for block in &mut msg.blocks {
        match block {
            Block::Text { text } => visit(&|| at("text"), None, text),
            Block::Thinking { text } => visit(&|| at("thinking"), None, text),
            Block::Error { text } => visit(&|| at("error"), None, text),
            Block::Summary { text } => visit(&|| at("summary"), None, text),
            Block::Context { title, text } => {
                visit(&|| at("context title"), None, title);
                visit(&|| at("context"), None, text);
            }
            // The data of an inline image is not text; where it is may be.
            Block::Image(image) => {
                if let Some(url) = &mut image.url {
                    visit(&|| at("image url"), None, url);
                }
            }
            Block::Unknown { what, raw } => {
                let what = what.as_str();
                json(raw, &|| at(&format!("unknown {what}")), None, visit);
            }
            Block::ToolCall(call) => {
                let tool = at(&format!("tool {}", call.name));
                json(&mut call.input, &|| format!("{tool} input"), None, visit);
                if let Some(result) = &mut call.result {
                    visit(&|| format!("{tool} result"), None, result);
                }
                // Diffs made before the redaction (a caller should redact
                // first, so that they are made from masked inputs).
                for diff in &mut call.diffs {
                    visit(&|| format!("{tool} diff path"), None, &mut diff.path);
                    for line in diff.hunks.iter_mut().flat_map(|hunk| &mut hunk.lines) {
                        visit(&|| format!("{tool} diff"), None, &mut line.text);
                    }
                }
                for (index, sub) in call.subagent.iter_mut().enumerate() {
                    message(sub, &format!("{tool} › subagent {} ", index + 1), visit);
                }
            }
        }
    }
}

/// Visits every string of a JSON value at `place`; `key` is the name `value`
/// has in its object.
fn json(value: &mut Value, place: &dyn Fn() -> String, key: Option<&str>, visit: &mut Visit<'_>) {
    match value {
        Value::String(text) => visit(place, key, text),
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                json(item, &|| format!("{}[{index}]", place()), None, visit);
            }
        }
        Value::Object(map) => {
            for (name, item) in map.iter_mut() {
                json(item, &|| format!("{}.{name}", place()), Some(name), visit);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
