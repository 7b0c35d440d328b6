//! The change feed (`sess::live`) against real writers: lines appended to a
//! Claude Code transcript, a pi session written through `SessionManager`,
//! rows written into an OpenCode database, a Gemini CLI file rewritten whole,
//! and session files made and removed.

#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write the agents' files directly")]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use sess::live::{Change, Event, Feed, Subscription};
use sess::{Host, Quiet};
use sess_sources::{Block, Message, SessionState};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");
const CLAUDE_ID: &str = "3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c01";

struct Machine {
    home: tempfile::TempDir,
    host: Host,
}

impl Machine {
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let host = Host::at_home(home.path());
        Machine { home, host }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.home.path().join(relative)
    }

    fn copy(&self, fixture: &str, to: &str) -> PathBuf {
        let to = self.path(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(FIXTURES).join(fixture), &to).unwrap();
        to
    }

    fn claude(&self) -> PathBuf {
        self.copy(
            "claude-code/claude-health-endpoint.jsonl",
            &format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_ID}.jsonl"),
        )
    }

    fn feed(&self) -> Feed {
        Feed::start(&self.host, &self.host.data_dir.join("catalog.sqlite"), Arc::new(Quiet)).unwrap()
    }
}

/// A feed's events as a test reads them, one at a time.
struct Reader {
    events: Subscription,
    pending: std::collections::VecDeque<Arc<Event>>,
}

fn reader(feed: &Feed) -> Reader {
    Reader { events: feed.subscribe(None), pending: std::collections::VecDeque::new() }
}

/// The next event `wanted` takes (those before it are passed over), waiting
/// at most 20 s for it.
fn until(reader: &mut Reader, what: &str, wanted: impl Fn(&Event) -> bool) -> Arc<Event> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        while let Some(event) = reader.pending.pop_front() {
            if wanted(&event) {
                return event;
            }
            seen.push(serde_json::to_string(event.as_ref()).unwrap());
        }
        reader.pending.extend(reader.events.wait(Duration::from_millis(200)).unwrap());
    }
    panic!("no event: {what}; saw {seen:#?}");
}

fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn append(path: &Path, line: &serde_json::Value) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(format!("{line}\n").as_bytes()).unwrap();
}

fn claude_line(uuid: &str, parent: &str, role: &str, text: &str) -> serde_json::Value {
    json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/alice/src/todo-api",
        "sessionId": CLAUDE_ID, "version": "2.1.230", "type": role, "uuid": uuid,
        "timestamp": "2026-08-20T09:30:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]}
    })
}

#[test]
fn lines_appended_to_a_claude_transcript_are_its_new_messages() {
    let machine = Machine::new();
    let file = machine.claude();
    let feed = machine.feed();
    let mut events = reader(&feed);
    let count = |event: &Event| event.change.session().message_count;

    append(&file, &claude_line("live-1", "a1b2c3d4-0001-4a00-8000-000000000017", "user", "A question written live."));
    let event = until(&mut events, "the user's line", |e| matches!(e.change, Change::Changed { .. }));
    let Change::Changed { session, from, messages, new } = &event.change else { unreachable!() };
    assert_eq!((session.session_id.as_str(), *new), (CLAUDE_ID, 1));
    assert_eq!(*from + messages.len(), session.message_count);
    assert_eq!(texts(messages).last().map(String::as_str), Some("A question written live."));
    assert_eq!(session.state, Some(SessionState::Working), "a question without its answer");
    let before = count(&event);

    append(&file, &claude_line("live-2", "live-1", "assistant", "An answer written live."));
    let event = until(&mut events, "the assistant's line", |e| matches!(e.change, Change::Changed { .. }));
    let Change::Changed { messages, new, from, .. } = &event.change else { unreachable!() };
    assert_eq!((*new, count(&event)), (1, before + 1));
    // The one it had last comes again (it may have grown), then the new one.
    assert_eq!(*from, before - 1);
    assert_eq!(texts(messages).last().map(String::as_str), Some("An answer written live."));
    assert_eq!(event.change.session().state, Some(SessionState::Idle), "answered");
    assert!(event.id > 1);

    // A question to the user, with its answer still to come.
    let asking = json!({
        "parentUuid": "live-2", "isSidechain": false, "userType": "external", "cwd": "/home/alice/src/todo-api",
        "sessionId": CLAUDE_ID, "version": "2.1.230", "type": "assistant", "uuid": "live-3",
        "timestamp": "2026-08-20T09:31:00.000Z",
        "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_ask", "name": "AskUserQuestion", "input": {"questions": []}}
        ]}
    });
    append(&file, &asking);
    let event = until(&mut events, "the question", |e| {
        matches!(e.change, Change::Changed { .. }) && e.change.session().state != Some(SessionState::Idle)
    });
    assert_eq!(event.change.session().state, Some(SessionState::Waiting));
}

#[test]
fn two_feeds_over_one_catalog_each_tell_every_message() {
    // `sess serve` and `sess tail` share the catalog: whichever brings it up
    // to date first, the other still tells each new message.
    let machine = Machine::new();
    let file = machine.claude();
    let (first, second) = (machine.feed(), machine.feed());
    let mut readers = [reader(&first), reader(&second)];
    let mut parent = "a1b2c3d4-0001-4a00-8000-000000000017".to_owned();
    for n in 0..5 {
        let uuid = format!("live-{n}");
        append(&file, &claude_line(&uuid, &parent, "user", &format!("Message {n} written live.")));
        parent = uuid;
        std::thread::sleep(Duration::from_millis(30));
    }
    for events in &mut readers {
        let mut told = Vec::new();
        while told.len() < 5 {
            let event = until(events, "the messages", |e| matches!(e.change, Change::Changed { .. }));
            let Change::Changed { messages, .. } = &event.change else { unreachable!() };
            for text in texts(messages) {
                if text.ends_with("written live.") && !told.contains(&text) {
                    told.push(text);
                }
            }
        }
        let expected: Vec<String> = (0..5).map(|n| format!("Message {n} written live.")).collect();
        assert_eq!(told, expected);
    }
}

#[test]
fn feeds_over_one_catalog_each_tell_a_session_gone() {
    // Whichever feed takes the removed file's session out of the shared
    // catalog first, the others still tell that it is gone.
    let machine = Machine::new();
    let file = machine.claude();
    let feeds = [machine.feed(), machine.feed(), machine.feed(), machine.feed()];
    let mut readers = feeds.each_ref().map(reader);
    std::fs::remove_file(&file).unwrap();
    for events in &mut readers {
        let event = until(events, "the file removed", |e| matches!(e.change, Change::Gone { .. }));
        assert_eq!(event.change.session().session_id, CLAUDE_ID);
    }
}

#[test]
fn without_the_systems_events_a_look_every_little_while_finds_the_changes() {
    let machine = Machine::new();
    let file = machine.claude();
    let catalog = machine.host.data_dir.join("catalog.sqlite");
    let feed = Feed::start_polling(&machine.host, &catalog, Duration::from_millis(300), Arc::new(Quiet)).unwrap();
    assert!(feed.polling());
    let mut events = reader(&feed);
    append(&file, &claude_line("live-1", "a1b2c3d4-0001-4a00-8000-000000000017", "user", "Seen by a look."));
    let event = until(&mut events, "the line, at the next look", |e| matches!(e.change, Change::Changed { .. }));
    let Change::Changed { messages, new, .. } = &event.change else { unreachable!() };
    assert_eq!(*new, 1);
    assert_eq!(texts(messages).last().map(String::as_str), Some("Seen by a look."));
}

#[test]
fn a_session_file_that_appears_and_goes_is_said() {
    let machine = Machine::new();
    machine.claude();
    let feed = machine.feed();
    let mut events = reader(&feed);

    let other = machine.copy(
        "claude-code/claude-basic-toolcall.jsonl",
        ".claude/projects/-home-alice-src-todo-api/4f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c02.jsonl",
    );
    let event = until(&mut events, "the new file", |e| matches!(e.change, Change::Appeared { .. }));
    assert_eq!(event.change.session().session_id, "4f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c02");
    // A file that is no session of the agent's is none.
    std::fs::write(machine.path(".claude/projects/-home-alice-src-todo-api/notes.txt"), "not a session").unwrap();

    std::fs::remove_file(&other).unwrap();
    let event = until(&mut events, "the file removed", |e| matches!(e.change, Change::Gone { .. }));
    assert_eq!(event.change.session().session_id, "4f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c02");

    // A reader that comes back after the first event reads the second.
    let mut back = feed.subscribe(Some(event.id - 1));
    assert_eq!(back.wait(Duration::ZERO).unwrap()[0].id, event.id);
}

fn pi_message(role: &str, text: &str) -> serde_json::Value {
    json!({"role": role, "content": [{"type": "text", "text": text}], "provider": "p", "model": "m", "timestamp": 1})
}

#[test]
fn a_pi_session_written_through_the_session_manager_appears_then_grows() {
    let machine = Machine::new();
    let dir = machine.path(".pi/agent/sessions/--work-demo--");
    std::fs::create_dir_all(&dir).unwrap();
    let feed = machine.feed();
    let mut events = reader(&feed);

    let mut manager = sess_store::SessionManager::create("/work/demo", &dir).unwrap();
    manager.append_message(&pi_message("user", "Plan the release.")).unwrap();
    manager.append_message(&pi_message("assistant", "Here is the plan.")).unwrap();
    let event = until(&mut events, "the new session", |e| matches!(e.change, Change::Appeared { .. }));
    assert_eq!(event.change.session().session_id, manager.session_id());

    manager.append_message(&pi_message("user", "Ship it.")).unwrap();
    let event = until(&mut events, "the appended message", |e| matches!(e.change, Change::Changed { .. }));
    let Change::Changed { messages, new, .. } = &event.change else { unreachable!() };
    assert_eq!(*new, 1);
    assert_eq!(texts(messages).last().map(String::as_str), Some("Ship it."));
}

#[test]
fn rows_written_into_an_opencode_database_are_a_change_of_their_session() {
    let machine = Machine::new();
    let database = machine.copy("opencode/real-1.18.33/opencode.db", ".local/share/opencode/opencode.db");
    let feed = machine.feed();
    let mut events = reader(&feed);

    let session = "ses_dcf36b1b3ffeuV797d5ddiaan0";
    let db = rusqlite::Connection::open(&database).unwrap();
    let at: i64 = db
        .query_row(
            "SELECT max(m.time_created, s.time_updated) + 1000 FROM message m JOIN session s ON s.id = m.session_id
             WHERE m.session_id = ?1 ORDER BY m.time_created DESC LIMIT 1",
            [session],
            |r| r.get(0),
        )
        .unwrap();
    db.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_live', ?1, ?2, ?2, ?3)",
        rusqlite::params![session, at, json!({"role": "user", "time": {"created": at}, "agent": "build"}).to_string()],
    )
    .unwrap();
    db.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_live', 'msg_live', ?1, ?2, ?2, ?3)",
        rusqlite::params![session, at, json!({"type": "text", "text": "A row written live."}).to_string()],
    )
    .unwrap();
    db.execute("UPDATE session SET time_updated = ?2 WHERE id = ?1", rusqlite::params![session, at]).unwrap();
    drop(db);

    let event = until(&mut events, "the session's new row", |e| {
        matches!(e.change, Change::Changed { .. }) && e.change.session().session_id == session
    });
    let Change::Changed { messages, new, .. } = &event.change else { unreachable!() };
    assert_eq!(*new, 1);
    assert_eq!(texts(messages).last().map(String::as_str), Some("A row written live."));
}

#[test]
fn a_continue_session_rewritten_whole_is_a_change() {
    let machine = Machine::new();
    let id = "5fc86abd-41fb-4032-ab0e-44ea9f0f6f32";
    let chat = machine.copy(
        &format!("continue/real-1.5.47/continue-home/sessions/{id}.json"),
        &format!(".continue/sessions/{id}.json"),
    );
    machine.copy("continue/real-1.5.47/continue-home/sessions/sessions.json", ".continue/sessions/sessions.json");
    let feed = machine.feed();
    let mut events = reader(&feed);

    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&chat).unwrap()).unwrap();
    let history = doc["history"].as_array_mut().unwrap();
    history.push(json!({"message": {"role": "user", "content": "A message the agent rewrote its file with."}, "contextItems": []}));
    // Written whole, as the agent writes it.
    std::fs::write(&chat, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();

    let event = until(&mut events, "the rewritten file", |e| matches!(e.change, Change::Changed { .. }));
    assert_eq!(event.change.session().session_id, id);
    let Change::Changed { messages, new, .. } = &event.change else { unreachable!() };
    assert_eq!(*new, 1);
    assert_eq!(texts(messages).last().map(String::as_str), Some("A message the agent rewrote its file with."));
}
