//! Droid's lines as a transcript (the rules are in `droid.rs`).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::index::LateResult;
use crate::jsonl::JsonLines;
use crate::lenient;
use crate::transcript::{Block, Image, Message, Role, ToolCall, Transcript, content_text, finish_pending};

/// What the context Droid sends the model with a prompt is called.
pub(super) const CONTEXT_TITLE: &str = "Context for the model";

/// The fields of a line that the reader uses.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Line {
    #[serde(rename = "type", default, deserialize_with = "lenient::string")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    id: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    timestamp: Option<String>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default, deserialize_with = "lenient::string")]
    title: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    session_title: Option<String>,
    #[serde(default, deserialize_with = "lenient::truthy")]
    is_session_title_manually_set: bool,
    #[serde(default)]
    session_title_auto_stage: Option<Value>,
    #[serde(default, deserialize_with = "lenient::string")]
    cwd: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    calling_session_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    calling_tool_use_id: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    reason: Option<String>,
}

/// The session and the call that started a subagent's session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Calling {
    /// The session that called it.
    pub(crate) session: String,
    /// The `Task` call's id.
    pub(crate) call: String,
}

/// What the lines of a file give.
pub(crate) struct Parsed {
    /// The transcript (id, title and cwd from the first line).
    pub(crate) transcript: Transcript,
    /// When the session started: its first message's time.
    pub(crate) created: Option<String>,
    /// The title when Droid or the person named the session.
    pub(crate) explicit_title: Option<String>,
    /// For a subagent's session, who started it.
    pub(crate) calling: Option<Calling>,
    /// Tool results whose call is not among these lines.
    pub(crate) late: Vec<LateResult>,
}

/// Reads `bytes`, the lines of a file of session `id` after its first
/// `lines_before`; `whole`: they are the whole file, so calls still without
/// a result at its end are pending.
pub(crate) fn parse(bytes: &[u8], id: &str, lines_before: usize, whole: bool) -> Parsed {
    let mut reader = Reader::new(id);
    let lines = if lines_before == 0 { JsonLines::new(bytes) } else { JsonLines::after(bytes, lines_before) };
    for raw in lines {
        match raw.parse_object_mended::<Value>() {
            Ok(value) => reader.line(value),
            Err(issue) => reader.out.transcript.issues.push(issue),
        }
    }
    reader.finish(whole)
}

struct Reader {
    out: Parsed,
    /// Context Droid sent before the prompt that comes next.
    context: Vec<Block>,
    /// The assistant's message of the exchange under way.
    answer: Option<usize>,
    /// Where each call is: message and block.
    calls: HashMap<String, (usize, usize)>,
}

impl Reader {
    fn new(id: &str) -> Self {
        Self {
            out: Parsed {
                transcript: Transcript::new(super::SOURCE, id),
                created: None,
                explicit_title: None,
                calling: None,
                late: Vec::new(),
            },
            context: Vec::new(),
            answer: None,
            calls: HashMap::new(),
        }
    }

    fn line(&mut self, value: Value) {
        let Ok(line) = Line::deserialize(&value) else { return };
        match line.kind.as_deref() {
            Some("session_start") => self.start(line),
            Some("message") => self.message(line),
            Some("agent_turn_outcome") if line.reason.as_deref() == Some("completed") => {}
            Some("todo_state" | "session_end") => {}
            kind => {
                let what = kind.unwrap_or("line without a type").to_owned();
                self.out.transcript.messages.push(Message::new(Role::System).with(Block::Unknown { what, raw: value }));
                self.answer = None;
            }
        }
    }

    fn start(&mut self, line: Line) {
        let transcript = &mut self.out.transcript;
        if let Some(id) = line.id.filter(|id| !id.is_empty()) {
            transcript.id = id;
        }
        let title = line.session_title.filter(|t| !t.trim().is_empty()).or(line.title).filter(|t| !t.trim().is_empty());
        if line.is_session_title_manually_set || line.session_title_auto_stage.is_some_and(|v| !v.is_null()) {
            self.out.explicit_title.clone_from(&title);
        }
        transcript.title = title;
        transcript.cwd = line.cwd.filter(|c| !c.is_empty());
        if let (Some(session), Some(call)) = (line.calling_session_id, line.calling_tool_use_id) {
            self.out.calling = Some(Calling { session, call });
        }
    }

    fn message(&mut self, line: Line) {
        let Some(message) = line.message else { return };
        if self.out.created.is_none() {
            self.out.created.clone_from(&line.timestamp);
        }
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        let content = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
            _ => Vec::new(),
        };
        match role {
            "user" if message.get("visibility").and_then(Value::as_str) == Some("llm_only") => {
                // Its text parts (one per reminder) as one block of context.
                let mut texts = Vec::new();
                let mut others = Vec::new();
                for block in &content {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => texts.push(content_text(&block["text"])),
                        _ => others.push(user_block(block)),
                    }
                }
                if !texts.is_empty() {
                    self.context.push(Block::Context { title: CONTEXT_TITLE.to_owned(), text: texts.join("\n\n") });
                }
                self.context.append(&mut others);
            }
            "user" => self.user(line.id, line.timestamp, &content),
            "assistant" => self.assistant(line.id, line.timestamp.as_ref(), &content),
            _ => {
                let what = format!("message of role {role}");
                self.out
                    .transcript
                    .messages
                    .push(Message::new(Role::System).with(Block::Unknown { what, raw: message }));
                self.answer = None;
            }
        }
    }

    fn user(&mut self, id: Option<String>, timestamp: Option<String>, content: &[Value]) {
        let mut blocks = Vec::new();
        for block in content {
            if block.get("type").and_then(Value::as_str) == Some("tool_result") {
                self.result(block, id.as_deref(), timestamp.as_deref());
            } else {
                blocks.push(user_block(block));
            }
        }
        if blocks.is_empty() {
            return;
        }
        blocks.append(&mut self.context);
        let mut message = Message::new(Role::User).at(id, timestamp);
        message.blocks = blocks;
        self.out.transcript.messages.push(message);
        self.answer = None;
    }

    /// Completes the call a `tool_result` block answers.
    fn result(&mut self, block: &Value, entry: Option<&str>, timestamp: Option<&str>) {
        let text = content_text(block.get("content").unwrap_or(&Value::Null));
        let is_error = block.get("is_error").is_some_and(crate::jsonl::is_truthy);
        let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
        match self.calls.get(id) {
            Some(&(m, b)) => {
                if let Block::ToolCall(call) = &mut self.out.transcript.messages[m].blocks[b] {
                    call.complete(Some(text), is_error, timestamp.map(ToOwned::to_owned));
                }
            }
            None => self.out.late.push(LateResult { entry_id: entry.map(ToOwned::to_owned), text }),
        }
    }

    fn assistant(&mut self, id: Option<String>, timestamp: Option<&String>, content: &[Value]) {
        let messages = &mut self.out.transcript.messages;
        let at = if let Some(at) = self.answer {
            at
        } else {
            messages.push(Message::new(Role::Assistant).at(id, timestamp.cloned()));
            messages.len() - 1
        };
        self.answer = Some(at);
        for block in content {
            let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
            let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let block = match kind {
                "text" => Block::Text { text: text("text") },
                "thinking" => Block::Thinking { text: text("thinking") },
                "tool_use" => {
                    let mut call =
                        ToolCall::running(text("id"), text("name"), block.get("input").cloned().unwrap_or(Value::Null));
                    call.started_at = timestamp.cloned();
                    self.calls.insert(call.id.clone(), (at, messages[at].blocks.len()));
                    Block::ToolCall(call)
                }
                _ => user_block(block),
            };
            messages[at].blocks.push(block);
        }
    }

    fn finish(mut self, whole: bool) -> Parsed {
        if !self.context.is_empty() {
            // Context sent with no prompt after it (yet).
            let mut message = Message::new(Role::User);
            message.blocks = std::mem::take(&mut self.context);
            self.out.transcript.messages.push(message);
        }
        if whole {
            finish_pending(&mut self.out.transcript.messages);
        }
        self.out
    }
}

/// A content block of a message that is not a tool call or result: text, an
/// image, or one the reader does not know, kept as written.
fn user_block(block: &Value) -> Block {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => Block::Text { text: content_text(&block["text"]) },
        Some("image") => {
            let source = block.get("source");
            let field = |key: &str| source.and_then(|s| s.get(key)).and_then(Value::as_str).map(ToOwned::to_owned);
            Block::Image(Image { media_type: field("media_type"), data: field("data"), url: field("url") })
        }
        kind => Block::Unknown { what: kind.unwrap_or("block without a type").to_owned(), raw: block.clone() },
    }
}
