//! From OpenCode's messages and parts to a transcript (the rules are in the
//! module docs of `opencode.rs`).

use serde_json::Value;
use sess_core::format_iso_millis;

use super::records::{RawMessage, RawPart, SessionRecord, string};
use crate::transcript::{Block, Image, Message, Role, ToolCall, ToolStatus, finish_pending};

/// What OpenCode says in place of the messages an /undo reverted.
pub(crate) const UNDONE: &str = "Undone (/undo): the messages from here on were reverted";

/// The notice of an interrupted turn.
pub(crate) const ABORTED: &str = "Turn aborted";

/// How deep subagents' sessions are read under their `task` calls.
const MAX_DEPTH: usize = 4;

/// The messages of a session, and a way to read the messages of the
/// sessions its `task` calls started (`None` when there is none to read).
pub(crate) struct Reader<'a> {
    /// The agent's name, in the title of the text it added to a prompt.
    pub(crate) agent: &'static str,
    /// The messages of a child session, by id.
    pub(crate) child: &'a dyn Fn(&str) -> Option<Vec<RawMessage>>,
}

impl Reader<'_> {
    /// The transcript messages of `session`'s `messages`.
    pub(crate) fn messages(&self, session: &SessionRecord, messages: &[RawMessage]) -> Vec<Message> {
        let mut out = self.convert(messages, session.revert_message.as_deref(), 0);
        finish_pending(&mut out);
        out
    }

    fn convert(&self, messages: &[RawMessage], revert: Option<&str>, depth: usize) -> Vec<Message> {
        let mut out: Vec<Message> = Vec::new();
        let mut undone = false;
        // Whether the last message is an assistant bubble that the next
        // assistant message (the next step of the same turn) goes on.
        let mut open = false;
        for message in messages {
            if !undone && revert.is_some_and(|id| message.id.as_str() >= id) {
                undone = true;
                open = false;
                out.push(Message::new(Role::System).with(Block::text(UNDONE)));
            }
            let timestamp = Some(format_iso_millis(message.created));
            let id = Some(message.id.clone());
            match message.data.get("role").and_then(Value::as_str) {
                Some("user") => {
                    open = false;
                    let blocks: Vec<Block> =
                        message.parts.iter().filter_map(|part| user_block(part, self.agent)).collect();
                    if !blocks.is_empty() {
                        out.push(Message { role: Role::User, id, timestamp, blocks });
                    }
                }
                Some("assistant") if message.data.get("summary").and_then(Value::as_bool) == Some(true) => {
                    // A compaction's summary: a notice of its own.
                    open = false;
                    let mut blocks: Vec<Block> = message
                        .parts
                        .iter()
                        .filter_map(|part| match kind(part) {
                            "text" => non_blank(part, "text").map(|text| Block::Summary { text }),
                            _ => None,
                        })
                        .collect();
                    blocks.extend(error_block(&message.data));
                    if blocks.is_empty() {
                        blocks.push(Block::Summary { text: "Context compacted".to_owned() });
                    }
                    out.push(Message { role: Role::System, id, timestamp, blocks });
                }
                Some("assistant") => {
                    let mut blocks: Vec<Block> =
                        message.parts.iter().filter_map(|part| self.assistant_block(part, depth)).collect();
                    let aborted = aborted(&message.data);
                    if !aborted {
                        blocks.extend(error_block(&message.data));
                    }
                    match out.last_mut() {
                        Some(bubble) if open => bubble.blocks.extend(blocks),
                        _ => out.push(Message { role: Role::Assistant, id, timestamp, blocks }),
                    }
                    open = !aborted;
                    if aborted {
                        out.push(Message::new(Role::System).with(Block::text(ABORTED)));
                    }
                }
                _ => {
                    open = false;
                    let what = format!("message {}", message.data.get("role").and_then(Value::as_str).unwrap_or("?"));
                    out.push(Message { role: Role::System, id, timestamp, blocks: vec![unknown(what, &message.data)] });
                }
            }
        }
        // A bubble left without blocks (a step that wrote nothing) shows nothing.
        out.retain(|message| !message.blocks.is_empty());
        out
    }

    fn assistant_block(&self, part: &RawPart, depth: usize) -> Option<Block> {
        match kind(part) {
            "text" => non_blank(part, "text").map(|text| Block::Text { text }),
            "reasoning" => non_blank(part, "text").map(|text| Block::Thinking { text }),
            "tool" => Some(Block::ToolCall(self.tool_call(part, depth))),
            "file" => Some(file_block(&part.data)),
            "retry" => {
                let attempt = part.data.get("attempt").and_then(Value::as_i64).unwrap_or(0);
                let message = error_text(part.data.get("error")).unwrap_or_else(|| "request failed".to_owned());
                Some(Block::Error { text: format!("Retry {attempt}: {message}") })
            }
            "step-start" | "step-finish" | "snapshot" | "patch" => None,
            other => Some(unknown(format!("part {other}"), &part.data)),
        }
    }

    fn tool_call(&self, part: &RawPart, depth: usize) -> ToolCall {
        let data = &part.data;
        let state = data.get("state").unwrap_or(&Value::Null);
        let id = string(data, "callID").unwrap_or_else(|| part.id.clone());
        let name = string(data, "tool").unwrap_or_else(|| "tool".to_owned());
        let mut call = ToolCall::running(id, name, state.get("input").cloned().unwrap_or(Value::Null));
        let time = state.get("time");
        let at = |key: &str| time.and_then(|t| t.get(key)).and_then(Value::as_i64).map(format_iso_millis);
        call.started_at = at("start");
        match state.get("status").and_then(Value::as_str) {
            Some("completed") => call.complete(string(state, "output"), false, at("end")),
            Some("error") => call.complete(string(state, "error"), true, at("end")),
            _ => {}
        }
        if call.status == ToolStatus::Running {
            call.ended_at = None;
        }
        let child = state.get("metadata").and_then(|m| string(m, "sessionId"));
        if let Some(child) = child.filter(|_| depth < MAX_DEPTH)
            && let Some(messages) = (self.child)(&child)
        {
            call.subagent = self.convert(&messages, None, depth + 1);
            finish_pending(&mut call.subagent);
        }
        call
    }
}

/// A user message's part as a block: the prompt's text; text the agent
/// (OpenCode, named `agent`) added itself (`synthetic`, such as how it read an attached file) or left out of
/// the model's context (`ignored`) as context; images; other files, agent
/// mentions and subtasks as context. Markers (a compaction's) show nothing.
fn user_block(part: &RawPart, agent: &str) -> Option<Block> {
    let data = &part.data;
    let flag = |key: &str| data.get(key).and_then(Value::as_bool) == Some(true);
    match kind(part) {
        "text" if flag("synthetic") || flag("ignored") => {
            non_blank(part, "text").map(|text| Block::Context { title: format!("Added by {agent}"), text })
        }
        "text" => non_blank(part, "text").map(|text| Block::Text { text }),
        "file" => Some(file_block(data)),
        "agent" => Some(Block::Context { title: "Agent".to_owned(), text: format!("@{}", string(data, "name")?) }),
        "subtask" => Some(Block::Context {
            title: format!("Subtask: {}", string(data, "description").unwrap_or_default()),
            text: string(data, "prompt").unwrap_or_default(),
        }),
        "compaction" => None,
        other => Some(unknown(format!("part {other}"), data)),
    }
}

/// A file part: an image as an image (its data when the URL is a base64 data
/// URL), anything else as context (the text it stood for, else its URL).
fn file_block(data: &Value) -> Block {
    let mime = string(data, "mime");
    let url = string(data, "url").unwrap_or_default();
    if mime.as_deref().is_some_and(|m| m.starts_with("image/")) {
        if let Some((media_type, base64)) = data_url(&url) {
            return Block::Image(Image {
                media_type: Some(media_type.to_owned()),
                data: Some(base64.to_owned()),
                url: None,
            });
        }
        return Block::Image(Image { media_type: mime, data: None, url: Some(url) });
    }
    let source = data.get("source");
    let text = source.and_then(|s| s.get("text")).and_then(|t| string(t, "value")).unwrap_or(url);
    let title = string(data, "filename")
        .or_else(|| source.and_then(|s| string(s, "path")))
        .or(mime)
        .unwrap_or_else(|| "file".to_owned());
    Block::Context { title, text }
}

/// `data:<type>;base64,<data>` as its type and data.
fn data_url(url: &str) -> Option<(&str, &str)> {
    let (head, data) = url.strip_prefix("data:")?.split_once(',')?;
    Some((head.strip_suffix(";base64")?, data))
}

/// The error a message ended with, as an error block (an interrupt is not
/// one: see [`aborted`]).
fn error_block(data: &Value) -> Option<Block> {
    error_text(data.get("error")).map(|text| Block::Error { text })
}

/// Whether the message ended because the user interrupted it.
fn aborted(data: &Value) -> bool {
    data.get("error").and_then(|e| e.get("name")).and_then(Value::as_str) == Some("MessageAbortedError")
}

/// The text of an OpenCode error `{name, data: {message}}`: its message, else
/// its name.
fn error_text(error: Option<&Value>) -> Option<String> {
    let error = error.filter(|e| !e.is_null())?;
    let message = error.get("data").and_then(|d| string(d, "message")).filter(|m| !m.trim().is_empty());
    Some(message.or_else(|| string(error, "name")).unwrap_or_else(|| error.to_string()))
}

fn kind(part: &RawPart) -> &str {
    part.data.get("type").and_then(Value::as_str).unwrap_or("?")
}

fn non_blank(part: &RawPart, key: &str) -> Option<String> {
    string(&part.data, key).filter(|text| !text.trim().is_empty())
}

fn unknown(what: String, raw: &Value) -> Block {
    Block::Unknown { what, raw: raw.clone() }
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
