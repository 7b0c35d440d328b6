//! A conversation handed to another agent: any agent's [`Transcript`] as the
//! turns a model API takes (user turns, assistant turns with their tool
//! calls, the calls' results, a compaction summary), which a target agent's
//! [`Source::hand_off`](crate::Source::hand_off) writes as a new session of
//! its own.
//!
//! What goes over: the messages from the last compaction summary on (what
//! the agent itself would send the model next), the users' and assistants'
//! text, attached context as the user's text, images kept inline, thinking
//! (each target says whether it keeps it), and every tool call paired with
//! its result: a call the session ended without a result for gets one that
//! says so, since every model API refuses a call left unanswered. Errors the
//! harness reported, the harness's own system messages and parts no reader
//! understands stay behind. The first user turn begins with a note naming
//! the session it came from ([`Origin::note`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sess_store::SessionStorage as _;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::source::SourceKind;
use crate::transcript::{Block, Message, Role, ToolStatus, Transcript, one_line};

/// What a call the session ended without a result for is answered with.
pub const NO_RESULT: &str = "[no result: the session ended before this call returned]";

/// The words a handed-over session's note begins with.
const NOTE_START: &str = "[Handed over by sess from ";

/// The session a handoff came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The agent that wrote it.
    pub source: SourceKind,
    /// Its id.
    pub id: String,
    /// Where it is (a file, or a database and the session's id in it).
    pub path: String,
}

impl Origin {
    /// The note a handed-over session begins with:
    /// `[Handed over by sess from Codex session ID (PATH).]`.
    pub fn note(&self) -> String {
        format!("{NOTE_START}{} session {} ({}).]", self.source.agent_name(), self.id, self.path)
    }
}

/// The note a handed-over session begins with, when `text` starts with one:
/// `Codex session ID (PATH)`, what [`Origin::note`] names.
pub fn handed_over_from(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(NOTE_START)?;
    let end = rest.find(").]")?;
    Some(&rest[..=end])
}

/// `text` without the note a handed-over session begins with (and the
/// white space after it); `text` itself when it has none.
pub fn without_note(text: &str) -> &str {
    match text.strip_prefix(NOTE_START).and_then(|rest| rest.find(").]").map(|end| &rest[end + 3..])) {
        Some(rest) => rest.trim_start(),
        None => text,
    }
}

/// A part of a user turn.
#[derive(Clone, Debug, PartialEq)]
pub enum UserPart {
    /// Text.
    Text(String),
    /// An inline image.
    Image {
        /// `image/png`, …
        media_type: String,
        /// The base64 data.
        data: String,
    },
}

/// A part of an assistant turn.
#[derive(Clone, Debug, PartialEq)]
pub enum AssistantPart {
    /// Text.
    Text(String),
    /// Reasoning, as text (no provider's signature comes with it).
    Thinking(String),
    /// A tool call; its result is in the [`Item::Results`] that follows.
    Call {
        /// The call's id: the original's, reduced to `[A-Za-z0-9_-]` (at most
        /// 64 characters, unique in the handoff), which every target takes.
        id: String,
        /// The tool.
        name: String,
        /// Its arguments.
        input: Value,
    },
}

/// The result of a call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// The call's id, as in [`AssistantPart::Call`].
    pub id: String,
    /// The tool.
    pub name: String,
    /// What it returned.
    pub output: String,
    /// Whether it failed (or never returned).
    pub is_error: bool,
}

/// One turn of the conversation, as a model API takes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// The summary a compaction left in place of the older turns (only ever
    /// the first item).
    Summary(String),
    /// The user's turn.
    User(Vec<UserPart>),
    /// The model's turn; when it ends with calls, their results follow.
    Assistant(Vec<AssistantPart>),
    /// The results of the calls of the turn before, in its order.
    Results(Vec<ToolResult>),
}

/// A conversation to hand to another agent.
#[derive(Clone, Debug)]
pub struct Handoff {
    /// Where it came from.
    pub origin: Origin,
    /// The directory the agent worked in, where the new session is kept.
    pub cwd: PathBuf,
    /// The session's title, or its first prompt on one line.
    pub title: Option<String>,
    /// The turns, oldest first; the first user turn begins with the
    /// [note](Origin::note).
    pub items: Vec<Item>,
    /// How many blocks stayed behind (errors, the harness's notices, parts
    /// no reader understands).
    pub left_out: usize,
}

impl Handoff {
    /// `transcript` (whole, or at a leaf) as a handoff from `origin`, kept
    /// for `cwd`.
    pub fn new(transcript: &Transcript, origin: Origin, cwd: PathBuf) -> Self {
        let from = transcript
            .messages
            .iter()
            .rposition(|m| m.blocks.iter().any(|b| matches!(b, Block::Summary { .. })))
            .unwrap_or(0);
        let mut turns = Turns::default();
        for message in &transcript.messages[from..] {
            turns.message(message);
        }
        let mut items = turns.finish();
        let note = UserPart::Text(origin.note());
        let at = usize::from(matches!(items.first(), Some(Item::Summary(_))));
        match items.get_mut(at) {
            Some(Item::User(parts)) => parts.insert(0, note),
            _ => items.insert(at, Item::User(vec![note])),
        }
        let title = transcript.title.clone().or_else(|| transcript.first_prompt().map(|p| one_line(p, 80)));
        Self { origin, cwd, title, items, left_out: turns.left_out }
    }

    /// About how many tokens the conversation takes in a model's window:
    /// a quarter of its characters (an image counts as its base64 data).
    pub fn estimated_tokens(&self) -> usize {
        let chars: usize = self
            .items
            .iter()
            .map(|item| match item {
                Item::Summary(text) => text.chars().count(),
                Item::User(parts) => parts
                    .iter()
                    .map(|p| match p {
                        UserPart::Text(text) => text.chars().count(),
                        UserPart::Image { data, .. } => data.len(),
                    })
                    .sum(),
                Item::Assistant(parts) => parts
                    .iter()
                    .map(|p| match p {
                        AssistantPart::Text(text) | AssistantPart::Thinking(text) => text.chars().count(),
                        AssistantPart::Call { name, input, .. } => name.len() + input.to_string().chars().count(),
                    })
                    .sum(),
                Item::Results(results) => results.iter().map(|r| r.output.chars().count()).sum(),
            })
            .sum();
        chars.div_ceil(4)
    }
}

/// A session a handoff wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Its id, as the agent resumes it.
    pub id: String,
    /// Its file.
    pub path: PathBuf,
    /// The command that resumes it, run in the session's directory.
    pub resume: Vec<String>,
    /// The tokens the agent's usual model takes in its window, for the warning
    /// a larger conversation gets.
    pub window_tokens: usize,
}

/// Writes `bytes` as the new file `path` (its folders made as needed):
/// `sess_store`'s `write_new`, the one way `sess` makes a file where nothing
/// may be replaced (written and synced under another name, then given its
/// own, which fails when anything is there: [`Error::Exists`]).
pub(crate) fn create_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let storage = sess_store::FileStorage;
    if let Some(dir) = path.parent() {
        storage.create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_owned(), source })?;
    }
    match sess_store::storage::write_new(&storage, path, bytes) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Err(Error::Exists { path: path.to_owned() }),
        Err(source) => Err(Error::Io { path: path.to_owned(), source }),
    }
}

/// A timestamp `step` milliseconds after `start`, as the agents write them:
/// `2026-12-07T13:41:35.123Z`.
pub(crate) fn timestamp_at(start: jiff::Timestamp, step: usize) -> String {
    let at = start + jiff::SignedDuration::from_millis(i64::try_from(step).unwrap_or(i64::MAX));
    format!("{}.{:03}Z", at.strftime("%Y-%m-%dT%H:%M:%S"), at.subsec_millisecond())
}

/// Lines that name their parent (`parentUuid`), as Claude Code and Qwen Code
/// chain theirs: each gets its own `uuid`, its parent's, the fields every
/// line of the session has, and a timestamp a millisecond after the line
/// before.
pub(crate) struct Chain {
    common: serde_json::Map<String, Value>,
    start: jiff::Timestamp,
    parent: Option<String>,
    count: usize,
    /// The lines so far, each ended by a newline.
    pub(crate) out: String,
}

impl Chain {
    /// A chain whose lines all carry `common` (the session's id, its
    /// directory, …).
    pub(crate) fn new(common: Value) -> Self {
        let common = match common {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        Self { common, start: jiff::Timestamp::now(), parent: None, count: 0, out: String::new() }
    }

    /// Adds `line`, chained to the line before; a `root` starts a chain of
    /// its own (its parent is null).
    pub(crate) fn push(&mut self, mut line: Value, root: bool) {
        let uuid = uuid::Uuid::new_v4().to_string();
        if let Value::Object(map) = &mut line {
            map.insert("uuid".into(), Value::String(uuid.clone()));
            let parent = if root { None } else { self.parent.clone() };
            map.insert("parentUuid".into(), parent.map_or(Value::Null, Value::String));
            map.insert("timestamp".into(), Value::String(timestamp_at(self.start, self.count)));
            map.extend(self.common.clone());
        }
        self.count += 1;
        self.parent = Some(uuid);
        self.line(&line);
    }

    /// Adds `line` as it is, outside the chain.
    pub(crate) fn line(&mut self, line: &Value) {
        self.out.push_str(&line.to_string());
        self.out.push('\n');
    }
}

/// Builds the items from messages: an assistant message splits where a
/// call is followed by more of the model's output, and the results of its
/// calls come between.
#[derive(Default)]
struct Turns {
    items: Vec<Item>,
    assistant: Vec<AssistantPart>,
    results: Vec<ToolResult>,
    taken: HashMap<String, usize>,
    left_out: usize,
}

impl Turns {
    fn message(&mut self, message: &Message) {
        let mut user = Vec::new();
        for block in &message.blocks {
            match (message.role, block) {
                (_, Block::Summary { text }) => {
                    self.flush();
                    self.items.clear();
                    self.items.push(Item::Summary(text.clone()));
                }
                (Role::System, _) | (_, Block::Error { .. } | Block::Unknown { .. }) => self.left_out += 1,
                (Role::User, Block::Text { text } | Block::Thinking { text }) => {
                    user.push(UserPart::Text(text.clone()));
                }
                (_, Block::Context { title, text }) => {
                    let text = format!("{title}:\n{text}");
                    match message.role {
                        Role::User => user.push(UserPart::Text(text)),
                        _ => self.say(AssistantPart::Text(text)),
                    }
                }
                (_, Block::Image(image)) => match (&image.data, &image.media_type, message.role) {
                    (Some(data), Some(media_type), Role::User) => {
                        user.push(UserPart::Image { media_type: media_type.clone(), data: data.clone() });
                    }
                    _ => self.left_out += 1,
                },
                (Role::Assistant, Block::Text { text }) => self.say(AssistantPart::Text(text.clone())),
                (Role::Assistant, Block::Thinking { text }) => self.say(AssistantPart::Thinking(text.clone())),
                (_, Block::ToolCall(call)) => {
                    let id = self.id_for(&call.id);
                    self.assistant.push(AssistantPart::Call {
                        id: id.clone(),
                        name: call.name.clone(),
                        input: call.input.clone(),
                    });
                    let (output, is_error) = match (call.status, &call.result) {
                        (ToolStatus::Running | ToolStatus::Pending, _) => (NO_RESULT.to_owned(), true),
                        (status, result) => (result.clone().unwrap_or_default(), status == ToolStatus::Failed),
                    };
                    self.results.push(ToolResult { id, name: call.name.clone(), output, is_error });
                }
            }
        }
        if message.role != Role::Assistant {
            self.flush();
        }
        if !user.is_empty() {
            self.items.push(Item::User(user));
        }
    }

    /// Adds the model's output: after calls, it opens a new turn.
    fn say(&mut self, part: AssistantPart) {
        if !self.results.is_empty() {
            self.flush();
        }
        self.assistant.push(part);
    }

    /// Ends the assistant turn in progress, and its calls' results.
    fn flush(&mut self) {
        if !self.assistant.is_empty() {
            self.items.push(Item::Assistant(std::mem::take(&mut self.assistant)));
        }
        if !self.results.is_empty() {
            self.items.push(Item::Results(std::mem::take(&mut self.results)));
        }
    }

    /// The id for the call `original`: its characters outside
    /// `[A-Za-z0-9_-]` made `_`, cut at 64, made unique.
    fn id_for(&mut self, original: &str) -> String {
        let mut id: String = original
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .take(56)
            .collect();
        if id.is_empty() {
            id.push_str("call");
        }
        let seen = self.taken.entry(id.clone()).or_insert(0);
        *seen += 1;
        if *seen > 1 {
            id = format!("{id}_{seen}");
        }
        id
    }

    fn finish(&mut self) -> Vec<Item> {
        self.flush();
        std::mem::take(&mut self.items)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::transcript::{Image, ToolCall};

    fn origin() -> Origin {
        Origin { source: crate::codex::SOURCE, id: "abc".into(), path: "/r.jsonl".into() }
    }

    fn call(id: &str, status: ToolStatus, result: Option<&str>) -> Block {
        let mut call = ToolCall::running(id, "exec", json!({"cmd": "ls"}));
        if status != ToolStatus::Running {
            call.complete(result.map(str::to_owned), status == ToolStatus::Failed, None);
            call.status = status;
        }
        Block::ToolCall(call)
    }

    fn handoff(messages: Vec<Message>) -> Handoff {
        let mut transcript = Transcript::new(crate::codex::SOURCE, "abc");
        transcript.messages = messages;
        Handoff::new(&transcript, origin(), PathBuf::from("/p"))
    }

    #[test]
    fn calls_are_answered_before_the_model_goes_on() {
        let got = handoff(vec![
            Message::new(Role::User).with(Block::text("go")),
            Message::new(Role::Assistant)
                .with(Block::Thinking { text: "plan".into() })
                .with(Block::text("running"))
                .with(call("c:1", ToolStatus::Succeeded, Some("a b")))
                .with(call("c:1", ToolStatus::Failed, Some("boom")))
                .with(Block::text("then"))
                .with(call("c2", ToolStatus::Pending, None))
                .with(Block::Error { text: "API error".into() }),
            Message::new(Role::System).with(Block::text("notice")),
        ]);
        let note = UserPart::Text("[Handed over by sess from Codex session abc (/r.jsonl).]".into());
        let result = |id: &str, output: &str, is_error| ToolResult {
            id: id.into(),
            name: "exec".into(),
            output: output.into(),
            is_error,
        };
        let call = |id: &str| AssistantPart::Call { id: id.into(), name: "exec".into(), input: json!({"cmd": "ls"}) };
        assert_eq!(
            got.items,
            vec![
                Item::User(vec![note, UserPart::Text("go".into())]),
                Item::Assistant(vec![
                    AssistantPart::Thinking("plan".into()),
                    AssistantPart::Text("running".into()),
                    call("c_1"),
                    call("c_1_2"),
                ]),
                Item::Results(vec![result("c_1", "a b", false), result("c_1_2", "boom", true)]),
                Item::Assistant(vec![AssistantPart::Text("then".into()), call("c2")]),
                Item::Results(vec![result("c2", NO_RESULT, true)]),
            ]
        );
        assert_eq!(got.left_out, 2);
    }

    #[test]
    fn a_summary_replaces_what_came_before_and_the_note_follows_it() {
        let got = handoff(vec![
            Message::new(Role::User).with(Block::text("old")),
            Message::new(Role::Assistant).with(Block::text("old answer")),
            Message::new(Role::System).with(Block::Summary { text: "we did things".into() }),
            Message::new(Role::Assistant).with(Block::text("kept")),
        ]);
        assert_eq!(got.items[0], Item::Summary("we did things".into()));
        assert!(matches!(&got.items[1], Item::User(parts) if parts.len() == 1));
        assert_eq!(got.items[2], Item::Assistant(vec![AssistantPart::Text("kept".into())]));
        assert_eq!(got.items.len(), 3);
    }

    #[test]
    fn context_and_inline_images_go_as_the_users() {
        let image = Image { media_type: Some("image/png".into()), data: Some("AAAA".into()), url: None };
        let linked = Image { media_type: None, data: None, url: Some("https://x/y.png".into()) };
        let got = handoff(vec![
            Message::new(Role::User)
                .with(Block::text("look"))
                .with(Block::Image(image))
                .with(Block::Image(linked))
                .with(Block::Context { title: "Attached file".into(), text: "a.rs".into() }),
        ]);
        assert_eq!(
            got.items[0],
            Item::User(vec![
                UserPart::Text(origin().note()),
                UserPart::Text("look".into()),
                UserPart::Image { media_type: "image/png".into(), data: "AAAA".into() },
                UserPart::Text("Attached file:\na.rs".into()),
            ])
        );
        assert_eq!(got.left_out, 1);
        assert_eq!(got.estimated_tokens(), (origin().note().chars().count() + 4 + 4 + 20).div_ceil(4));
    }

    #[test]
    fn a_file_that_is_there_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b.jsonl");
        create_new(&path, b"one").unwrap();
        assert!(matches!(create_new(&path, b"two"), Err(Error::Exists { .. })));
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
    }

    #[test]
    fn the_note_names_the_session_and_is_found_again() {
        assert_eq!(handed_over_from(&origin().note()), Some("Codex session abc (/r.jsonl)"));
        assert_eq!(handed_over_from("hello"), None);
        assert_eq!(without_note(&format!("{}\n\nList the files.", origin().note())), "List the files.");
        assert_eq!(without_note(&origin().note()), "");
        assert_eq!(without_note("hello"), "hello");
    }
}
