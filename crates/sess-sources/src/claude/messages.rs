//! Lines to chat messages (seed 003 §2–3, formats.md §1.4–§1.7, §1.11).
//!
//! - A user line's `tool_result` blocks complete the open call with that id,
//!   whatever `isMeta` says; they make no message and leave the assistant
//!   message open.
//! - The rest of a meta user line is hidden.
//! - A compact summary is a system message with a summary block, without the
//!   `<system-reminder>`s the CLI writes into it.
//! - Interrupt markers, slash-command echoes, command output and task
//!   notifications are system messages with a text block ([`classify`]).
//! - Other user text (a string `content` counts) and images make a user
//!   message; editor context is split off ([`split_context`]).
//! - Assistant lines append to one assistant message until another message
//!   comes, in file order, whatever their `message.id` (one API response is
//!   written as one line per block).
//! - A message's id and timestamp are those of the line that opened it.
//! - `Task` (and `Agent`) calls are remembered, for the subagent turns that
//!   follow them ([`super::sidechain`]).

use std::collections::HashMap;

use serde_json::Value;

use super::line::Line;
use super::text::{CONTEXT_TITLE, UserText, classify, split_context, strip_reminders};
use crate::transcript::{Block, Image, Message, Role, ToolCall, content_text, finish_pending};

/// Builds the messages of one file, line by line.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    messages: Vec<Message>,
    /// The assistant message that assistant lines append to, by index.
    open: Option<usize>,
    /// Tool calls without a result: call id → (message, block) index.
    calls: HashMap<String, (usize, usize)>,
    /// The calls that start a subagent, in file order.
    tasks: Vec<TaskCall>,
}

/// A call that starts a subagent.
#[derive(Debug)]
struct TaskCall {
    /// The prompt it gave the subagent.
    prompt: Option<String>,
    /// Where the call is: (message, block) index.
    at: (usize, usize),
    /// Whether a subagent's turns were given to it.
    claimed: bool,
}

/// The tools whose calls run a subagent.
const SUBAGENT_TOOLS: [&str; 2] = ["Task", "Agent"];

impl Conversation {
    /// Takes a `user` line.
    pub(super) fn user(&mut self, line: &Line) {
        let Some(content) = line.content() else { return };
        if let Value::Array(parts) = content {
            for part in parts.iter().filter(|p| block_type(p) == Some("tool_result")) {
                self.complete(part, line.timestamp.clone());
            }
        }
        if line.is_compact_summary {
            let text = strip_reminders(&joined_text(content));
            self.push(message(Role::System, line).with(Block::Summary { text: text.trim().to_owned() }));
            return;
        }
        if line.is_meta {
            return;
        }
        match classify(&joined_text(content)) {
            UserText::Notice(text) => self.push(message(Role::System, line).with(Block::text(text))),
            UserText::Nothing => {}
            UserText::Prompt => {
                let blocks = user_blocks(content);
                if !blocks.is_empty() {
                    let mut prompt = message(Role::User, line);
                    prompt.blocks = blocks;
                    self.push(prompt);
                }
            }
        }
    }

    /// Takes an `assistant` line.
    pub(super) fn assistant(&mut self, line: &Line) {
        let is_error = line.model() == Some("<synthetic>") || line.has_error() || line.is_api_error_message;
        let text_block = |text: &str| {
            let text = text.to_owned();
            if is_error { Block::Error { text } } else { Block::Text { text } }
        };
        let mut any_text = false;
        match line.content() {
            Some(Value::String(text)) if !text.trim().is_empty() => {
                any_text = true;
                self.append(line, text_block(text));
            }
            Some(Value::Array(parts)) => {
                for part in parts {
                    match block_type(part) {
                        Some("text") => {
                            if let Some(text) = str_field(part, "text").filter(|t| !t.trim().is_empty()) {
                                any_text = true;
                                self.append(line, text_block(text));
                            }
                        }
                        Some("thinking") => {
                            if let Some(text) = str_field(part, "thinking").filter(|t| !t.trim().is_empty()) {
                                self.append(line, Block::Thinking { text: text.to_owned() });
                            }
                        }
                        Some("redacted_thinking") => {}
                        Some("tool_use" | "server_tool_use") => self.call(line, part),
                        Some(kind) if kind.ends_with("_tool_result") => self.complete(part, line.timestamp.clone()),
                        Some("image") => {
                            self.append(line, Block::Image(image(part)));
                        }
                        other => {
                            self.append(line, unknown(part, other));
                        }
                    }
                }
            }
            _ => {}
        }
        if is_error
            && !any_text
            && let Some(Value::String(error)) = &line.error
        {
            self.append(line, Block::Error { text: error.clone() });
        }
    }

    /// The call a subagent's turns belong to: the first unclaimed `Task` call
    /// whose prompt is `prompt`, else the latest unclaimed one. Returns its
    /// (message, block) index.
    pub(super) fn claim_task(&mut self, prompt: Option<&str>) -> Option<(usize, usize)> {
        let prompt = prompt.map(str::trim);
        let unclaimed = |task: &&mut TaskCall| !task.claimed;
        let same_prompt = self
            .tasks
            .iter()
            .position(|t| !t.claimed && prompt.is_some() && t.prompt.as_deref().map(str::trim) == prompt);
        let task = match same_prompt {
            Some(at) => Some(&mut self.tasks[at]),
            None => self.tasks.iter_mut().rev().find(unclaimed),
        }?;
        task.claimed = true;
        Some(task.at)
    }

    /// Adds an empty system message opened by `line`, to be filled later;
    /// returns its index.
    pub(super) fn placeholder(&mut self, line: &Line) -> usize {
        self.push(message(Role::System, line));
        self.messages.len() - 1
    }

    /// The messages; calls still without a result are `Pending`.
    pub(super) fn finish(mut self) -> Vec<Message> {
        finish_pending(&mut self.messages);
        self.messages
    }

    /// Adds a message other than the open assistant one, which it closes.
    fn push(&mut self, message: Message) {
        self.messages.push(message);
        self.open = None;
    }

    /// Appends a block to the open assistant message, opening one with this
    /// line if there is none. Returns the block's (message, block) index.
    fn append(&mut self, line: &Line, block: Block) -> (usize, usize) {
        let at = if let Some(at) = self.open {
            at
        } else {
            self.messages.push(message(Role::Assistant, line));
            self.open = Some(self.messages.len() - 1);
            self.messages.len() - 1
        };
        let blocks = &mut self.messages[at].blocks;
        blocks.push(block);
        (at, blocks.len() - 1)
    }

    /// Appends a `tool_use` block as a running call.
    fn call(&mut self, line: &Line, part: &Value) {
        let id = str_field(part, "id").unwrap_or_default().to_owned();
        let name = str_field(part, "name").unwrap_or_default();
        let mut call = ToolCall::running(id.clone(), name, part.get("input").cloned().unwrap_or(Value::Null));
        call.started_at.clone_from(&line.timestamp);
        let at = self.append(line, Block::ToolCall(call));
        if SUBAGENT_TOOLS.contains(&name) {
            let prompt = part.get("input").and_then(|input| str_field(input, "prompt")).map(str::to_owned);
            self.tasks.push(TaskCall { prompt, at, claimed: false });
        }
        self.calls.insert(id, at);
    }

    /// Completes the open call a result block names; a result for no open
    /// call is dropped.
    fn complete(&mut self, part: &Value, ended_at: Option<String>) {
        let Some((message, block)) = str_field(part, "tool_use_id").and_then(|id| self.calls.remove(id)) else {
            return;
        };
        let result = content_text(part.get("content").unwrap_or(&Value::Null));
        let is_error = part.get("is_error").is_some_and(crate::jsonl::is_truthy);
        match &mut self.messages[message].blocks[block] {
            Block::ToolCall(call) => call.complete(Some(result), is_error, ended_at),
            other => unreachable!("open call {message}/{block} is a {} block", other.kind()),
        }
    }
}

/// A message with no blocks, opened by `line`.
fn message(role: Role, line: &Line) -> Message {
    Message::new(role).at(line.uuid.clone(), line.timestamp.clone())
}

/// The blocks of a prompt: its text (editor context split off) and images, in
/// order; tool results are not part of it.
fn user_blocks(content: &Value) -> Vec<Block> {
    fn add_text(blocks: &mut Vec<Block>, text: &str) {
        let (before, context) = split_context(text);
        if !before.trim().is_empty() {
            blocks.push(Block::text(before));
        }
        if let Some(context) = context {
            blocks.push(Block::Context { title: CONTEXT_TITLE.to_owned(), text: context.to_owned() });
        }
    }
    let mut blocks = Vec::new();
    match content {
        Value::String(text) => add_text(&mut blocks, text),
        Value::Array(parts) => {
            for part in parts {
                match block_type(part) {
                    Some("text") => add_text(&mut blocks, str_field(part, "text").unwrap_or_default()),
                    Some("image") => blocks.push(Block::Image(image(part))),
                    Some("tool_result") => {}
                    other => blocks.push(unknown(part, other)),
                }
            }
        }
        _ => {}
    }
    blocks
}

/// The text parts of a `content`, joined by newlines (tool results and images
/// left out).
pub(super) fn joined_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| block_type(p) == Some("text"))
            .filter_map(|p| str_field(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// An `image` block: `source{type:"base64", media_type, data}` or
/// `source{type:"url", url}`.
fn image(part: &Value) -> Image {
    let source = part.get("source");
    let field = |name: &str| source.and_then(|s| str_field(s, name)).map(str::to_owned);
    Image { media_type: field("media_type"), data: field("data"), url: field("url") }
}

/// A block of a type this reader does not know (`document`, …): its `text`
/// if it has one, else its type in brackets, so that something shows.
fn unknown(part: &Value, kind: Option<&str>) -> Block {
    match (str_field(part, "text"), part) {
        (Some(text), _) => Block::text(text),
        (None, Value::String(text)) => Block::text(text.clone()),
        (None, _) => Block::text(format!("[{}]", kind.unwrap_or("content"))),
    }
}

/// A block's `type`.
fn block_type(part: &Value) -> Option<&str> {
    str_field(part, "type")
}

/// A string field of an object.
fn str_field<'a>(value: &'a Value, name: &str) -> Option<&'a str> {
    value.get(name)?.as_str()
}
