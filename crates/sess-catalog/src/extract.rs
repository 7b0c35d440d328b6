//! What the catalog keeps of a session file: its metadata and the searchable
//! text of its messages.
//!
//! A whole file gives [`Full`]; the lines added since an earlier read give a
//! [`Tail`]. Only what people search for becomes text: user and assistant
//! text, tool names and the one-line gist of their input (a command, a path, a
//! pattern) — the conversation's own words — and the same of the subagents a
//! call started (role `subagent`: never the user's words); apart from them,
//! what the tools and the harness answered: the first 16 KiB of each tool
//! result (command output, a file read, an error) and error messages, as a
//! document of role `tool` that search ranks below the conversation — a
//! subagent's tool results included. Thinking, attached context, images and
//! parts not understood are left out.

use std::path::Path;

use serde_json::Value;
use sess_core::Entry;
use sess_sources::{Block, Message, Role, SourceKind, input_gist};

/// The longest text kept of one message, in bytes.
const MAX_BODY: usize = 16 * 1024;
/// The longest text kept of one tool result, in bytes: the start of an error
/// or of a command's output is what people search for.
const MAX_RESULT: usize = 16 * 1024;
/// The role of the documents that hold what tools answered.
pub(crate) const TOOL_ROLE: &str = "tool";

/// Searchable text of one message.
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    /// The entry (pi), line `uuid` (Claude Code) or line number (Codex) that
    /// opened the message.
    pub entry_id: Option<String>,
    /// `user` or `assistant`; `subagent` for either in a subagent's
    /// conversation; `tool` for what the tools answered in that message (a
    /// subagent's too); `title` for a session's own title.
    pub role: &'static str,
    /// The text.
    pub body: String,
}

/// What is kept of a whole session: what its listing shows, and its text to
/// search.
#[derive(Debug)]
pub struct Full {
    /// The session id.
    pub session_id: String,
    /// Its title: its own, else its first prompt.
    pub title: Option<String>,
    /// Whether the title is the session's own (not its first prompt).
    pub title_explicit: bool,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// When it started (ISO 8601).
    pub created: Option<String>,
    /// How many messages it has.
    pub message_count: usize,
    /// Its searchable text, message by message.
    pub docs: Vec<Doc>,
    /// The model calls it recorded.
    pub usage: Vec<sess_sources::Call>,
    /// What `sess list` shows of it ([`sess_sources::Indexed::listed`]).
    pub listed: Option<sess_sources::Listed>,
}

/// What lines added to a session file give.
#[derive(Debug, Default)]
pub struct Tail {
    /// A title of the session's own the new lines set.
    pub title: Option<String>,
    /// How many messages they add.
    pub message_count: usize,
    /// Their searchable text.
    pub docs: Vec<Doc>,
    /// The model calls they recorded.
    pub usage: Vec<sess_sources::Call>,
}

/// Reads the complete lines `bytes` of a whole file at `path` (a compressed
/// file's decompressed), as its source tells.
pub(crate) fn full(source: SourceKind, path: &Path, bytes: &[u8]) -> Result<Full, String> {
    source.source().index(path, bytes).map(full_of)
}

/// What the catalog keeps of a whole session its source read.
/// The searchable text and the listing of the session `indexed` describes.
pub fn full_of(indexed: sess_sources::Indexed) -> Full {
    Full {
        docs: docs_of(&indexed.messages),
        session_id: indexed.session_id,
        title: indexed.title,
        title_explicit: indexed.title_explicit,
        cwd: indexed.cwd,
        created: indexed.created,
        message_count: indexed.message_count,
        usage: indexed.usage,
        listed: indexed.listed,
    }
}

/// Reads complete lines added to a file of session `session_id`, after its
/// first `lines_before` lines; `None` when its source does not read files
/// in part.
pub fn tail(source: SourceKind, session_id: &str, bytes: &[u8], lines_before: usize) -> Option<Tail> {
    let added = source.source().index_added(session_id, bytes, lines_before)?;
    let mut docs = docs_of(&added.messages);
    // Turns of a subagent whose call was read before.
    docs.extend(subagent_docs_of(&added.subagent_turns));
    // Results whose call was read before.
    docs.extend(added.late_results.iter().filter_map(|late| result_doc(late.entry_id.clone(), &late.text)));
    Some(Tail { title: added.title, message_count: added.message_count, docs, usage: added.usage })
}

/// A `tool` document of one result's text, cut at [`MAX_RESULT`].
fn result_doc(entry_id: Option<String>, text: &str) -> Option<Doc> {
    let body = clean(text[..floor_char_boundary(text, MAX_RESULT)].to_owned(), MAX_RESULT);
    if body.trim().is_empty() { None } else { Some(Doc { entry_id, role: TOOL_ROLE, body }) }
}

/// The searchable text of pi-family entries, every branch included.
pub(crate) fn entry_docs(entries: &[Entry]) -> Vec<Doc> {
    docs_of(&sess_sources::pi::entry_messages(entries))
}

/// The searchable text of each user and assistant message that has some: its
/// own words, then what its tools answered, then the text of the subagents
/// its calls started.
pub(crate) fn docs_of(messages: &[Message]) -> Vec<Doc> {
    let mut docs = Vec::with_capacity(messages.len());
    for message in messages {
        docs.extend(doc_of(message));
        docs.extend(tool_doc_of(message));
        docs.extend(subagent_docs(message));
    }
    docs
}

/// The text of the subagents `message`'s calls started.
fn subagent_docs(message: &Message) -> Vec<Doc> {
    let subagents = message.blocks.iter().filter_map(|block| match block {
        Block::ToolCall(call) if !call.subagent.is_empty() => Some(&call.subagent),
        _ => None,
    });
    subagents.flat_map(|turns| subagent_docs_of(turns)).collect()
}

/// The documents of a subagent's `turns`: its words as `subagent` documents
/// (never the user's), what its tools answered as `tool` documents, like any
/// tool output.
fn subagent_docs_of(turns: &[Message]) -> Vec<Doc> {
    docs_of(turns)
        .into_iter()
        .map(|doc| if is_conversation(&doc) { Doc { role: "subagent", ..doc } } else { doc })
        .collect()
}

/// Whether the document holds the conversation's words (not a tool's).
pub(crate) fn is_conversation(doc: &Doc) -> bool {
    doc.role != TOOL_ROLE
}

fn role_of(message: &Message) -> Option<&'static str> {
    match message.role {
        Role::User => Some("user"),
        Role::Assistant => Some("assistant"),
        Role::System => None,
    }
}

fn doc_of(message: &Message) -> Option<Doc> {
    let role = role_of(message)?;
    let mut body = String::new();
    for block in &message.blocks {
        match block {
            Block::Text { text } => push_line(&mut body, text),
            Block::ToolCall(call) => {
                let gist = gist(&call.input);
                push_line(
                    &mut body,
                    &if gist.is_empty() { call.name.clone() } else { format!("{} {gist}", call.name) },
                );
            }
            Block::Thinking { .. }
            | Block::Error { .. }
            | Block::Context { .. }
            | Block::Summary { .. }
            | Block::Image(_)
            | Block::Unknown { .. } => {}
        }
    }
    let body = clean(body, MAX_BODY);
    (!body.trim().is_empty()).then(|| Doc { entry_id: message.id.clone(), role, body })
}

/// What the tools (and the harness) answered in a user or assistant message:
/// the start of each tool result and each error, with the message's id.
fn tool_doc_of(message: &Message) -> Option<Doc> {
    role_of(message)?;
    let mut body = String::new();
    for block in &message.blocks {
        let text = match block {
            Block::ToolCall(call) => call.result.as_deref(),
            Block::Error { text } => Some(text.as_str()),
            _ => None,
        };
        if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
            push_line(&mut body, &clean(text[..floor_char_boundary(text, MAX_RESULT)].to_owned(), MAX_RESULT));
        }
    }
    (!body.trim().is_empty()).then(|| Doc { entry_id: message.id.clone(), role: TOOL_ROLE, body })
}

/// What a tool call did, as one line of text (`""` when its input does not say).
fn gist(input: &Value) -> String {
    match input {
        // Codex passes arguments as a JSON string.
        Value::String(text) => serde_json::from_str::<Value>(text).ok().as_ref().and_then(input_gist),
        other => input_gist(other),
    }
    .unwrap_or_default()
}

fn push_line(body: &mut String, text: &str) {
    if !body.is_empty() {
        body.push('\n');
    }
    body.push_str(text);
}

/// The body capped at `max` bytes, without the control characters the
/// catalog marks hits with.
fn clean(mut body: String, max: usize) -> String {
    body.truncate(floor_char_boundary(&body, max));
    if body.contains(['\u{2}', '\u{3}']) {
        body.retain(|c| c != '\u{2}' && c != '\u{3}');
    }
    body
}

/// The largest index at most `max` that is a character boundary of `text`.
fn floor_char_boundary(text: &str, max: usize) -> usize {
    let mut cut = max.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use sess_sources::ToolCall;

    #[test]
    fn tool_calls_give_their_name_and_gist() {
        let call = |input| Block::ToolCall(ToolCall::running("c1", "Bash", input));
        let message = Message::new(Role::Assistant)
            .with(Block::text("running the tests"))
            .with(Block::Thinking { text: "secret plan".into() })
            .with(call(json!({"command": "cargo test -p login"})))
            .with(call(json!("{\"cmd\":[\"rg\",\"form\"]}")))
            .with(call(json!({"other": 1})));
        let doc = doc_of(&message).unwrap();
        assert_eq!(doc.body, "running the tests\nBash cargo test -p login\nBash rg form\nBash");
        assert_eq!(doc.role, "assistant");
    }

    #[test]
    fn a_subagents_turns_are_searched_as_the_subagents() {
        let mut task = ToolCall::running("t1", "Task", json!({"prompt": "find the price code"}));
        task.subagent = vec![
            Message::new(Role::User).at(Some("s1".into()), None).with(Block::text("find the price code")),
            Message::new(Role::Assistant).at(Some("s2".into()), None).with(Block::text("CartRow.jsx:18")),
        ];
        let messages = [
            Message::new(Role::User).at(Some("u1".into()), None).with(Block::text("fix prices")),
            Message::new(Role::Assistant).at(Some("a1".into()), None).with(Block::ToolCall(task)),
        ];
        let docs: Vec<_> = docs_of(&messages).into_iter().map(|d| (d.entry_id.unwrap(), d.role, d.body)).collect();
        assert_eq!(
            docs,
            [
                ("u1".to_owned(), "user", "fix prices".to_owned()),
                ("a1".to_owned(), "assistant", "Task find the price code".to_owned()),
                ("s1".to_owned(), "subagent", "find the price code".to_owned()),
                ("s2".to_owned(), "subagent", "CartRow.jsx:18".to_owned()),
            ]
        );
    }

    #[test]
    fn a_subagents_tool_results_are_tool_documents_not_its_words() {
        let mut run = ToolCall::running("b1", "Bash", json!({"command": "sqlite3 shop.db .tables"}));
        run.complete(Some("Error: no such table: prices".into()), true, None);
        let mut task = ToolCall::running("t1", "Task", json!({"prompt": "find the price table"}));
        task.subagent = vec![
            Message::new(Role::User).at(Some("s1".into()), None).with(Block::text("find the price table")),
            Message::new(Role::Assistant).at(Some("s2".into()), None).with(Block::ToolCall(run)),
        ];
        task.complete(Some("There is no prices table.".into()), false, None);
        let messages = [Message::new(Role::Assistant).at(Some("a1".into()), None).with(Block::ToolCall(task))];
        let docs: Vec<_> = docs_of(&messages).into_iter().map(|d| (d.entry_id.unwrap(), d.role, d.body)).collect();
        assert_eq!(
            docs,
            [
                ("a1".to_owned(), "assistant", "Task find the price table".to_owned()),
                ("a1".to_owned(), "tool", "There is no prices table.".to_owned()),
                ("s1".to_owned(), "subagent", "find the price table".to_owned()),
                ("s2".to_owned(), "subagent", "Bash sqlite3 shop.db .tables".to_owned()),
                ("s2".to_owned(), "tool", "Error: no such table: prices".to_owned()),
            ]
        );
    }

    #[test]
    fn a_claude_tail_catalogs_a_subagents_tool_result_once() {
        // A Task call was read before; its subagent ran a command since.
        let line = |uuid: &str, parent: Option<&str>, kind: &str, content: Value| {
            json!({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": true, "sessionId": "s",
                "message": {"role": kind, "content": content}})
            .to_string()
                + "\n"
        };
        let lines = line("s1", None, "user", json!("look for the price table"))
            + &line(
                "s2",
                Some("s1"),
                "assistant",
                json!([{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "ls"}}]),
            )
            + &line(
                "s3",
                Some("s2"),
                "user",
                json!([{"type": "tool_result", "tool_use_id": "b1", "content": "no such table: prices"}]),
            );
        let tail = tail(sess_sources::claude::SOURCE, "s", lines.as_bytes(), 4).unwrap();
        assert_eq!(tail.message_count, 0);
        let tools: Vec<_> = tail.docs.iter().filter(|d| d.role == TOOL_ROLE).map(|d| d.body.as_str()).collect();
        assert_eq!(tools, ["no such table: prices"]);
        assert!(tail.docs.iter().any(|d| d.role == "subagent" && d.body == "Bash ls"));
    }

    #[test]
    fn a_claude_tail_of_subagent_turns_adds_subagent_text_and_no_message() {
        // A Task call was read before; the lines added since are its subagent's.
        let line = |uuid: &str, parent: Option<&str>, kind: &str, content: &str| {
            let message = if kind == "user" {
                json!({"role": "user", "content": content})
            } else {
                json!({"role": "assistant", "content": [{"type": "text", "text": content}]})
            };
            json!({"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": true, "sessionId": "s",
                "message": message})
            .to_string()
                + "\n"
        };
        let lines =
            line("s1", None, "user", "look for the price code") + &line("s2", Some("s1"), "assistant", "CartRow");
        let tail = tail(sess_sources::claude::SOURCE, "s", lines.as_bytes(), 4).unwrap();
        assert_eq!(tail.message_count, 0);
        let docs: Vec<_> = tail.docs.iter().map(|d| (d.role, d.body.as_str())).collect();
        assert_eq!(docs, [("subagent", "look for the price code"), ("subagent", "CartRow")]);
    }

    #[test]
    fn tool_results_and_errors_are_a_tool_document_after_the_message() {
        let mut done = ToolCall::running("c1", "Bash", json!({"command": "cargo test"}));
        done.complete(Some("error[E0425]: cannot find value `x`".into()), true, None);
        let mut long = ToolCall::running("c2", "Read", json!({"file_path": "/a.rs"}));
        long.complete(Some(format!("start {}", "é".repeat(MAX_RESULT))), false, None);
        let message = Message::new(Role::Assistant)
            .at(Some("m1".into()), None)
            .with(Block::text("running the tests"))
            .with(Block::ToolCall(done))
            .with(Block::ToolCall(long))
            .with(Block::ToolCall(ToolCall::running("c3", "Bash", json!({"command": "ls"}))))
            .with(Block::Error { text: "API Error: 529 overloaded".into() });
        let docs = docs_of(std::slice::from_ref(&message));
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].body, "running the tests\nBash cargo test\nRead /a.rs\nBash ls");
        assert_eq!((docs[1].role, docs[1].entry_id.as_deref()), ("tool", Some("m1")));
        let lines: Vec<&str> = docs[1].body.lines().collect();
        assert_eq!(lines[0], "error[E0425]: cannot find value `x`");
        assert!(lines[1].starts_with("start éé") && lines[1].len() <= MAX_RESULT, "each result is cut at 16 KiB");
        assert_eq!(lines[2], "API Error: 529 overloaded");
        assert!(!is_conversation(&docs[1]) && is_conversation(&docs[0]));
        // A system message's results are not searched, as its text is not.
        assert!(docs_of(&[Message::new(Role::System).with(Block::Error { text: "e".into() })]).is_empty());
    }

    #[test]
    fn system_and_empty_messages_give_no_text() {
        assert!(doc_of(&Message::new(Role::System).with(Block::Summary { text: "s".into() })).is_none());
        assert!(doc_of(&Message::new(Role::User).with(Block::text("  "))).is_none());
    }

    #[test]
    fn bodies_are_capped_and_lose_marker_characters() {
        let long = "é".repeat(MAX_BODY);
        let doc = doc_of(&Message::new(Role::User).with(Block::text(format!("a\u{2}b\u{3}{long}")))).unwrap();
        assert!(doc.body.len() <= MAX_BODY);
        assert!(doc.body.starts_with("ab"));
    }

    #[test]
    fn a_pi_tail_reads_entries_and_names() {
        let lines = concat!(
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"fix the login form","timestamp":1}}"#,
            "\n",
            r#"{"type":"session_info","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:01.000Z","name":"Login"}"#,
            "\n",
        );
        let tail = tail(sess_sources::pi::SOURCE, "s", lines.as_bytes(), 0).unwrap();
        assert_eq!(tail.title.as_deref(), Some("Login"));
        assert_eq!(tail.message_count, 1);
        assert_eq!(
            tail.docs,
            vec![Doc { entry_id: Some("a1".into()), role: "user", body: "fix the login form".into() }]
        );
    }
}
