//! A handoff written as a Gemini CLI session: one
//! `tmp/<project>/chats/session-<minute>-<id prefix>.jsonl` in the folder the
//! CLI keeps for the session's directory, which `gemini --resume ID`
//! continues there.
//!
//! The folder is the one `projects.json` gives the directory: the CLI names
//! a project's folder the first time it runs there, and that file is the
//! CLI's, so a directory the CLI has not run in is refused (run `gemini`
//! there once). The file opens with the metadata record (`sessionId`,
//! `projectHash`: the SHA-256 of the directory, `startTime`, `kind: "main"`),
//! then one record per message: a user turn is a `user` message (`text` and
//! `inlineData` parts; texts in a row joined by a blank line), the model's a `gemini` message whose `toolCalls`
//! hold each call with its result (a `functionResponse` whose response is
//! `output`, or `error` for a failure), and the summary a user message with
//! its text, as the CLI's own compression leaves it. The title is a `$set` of
//! `summary`. Thinking stays behind: the API takes back only the thought
//! signatures it made.

use std::path::Path;

use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::handoff::{AssistantPart, Handoff, Item, ToolResult, UserPart, Written, create_new, timestamp_at};

/// The context window of the CLI's default model, in tokens.
const WINDOW_TOKENS: usize = 1_048_576;

/// Writes `handoff` as a new session under the Gemini dir `gemini_dir`.
pub(crate) fn write(gemini_dir: &Path, handoff: &Handoff) -> Result<Written> {
    let cwd = handoff.cwd.display().to_string();
    let registry = super::files::Registry::read(gemini_dir);
    let folder = registry.folder_of(&cwd).ok_or_else(|| Error::NoPlace {
        path: gemini_dir.join("projects.json"),
        message: format!("the Gemini CLI has not run in `{cwd}`: run `gemini` there once, then hand the session over"),
    })?;
    let id = uuid::Uuid::new_v4().to_string();
    let start = jiff::Timestamp::now();
    let name = format!("session-{}-{}.jsonl", start.strftime("%Y-%m-%dT%H-%M"), &id[..8]);
    let path = gemini_dir.join(super::files::TMP_DIR).join(folder).join(super::files::CHATS_DIR).join(name);
    let mut out = String::new();
    let mut count = 0;
    let mut push = |mut record: Value| {
        if record.get("id").is_some() {
            record["timestamp"] = json!(timestamp_at(start, count));
        }
        count += 1;
        out.push_str(&record.to_string());
        out.push('\n');
    };
    let started = timestamp_at(start, 0);
    push(json!({
        "sessionId": id, "projectHash": super::files::sha256_hex(&cwd), "startTime": started,
        "lastUpdated": started, "kind": "main",
    }));
    let message_id = || uuid::Uuid::new_v4().to_string();
    let items = &handoff.items;
    let mut at = 0;
    while at < items.len() {
        match &items[at] {
            Item::Summary(summary) => {
                let text = format!("The conversation so far, summarized:\n\n{summary}");
                push(json!({"id": message_id(), "type": "user", "content": [{"text": text}]}));
            }
            Item::User(parts) => push(json!({"id": message_id(), "type": "user", "content": user_content(parts)})),
            Item::Assistant(parts) => {
                // The results of its calls are the item after it.
                let results = match items.get(at + 1) {
                    Some(Item::Results(results)) => {
                        at += 1;
                        results.as_slice()
                    }
                    _ => &[],
                };
                if let Some(mut message) = model_message(parts, results) {
                    message["id"] = json!(message_id());
                    push(message);
                }
            }
            // Written with the calls they answer.
            Item::Results(_) => {}
        }
        at += 1;
    }
    if let Some(title) = &handoff.title {
        push(json!({"$set": {"summary": title}}));
    }
    create_new(&path, out.as_bytes())?;
    let resume = crate::source::command(&["gemini", "--resume", &id]);
    Ok(Written { id, path, resume, window_tokens: WINDOW_TOKENS })
}

/// A user turn's parts: text parts in a row are one, a blank line between
/// (the CLI shows a message's parts run together).
fn user_content(parts: &[UserPart]) -> Vec<Value> {
    let mut content: Vec<Value> = Vec::new();
    for part in parts {
        match (part, content.last_mut()) {
            (UserPart::Text(text), Some(Value::Object(last))) if last.contains_key("text") => {
                let joined = format!("{}\n\n{text}", last["text"].as_str().unwrap_or_default());
                last.insert("text".into(), Value::String(joined));
            }
            (UserPart::Text(text), _) => content.push(json!({"text": text})),
            (UserPart::Image { media_type, data }, _) => {
                content.push(json!({"inlineData": {"mimeType": media_type, "data": data}}));
            }
        }
    }
    content
}

/// The `gemini` message of a model's turn, its calls with their `results`;
/// `None` for a turn with neither text nor calls (thinking only).
fn model_message(parts: &[AssistantPart], results: &[ToolResult]) -> Option<Value> {
    let text: Vec<&str> = parts
        .iter()
        .filter_map(|part| match part {
            AssistantPart::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let calls: Vec<Value> = parts
        .iter()
        .filter_map(|part| match part {
            AssistantPart::Call { id, name, input } => {
                let result = results.iter().find(|r| r.id == *id);
                let (key, status) = match result {
                    Some(r) if !r.is_error => ("output", "success"),
                    _ => ("error", "error"),
                };
                let output = result.map_or("", |r| r.output.as_str());
                let response = json!({"id": id, "name": name, "response": {key: output}});
                Some(json!({
                    "id": id, "name": name, "args": input, "status": status,
                    "result": [{"functionResponse": response}],
                }))
            }
            _ => None,
        })
        .collect();
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut message = json!({"type": "gemini", "content": text.join("\n\n")});
    if !calls.is_empty() {
        message["toolCalls"] = Value::Array(calls);
    }
    Some(message)
}
