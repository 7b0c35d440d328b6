//! From events to a transcript (the rules are in the module docs of
//! `copilot.rs`).

use std::collections::HashMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use sess_core::{IssueKind, LineIssue};

use super::SOURCE;
use crate::jsonl::JsonLines;
use crate::lenient;
use crate::transcript::{Block, Image, Message, Role, ToolCall, Transcript, finish_pending};

/// One line of `events.jsonl`.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, deserialize_with = "lenient::string")]
    id: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    timestamp: Option<String>,
    #[serde(rename = "agentId", default, deserialize_with = "lenient::string")]
    agent_id: Option<String>,
    #[serde(default)]
    data: Value,
}

/// A transcript read from events, and what the events say of the session.
#[derive(Debug)]
pub(crate) struct Read {
    /// The messages and issues; id, title and cwd are the caller's to fill.
    pub transcript: Transcript,
    /// `session.start`'s `sessionId`.
    pub session_id: Option<String>,
    /// `session.start`'s `context.cwd`, else the first `session.resume`'s.
    pub cwd: Option<String>,
    /// `session.start`'s `startTime`, else the first event's timestamp.
    pub created: Option<String>,
}

/// The string at `pointer` in `value`.
fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

/// The messages of one conversation: the session's, or a subagent's.
#[derive(Debug, Default)]
struct Conversation {
    messages: Vec<Message>,
}

impl Conversation {
    /// The last message while it is the assistant's, else a new one.
    fn bubble(&mut self, event: &Event) -> &mut Message {
        if self.messages.last().is_none_or(|m| m.role != Role::Assistant) {
            self.messages.push(Message::new(Role::Assistant).at(event.id.clone(), event.timestamp.clone()));
        }
        let last = self.messages.len() - 1;
        &mut self.messages[last]
    }

    /// The latest call with this id.
    fn call(&mut self, id: &str) -> Option<&mut ToolCall> {
        self.messages.iter_mut().rev().flat_map(|m| m.blocks.iter_mut().rev()).find_map(|b| match b {
            Block::ToolCall(call) if call.id == id => Some(call),
            _ => None,
        })
    }
}

/// The reader's state while it goes through the events.
#[derive(Default)]
struct Reader {
    main: Conversation,
    /// Subagents' conversations, by `agentId`, in the order they began.
    agents: Vec<(String, Conversation)>,
    /// The call that started each subagent, by `agentId`.
    started_by: HashMap<String, String>,
    /// Attached images (`session.binary_asset`), by `assetId`.
    assets: HashMap<String, Image>,
    session_id: Option<String>,
    cwd: Option<String>,
    created: Option<String>,
}

impl Reader {
    fn conversation(&mut self, agent: Option<&str>) -> &mut Conversation {
        let Some(agent) = agent else { return &mut self.main };
        let at = self.agents.iter().position(|(id, _)| id == agent).unwrap_or_else(|| {
            self.agents.push((agent.to_owned(), Conversation::default()));
            self.agents.len() - 1
        });
        &mut self.agents[at].1
    }

    /// Every call still running becomes pending: the process that ran it ended.
    fn end_of_process(&mut self) {
        finish_pending(&mut self.main.messages);
        for (_, conversation) in &mut self.agents {
            finish_pending(&mut conversation.messages);
        }
    }

    fn read(&mut self, event: &Event) {
        if self.created.is_none() {
            self.created.clone_from(&event.timestamp);
        }
        let data = &event.data;
        let agent = event.agent_id.as_deref();
        // A subagent's events name the call that started it.
        if let (Some(agent), Some(call)) = (agent, str_at(data, "/parentToolCallId")) {
            self.started_by.entry(agent.to_owned()).or_insert_with(|| call.to_owned());
        }
        match event.kind.as_str() {
            "session.start" => {
                self.session_id = str_at(data, "/sessionId").map(ToOwned::to_owned);
                if let Some(start) = str_at(data, "/startTime") {
                    self.created = Some(start.to_owned());
                }
                self.cwd = str_at(data, "/context/cwd").map(ToOwned::to_owned).or(self.cwd.take());
            }
            "session.resume" => {
                if self.cwd.is_none() {
                    self.cwd = str_at(data, "/context/cwd").map(ToOwned::to_owned);
                }
                self.end_of_process();
            }
            "session.shutdown" => self.end_of_process(),
            "session.binary_asset" => self.asset(data),
            "subagent.started" => {
                if let (Some(agent), Some(call)) = (agent, str_at(data, "/toolCallId")) {
                    self.started_by.insert(agent.to_owned(), call.to_owned());
                }
            }
            "user.message" => {
                let message = self.user_message(event);
                self.conversation(agent).messages.push(message);
            }
            "assistant.message" => assistant_message(self.conversation(agent), event),
            "tool.user_requested" => {
                let message = user_requested(event);
                self.conversation(agent).messages.push(message);
            }
            "tool.execution_complete" => self.tool_result(event),
            "session.error" => {
                let text = str_at(data, "/message").unwrap_or("The model request failed").to_owned();
                self.conversation(agent).bubble(event).blocks.push(Block::Error { text });
            }
            "session.compaction_complete" if agent.is_none() => {
                let block = compaction(data);
                self.main
                    .messages
                    .push(Message::new(Role::System).at(event.id.clone(), event.timestamp.clone()).with(block));
            }
            "abort" => {
                let reason = str_at(data, "/reason").unwrap_or("unknown");
                let notice = Block::text(format!("Turn aborted ({reason})"));
                let message = Message::new(Role::System).at(event.id.clone(), event.timestamp.clone()).with(notice);
                self.conversation(agent).messages.push(message);
                self.end_of_process();
            }
            _ => {}
        }
    }

    fn asset(&mut self, data: &Value) {
        let (Some(id), Some(base64)) = (str_at(data, "/assetId"), str_at(data, "/data")) else { return };
        let media_type = str_at(data, "/mimeType").map(ToOwned::to_owned);
        if str_at(data, "/type") == Some("image") || media_type.as_deref().is_some_and(|t| t.starts_with("image/")) {
            self.assets.insert(id.to_owned(), Image { media_type, data: Some(base64.to_owned()), url: None });
        }
    }

    /// A prompt: its text, then its attachments (an image from its asset, or
    /// by path; another file as attached context).
    fn user_message(&self, event: &Event) -> Message {
        let data = &event.data;
        let mut message = Message::new(Role::User).at(event.id.clone(), event.timestamp.clone());
        if let Some(text) = str_at(data, "/content").filter(|t| !t.trim().is_empty()) {
            message.blocks.push(Block::text(text));
        }
        for attachment in data.get("attachments").and_then(Value::as_array).into_iter().flatten() {
            let path = str_at(attachment, "/path");
            let media_type = str_at(attachment, "/mimeType");
            if let Some(image) = str_at(attachment, "/assetId").and_then(|id| self.assets.get(id)) {
                message.blocks.push(Block::Image(image.clone()));
            } else if media_type.is_some_and(|t| t.starts_with("image/")) {
                let image = Image {
                    media_type: media_type.map(ToOwned::to_owned),
                    data: None,
                    url: path.map(ToOwned::to_owned),
                };
                message.blocks.push(Block::Image(image));
            } else if let Some(path) = path {
                let name = str_at(attachment, "/displayName").unwrap_or(path);
                message.blocks.push(Block::Context { title: format!("Attached {name}"), text: path.to_owned() });
            }
        }
        message
    }

    /// Completes the call the result answers: in the subagent's conversation
    /// for a subagent's event, else in the session's.
    fn tool_result(&mut self, event: &Event) {
        let data = &event.data;
        let Some(id) = str_at(data, "/toolCallId") else { return };
        let success = data.get("success").and_then(Value::as_bool).unwrap_or(false);
        let exit_code = data.pointer("/shellExecution/exitCode").and_then(Value::as_i64).unwrap_or(0);
        let result = str_at(data, "/result/content");
        let error = str_at(data, "/error/message");
        let text = if success { result.or(error) } else { error.or(result) };
        let agent = event.agent_id.as_deref();
        let conversation = self.conversation(agent);
        let call = match conversation.call(id) {
            Some(call) => Some(call),
            None => self.main.call(id),
        };
        if let Some(call) = call {
            call.complete(text.map(ToOwned::to_owned), !success || exit_code != 0, event.timestamp.clone());
        }
    }

    /// The transcript: each subagent's conversation folded under the call
    /// that started it (a nested one under its parent's call first).
    fn finish(mut self, issues: Vec<LineIssue>) -> Read {
        self.end_of_process();
        let started_by = std::mem::take(&mut self.started_by);
        while let Some((agent, conversation)) = self.agents.pop() {
            let Some(call_id) = started_by.get(&agent).cloned() else { continue };
            let call = match self.main.call(&call_id) {
                Some(call) => Some(call),
                None => self.agents.iter_mut().rev().find_map(|(_, c)| c.call(&call_id)),
            };
            if let Some(call) = call {
                call.subagent = conversation.messages;
            }
        }
        let mut transcript = Transcript::new(SOURCE, "");
        transcript.messages = self.main.messages;
        transcript.issues = issues;
        Read { transcript, session_id: self.session_id, cwd: self.cwd, created: self.created }
    }
}

/// An answer of the model: its reasoning, its text and the calls it made,
/// added to the assistant's message of the exchange.
fn assistant_message(conversation: &mut Conversation, event: &Event) {
    let data = &event.data;
    let bubble = conversation.bubble(event);
    if let Some(text) = str_at(data, "/reasoningText").filter(|t| !t.trim().is_empty()) {
        bubble.blocks.push(Block::Thinking { text: text.to_owned() });
    }
    if let Some(text) = str_at(data, "/content").filter(|t| !t.trim().is_empty()) {
        bubble.blocks.push(Block::text(text));
    }
    for request in data.get("toolRequests").and_then(Value::as_array).into_iter().flatten() {
        let Some(id) = str_at(request, "/toolCallId") else { continue };
        let name = str_at(request, "/name").unwrap_or("tool");
        let input = request.get("arguments").cloned().unwrap_or(Value::Null);
        let mut call = ToolCall::running(id, name, input);
        call.started_at.clone_from(&event.timestamp);
        bubble.blocks.push(Block::ToolCall(call));
    }
}

/// A tool the user ran (a `!command` shell escape: `local_shell`): a user
/// message holding the call, which its `tool.execution_complete` completes.
fn user_requested(event: &Event) -> Message {
    let data = &event.data;
    let message = Message::new(Role::User).at(event.id.clone(), event.timestamp.clone());
    let Some(id) = str_at(data, "/toolCallId") else { return message };
    let name = str_at(data, "/toolName").unwrap_or("tool");
    let mut call = ToolCall::running(id, name, data.get("arguments").cloned().unwrap_or(Value::Null));
    call.started_at.clone_from(&event.timestamp);
    message.with(Block::ToolCall(call))
}

/// A compaction's notice: its summary, or the error that stopped it.
fn compaction(data: &Value) -> Block {
    let applied = data.get("success").and_then(Value::as_bool).unwrap_or(false);
    if applied {
        match str_at(data, "/summaryContent").filter(|t| !t.trim().is_empty()) {
            Some(summary) => Block::Summary { text: summary.to_owned() },
            None => Block::text("Context compacted"),
        }
    } else {
        let why = str_at(data, "/error").unwrap_or("no reason given");
        Block::Error { text: format!("Compaction failed: {why}") }
    }
}

/// Reads the events in `bytes`; lines that are not events are skipped and
/// reported.
pub(crate) fn read(bytes: &[u8]) -> Read {
    let mut reader = Reader::default();
    let mut issues = Vec::new();
    for line in JsonLines::new(bytes) {
        match line.parse::<Event>() {
            Ok(event) if event.id.is_none() => issues.push(LineIssue { line: line.number, kind: IssueKind::MissingId }),
            Ok(event) => reader.read(&event),
            // JSON, but not an object.
            Err(_) if !line.text.trim_start().starts_with('{') && line.parse::<IgnoredAny>().is_ok() => {
                issues.push(LineIssue { line: line.number, kind: IssueKind::NotAnObject });
            }
            Err(issue) => issues.push(issue),
        }
    }
    reader.finish(issues)
}
