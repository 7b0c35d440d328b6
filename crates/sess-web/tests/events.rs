//! `GET /api/events` over a socket: the change feed of a real home as
//! server-sent events while a writer appends to a Claude Code session; a
//! client that comes back with the last id it saw goes on after it, one of
//! another run is told to read again; a page without a feed refuses.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write the agents' files directly.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sess::live::Feed;
use sess::{Host, Quiet};
use sess_web::ServeConfig;

const ID: &str = "5d1e2f3a-0000-4000-8000-00000000bb01";
const PATIENCE: Duration = Duration::from_secs(20);

fn line(uuid: &str, parent: Option<&str>, role: &str, text: &str) -> String {
    let line = json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/work/app", "sessionId": ID,
        "version": "2.1.230", "type": role, "uuid": uuid, "timestamp": "2026-08-20T09:30:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]}
    });
    format!("{line}\n")
}

fn append(path: &Path, text: &str) {
    std::fs::OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

/// A home with one Claude Code session, and `sess serve` over it (with its
/// feed when `follow`): the port, the session file and the feed's run.
fn server(home: &Path, follow: bool) -> (u16, PathBuf, Option<u64>) {
    let file = home.join(format!(".claude/projects/-work-app/{ID}.jsonl"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, line("u1", None, "user", "Which tests are slow?")).unwrap();
    let host = Host::at_home(home);
    let view = sess::view::open(host.clone(), None, None, Arc::new(Quiet), &mut |_| {}).unwrap();
    let feed = follow.then(|| Arc::new(Feed::start(&host, view.catalog.as_ref().unwrap(), Arc::new(Quiet)).unwrap()));
    let run = feed.as_ref().map(|feed| feed.run());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = ServeConfig { feed, ..ServeConfig::new(port) };
    std::thread::spawn(move || sess_web::serve(listener, view.library, config));
    (port, file, run)
}

/// A connection that asked for the events (after `last`, when given).
fn events(port: u16, last: Option<&str>) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let last = last.map(|id| format!("Last-Event-ID: {id}\r\n")).unwrap_or_default();
    write!(stream, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{last}\r\n").unwrap();
    stream
}

/// What `stream` says until it has said `text` (and the line it is on), within the patience.
fn until(stream: &mut TcpStream, heard: &mut String, text: &str) {
    let deadline = Instant::now() + PATIENCE;
    let mut buf = [0u8; 4096];
    loop {
        if let Some(at) = heard.find(text)
            && heard[at..].contains('\n')
        {
            return;
        }
        assert!(Instant::now() < deadline, "never said {text:?}: {heard}");
        match stream.read(&mut buf) {
            Ok(0) => panic!("the stream ended: {heard}"),
            Ok(n) => heard.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(_) => {}
        }
    }
}

/// The `data` of the first event of `kind` in `heard`, and its id.
fn event(heard: &str, kind: &str) -> (String, Value) {
    let at = heard.find(&format!("event: {kind}\n")).unwrap();
    let before = &heard[..at];
    let id = before[before.rfind("id: ").unwrap() + 4..].lines().next().unwrap().to_owned();
    let data = &heard[at..];
    let data = &data[data.find("data: ").unwrap() + 6..];
    (id, serde_json::from_str(data.lines().next().unwrap()).unwrap())
}

#[test]
fn a_line_written_is_an_event_and_a_client_that_comes_back_goes_on_after_the_last_it_saw() {
    let home = tempfile::tempdir().unwrap();
    let (port, file, run) = server(home.path(), true);
    let mut stream = events(port, None);
    let mut heard = String::new();
    until(&mut stream, &mut heard, "\r\n\r\n");
    assert!(heard.starts_with("HTTP/1.1 200"), "{heard}");
    assert!(heard.to_ascii_lowercase().contains("content-type: text/event-stream"), "{heard}");

    append(&file, &line("u2", Some("u1"), "assistant", "The parser's tests."));
    until(&mut stream, &mut heard, "event: changed");
    until(&mut stream, &mut heard, "data: ");
    let (id, data) = event(&heard, "changed");
    assert_eq!(id, format!("{}-1", run.unwrap()));
    assert_eq!((data["kind"].as_str(), data["session"]["sessionId"].as_str()), (Some("changed"), Some(ID)));
    assert_eq!(data["new"], 1);
    assert_eq!(data["messages"].as_array().unwrap().last().unwrap()["blocks"][0]["text"], "The parser's tests.");

    // Back after event 0 of this run: event 1 again.
    let mut back = events(port, Some(&format!("{}-0", run.unwrap())));
    let mut again = String::new();
    until(&mut back, &mut again, "event: changed");
    until(&mut back, &mut again, "data: ");
    assert_eq!(event(&again, "changed").0, id);

    // Back with an id of another run: read again, from now on.
    let mut other = events(port, Some("12-3"));
    let mut reset = String::new();
    until(&mut other, &mut reset, "event: reset");
    assert_eq!(event(&reset, "reset").0, format!("{}-1", run.unwrap()));
}

#[test]
fn a_page_without_a_feed_refuses_to_follow() {
    let home = tempfile::tempdir().unwrap();
    let (port, _, _) = server(home.path(), false);
    let mut stream = events(port, None);
    let mut heard = String::new();
    until(&mut stream, &mut heard, "\r\n\r\n");
    assert!(heard.starts_with("HTTP/1.1 422"), "{heard}");
}
