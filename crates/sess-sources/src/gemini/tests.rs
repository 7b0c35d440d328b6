#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::transcript::Block;

const CONTEXT: &str = "<session_context>\nThis is the Gemini CLI.\n</session_context>";

fn meta(start: &str) -> Value {
    json!({"sessionId": "s-1", "projectHash": "h", "startTime": start, "lastUpdated": start, "kind": "main"})
}
fn context() -> Value {
    json!({"id": "ctx", "timestamp": "t0", "type": "user", "content": [{"text": CONTEXT}]})
}
fn user(id: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": format!("t-{id}"), "type": "user", "content": [{"text": text}]})
}
fn gemini(id: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": format!("t-{id}"), "type": "gemini", "content": text, "thoughts": []})
}
fn set_messages(messages: &[Value]) -> Value {
    json!({"$set": {"messages": messages}})
}
fn jsonl(lines: &[Value]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line.to_string().as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

/// `role: block, block` per message, blocks as `kind:text`.
fn rows(transcript: &Transcript) -> Vec<String> {
    transcript
        .messages
        .iter()
        .map(|m| {
            let blocks: Vec<String> = m
                .blocks
                .iter()
                .map(|b| match b {
                    Block::Text { text }
                    | Block::Thinking { text }
                    | Block::Error { text }
                    | Block::Summary { text } => {
                        format!("{}:{text}", b.kind())
                    }
                    Block::ToolCall(c) => format!("tool:{}:{}", c.name, c.status.as_str()),
                    Block::Context { title, .. } => format!("context:{title}"),
                    other => other.kind().to_owned(),
                })
                .collect();
            format!("{}: {}", m.role.as_str(), blocks.join(" | "))
        })
        .collect()
}

#[test]
fn a_later_record_replaces_its_message_and_results_complete_calls() {
    let call = json!({"id": "run__c1", "name": "run", "args": {"command": "ls"}});
    let bytes = jsonl(&[
        meta("2026-01-01T00:00:00Z"),
        set_messages(&[context()]),
        user("u1", "List files."),
        json!({"id": "g1", "timestamp": "t-g1", "type": "gemini", "content": "", "thoughts": [{"subject": "Plan", "description": "Look."}]}),
        json!({"id": "g1", "timestamp": "t-g1", "type": "gemini", "content": "", "thoughts": [{"subject": "Plan", "description": "Look."}],
               "toolCalls": [{"id": "run__c1", "name": "run", "args": {"command": "ls"}, "status": "success", "timestamp": "t-done",
                              "result": [{"functionResponse": {"id": "run__c1", "name": "run", "response": {"output": "a\nb"}}}]},
                             {"id": "read__c2", "name": "read", "args": {}, "status": "cancelled", "timestamp": "t-done",
                              "result": [{"functionResponse": {"id": "read__c2", "name": "read", "response": {"error": "Cancelled."}}}]}]}),
        json!({"id": "u2", "timestamp": "t-u2", "type": "user", "content": [{"functionResponse": {"id": "run__c1", "name": "run", "response": {"output": "a\nb"}}}]}),
        gemini("g2", "Two files."),
        // Calls known only as parts: a response completes one, the other is cut off.
        json!({"id": "g3", "timestamp": "t-g3", "type": "gemini", "content": [{"functionCall": call}, {"functionCall": {"id": "x__c3", "name": "x"}}]}),
        json!({"id": "u3", "timestamp": "t-u3", "type": "user", "content": [{"functionResponse": {"id": "run__c1", "name": "run", "response": {"error": "boom"}}}]}),
    ]);
    let t = parse(&bytes);
    assert_eq!(t.id, "s-1");
    assert_eq!(
        rows(&t),
        [
            "user: text:List files.",
            "assistant: thinking:**Plan** Look. | tool:run:succeeded | tool:read:failed | text:Two files. | tool:run:failed | tool:x:pending",
        ]
    );
    let Block::ToolCall(first) = &t.messages[1].blocks[1] else { panic!() };
    assert_eq!(first.result.as_deref(), Some("a\nb"));
    assert_eq!((first.started_at.as_deref(), first.ended_at.as_deref()), (Some("t-g1"), Some("t-done")));
    let Block::ToolCall(from_part) = &t.messages[1].blocks[4] else { panic!() };
    assert_eq!((from_part.result.as_deref(), from_part.ended_at.as_deref()), (Some("boom"), Some("t-u3")));
}

#[test]
fn a_rewind_keeps_what_it_took_back_and_says_so() {
    let bytes = jsonl(&[
        meta("t"),
        set_messages(&[context()]),
        user("u1", "Count to three."),
        gemini("g1", "1 2 3"),
        user("u2", "Now to five."),
        gemini("g2", "1 2 3 4 5"),
        json!({"$rewindTo": "u2"}),
        set_messages(&[user("u1", "Count to three."), gemini("g1", "1 2 3")]),
        user("u3", "In German."),
        gemini("g3", "eins zwei drei"),
        // An id the conversation does not hold empties it, as the CLI reads it.
        json!({"$rewindTo": "nowhere"}),
    ]);
    assert_eq!(
        rows(&parse(&bytes)),
        [
            "user: text:Count to three.",
            "assistant: text:1 2 3",
            "user: text:Now to five.",
            "assistant: text:1 2 3 4 5",
            "system: text:Rewound to before “Now to five.”",
            "user: text:In German.",
            "assistant: text:eins zwei drei",
            "system: text:Rewound the conversation",
        ]
    );
}

#[test]
fn a_turn_taken_back_is_noted_but_a_resume_is_not() {
    let history = [context(), user("u1", "Hi."), gemini("g1", "Hello.")];
    let bytes = jsonl(&[
        meta("2026-01-01T00:00:00Z"),
        set_messages(&[context()]),
        user("u1", "Hi."),
        gemini("g1", "Hello."),
        // A resume: the metadata again, a fresh chat's start, then the session.
        meta("2026-01-02T00:00:00Z"),
        set_messages(&[context()]),
        json!({"$set": {"sessionId": "s-1"}}),
        set_messages(&history),
        user("u2", "Describe it."),
        // Its request failed: the CLI takes the prompt back.
        set_messages(&history),
        json!({"id": "e1", "timestamp": "t-e1", "type": "error", "content": "[API Error: down]"}),
        json!({"id": "i1", "timestamp": "t-i1", "type": "info", "content": "This request failed."}),
        json!({"id": "i2", "timestamp": "t-i2", "type": "info", "content": ""}),
    ]);
    let read = transcript(&bytes, None, &|_| Vec::new());
    assert_eq!(read.created.as_deref(), Some("2026-01-01T00:00:00Z"), "the first metadata says when it started");
    assert_eq!(
        rows(&read.transcript),
        [
            "user: text:Hi.",
            "assistant: text:Hello.",
            "user: text:Describe it.",
            "system: text:Gemini CLI took this turn back out of the conversation (its request failed or was cancelled)",
            "assistant: error:[API Error: down]",
            "system: text:This request failed.",
        ]
    );
}

#[test]
fn a_compression_is_its_summary_and_restates_nothing() {
    let call = json!({"functionCall": {"id": "ls__c1", "name": "ls", "args": {}}});
    let bytes = jsonl(&[
        meta("t"),
        set_messages(&[context()]),
        user("u1", "Hi."),
        gemini("g1", "Hello."),
        user("u2", "List."),
        json!({"id": "g2", "timestamp": "t-g2", "type": "gemini", "content": "",
               "toolCalls": [{"id": "ls__c1", "name": "ls", "args": {}, "status": "success", "result": "none"}]}),
        set_messages(&[
            context(),
            user("n1", "<state_snapshot>\nGreeted.\n</state_snapshot>"),
            gemini("n2", "Got it. Thanks for the additional context!"),
            user("n3", "List."),
            json!({"id": "n4", "type": "gemini", "content": [call]}),
            // A resume writes results again under new ids.
            json!({"id": "g2_response", "type": "user", "content": [{"functionResponse": {"id": "ls__c1", "response": {"output": "none"}}}]}),
        ]),
        json!({"id": "u3", "timestamp": "t-u3", "type": "user", "content": [{"functionResponse": {"id": "ls__c1", "response": {"output": "none"}}}]}),
        gemini("g3", "Nothing here."),
        // A rewind to a restated id finds the message it restates.
        json!({"$rewindTo": "n3"}),
    ]);
    assert_eq!(
        rows(&parse(&bytes)),
        [
            "user: text:Hi.",
            "assistant: text:Hello.",
            "user: text:List.",
            "assistant: tool:ls:succeeded",
            "system: summary:<state_snapshot>\nGreeted.\n</state_snapshot>",
            "assistant: text:Nothing here.",
            "system: text:Rewound to before “List.”",
        ]
    );
}

#[test]
fn an_older_json_session_reads_like_its_records() {
    let document = json!({
        "sessionId": "old-1", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "summary": "Old title",
        "messages": [
            {"id": "a", "timestamp": "t1", "type": "user", "content": "What is 2+2?"},
            {"id": "b", "timestamp": "t2", "type": "gemini", "content": "4", "thoughts": [{"subject": "", "description": "Easy."}]},
            {"id": "c", "timestamp": "t3", "type": "warning", "content": "Careful."},
            {"id": "d", "timestamp": "t4", "type": "novel", "content": "?"},
        ],
    });
    let t = parse(serde_json::to_string_pretty(&document).unwrap().as_bytes());
    assert_eq!((t.id.as_str(), t.title.as_deref()), ("old-1", Some("Old title")));
    assert_eq!(
        rows(&t),
        ["user: text:What is 2+2?", "assistant: thinking:Easy. | text:4", "system: text:Careful.", "system: unknown"]
    );
}

#[test]
fn a_prompt_shows_what_was_typed_its_files_and_images() {
    let prompt = json!({"id": "u1", "timestamp": "t", "type": "user",
        "content": [{"text": "Read @a.txt and @b.png"}, {"text": "\n--- Content from referenced files ---"},
                    {"text": "\nContent from @a.txt:\n"}, {"text": "alpha"},
                    {"inlineData": {"mimeType": "image/png", "data": "AAAA"}},
                    {"inlineData": {"mimeType": "application/pdf", "data": "JVBE"}},
                    {"text": "\n--- End of content ---"}],
        "displayContent": [{"text": "Read @a.txt and @b.png"}]});
    let t = parse(&jsonl(&[meta("t"), prompt]));
    assert_eq!(rows(&t), ["user: text:Read @a.txt and @b.png | context:Referenced files | image | unknown"]);
    let Block::Context { text, .. } = &t.messages[0].blocks[1] else { panic!() };
    assert_eq!(text, "Content from @a.txt:\nalpha");
    let Block::Image(image) = &t.messages[0].blocks[2] else { panic!() };
    assert_eq!((image.media_type.as_deref(), image.data.as_deref()), (Some("image/png"), Some("AAAA")));
}

/// Issue 26, item 10: a prompt typed as a slash command (`/init`, whose
/// expansion is what the CLI sent) showed the expansion as "Referenced
/// files", and the CLI's own "Please continue." after a function response (its
/// next-speaker check: the turn's `displayContent` is the function responses)
/// showed as a user message holding only that block. The expansion is titled
/// for the command; the continuation is a notice of the CLI's. (Hand-written
/// records in the shape the CLI 0.61.0 writes: its `recordMessage` keeps the
/// `displayContent` the turn was sent with.)
#[test]
fn a_slash_command_and_the_clis_continuation_are_labelled_for_what_they_are() {
    let init = json!({"id": "u1", "type": "user", "timestamp": "t",
        "content": [{"text": "You are an AI agent. Analyze the project and write GEMINI.md."}],
        "displayContent": [{"text": "/init"}]});
    let answer = json!({"id": "g1", "type": "gemini", "timestamp": "t", "content": "",
        "toolCalls": [{"id": "c1", "name": "list_directory", "args": {"dir_path": "."}, "status": "success",
                       "result": [{"functionResponse": {"id": "c1", "name": "list_directory", "response": {"output": "a.txt"}}}]}]});
    let continued = json!({"id": "u2", "type": "user", "timestamp": "t",
        "content": [{"text": "Please continue."}],
        "displayContent": [{"functionResponse": {"id": "c1", "name": "list_directory", "response": {"output": "a.txt"}}}]});
    let done = json!({"id": "g2", "type": "gemini", "timestamp": "t", "content": "Wrote GEMINI.md."});
    let typed = json!({"id": "u3", "type": "user", "timestamp": "t", "content": [{"text": "Please continue."}]});
    let t = parse(&jsonl(&[meta("t"), init, answer, continued, done, typed]));
    assert_eq!(
        rows(&t),
        [
            "user: text:/init | context:Expanded /init",
            "assistant: tool:list_directory:succeeded",
            "system: text:The CLI asked the model to go on (“Please continue.”)",
            "assistant: text:Wrote GEMINI.md.",
            // Typed by the user: a prompt like any other.
            "user: text:Please continue.",
        ]
    );
    let Block::Context { text, .. } = &t.messages[0].blocks[1] else { panic!() };
    assert_eq!(text, "You are an AI agent. Analyze the project and write GEMINI.md.");
}

#[test]
fn bad_lines_are_skipped_and_reported() {
    let mut bytes = jsonl(&[meta("t"), user("u1", "Hi.")]);
    bytes.extend_from_slice(b"{broken\n[1,2]\n{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"cut");
    let t = parse(&bytes);
    assert_eq!(rows(&t), ["user: text:Hi."]);
    assert_eq!(t.issues.iter().map(|i| i.line).collect::<Vec<_>>(), [3, 4, 5]);
}

/// A Gemini dir in a temporary folder.
struct Home(tempfile::TempDir);

impl Home {
    fn new() -> Self {
        Self(tempfile::tempdir().unwrap())
    }
    fn dir(&self) -> PathBuf {
        self.0.path().join(".gemini")
    }
    fn write(&self, relative: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

#[test]
fn one_file_per_session_the_one_with_the_conversation() {
    let home = Home::new();
    let talk = jsonl(&[meta("t"), set_messages(&[context()]), user("u1", "Hi."), gemini("g1", "Hello.")]);
    let real = home.write("tmp/p/chats/session-2026-01-01T10-00-s-1.jsonl", &talk);
    // The file a resume in a later minute leaves: metadata and context only.
    let mut stray = jsonl(&[meta("t2"), set_messages(&[context()])]);
    stray.extend(jsonl(&[meta("t3"), set_messages(&[context()])]));
    stray.extend(jsonl(&[meta("t4"), set_messages(&[context()])]));
    home.write("tmp/p/chats/session-2026-01-01T10-05-s-1.jsonl", &stray);
    home.write(
        "tmp/p/chats/session-2026-01-01T09-00-s-1.json",
        br#"{"sessionId":"s-1","projectHash":"h","messages":[]}"#,
    );
    home.write("tmp/p/chats/logs.json", b"[]");
    home.write("tmp/p/.project_root", b"/work/p");
    let found = find_session_files(&home.dir());
    assert_eq!(found.files, [("s-1".to_owned(), real.clone())]);
    let listing = list(&home.dir(), Scope::All);
    assert_eq!(listing.sessions.len(), 1);
    let info = &listing.sessions[0];
    assert_eq!((info.cwd.as_deref(), info.message_count, info.created.as_deref()), (Some("/work/p"), 2, Some("t")));
    assert_eq!(info.first_message.as_deref(), Some("Hi."));
    // A session of nothing but context is not listed.
    std::fs::remove_file(&real).unwrap();
    assert_eq!(list(&home.dir(), Scope::All).sessions.len(), 0);
}

#[test]
fn a_project_is_found_by_its_path_or_by_its_hash() {
    let home = Home::new();
    let hash = files::sha256_hex("/work/old");
    let old = json!({"sessionId": "s-old", "projectHash": hash, "startTime": "t", "lastUpdated": "t"});
    home.write(&format!("tmp/{hash}/chats/session-2025-01-01T00-00-s-old.jsonl"), &jsonl(&[old, user("u", "Old.")]));
    home.write("tmp/new/chats/session-2026-01-01T00-00-s-new.jsonl", &jsonl(&[meta("t"), user("u", "New.")]));
    home.write("projects.json", br#"{"projects": {"/work/new": "new"}}"#);
    let ids = |dir: &str| -> Vec<String> {
        list(&home.dir(), Scope::Project(Path::new(dir))).sessions.into_iter().map(|s| s.id).collect()
    };
    assert_eq!(ids("/work/old"), ["s-old"]);
    assert_eq!(ids("/work/new"), ["s-1"]);
    assert_eq!(ids("/work/other"), Vec::<String>::new());
    let all = list(&home.dir(), Scope::All).sessions;
    let cwd = |id: &str| all.iter().find(|s| s.id == id).and_then(|s| s.cwd.clone());
    assert_eq!((cwd("s-1").as_deref(), cwd("s-old")), (Some("/work/new"), None));
}

#[test]
fn a_subagent_is_read_under_the_call_that_started_it() {
    let home = Home::new();
    let call = json!({"id": "g1", "timestamp": "t1", "type": "gemini", "content": "",
        "toolCalls": [{"id": "invoke_agent__c", "name": "invoke_agent", "args": {"agent_name": "generalist"},
                       "status": "success", "agentId": "agent-1", "result": "done"}]});
    let path =
        home.write("tmp/p/chats/session-2026-01-01T00-00-s-1.jsonl", &jsonl(&[meta("t"), user("u", "Go."), call]));
    let sub = json!({"sessionId": "agent-1", "projectHash": "h", "startTime": "t", "kind": "subagent", "directories": ["/work/p"]});
    let sub_path =
        home.write("tmp/p/chats/s-1/agent-1.jsonl", &jsonl(&[sub, user("a", "Count."), gemini("b", "None.")]));
    let t = load(&path).unwrap();
    let Block::ToolCall(call) = &t.messages[1].blocks[0] else { panic!() };
    assert_eq!(call.subagent.len(), 2);
    assert_eq!(call.subagent[1].blocks, [Block::text("None.")]);
    let alone = load(&sub_path).unwrap();
    assert_eq!((alone.id.as_str(), alone.cwd.as_deref()), ("agent-1", Some("/work/p")));
    assert_eq!(find_session_files(&home.dir()).files.len(), 1, "a subagent is not a session of its own");
}

#[test]
fn the_gemini_dir_moves_with_gemini_cli_home() {
    assert_eq!(gemini_dir(None, Path::new("/home/u")), Path::new("/home/u/.gemini"));
    assert_eq!(gemini_dir(Some(Path::new("/elsewhere")), Path::new("/home/u")), Path::new("/elsewhere/.gemini"));
    assert_eq!(gemini_dir(Some(Path::new("")), Path::new("/home/u")), Path::new("/home/u/.gemini"));
}

#[test]
fn its_files_are_told_from_claude_codes() {
    let detect = |bytes: &[u8]| crate::detect(Path::new("x.jsonl"), bytes);
    assert_eq!(detect(&jsonl(&[meta("t"), user("u", "Hi.")])), Some(SOURCE));
    let document =
        serde_json::to_string_pretty(&json!({"sessionId": "s", "projectHash": "h", "messages": []})).unwrap();
    assert_eq!(detect(document.as_bytes()), Some(SOURCE));
    assert_eq!(detect(&jsonl(&[json!({"$set": {"summary": "x"}})])), Some(SOURCE));
    let claude = json!({"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}});
    assert_eq!(detect(&jsonl(&[claude])), Some(crate::claude::SOURCE));
}
