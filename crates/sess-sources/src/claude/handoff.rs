//! A handoff written as a Claude Code session: one `<uuid>.jsonl` in the
//! project folder of the session's directory, lines chained by `parentUuid`
//! as the CLI chains them, which `claude --resume ID` continues.
//!
//! User turns are `user` lines (text and base64 images), the model's turns
//! `assistant` lines with text and `tool_use` blocks (the model
//! `sess-handoff`), the
//! calls' results one `user` line of `tool_result` blocks, a compaction
//! summary a `compact_boundary` followed by the summary as the CLI's
//! `isCompactSummary` message. Thinking stays behind: the API takes back
//! only thinking it signed itself. A title is a `custom-title` line.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::error::Result;
use crate::handoff::{AssistantPart, Chain, Handoff, Item, UserPart, Written, create_new};

/// The model the handed-over assistant messages name: no model of the API
/// wrote them (the CLI's own `<synthetic>` marks its error notices, which a
/// reader shows as errors).
const MODEL: &str = "sess-handoff";

/// The context window of the CLI's models, in tokens.
const WINDOW_TOKENS: usize = 200_000;

/// Writes `handoff` as a new session under the config folder `config_dir`.
pub(crate) fn write(config_dir: &Path, handoff: &Handoff) -> Result<Written> {
    let id = uuid::Uuid::new_v4().to_string();
    let cwd = handoff.cwd.display().to_string();
    let path: PathBuf =
        config_dir.join("projects").join(super::paths::project_folder(&cwd)).join(format!("{id}.jsonl"));
    let mut lines = Chain::new(json!({"isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": id}));
    let mut answers = 0;
    for item in &handoff.items {
        match item {
            Item::Summary(summary) => {
                // A compact boundary starts a chain of its own, as the CLI writes it.
                let boundary = json!({
                    "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
                    "isMeta": false, "level": "info",
                    "compactMetadata": {"trigger": "manual", "preTokens": 0},
                });
                lines.push(boundary, true);
                let text = format!("The conversation so far, summarized:\n\n{summary}");
                let summary = json!({
                    "type": "user", "message": {"role": "user", "content": text},
                    "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
                });
                lines.push(summary, false);
            }
            Item::User(parts) => {
                let content: Vec<Value> = parts
                    .iter()
                    .map(|part| match part {
                        UserPart::Text(text) => json!({"type": "text", "text": text}),
                        UserPart::Image { media_type, data } => json!({
                            "type": "image", "source": {"type": "base64", "media_type": media_type, "data": data},
                        }),
                    })
                    .collect();
                lines.push(json!({"type": "user", "message": {"role": "user", "content": content}}), false);
            }
            Item::Assistant(parts) => {
                let content: Vec<Value> = parts
                    .iter()
                    .filter_map(|part| match part {
                        AssistantPart::Text(text) => Some(json!({"type": "text", "text": text})),
                        AssistantPart::Thinking(_) => None,
                        AssistantPart::Call { id, name, input } => {
                            Some(json!({"type": "tool_use", "id": id, "name": name, "input": input}))
                        }
                    })
                    .collect();
                if content.is_empty() {
                    continue;
                }
                let calls = content.iter().any(|block| block["type"] == "tool_use");
                answers += 1;
                let message = json!({
                    "id": format!("msg_sess_handoff_{answers:04}"), "type": "message", "role": "assistant",
                    "model": MODEL, "content": content,
                    "stop_reason": if calls { "tool_use" } else { "end_turn" }, "stop_sequence": null,
                    "usage": {"input_tokens": 0, "output_tokens": 0},
                });
                lines.push(json!({"type": "assistant", "message": message}), false);
            }
            Item::Results(results) => {
                let content: Vec<Value> = results
                    .iter()
                    .map(|r| json!({"type": "tool_result", "tool_use_id": r.id, "content": r.output, "is_error": r.is_error}))
                    .collect();
                lines.push(json!({"type": "user", "message": {"role": "user", "content": content}}), false);
            }
        }
    }
    if let Some(title) = &handoff.title {
        lines.line(&json!({"type": "custom-title", "customTitle": title, "sessionId": id}));
    }
    create_new(&path, lines.out.as_bytes())?;
    let resume = crate::source::command(&["claude", "--resume", &id]);
    Ok(Written { id, path, resume, window_tokens: WINDOW_TOKENS })
}
