//! From rollout lines to a transcript: the mapping rules of the `codex` module
//! docs, applied line by line.

use std::collections::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;
use sess_core::LineIssue;

use super::echo::{self, Echoes, Kind, Origin};
use super::injected::is_injected;
use super::line::{
    Compacted, ContentItem, Envelope, Event, HistoryBase, LineKind, MessageRole, ResponseItem, SessionMeta,
};
use super::output::interpret;
use crate::jsonl::{JsonLines, RawLine};
use crate::transcript::{Block, Image, Message, Role, ToolCall, Transcript, finish_pending};

/// A rollout read: its transcript and the session facts beside it.
#[derive(Debug)]
pub(crate) struct Rollout {
    /// The transcript (id and cwd from `session_meta`, no title).
    pub(crate) transcript: Transcript,
    /// `session_meta.timestamp`, else the timestamp of its line.
    pub(crate) created: Option<String>,
    /// `session_meta.forked_from_id`.
    pub(crate) forked_from: Option<String>,
    /// How many messages, at the start of the transcript, came from the
    /// rollouts this one continues (a fork by reference); the rest are its own.
    pub(crate) inherited: usize,
}

impl Rollout {
    /// The first prompt among the rollout's own messages.
    pub(crate) fn own_first_prompt(&self) -> Option<&str> {
        crate::transcript::first_prompt(&self.transcript.messages[self.inherited.min(self.transcript.messages.len())..])
    }
}

/// The history a forked rollout continues, read from another rollout.
#[derive(Debug)]
pub(crate) struct Ancestor {
    /// That rollout's (decompressed) bytes.
    pub(crate) bytes: Vec<u8>,
    /// Where the history ends in it: the `history_base` of its child.
    pub(crate) end: HistoryBase,
}

/// The thread's history before a forked rollout's own lines.
#[derive(Debug, Default)]
pub(crate) struct Inherited {
    /// The rollout whose history could not be read, where the chain of bases
    /// breaks: it was not found, or it leads back into the chain.
    pub(crate) missing: Option<String>,
    /// The ancestors that were read, oldest first (after the missing one).
    pub(crate) ancestors: Vec<Ancestor>,
}

/// Reads the (decompressed) bytes of a rollout.
pub(crate) fn read(bytes: &[u8]) -> Rollout {
    read_continuing(&Inherited::default(), bytes)
}

/// Reads lines of a rollout that follow its first `lines_before` lines: ids
/// and issues keep the file's line numbers.
pub(crate) fn read_after(bytes: &[u8], lines_before: usize) -> Rollout {
    read_lines(&Inherited::default(), JsonLines::after(bytes, lines_before))
}

/// Reads a rollout that continues the history of `inherited`: the ancestors'
/// lines up to each one's end (their own `session_meta` lines aside), then the
/// rollout's own. Only the rollout's own lines report issues.
pub(crate) fn read_continuing(inherited: &Inherited, bytes: &[u8]) -> Rollout {
    read_lines(inherited, JsonLines::new(bytes))
}

fn read_lines(inherited: &Inherited, lines: JsonLines<'_>) -> Rollout {
    let mut reader = Reader::new();
    if let Some(id) = &inherited.missing {
        let notice = format!("Forked from rollout {id}, whose history was not found");
        reader.messages().push(Message::new(Role::System).with(Block::text(notice)));
    }
    for ancestor in &inherited.ancestors {
        reader.ancestor(ancestor);
    }
    reader.rollout.inherited = reader.rollout.transcript.messages.len();
    for line in lines {
        let envelope = match envelope(&line) {
            Ok(envelope) => envelope,
            Err(issue) => {
                reader.rollout.transcript.issues.push(issue);
                continue;
            }
        };
        let at = At::new(&envelope, line.number);
        reader.line(&envelope, &at);
    }
    reader.finish()
}

/// A line's envelope. Only a line that is not JSON, or not a JSON object, is
/// an issue: every field is read leniently.
fn envelope<'a>(line: &'a RawLine<'_>) -> Result<Envelope<'a>, LineIssue> {
    line.parse_object()
}

/// The first `session_meta` that parses, read without building a transcript.
pub(crate) fn meta(bytes: &[u8]) -> Option<SessionMeta> {
    JsonLines::new(bytes).find_map(|line| {
        let envelope = line.parse::<Envelope<'_>>().ok()?;
        if envelope.kind != LineKind::SessionMeta {
            return None;
        }
        // As in `read`, the first meta that parses counts.
        serde_json::from_str::<SessionMeta>(envelope.payload?.get()).ok()
    })
}

/// The `cwd` of the first `session_meta` line (for filtering a listing by
/// project).
pub(crate) fn meta_cwd(bytes: &[u8]) -> Option<String> {
    meta(bytes)?.cwd
}

/// Where a line is: the message id and timestamp of what it opens.
#[derive(Clone, Debug)]
struct At {
    /// The message id: the line's `ordinal` + 1 when it has one (unique
    /// across the rollouts of a fork, and the line number in a rollout of
    /// its own), else its line number.
    line: usize,
    timestamp: Option<String>,
}

impl At {
    fn new(envelope: &Envelope<'_>, number: usize) -> Self {
        let line = envelope.ordinal.and_then(|o| usize::try_from(o).ok()).map_or(number, |o| o.saturating_add(1));
        Self { line, timestamp: envelope.timestamp.clone() }
    }
}

impl At {
    fn message(&self, role: Role) -> Message {
        Message::new(role).at(Some(self.line.to_string()), self.timestamp.clone())
    }
}

struct Reader {
    rollout: Rollout,
    meta_seen: bool,
    /// Open tool calls by `call_id`: (message index, block index).
    calls: HashMap<String, (usize, usize)>,
    echoes: Echoes,
}

impl Reader {
    fn new() -> Self {
        Self {
            rollout: Rollout {
                transcript: Transcript::new(super::SOURCE, ""),
                created: None,
                forked_from: None,
                inherited: 0,
            },
            meta_seen: false,
            calls: HashMap::new(),
            echoes: Echoes::default(),
        }
    }

    /// An ancestor's lines up to its end, read like the rollout's own but
    /// without its `session_meta` and without reporting its issues (they are
    /// another file's).
    fn ancestor(&mut self, ancestor: &Ancestor) {
        let end = ancestor.end.end_byte_offset.and_then(|end| usize::try_from(end).ok());
        let bytes = &ancestor.bytes[..end.unwrap_or(usize::MAX).min(ancestor.bytes.len())];
        for line in JsonLines::new(bytes) {
            let Ok(envelope) = line.parse::<Envelope<'_>>() else { continue };
            let past_the_end =
                envelope.ordinal.zip(ancestor.end.end_ordinal_exclusive).is_some_and(|(o, end)| o >= end);
            if envelope.kind == LineKind::SessionMeta || past_the_end {
                continue;
            }
            self.line(&envelope, &At::new(&envelope, line.number));
        }
    }

    fn finish(mut self) -> Rollout {
        finish_pending(&mut self.rollout.transcript.messages);
        self.rollout
    }

    fn messages(&mut self) -> &mut Vec<Message> {
        &mut self.rollout.transcript.messages
    }

    /// Takes one line. A payload of a known line type that does not have its
    /// shape even read leniently (not an object, no `type`), and a response
    /// item of a type this reader does not know, are a system message holding
    /// an `unknown` block.
    fn line(&mut self, envelope: &Envelope<'_>, at: &At) {
        let payload = envelope.payload.map_or("null", RawValue::get);
        let understood = match envelope.kind {
            LineKind::SessionMeta => serde_json::from_str(payload).map(|meta| self.session_meta(meta, at)).is_ok(),
            // The summary a compaction asked for is shown by its `compacted` line.
            LineKind::ResponseItem if envelope.metadata.as_ref().is_some_and(|m| m.compaction_output) => true,
            LineKind::ResponseItem => match serde_json::from_str(payload) {
                Ok(ResponseItem::Other) | Err(_) => false,
                Ok(item) => {
                    self.item(item, at);
                    true
                }
            },
            LineKind::EventMsg => serde_json::from_str(payload).map(|event| self.event(event, at)).is_ok(),
            LineKind::Compacted => serde_json::from_str(payload).map(|c| self.compacted(&c, at)).is_ok(),
            LineKind::Other => true,
        };
        if !understood {
            let raw: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
            let what = match raw.get("type").and_then(Value::as_str) {
                Some(kind) => format!("{} {kind}", envelope.kind.as_str()),
                None => envelope.kind.as_str().to_owned(),
            };
            self.push_system(at, Block::Unknown { what, raw });
        }
    }

    /// The first `session_meta` is the thread's; later ones (copied by a
    /// fork) are ignored.
    fn session_meta(&mut self, meta: SessionMeta, at: &At) {
        if std::mem::replace(&mut self.meta_seen, true) {
            return;
        }
        let rollout = &mut self.rollout;
        rollout.transcript.id = meta.id.or(meta.session_id).unwrap_or_default();
        rollout.transcript.cwd = meta.cwd;
        rollout.created = meta.timestamp.or_else(|| at.timestamp.clone());
        rollout.forked_from = meta.forked_from_id;
    }

    fn item(&mut self, item: ResponseItem, at: &At) {
        match item {
            ResponseItem::Message { role, content } => match role {
                MessageRole::User => self.user_item(&content, at),
                MessageRole::Assistant => self.assistant_text(&content, Origin::Item, at),
                MessageRole::Developer | MessageRole::System | MessageRole::Other => {}
            },
            ResponseItem::Reasoning { summary, content } => {
                let parts = if summary.iter().any(|p| !p.text.trim().is_empty()) { summary } else { content };
                for part in parts {
                    self.reasoning(&part.text, Origin::Item, at);
                }
            }
            ResponseItem::FunctionCall { name, arguments, call_id } => {
                let call_id = call_id.unwrap_or_else(|| at.line.to_string());
                self.call(call_id, name, parse_arguments(arguments), at);
            }
            ResponseItem::CustomToolCall { name, input, call_id } => {
                self.call(call_id.unwrap_or_else(|| at.line.to_string()), name, input, at);
            }
            ResponseItem::LocalShellCall { call_id, id, action } => {
                let call_id = call_id.or(id).unwrap_or_else(|| at.line.to_string());
                self.call(call_id, "local_shell".to_owned(), action, at);
            }
            ResponseItem::FunctionCallOutput { call_id, output }
            | ResponseItem::CustomToolCallOutput { call_id, output } => {
                if let Some(call_id) = call_id {
                    self.complete(&call_id, &output, at);
                }
            }
            ResponseItem::WebSearchCall { status, action } => self.web_search(status.as_deref(), action, at),
            ResponseItem::GhostSnapshot | ResponseItem::Other => {}
        }
    }

    fn event(&mut self, event: Event, at: &At) {
        match event {
            Event::UserMessage { message, images, local_images } => {
                self.user_event(&message, &images, local_images, at);
            }
            Event::AgentMessage { message } => {
                self.assistant_text(&[ContentItem::OutputText { text: message }], Origin::Event, at);
            }
            Event::AgentReasoning { text } => self.reasoning(&text, Origin::Event, at),
            Event::ThreadRolledBack { num_turns } => {
                let text = format!("Rolled back {num_turns} turn{}", if num_turns == 1 { "" } else { "s" });
                self.push_system(at, Block::text(text));
            }
            Event::TurnAborted { reason } => {
                // Calls of the aborted turn will get no result.
                finish_pending(self.messages());
                let text = match reason.as_deref().map(str::trim) {
                    Some(reason) if !reason.is_empty() => format!("Turn aborted ({reason})"),
                    _ => "Turn aborted".to_owned(),
                };
                self.push_system(at, Block::text(text));
            }
            Event::Error { message } => self.error(message, at),
            Event::TaskComplete { error: Some(error) } if !error.message.trim().is_empty() => {
                // Once, should an `error` event have said it already.
                let said = self.messages().last().and_then(|m| m.blocks.last())
                    == Some(&Block::Error { text: error.message.clone() });
                if !said {
                    self.error(error.message, at);
                }
            }
            Event::TaskComplete { .. } | Event::Other => {}
        }
    }

    /// An error block in the assistant bubble.
    fn error(&mut self, message: String, at: &At) {
        let index = self.assistant(at);
        self.messages()[index].blocks.push(Block::Error { text: message });
    }

    fn compacted(&mut self, compacted: &Compacted, at: &At) {
        let message = without_summary_preamble(&compacted.message);
        let text = if message.trim().is_empty() { "Context compacted" } else { message };
        self.push_system(at, Block::Summary { text: text.to_owned() });
    }

    /// Adds a system notice.
    fn push_system(&mut self, at: &At, block: Block) {
        self.echoes.close_prompts();
        self.messages().push(at.message(Role::System).with(block));
    }

    /// The assistant message new output goes to: the last message when it is
    /// the assistant's, else a new one opened at `at`.
    fn assistant(&mut self, at: &At) -> usize {
        self.echoes.close_prompts();
        let messages = self.messages();
        match messages.last() {
            Some(last) if last.role == Role::Assistant => messages.len() - 1,
            _ => {
                messages.push(at.message(Role::Assistant));
                messages.len() - 1
            }
        }
    }

    fn user_item(&mut self, content: &[ContentItem], at: &At) {
        let keys = echo::keys(texts(content));
        if keys.first().is_some_and(|text| is_injected(text)) {
            return;
        }
        let blocks = blocks(content);
        if let Some(index) = self.echoes.pair(Kind::User, Origin::Item, &keys) {
            // The event came first: show what the model saw.
            let message = &mut self.messages()[index];
            if message.role == Role::User && !blocks.is_empty() {
                message.blocks = blocks;
            }
            return;
        }
        self.push_user(blocks, keys, Origin::Item, at);
    }

    fn user_event(&mut self, message: &str, images: &[String], local_images: Vec<String>, at: &At) {
        let keys = echo::keys([message]);
        if is_injected(message) || self.echoes.pair(Kind::User, Origin::Event, &keys).is_some() {
            return;
        }
        let mut blocks = Vec::new();
        if !message.trim().is_empty() {
            blocks.push(Block::text(message));
        }
        blocks.extend(images.iter().map(|url| Block::Image(Image::from_url(url))));
        blocks.extend(
            local_images.into_iter().map(|path| Block::Image(Image { media_type: None, data: None, url: Some(path) })),
        );
        self.push_user(blocks, keys, Origin::Event, at);
    }

    fn push_user(&mut self, blocks: Vec<Block>, keys: Vec<String>, origin: Origin, at: &At) {
        if blocks.is_empty() {
            return;
        }
        let messages = self.messages();
        messages.push(Message { blocks, ..at.message(Role::User) });
        let index = messages.len() - 1;
        self.echoes.open(Kind::User, origin, keys, index);
    }

    fn assistant_text(&mut self, content: &[ContentItem], origin: Origin, at: &At) {
        let keys = echo::keys(texts(content));
        if self.echoes.pair(Kind::Assistant, origin, &keys).is_some() {
            return;
        }
        let blocks = blocks(content);
        if blocks.is_empty() {
            return;
        }
        let index = self.assistant(at);
        self.messages()[index].blocks.extend(blocks);
        self.echoes.open(Kind::Assistant, origin, keys, index);
    }

    fn reasoning(&mut self, text: &str, origin: Origin, at: &At) {
        if text.trim().is_empty() {
            return;
        }
        let keys = echo::keys([text]);
        if self.echoes.pair(Kind::Reasoning, origin, &keys).is_some() {
            return;
        }
        let index = self.assistant(at);
        self.messages()[index].blocks.push(Block::Thinking { text: text.to_owned() });
        self.echoes.open(Kind::Reasoning, origin, keys, index);
    }

    fn call(&mut self, call_id: String, name: String, input: Value, at: &At) {
        let mut call = ToolCall::running(call_id.clone(), name, input);
        call.started_at.clone_from(&at.timestamp);
        let index = self.assistant(at);
        let blocks = &mut self.messages()[index].blocks;
        blocks.push(Block::ToolCall(call));
        let position = (index, blocks.len() - 1);
        self.calls.insert(call_id, position);
    }

    /// Completes the open call `call_id`; an output without a call is dropped.
    fn complete(&mut self, call_id: &str, output: &Value, at: &At) {
        let Some((message, block)) = self.calls.remove(call_id) else { return };
        if let Some(Block::ToolCall(call)) = self.messages().get_mut(message).and_then(|m| m.blocks.get_mut(block)) {
            let output = interpret(output);
            call.complete(Some(output.text), output.failed, at.timestamp.clone());
        }
    }

    /// A web search has no output item: its status is in the call.
    fn web_search(&mut self, status: Option<&str>, action: Value, at: &At) {
        let mut call = ToolCall::running(at.line.to_string(), "web_search", action);
        call.started_at.clone_from(&at.timestamp);
        match status {
            Some("completed") => call.complete(None, false, at.timestamp.clone()),
            Some("failed") => call.complete(None, true, at.timestamp.clone()),
            _ => {}
        }
        let index = self.assistant(at);
        self.messages()[index].blocks.push(Block::ToolCall(call));
    }
}

/// A compaction's summary without the preamble Codex 0.171 writes before it
/// for the next model ("Another language model started to solve this problem
/// … use the information in this summary to assist with your own analysis:").
fn without_summary_preamble(message: &str) -> &str {
    const START: &str = "Another language model started to solve this problem";
    const END: &str = "assist with your own analysis:";
    match message.find(END) {
        Some(end) if message.starts_with(START) => message[end + END.len()..].trim_start(),
        _ => message,
    }
}

/// A message's parts without the tags Codex puts around an attached image
/// for the model: `<image name=[Image #1] path="…">`, the image, `</image>`.
fn parts(content: &[ContentItem]) -> impl Iterator<Item = &ContentItem> {
    content.iter().enumerate().filter(|&(i, _)| !is_image_tag(content, i)).map(|(_, part)| part)
}

/// Whether part `i` is a one-line `<image…>` right before an image, or an
/// `</image>` right after one.
fn is_image_tag(content: &[ContentItem], i: usize) -> bool {
    let Some(ContentItem::InputText { text }) = content.get(i) else { return false };
    let image_at = |j: Option<usize>| matches!(j.and_then(|j| content.get(j)), Some(ContentItem::InputImage { .. }));
    let text = text.trim();
    if text == "</image>" {
        return image_at(i.checked_sub(1));
    }
    text.starts_with("<image") && text.ends_with('>') && !text.contains('\n') && image_at(Some(i + 1))
}

/// The texts of a message's parts.
fn texts(content: &[ContentItem]) -> impl Iterator<Item = &str> {
    parts(content).filter_map(|part| match part {
        ContentItem::InputText { text } | ContentItem::OutputText { text } => Some(text.as_str()),
        ContentItem::InputImage { .. } | ContentItem::Other(_) => None,
    })
}

/// A message's parts as blocks; blank texts are left out, and a part of
/// another type is an `unknown` block.
fn blocks(content: &[ContentItem]) -> Vec<Block> {
    parts(content)
        .filter_map(|part| match part {
            ContentItem::InputText { text } | ContentItem::OutputText { text } => {
                (!text.trim().is_empty()).then(|| Block::text(text.as_str()))
            }
            ContentItem::InputImage { image_url } => Some(Block::Image(Image::from_url(image_url))),
            ContentItem::Other(raw) => {
                let what = raw.get("type").and_then(Value::as_str).unwrap_or("content part").to_owned();
                Some(Block::Unknown { what, raw: raw.clone() })
            }
        })
        .collect()
}

/// A function call's arguments: the JSON in the string, else the string
/// itself; arguments that are already JSON stay as they are.
fn parse_arguments(arguments: Value) -> Value {
    match arguments {
        Value::String(raw) => serde_json::from_str(&raw).unwrap_or(Value::String(raw)),
        other => other,
    }
}

#[cfg(test)]
#[path = "rollout_tests.rs"]
mod tests;
