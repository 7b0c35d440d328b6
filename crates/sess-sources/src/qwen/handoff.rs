//! A handoff written as a Qwen Code session: one `chats/<uuid>.jsonl` in the
//! project folder of the session's directory, records chained by
//! `parentUuid` as the CLI chains them, which `qwen --resume ID` continues.
//!
//! User turns are `user` records (`text` and `inlineData` parts), the model's
//! turns `assistant` records (`text` and `functionCall` parts; the model
//! `sess-handoff`), each result a `tool_result` record (a `functionResponse`
//! whose response is `output`, or `error` for a failure, and the CLI's
//! `toolCallResult` status), a compaction summary a `chat_compression` system
//! record whose compressed history is the summary, and a title a
//! `custom_title` system record. Thinking stays behind: the CLI sends thought
//! parts back to its provider, which takes back only its own reasoning.

use std::path::Path;

use serde_json::{Value, json};

use crate::error::Result;
use crate::handoff::{AssistantPart, Chain, Handoff, Item, UserPart, Written, create_new};

/// The model the handed-over assistant records name.
const MODEL: &str = "sess-handoff";

/// The context window Qwen Code 0.24.4 records for its default model, in tokens.
const WINDOW_TOKENS: usize = 1_000_000;

/// Writes `handoff` as a new session under the runtime folder `dir`.
pub(crate) fn write(dir: &Path, handoff: &Handoff) -> Result<Written> {
    let id = uuid::Uuid::new_v4().to_string();
    let cwd = handoff.cwd.display().to_string();
    let path = dir.join("projects").join(super::project_dir_name(&cwd)).join("chats").join(format!("{id}.jsonl"));
    let mut records = Chain::new(json!({"sessionId": id, "cwd": cwd}));
    let mut push = |kind: &str, mut record: Value| {
        record["type"] = json!(kind);
        records.push(record, false);
    };
    for item in &handoff.items {
        match item {
            Item::Summary(summary) => {
                let text = format!("The conversation so far, summarized:\n\n{summary}");
                let history = json!([{"role": "user", "parts": [{"text": text}]}]);
                let payload = json!({"info": {"triggerReason": "manual"}, "compressedHistory": history});
                push("system", json!({"subtype": "chat_compression", "systemPayload": payload}));
            }
            Item::User(parts) => {
                let parts: Vec<Value> = parts
                    .iter()
                    .map(|part| match part {
                        UserPart::Text(text) => json!({"text": text}),
                        UserPart::Image { media_type, data } => {
                            json!({"inlineData": {"mimeType": media_type, "data": data}})
                        }
                    })
                    .collect();
                push("user", json!({"message": {"role": "user", "parts": parts}}));
            }
            Item::Assistant(parts) => {
                let parts: Vec<Value> = parts
                    .iter()
                    .filter_map(|part| match part {
                        AssistantPart::Text(text) => Some(json!({"text": text})),
                        AssistantPart::Thinking(_) => None,
                        AssistantPart::Call { id, name, input } => {
                            Some(json!({"functionCall": {"id": id, "name": name, "args": input}}))
                        }
                    })
                    .collect();
                if !parts.is_empty() {
                    push("assistant", json!({"model": MODEL, "message": {"role": "model", "parts": parts}}));
                }
            }
            Item::Results(results) => {
                for result in results {
                    let (key, status) = if result.is_error { ("error", "error") } else { ("output", "success") };
                    let response = json!({"id": result.id, "name": result.name, "response": {key: result.output}});
                    push(
                        "tool_result",
                        json!({
                            "message": {"role": "user", "parts": [{"functionResponse": response}]},
                            "toolCallResult": {"callId": result.id, "status": status},
                        }),
                    );
                }
            }
        }
    }
    if let Some(title) = &handoff.title {
        let payload = json!({"customTitle": title, "titleSource": "manual"});
        push("system", json!({"subtype": "custom_title", "systemPayload": payload}));
    }
    create_new(&path, records.out.as_bytes())?;
    let resume = crate::source::command(&["qwen", "--resume", &id]);
    Ok(Written { id, path, resume, window_tokens: WINDOW_TOKENS })
}
