//! Qwen Code records, in file order, as chat messages.
//!
//! A prompt opens a user message; assistant records add thinking, text and
//! tool calls to the open assistant message, and `tool_result` records
//! complete the calls by id; notices of the harness (a compression's summary,
//! a rewind, a notification) are system messages. An API error is an `error`
//! block, unless a later response to the same prompt shows the request was
//! retried and answered.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::parts::{part_block, prompt_blocks, response_text};
use super::record::Record;
use crate::index::LateResult;
use crate::transcript::{Block, Message, Role, ToolCall, finish_pending};

/// The event names of API telemetry in `ui_telemetry` records.
const API_ERROR: &str = "qwen-code.api_error";
const API_RESPONSE: &str = "qwen-code.api_response";

/// Messages being built from records.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    messages: Vec<Message>,
    /// Where each call still without a result is: (message, block).
    open_calls: HashMap<String, (usize, usize)>,
    /// How many messages at the start a fork copied from another session.
    inherited: usize,
    /// Read as lines added to a file: results whose call was read before.
    tail: bool,
    late: Vec<LateResult>,
}

/// What the messages of a file are, with what the caller needs besides.
#[derive(Debug, Default)]
pub(super) struct Built {
    pub(super) messages: Vec<Message>,
    /// How many messages at the start a fork copied from another session.
    pub(super) inherited: usize,
    /// Read as a tail: results whose call was read before.
    pub(super) late: Vec<LateResult>,
}

/// The messages of `records` (in file order). With `tail`, the records follow
/// earlier ones of the file: a result whose call is not among them is a late
/// result, not a call of its own.
pub(super) fn build(records: &[Record], tail: bool) -> Built {
    let retried = retried_errors(records);
    let mut conversation = Conversation { tail, ..Conversation::default() };
    for (index, record) in records.iter().enumerate() {
        match record.kind() {
            "user" => conversation.user(record),
            "assistant" => conversation.assistant(record),
            "tool_result" => conversation.tool_result(record),
            "system" => conversation.system(records, index, retried.contains(&index)),
            other => {
                let what =
                    if other.is_empty() { "record without a type".to_owned() } else { format!("record {other}") };
                let raw = serde_json::json!({"type": record.kind, "uuid": record.uuid, "subtype": record.subtype});
                conversation.open(record, Role::System, vec![Block::Unknown { what, raw }]);
            }
        }
    }
    // A call without a result at the end of the file belongs to a cut turn.
    finish_pending(&mut conversation.messages);
    Built { messages: conversation.messages, inherited: conversation.inherited, late: conversation.late }
}

/// The positions of `api_error` telemetry records that a later response to
/// the same prompt supersedes (a retry that was answered).
fn retried_errors(records: &[Record]) -> HashSet<usize> {
    let mut answered: HashSet<&str> = HashSet::new();
    let mut retried = HashSet::new();
    for (index, record) in records.iter().enumerate().rev() {
        let Some((name, event)) = telemetry(record) else { continue };
        let prompt = event.get("prompt_id").and_then(Value::as_str);
        match (name, prompt) {
            (API_RESPONSE, Some(prompt)) => {
                answered.insert(prompt);
            }
            (API_ERROR, Some(prompt)) if answered.contains(prompt) => {
                retried.insert(index);
            }
            _ => {}
        }
    }
    retried
}

/// A `ui_telemetry` record's event name and event.
fn telemetry(record: &Record) -> Option<(&str, &Value)> {
    if record.kind() != "system" || record.subtype() != "ui_telemetry" {
        return None;
    }
    let event = record.system_payload.as_ref()?.get("uiEvent")?;
    Some((event.get("event.name")?.as_str()?, event))
}

impl Conversation {
    /// Opens a message of `role` at `record` holding `blocks` (none: nothing).
    fn open(&mut self, record: &Record, role: Role, blocks: Vec<Block>) {
        if blocks.is_empty() {
            return;
        }
        if record.forked_from.is_some() && self.inherited == self.messages.len() {
            self.inherited += 1;
        }
        let mut message = Message::new(role).at(record.uuid.clone(), record.timestamp.clone());
        message.blocks = blocks;
        self.messages.push(message);
    }

    /// Adds `blocks` to the open assistant message, or opens one at `record`.
    fn add_assistant(&mut self, record: &Record, blocks: Vec<Block>) {
        match self.messages.last_mut() {
            Some(last) if last.role == Role::Assistant => last.blocks.extend(blocks),
            _ => self.open(record, Role::Assistant, blocks),
        }
    }

    fn user(&mut self, record: &Record) {
        let display = record.payload_str("displayText");
        match record.subtype() {
            // Notices the CLI fed the model: shown as the harness's.
            "notification" | "cron" => {
                let blocks = match display {
                    Some(text) => vec![Block::text(text)],
                    None => prompt_blocks(record.parts(), None),
                };
                self.open(record, Role::System, blocks);
            }
            "goal_runtime" => {
                let text = parts_text(record.parts());
                self.open(record, Role::System, vec![Block::Context { title: "Goal".to_owned(), text }]);
            }
            // Typed while tools ran: the model got it with their results.
            "mid_turn_user_message" => {
                let blocks = match display {
                    Some(text) => vec![Block::text(text)],
                    None => prompt_blocks(record.parts(), None),
                };
                self.open(record, Role::User, blocks);
            }
            _ => {
                let responses = record.parts().iter().any(|p| p.get("functionResponse").is_some());
                if responses {
                    // Results sent as a user record: they complete calls.
                    self.tool_result(record);
                } else {
                    self.open(record, Role::User, prompt_blocks(record.parts(), display));
                }
            }
        }
    }

    fn assistant(&mut self, record: &Record) {
        let mut blocks = Vec::new();
        for (position, part) in record.parts().iter().enumerate() {
            if let Some(call) = part.get("functionCall") {
                let id = call.get("id").and_then(Value::as_str).map_or_else(
                    || format!("{}#{position}", record.uuid.as_deref().unwrap_or_default()),
                    str::to_owned,
                );
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                let input = call.get("args").cloned().unwrap_or(Value::Null);
                let mut tool_call = ToolCall::running(id, name, input);
                tool_call.started_at.clone_from(&record.timestamp);
                blocks.push(Block::ToolCall(tool_call));
            } else if let Some(block) = part_block(part) {
                blocks.push(block);
            }
        }
        if blocks.is_empty() {
            return;
        }
        let added = blocks.len();
        self.add_assistant(record, blocks);
        let at = self.messages.len() - 1;
        let message = &self.messages[at];
        for (index, block) in message.blocks.iter().enumerate().skip(message.blocks.len() - added) {
            if let Block::ToolCall(call) = block {
                self.open_calls.insert(call.id.clone(), (at, index));
            }
        }
    }

    fn tool_result(&mut self, record: &Record) {
        let result = record.tool_call_result.as_ref();
        for part in record.parts() {
            let Some(response) = part.get("functionResponse") else {
                // Content sent with the results (an image a tool read).
                if let Some(block) = part_block(part) {
                    self.add_assistant(record, vec![block]);
                }
                continue;
            };
            let id = response.get("id").and_then(Value::as_str).or_else(|| result?.call_id.as_deref());
            let name = response.get("name").and_then(Value::as_str).unwrap_or_default();
            let text = response_text(response.get("response"));
            let failed = match result.and_then(|r| r.status.as_deref()) {
                Some(status) => status == "error",
                None => response.get("response").and_then(|r| r.get("error")).is_some(),
            };
            let found = id.and_then(|id| self.open_calls.remove(id)).or_else(|| self.open_call_named(name));
            if let Some((message, block)) = found
                && let Some(Block::ToolCall(call)) = self.messages[message].blocks.get_mut(block)
            {
                call.complete(text, failed, record.timestamp.clone());
            } else if self.tail {
                let text = text.unwrap_or_default();
                self.late.push(LateResult { entry_id: record.uuid.clone(), text });
            } else {
                // A result whose call is not in the file: kept, under its name.
                let mut call = ToolCall::running(id.unwrap_or_default(), name, Value::Null);
                call.complete(text, failed, record.timestamp.clone());
                self.add_assistant(record, vec![Block::ToolCall(call)]);
            }
        }
    }

    /// The oldest call still open with this name (a response without an id).
    fn open_call_named(&mut self, name: &str) -> Option<(usize, usize)> {
        let (id, at) = self
            .open_calls
            .iter()
            .filter(|(_, (m, b))| matches!(&self.messages[*m].blocks[*b], Block::ToolCall(c) if c.name == name))
            .min_by_key(|(_, at)| **at)
            .map(|(id, at)| (id.clone(), *at))?;
        self.open_calls.remove(&id);
        Some(at)
    }

    fn system(&mut self, records: &[Record], index: usize, retried: bool) {
        let record = &records[index];
        match record.subtype() {
            "chat_compression" => {
                let text = compression_summary(record.system_payload.as_ref());
                self.open(record, Role::System, vec![Block::Summary { text }]);
            }
            "rewind" => {
                let prompts = rewound_prompts(records, index);
                let text = format!("Rewound {prompts} prompt{}", if prompts == 1 { "" } else { "s" });
                self.open(record, Role::System, vec![Block::text(text)]);
            }
            "slash_command" if record.payload_str("phase") != Some("result") => {
                if let Some(command) = record.payload_str("rawCommand") {
                    self.open(record, Role::System, vec![Block::text(command)]);
                }
            }
            "ui_telemetry" if !retried => {
                if let Some((API_ERROR, event)) = telemetry(record) {
                    let text = event.get("error_message").and_then(Value::as_str).unwrap_or("API error");
                    self.add_assistant(record, vec![Block::Error { text: text.to_owned() }]);
                }
            }
            _ => {}
        }
    }
}

/// The text parts of `parts`, joined by newlines.
fn parts_text(parts: &[Value]) -> String {
    parts.iter().filter_map(|p| p.get("text")?.as_str()).collect::<Vec<_>>().join("\n")
}

/// The tag that closes the summary a compression asks the model for.
const SNAPSHOT_END: &str = "</state_snapshot>";

/// A compression's summary: the text of the first message of the history it
/// left (`compressedHistory`), which is the summary the model wrote, up to
/// the end of its `<state_snapshot>` (the CLI adds an instruction to resume
/// after it).
fn compression_summary(payload: Option<&Value>) -> String {
    let first = payload.and_then(|p| p.get("compressedHistory")?.get(0)?.get("parts")?.as_array());
    let text = first.map(|parts| parts_text(parts)).unwrap_or_default();
    match text.rfind(SNAPSHOT_END) {
        Some(at) => text[..at + SNAPSHOT_END.len()].to_owned(),
        None => text,
    }
}

/// How many prompts the rewind at `index` took back: the prompts written
/// after the record it goes back to (its parent) and before it.
fn rewound_prompts(records: &[Record], index: usize) -> usize {
    let back_to = records[index].parent_uuid.as_deref();
    let start = back_to.and_then(|uuid| records[..index].iter().rposition(|r| r.uuid.as_deref() == Some(uuid)));
    let from = start.map_or(0, |at| at + 1);
    records[from..index].iter().filter(|r| r.kind() == "user" && r.subtype.is_none()).count()
}
