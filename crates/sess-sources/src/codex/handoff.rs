//! A handoff written as a Codex rollout: one
//! `sessions/YYYY/MM/DD/rollout-…-<uuid>.jsonl` under the Codex home, which
//! `codex resume ID` continues.
//!
//! It opens with the `session_meta` Codex writes (the thread's id, time and
//! directory; `originator` is `sess`), then one `response_item` per item of
//! the conversation as the Responses API takes it: user messages
//! (`input_text`, and images as `input_image` data URLs), assistant messages
//! (`output_text`), a `function_call` per call (its arguments as a JSON
//! string) and a `function_call_output` per result (a failure's output
//! begins with `Error:`, since the record has no flag for it). A compaction
//! summary is a `compacted` record whose replacement history is the summary,
//! as Codex's own compactions leave one. Thinking stays behind: Codex sends
//! back only reasoning the API encrypted for itself.

use std::path::Path;

use serde_json::{Value, json};

use crate::error::Result;
use crate::handoff::{AssistantPart, Handoff, Item, UserPart, Written, create_new, timestamp_at};

/// The context window Codex 0.171 reports for its default model, in tokens.
const WINDOW_TOKENS: usize = 258_400;

/// Writes `handoff` as a new rollout under the Codex home `home`.
pub(crate) fn write(home: &Path, handoff: &Handoff) -> Result<Written> {
    let id = uuid::Uuid::now_v7().to_string();
    let start = jiff::Timestamp::now();
    let day = start.strftime("%Y/%m/%d").to_string();
    let name = format!("rollout-{}-{id}.jsonl", start.strftime("%Y-%m-%dT%H-%M-%S"));
    let path = home.join(super::files::SESSIONS_DIR).join(day).join(name);
    let mut out = Rollout { start, out: String::new(), count: 0 };
    out.push(
        "session_meta",
        json!({
            "id": id, "timestamp": timestamp_at(start, 0), "cwd": handoff.cwd.display().to_string(),
            "originator": "sess", "cli_version": env!("CARGO_PKG_VERSION"), "source": "cli",
        }),
    );
    for item in &handoff.items {
        match item {
            Item::Summary(summary) => {
                let text = format!("The conversation so far, summarized:\n\n{summary}");
                out.push(
                    "compacted",
                    json!({"message": text, "replacement_history": [message("user", "input_text", &text)]}),
                );
            }
            Item::User(parts) => {
                let content: Vec<Value> = parts
                    .iter()
                    .map(|part| match part {
                        UserPart::Text(text) => json!({"type": "input_text", "text": text}),
                        UserPart::Image { media_type, data } => {
                            json!({"type": "input_image", "image_url": format!("data:{media_type};base64,{data}")})
                        }
                    })
                    .collect();
                out.push("response_item", json!({"type": "message", "role": "user", "content": content}));
            }
            Item::Assistant(parts) => {
                for part in parts {
                    match part {
                        AssistantPart::Text(text) => out.push("response_item", message("assistant", "output_text", text)),
                        AssistantPart::Thinking(_) => {}
                        AssistantPart::Call { id, name, input } => out.push(
                            "response_item",
                            json!({"type": "function_call", "name": name, "arguments": input.to_string(), "call_id": id}),
                        ),
                    }
                }
            }
            Item::Results(results) => {
                for result in results {
                    let output =
                        if result.is_error { format!("Error: {}", result.output) } else { result.output.clone() };
                    out.push(
                        "response_item",
                        json!({"type": "function_call_output", "call_id": result.id, "output": output}),
                    );
                }
            }
        }
    }
    create_new(&path, out.out.as_bytes())?;
    let resume = crate::source::command(&["codex", "resume", &id]);
    Ok(Written { id, path, resume, window_tokens: WINDOW_TOKENS })
}

/// A message of one text part.
fn message(role: &str, kind: &str, text: &str) -> Value {
    json!({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})
}

/// The rollout's lines, each a millisecond after the one before.
struct Rollout {
    start: jiff::Timestamp,
    out: String,
    count: usize,
}

impl Rollout {
    fn push(&mut self, kind: &str, payload: Value) {
        let mut line = json!({"timestamp": timestamp_at(self.start, self.count), "type": kind});
        line["payload"] = payload;
        self.count += 1;
        self.out.push_str(&line.to_string());
        self.out.push('\n');
    }
}
