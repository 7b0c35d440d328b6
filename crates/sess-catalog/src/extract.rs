//! What the catalog keeps of a session file: its metadata and the searchable
//! text of its messages.
//!
//! A whole file gives [`Full`]; the lines added since an earlier read give a
//! [`Tail`]. Only what people search for becomes text: user and assistant
//! text, tool names and the one-line gist of their input (a command, a path, a
//! pattern), and the same of the subagents a call started (role `subagent`:
//! never the user's words). Thinking, tool results (whole files, command
//! output), attached context, images and parts not understood are left out.

use std::path::Path;

use serde_json::Value;
use sess_core::{Entry, EntryKind, SequentialIds};
use sess_sources::{Block, Message, Role, SourceKind, input_gist};

/// The longest text kept of one message, in bytes.
const MAX_BODY: usize = 16 * 1024;

/// Searchable text of one message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Doc {
    /// The entry (pi), line `uuid` (Claude Code) or line number (Codex) that
    /// opened the message.
    pub(crate) entry_id: Option<String>,
    /// `user`, `assistant` or `subagent` (either, in a subagent's
    /// conversation).
    pub(crate) role: &'static str,
    /// The text.
    pub(crate) body: String,
}

/// A whole session file.
#[derive(Debug)]
pub(crate) struct Full {
    pub(crate) session_id: String,
    pub(crate) title: Option<String>,
    /// Whether the title is the session's own (not its first prompt).
    pub(crate) title_explicit: bool,
    pub(crate) cwd: Option<String>,
    pub(crate) created: Option<String>,
    pub(crate) message_count: usize,
    pub(crate) docs: Vec<Doc>,
}

/// Lines added to a session file.
#[derive(Debug, Default)]
pub(crate) struct Tail {
    /// A title the new lines set.
    pub(crate) title: Option<String>,
    pub(crate) message_count: usize,
    pub(crate) docs: Vec<Doc>,
}

/// Reads the complete lines `bytes` of a whole file at `path` (a Codex
/// rollout's decompressed; its path leads to the title index and the history
/// a fork continues).
pub(crate) fn full(source: SourceKind, path: &Path, bytes: &[u8]) -> Result<Full, String> {
    match source {
        SourceKind::Pi => full_pi(bytes),
        SourceKind::Claude => {
            // The rule of `sess show` and of the listing.
            let head = &bytes[..bytes.len().min(sess_sources::DETECT_BYTES)];
            if sess_sources::detect(path, head) != Some(SourceKind::Claude) {
                return Err("not a Claude Code session: none of its first lines is one".to_owned());
            }
            let id = file_stem(path);
            let part = sess_sources::claude::parse_part(bytes, &id);
            let transcript = part.transcript;
            Ok(Full {
                session_id: id,
                title_explicit: part.explicit_title.is_some(),
                title: transcript.title.clone(),
                cwd: transcript.cwd.clone(),
                created: part.created,
                message_count: transcript.messages.len(),
                docs: docs_of(&transcript.messages),
            })
        }
        SourceKind::Codex => {
            let (transcript, inherited) = sess_sources::codex::read_counting_inherited(path, bytes);
            // A fork's inherited history is searched in the sessions that wrote it.
            let own = &transcript.messages[inherited.min(transcript.messages.len())..];
            Ok(Full {
                title_explicit: transcript.title.is_some() && transcript.title.as_deref() != transcript.first_prompt(),
                session_id: transcript.id.clone(),
                title: transcript.title.clone(),
                cwd: transcript.cwd.clone(),
                created: transcript.messages.first().and_then(|m| m.timestamp.clone()),
                message_count: transcript.messages.len(),
                docs: docs_of(own),
            })
        }
    }
}

/// Reads complete lines added to a file of session `session_id`, after its
/// first `lines_before` lines.
pub(crate) fn tail(source: SourceKind, session_id: &str, bytes: &[u8], lines_before: usize) -> Tail {
    match source {
        SourceKind::Pi => {
            let entries: Vec<Entry> = bytes
                .split(|&b| b == b'\n')
                .filter_map(|line| std::str::from_utf8(line).ok())
                .map(|line| line.trim_end_matches('\r'))
                .filter(|line| !line.trim().is_empty())
                .filter_map(|line| Entry::parse(line).ok())
                .collect();
            let messages = sess_sources::pi::entry_messages(&entries);
            Tail {
                title: session_info_name(&entries),
                message_count: entries.iter().filter(|e| matches!(e.kind(), EntryKind::Message(_))).count(),
                docs: docs_of(&messages),
            }
        }
        SourceKind::Claude => {
            let part = sess_sources::claude::parse_tail(bytes, session_id);
            let mut docs = docs_of(&part.transcript.messages);
            // Turns of a subagent whose call was read before.
            docs.extend(docs_of(&part.earlier_subagents).into_iter().map(|doc| Doc { role: "subagent", ..doc }));
            Tail { title: part.explicit_title, message_count: part.transcript.messages.len(), docs }
        }
        SourceKind::Codex => {
            let transcript = sess_sources::codex::parse_after(bytes, lines_before);
            Tail { title: None, message_count: transcript.messages.len(), docs: docs_of(&transcript.messages) }
        }
    }
}

fn full_pi(bytes: &[u8]) -> Result<Full, String> {
    let outcome = sess_core::read(bytes, &mut SequentialIds::new("catalog"));
    let file = outcome.file;
    let Some(header) = file.header() else {
        let why = outcome.issues.first().map_or_else(|| "no session header".to_owned(), ToString::to_string);
        return Err(format!("not a pi-family session: {why}"));
    };
    let entries = file.entries();
    let messages = sess_sources::pi::entry_messages(entries);
    let header_title = header.title().filter(|t| !t.trim().is_empty()).map(|t| t.trim().to_owned());
    let title_explicit_value = header_title.or_else(|| session_info_name(entries));
    let first_message = sess_sources::first_prompt(&messages).map(|text| text.trim().to_owned());
    Ok(Full {
        session_id: header.id().to_owned(),
        title_explicit: title_explicit_value.is_some(),
        title: title_explicit_value.or(first_message),
        cwd: header.cwd().filter(|c| !c.is_empty()).map(str::to_owned),
        created: header.timestamp().map(str::to_owned),
        message_count: entries.iter().filter(|e| matches!(e.kind(), EntryKind::Message(_))).count(),
        docs: docs_of(&messages),
    })
}

/// The searchable text of pi-family entries, every branch included.
pub(crate) fn entry_docs(entries: &[Entry]) -> Vec<Doc> {
    docs_of(&sess_sources::pi::entry_messages(entries))
}

/// The name the last `session_info` with a name gives.
fn session_info_name(entries: &[Entry]) -> Option<String> {
    entries.iter().rev().find_map(|e| match e.kind() {
        EntryKind::SessionInfo(info) => {
            info.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned)
        }
        _ => None,
    })
}

fn file_stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The searchable text of each user and assistant message that has some,
/// each followed by that of the subagents its calls started.
pub(crate) fn docs_of(messages: &[Message]) -> Vec<Doc> {
    let mut docs = Vec::new();
    for message in messages {
        docs.extend(doc_of(message));
        docs.extend(subagent_docs(message));
    }
    docs
}

/// The text of the subagents `message`'s calls started, as `subagent`
/// documents.
fn subagent_docs(message: &Message) -> Vec<Doc> {
    let subagents = message.blocks.iter().filter_map(|block| match block {
        Block::ToolCall(call) if !call.subagent.is_empty() => Some(&call.subagent),
        _ => None,
    });
    subagents.flat_map(|turns| docs_of(turns)).map(|doc| Doc { role: "subagent", ..doc }).collect()
}

fn doc_of(message: &Message) -> Option<Doc> {
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::System => return None,
    };
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
    let body = clean(body);
    (!body.trim().is_empty()).then(|| Doc { entry_id: message.id.clone(), role, body })
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

/// The body capped at [`MAX_BODY`] bytes, without the control characters the
/// catalog marks hits with.
fn clean(mut body: String) -> String {
    if body.len() > MAX_BODY {
        let mut cut = MAX_BODY;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
    }
    if body.contains(['\u{2}', '\u{3}']) {
        body.retain(|c| c != '\u{2}' && c != '\u{3}');
    }
    body
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
        let tail = tail(SourceKind::Claude, "s", lines.as_bytes(), 4);
        assert_eq!(tail.message_count, 0);
        let docs: Vec<_> = tail.docs.iter().map(|d| (d.role, d.body.as_str())).collect();
        assert_eq!(docs, [("subagent", "look for the price code"), ("subagent", "CartRow")]);
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
        let tail = tail(SourceKind::Pi, "s", lines.as_bytes(), 0);
        assert_eq!(tail.title.as_deref(), Some("Login"));
        assert_eq!(tail.message_count, 1);
        assert_eq!(
            tail.docs,
            vec![Doc { entry_id: Some("a1".into()), role: "user", body: "fix the login form".into() }]
        );
    }
}
