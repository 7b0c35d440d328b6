//! A handoff written as a pi session: entries made by `sess_store`'s
//! `SessionManager` (byte for byte what it appends), written as one new file
//! in the folder pi keeps the sessions of the handoff's directory, which
//! `pi --session FILE` continues.
//!
//! User turns are `user` messages (text and images), the model's turns
//! `assistant` messages with text, thinking and `toolCall` blocks, each result
//! a `toolResult` message. The assistant messages name provider `sess` and
//! the source agent as their model: pi replays another provider's thinking
//! as text, as it does when a session changes models. A compaction summary
//! is a `compaction` entry keeping the first user turn; a title a
//! `session_info`; where the session came from a `custom` entry
//! (`sess-handoff`), beside the note its first user turn begins with.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use sess_store::discovery::{self, Environment, PiAgent};
use sess_store::{CompactionParams, MemoryStorage, SessionManager, SessionStorage};

use crate::error::{Error, Result};
use crate::handoff::{AssistantPart, Handoff, Item, UserPart, Written, create_new};

/// The context window pi's default models take, in tokens.
const WINDOW_TOKENS: usize = 200_000;

/// Writes `handoff` as a new pi-mono session in `env`.
pub(crate) fn write(env: &Environment, handoff: &Handoff) -> Result<Written> {
    let storage = Arc::new(MemoryStorage::new());
    let dirs = discovery::agent_dirs(PiAgent::PiMono, env, &sess_store::FileStorage);
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let dir = discovery::project_session_dir(&dirs, &handoff.cwd, env, &canonical);
    let cwd = handoff.cwd.display().to_string();
    let store =
        |err: sess_store::Error| Error::Io { path: dir.clone(), source: std::io::Error::other(err.to_string()) };
    let shared: Arc<dyn SessionStorage> = storage.clone();
    let mut manager = SessionManager::builder().storage(shared).create(&cwd, &dir).map_err(store)?;
    let start = jiff::Timestamp::now().as_millisecond();
    let mut step = 0_i64;
    let mut at = || {
        step += 1;
        start + step
    };
    let mut summary = None;
    for item in &handoff.items {
        let message = match item {
            Item::Summary(text) => {
                summary = Some(text);
                continue;
            }
            Item::User(parts) => {
                let content: Vec<Value> = parts
                    .iter()
                    .map(|part| match part {
                        UserPart::Text(text) => json!({"type": "text", "text": text}),
                        UserPart::Image { media_type, data } => {
                            json!({"type": "image", "data": data, "mimeType": media_type})
                        }
                    })
                    .collect();
                json!({"role": "user", "content": content, "timestamp": at()})
            }
            Item::Assistant(parts) => {
                let content: Vec<Value> = parts
                    .iter()
                    .map(|part| match part {
                        AssistantPart::Text(text) => json!({"type": "text", "text": text}),
                        AssistantPart::Thinking(text) => json!({"type": "thinking", "thinking": text}),
                        AssistantPart::Call { id, name, input } => {
                            json!({"type": "toolCall", "id": id, "name": name, "arguments": input})
                        }
                    })
                    .collect();
                let calls = parts.iter().any(|p| matches!(p, AssistantPart::Call { .. }));
                json!({
                    "role": "assistant", "content": content, "api": "sess-handoff", "provider": "sess",
                    "model": handoff.origin.source.as_str(), "usage": zero_usage(),
                    "stopReason": if calls { "toolUse" } else { "stop" }, "timestamp": at(),
                })
            }
            Item::Results(results) => {
                for result in results {
                    let message = json!({
                        "role": "toolResult", "toolCallId": result.id, "toolName": result.name,
                        "content": [{"type": "text", "text": result.output}], "isError": result.is_error,
                        "timestamp": at(),
                    });
                    manager.append_message(&message).map_err(store)?;
                }
                continue;
            }
        };
        let id = manager.append_message(&message).map_err(store)?;
        if let Some(text) = summary.take() {
            // The summary stands for what came before the first turn, which it keeps.
            manager
                .append_compaction(CompactionParams {
                    summary: text.clone(),
                    short_summary: None,
                    first_kept_entry_id: id.to_string(),
                    tokens_before: 0,
                    details: None,
                    preserve_data: None,
                    from_extension: None,
                })
                .map_err(store)?;
        }
    }
    let origin = &handoff.origin;
    let data = json!({"source": origin.source.as_str(), "id": origin.id, "path": origin.path});
    manager.append_custom_entry("sess-handoff", Some(data)).map_err(store)?;
    if let Some(title) = &handoff.title {
        manager.append_session_info(title).map_err(store)?;
    }
    manager.ensure_on_disk().map_err(store)?;
    let made: PathBuf = manager.session_file().map(Path::to_owned).unwrap_or_default();
    let bytes = storage.read(&made).map_err(|source| Error::Io { path: made.clone(), source })?;
    create_new(&made, &bytes)?;
    let resume = vec![PiAgent::PiMono.program().to_owned(), "--session".to_owned(), made.display().to_string()];
    Ok(Written { id: manager.session_id().to_owned(), path: made, resume, window_tokens: WINDOW_TOKENS })
}

/// The usage of a message no model call made.
fn zero_usage() -> Value {
    let cost = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0});
    json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": cost})
}
