//! `sess serve` over a real socket against clients that misbehave: requests
//! sent half way, bodies too large, forks at entries that do not exist or past
//! a label, and `--open` where no browser can be opened; and over an archive,
//! with a session its agent deleted. A session's page carries its edits' diffs.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{CLAUDE_BASIC, Home, ok};

/// A running `sess serve`, killed when the test ends; what it printed on stderr so far.
struct Server {
    child: Child,
    port: u16,
    stderr: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `sess serve --port 0` in `home` with `args` after the verb and `env` set.
    fn start(home: &Home, args: &[&str], env: &[(&str, &str)]) -> Self {
        let catalog = home.path().join("catalog.sqlite");
        let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
        command
            .args(["serve", "--port", "0", "--catalog", catalog.to_str().unwrap()])
            .args(args)
            .env("HOME", home.path())
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("XDG_DATA_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY");
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (pipe, collected) = (child.stderr.take().unwrap(), Arc::clone(&stderr));
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                collected.lock().unwrap().push_str(&line);
                collected.lock().unwrap().push('\n');
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.rsplit(':').next().unwrap().trim_end_matches(|c: char| !c.is_ascii_digit()).parse();
        let port = port.unwrap_or_else(|_| panic!("no port in {line:?}; stderr: {}", stderr.lock().unwrap()));
        Self { child, port, stderr }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A connection whose reads give up after five seconds.
    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        stream
    }

    /// Sends `text` and reads until the server closes the connection (a
    /// panic if it has not within five seconds): the status and the body.
    fn exchange(&self, text: &str) -> (u16, String) {
        let mut stream = self.connect();
        stream.write_all(text.as_bytes()).unwrap();
        let response = read_to_close(&mut stream);
        let status = response.split(' ').nth(1).unwrap_or_else(|| panic!("no status in {response:?}"));
        let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
        (status.parse().unwrap(), body)
    }

    fn get(&self, path: &str) -> (u16, String) {
        self.exchange(&format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.host()))
    }

    /// `GET path`, which must answer 200, as JSON.
    fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// The listed session whose agent's id is `session_id`.
    fn card(&self, session_id: &str) -> Value {
        let sessions = self.json("/api/sessions");
        let found = sessions.as_array().unwrap().iter().find(|c| c["sessionId"] == session_id);
        found.unwrap_or_else(|| panic!("{session_id} is not listed: {sessions:#}")).clone()
    }

    /// The page's token.
    fn token(&self) -> String {
        let (_, page) = self.get("/");
        page.split("name=\"sess-token\" content=\"").nth(1).unwrap().split('"').next().unwrap().to_owned()
    }

    /// The id of the first pi session the server lists.
    fn first_pi_session(&self) -> String {
        let (_, sessions) = self.get("/api/sessions?source=pi");
        let sessions: Value = serde_json::from_str(&sessions).unwrap();
        sessions[0]["id"].as_str().unwrap().to_owned()
    }

    /// "Fork from here" at `entry` of session `id`, with the page's token:
    /// the status and the body.
    fn fork(&self, id: &str, entry: &str) -> (u16, String) {
        let body = format!("{{\"entryId\":\"{entry}\"}}");
        self.exchange(&format!(
            "POST /api/sessions/{id}/fork HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nX-Sess-Token: {}\r\nContent-Length: {}\r\n\r\n{body}",
            self.host(),
            self.token(),
            body.len()
        ))
    }

    /// What the server printed on stderr once it contains `wanted`, waiting at
    /// most ten seconds for it.
    fn stderr_with(&self, wanted: &str) -> String {
        let started = Instant::now();
        loop {
            let text = self.stderr.lock().unwrap().clone();
            if text.contains(wanted) || started.elapsed() > Duration::from_secs(10) {
                return text;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Everything the server sends until it closes the connection; a panic if it
/// keeps it open past the read timeout.
fn read_to_close(stream: &mut TcpStream) -> String {
    let started = Instant::now();
    let mut bytes = Vec::new();
    match stream.read_to_end(&mut bytes) {
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(err) => panic!("the server kept the connection open for {:?} ({err})", started.elapsed()),
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn half_sent_requests_lose_their_connection_after_the_timeouts() {
    let home = Home::new();
    let server = Server::start(&home, &["--header-timeout", "0.5", "--idle-timeout", "0.5"], &[]);
    let host = server.host();
    // Nothing at all, a request line cut short, headers cut short: closed, no answer.
    for sent in [String::new(), "GET /api/projects HT".to_owned(), format!("GET / HTTP/1.1\r\nHost: {host}\r\n")] {
        let mut stream = server.connect();
        stream.write_all(sent.as_bytes()).unwrap();
        let started = Instant::now();
        assert_eq!(read_to_close(&mut stream), "", "{sent:?}");
        assert!(started.elapsed() < Duration::from_secs(4), "{sent:?}");
    }
    // A body that stops arriving: 408, then closed.
    let (status, body) = server.exchange(&format!(
        "POST /api/sessions/1/fork HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"entryId\""
    ));
    assert_eq!(status, 408, "{body}");
    assert!(body.contains("the request body stopped arriving"), "{body}");
    // A connection kept alive after an answer is closed when it sits idle.
    let mut stream = server.connect();
    stream.write_all(format!("GET /api/projects HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes()).unwrap();
    assert!(read_to_close(&mut stream).starts_with("HTTP/1.1 200"));
    // The server goes on answering.
    assert_eq!(server.get("/api/projects").0, 200);
}

#[test]
fn a_body_over_the_limit_is_413() {
    let home = Home::new();
    let server = Server::start(&home, &[], &[]);
    let token = server.token();
    let (status, body) = server.exchange(&format!(
        "POST /api/sessions/1/fork HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         X-Sess-Token: {token}\r\nContent-Length: 10000000\r\n\r\n",
        server.host()
    ));
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("the request body is larger than 65536 bytes"), "{body}");
}

#[test]
fn a_fork_at_an_entry_that_does_not_exist_is_404_naming_no_file() {
    let home = Home::new();
    let server = Server::start(&home, &[], &[]);
    let id = server.first_pi_session();
    let dir = home.path().join(".pi/agent/sessions/--home-dev-demo-project--");
    let before = std::fs::read_dir(&dir).unwrap().count();
    let (status, answer) = server.fork(&id, "no-such-entry");
    assert_eq!(status, 404, "{answer}");
    assert_eq!(answer, format!("{{\"error\":\"entry `no-such-entry` of session {id} not found\"}}"));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), before, "nothing is written");
}

/// "Fork from here" past the label entry f6836503 of pi-mono's session: the new
/// session has the context the original has at that entry (the entry after the
/// label hangs under the entry before it).
#[test]
fn fork_from_here_past_a_label_keeps_the_context() {
    let home = Home::new();
    let server = Server::start(&home, &[], &[]);
    let id = server.first_pi_session();
    let original = home.path().join(".pi/agent/sessions/--home-dev-demo-project--/main.jsonl");
    let expected = home.json(&["context", "--leaf", "5ef624f7", original.to_str().unwrap()]);
    let (status, answer) = server.fork(&id, "5ef624f7");
    assert_eq!(status, 200, "{answer}");
    let forked: Value = serde_json::from_str(&answer).unwrap();
    let path = forked["path"].as_str().unwrap();
    assert_eq!(home.json(&["context", path]), expected);
}

/// The server's children that have exited and were not waited for.
#[cfg(target_os = "linux")]
fn zombie_children(pid: u32) -> Vec<String> {
    let mut zombies = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid …; comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 1 && fields[0] == "Z" && fields[1] == pid.to_string() {
            zombies.push(stat);
        }
    }
    zombies
}

#[cfg(target_os = "linux")]
#[test]
fn open_says_why_no_browser_opened_and_leaves_no_zombie() {
    let home = Home::new();
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let ran = home.path().join("opener-ran");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\ntouch '{}'\necho 'xdg-open: no method available for opening' >&2\nexit 3\n", ran.display()),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());

    // No desktop: said at once, and no opener is started.
    let server = Server::start(&home, &["--open"], &[("PATH", &path)]);
    let said = server.stderr_with("no desktop");
    assert!(said.contains("no desktop to open a browser on") && said.contains(&server.host()), "{said}");
    assert!(!ran.exists());
    drop(server);

    // A desktop whose opener fails: its exit and first line are reported, and it is reaped.
    let server = Server::start(&home, &["--open"], &[("PATH", &path), ("DISPLAY", ":99")]);
    let said = server.stderr_with("could not open a browser");
    assert!(ran.exists(), "the opener did not run; stderr: {said}");
    assert!(said.contains("`xdg-open` could not open a browser (exit status: 3: xdg-open: no method"), "{said}");
    let zombies = zombie_children(server.child.id());
    assert!(zombies.is_empty(), "{zombies:?}");
    assert_eq!(server.get("/api/projects").0, 200);
}

/// The agents' session ids of a listing, sorted.
fn session_ids(cards: &Value) -> Vec<String> {
    let mut ids: Vec<String> =
        cards.as_array().unwrap().iter().map(|c| c["sessionId"].as_str().unwrap().into()).collect();
    ids.sort();
    ids
}

/// `transcript` (of the session API) without the `html` of its text blocks,
/// each checked to be its text's Markdown as `sess_export::to_html` renders it.
fn without_html(transcript: &mut Value) -> Value {
    for message in transcript["messages"].as_array_mut().unwrap() {
        for block in message["blocks"].as_array_mut().unwrap() {
            if let Some(html) = block.as_object_mut().unwrap().remove("html") {
                assert_eq!(html, sess_export::to_html(block["text"].as_str().unwrap()));
            }
        }
    }
    transcript.clone()
}

/// A session's page carries the diffs of its edit calls, as `sess show
/// --json` has them: the transcript is the same.
#[test]
fn a_session_page_carries_the_diffs_of_its_edit_calls() {
    let home = Home::new();
    let server = Server::start(&home, &[], &[]);
    let mut page = server.json(&format!("/api/sessions/{}", server.card(CLAUDE_BASIC)["id"].as_str().unwrap()));
    let shown: Value = serde_json::from_str(&ok(&home.run(&["show", CLAUDE_BASIC, "--json"]))).unwrap();
    assert_eq!(without_html(&mut page["transcript"]), shown);
    let blocks =
        page["transcript"]["messages"].as_array().unwrap().iter().flat_map(|m| m["blocks"].as_array().unwrap());
    let edits: Vec<&Value> = blocks.filter(|b| b["name"] == "Edit").collect();
    assert_eq!(edits.len(), 2);
    assert_eq!(
        edits[0]["diffs"][0]["hunks"][0]["lines"],
        serde_json::json!([
            {"kind": "add", "text": "app.get('/health', (req, res) => res.json({ ok: true }));"},
            {"kind": "context", "text": "app.use('/todos', require('./todos'));"},
        ])
    );
}

/// A Claude Code session is archived, then its agent deletes it: `sess
/// serve` still lists it (marked, from the archive), opens it as it did
/// before, finds it, and refuses to fork it; with `--store ARCHIVE` the page
/// shows every archived session and the machine they came from.
#[test]
fn a_session_its_agent_deleted_is_served_from_the_archive() {
    let home = Home::new();
    let archive = home.path().join(".local/share/sess/archive.sqlite");
    let store = format!("sqlite:{}", archive.display());
    ok(&home.run(&["archive"]));

    let before = Server::start(&home, &[], &[]);
    assert_eq!(before.json("/api/machines"), serde_json::json!([]), "no session is gone yet");
    let listed = before.json("/api/sessions");
    assert!(listed.as_array().unwrap().iter().all(|c| c.get("original").is_none() && c.get("machine").is_none()));
    let original = before.card(CLAUDE_BASIC);
    let page = before.json(&format!("/api/sessions/{}", original["id"].as_str().unwrap()));
    drop(before);

    std::fs::remove_file(home.path().join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl")))
        .unwrap();
    ok(&home.run(&["archive"]));

    // Without --store: the catalog's sessions and, from the default archive, the deleted one.
    let server = Server::start(&home, &[], &[]);
    assert_eq!(session_ids(&server.json("/api/sessions")), session_ids(&listed));
    let card = server.card(CLAUDE_BASIC);
    assert_eq!(card["original"], "deleted", "{card:#}");
    assert_eq!(card["forkable"], false);
    assert_eq!(card["restoreCommand"], format!("sess restore {CLAUDE_BASIC}"));
    let machine = card["machine"].as_str().unwrap().to_owned();
    assert_eq!(server.json("/api/machines"), serde_json::json!([{"name": machine, "sessions": 1}]));
    let id = card["id"].as_str().unwrap().to_owned();
    let archived = server.json(&format!("/api/sessions/{id}"));
    assert_eq!(archived["transcript"], page["transcript"], "read from the archive as from the file");
    assert_eq!(archived["session"]["original"], "deleted");
    let hits = server.json("/api/search?q=uptime");
    assert!(hits.as_array().unwrap().iter().any(|h| h["session"]["id"] == id.as_str()), "{hits:#}");
    let projects = server.json("/api/projects");
    let todo = projects.as_array().unwrap().iter().find(|p| p["cwd"] == "/home/alice/src/todo-api");
    assert_eq!(todo.unwrap()["sessions"], 1, "{projects:#}");
    let only_archived = server.json(&format!("/api/sessions?machine={machine}"));
    assert_eq!(session_ids(&only_archived), [CLAUDE_BASIC]);
    let (status, refused) = server.fork(&id, "a1b2c3d4-0001-4a00-8000-000000000004");
    assert_eq!(status, 422, "{refused}");
    assert!(refused.contains(&format!("`sess restore {CLAUDE_BASIC}` writes it back")), "{refused}");
    drop(server);

    // With --store ARCHIVE: every archived session, each with its machine.
    let server = Server::start(&home, &["--store", &store], &[]);
    let sessions = server.json("/api/sessions");
    assert_eq!(session_ids(&sessions), session_ids(&listed));
    for card in sessions.as_array().unwrap() {
        let gone = if card["sessionId"] == CLAUDE_BASIC { "deleted" } else { "present" };
        assert_eq!((&card["original"], &card["machine"]), (&Value::from(gone), &Value::from(machine.as_str())));
    }
    let count = sessions.as_array().unwrap().len();
    assert_eq!(server.json("/api/machines"), serde_json::json!([{"name": machine, "sessions": count}]));
    assert_eq!(session_ids(&server.json(&format!("/api/sessions?machine={machine}"))).len(), count);
    assert_eq!(server.json("/api/sessions?machine=elsewhere"), serde_json::json!([]));
    let id = server.card(CLAUDE_BASIC)["id"].as_str().unwrap().to_owned();
    assert_eq!(server.json(&format!("/api/sessions/{id}"))["transcript"], page["transcript"]);
    let hits = server.json("/api/search?q=uptime&source=claude");
    assert!(hits.as_array().unwrap().iter().any(|h| h["session"]["id"] == id.as_str()), "{hits:#}");
    let (status, refused) = server.fork(&id, "a1b2c3d4-0001-4a00-8000-000000000004");
    assert_eq!(status, 422, "{refused}");
    assert!(refused.contains(&format!("restore {CLAUDE_BASIC} --machine")), "{refused}");
}

/// `GET path` as raw text: the status line and headers, and the body.
fn raw_get(server: &Server, path: &str) -> (String, String) {
    let mut stream = server.connect();
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.host()).as_bytes())
        .unwrap();
    let response = read_to_close(&mut stream);
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.to_lowercase(), body.to_owned())
}

/// The page's Export writes what `sess export` writes, for a session of the
/// catalog and one the default archive keeps after its agent deleted it; the
/// session API renders the Markdown of user and assistant texts.
#[test]
fn the_pages_export_is_what_sess_export_writes() {
    let home = Home::new();
    let server = Server::start(&home, &[], &[]);
    let id = server.card(CLAUDE_BASIC)["id"].as_str().unwrap().to_owned();
    let (head, md) = raw_get(&server, &format!("/api/sessions/{id}/export?format=md&redact=0"));
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/markdown; charset=utf-8"), "{head}");
    assert!(head.contains(&format!("content-disposition: attachment; filename=\"sess-{CLAUDE_BASIC}.md\"")), "{head}");
    assert!(!head.contains("x-sess-masked"), "{head}");
    assert_eq!(md, ok(&home.run(&["export", CLAUDE_BASIC])));
    let (head, html) = raw_get(&server, &format!("/api/sessions/{id}/export?format=html"));
    assert!(head.contains("content-type: text/html; charset=utf-8"), "{head}");
    assert!(head.contains("x-sess-masked: 0"), "{head}");
    assert_eq!(html, ok(&home.run(&["export", "--format", "html", "--redact", CLAUDE_BASIC])));

    // A pi session at a leaf, as `sess export --leaf`.
    let pi = server.card(common::PI_MAIN)["id"].as_str().unwrap().to_owned();
    let (_, at_leaf) = raw_get(&server, &format!("/api/sessions/{pi}/export?format=md&redact=0&leaf=19238abe"));
    assert_eq!(at_leaf, ok(&home.run(&["export", "--leaf", "19238abe", common::PI_MAIN])));
    let (status, body) = server.get(&format!("/api/sessions/{id}/export?format=md&leaf=x"));
    assert_eq!(status, 422, "{body}");

    // The session's text blocks carry their Markdown as HTML.
    let page = server.json(&format!("/api/sessions/{id}"));
    let messages = page["transcript"]["messages"].as_array().unwrap();
    let texts: Vec<&Value> = messages
        .iter()
        .filter(|m| m["role"] == "user" || m["role"] == "assistant")
        .flat_map(|m| m["blocks"].as_array().unwrap())
        .filter(|b| b["type"] == "text")
        .collect();
    assert!(!texts.is_empty());
    for block in texts {
        assert_eq!(block["html"].as_str().unwrap(), sess_export::to_html(block["text"].as_str().unwrap()));
    }
    drop(server);

    // Once its agent deleted it, the default archive's copy exports the same.
    ok(&home.run(&["archive"]));
    std::fs::remove_file(home.path().join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl")))
        .unwrap();
    ok(&home.run(&["archive"]));
    let server = Server::start(&home, &[], &[]);
    let card = server.card(CLAUDE_BASIC);
    assert_eq!(card["original"], "deleted");
    let (head, archived) =
        raw_get(&server, &format!("/api/sessions/{}/export?format=md&redact=0", card["id"].as_str().unwrap()));
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert_eq!(archived, md);
}

/// `sess usage ARGS --json` over the server's catalog, without refreshing it.
fn usage_json(home: &Home, args: &[&str]) -> Value {
    let catalog = home.path().join("catalog.sqlite");
    let mut all = vec!["usage", "--json", "--no-refresh", "--catalog", catalog.to_str().unwrap()];
    all.extend(args);
    home.json(&all)
}

/// The page's reports are `sess usage --json`'s, filters and all; a bad day
/// or time zone is refused naming the parameter; a session's page has the
/// tokens and cost `sess usage session` gives it.
#[test]
fn usage_is_reported_as_sess_usage_reports_it() {
    let home = Home::new();
    let server = Server::start(&home, &[], &[]);
    let daily = server.json("/api/usage?tz=UTC");
    assert!(!daily["daily"].as_array().unwrap().is_empty(), "{daily:#}");
    assert_eq!(daily, usage_json(&home, &["--timezone", "UTC"]));
    for (query, args) in [
        ("by=monthly&tz=UTC", vec!["monthly", "--timezone", "UTC"]),
        ("by=model&source=claude", vec!["model", "--source", "claude"]),
        ("by=project&since=2026-08-21&tz=UTC", vec!["project", "--since", "2026-08-21", "--timezone", "UTC"]),
        (
            "by=session&until=20260820&tz=Asia%2FTokyo",
            vec!["session", "--until", "2026-08-20", "--timezone", "Asia/Tokyo"],
        ),
        (
            "project=%2Fhome%2Falice%2Fsrc%2Ftodo-api&tz=UTC",
            vec!["--cwd", "/home/alice/src/todo-api", "--timezone", "UTC"],
        ),
        ("source=codex&tz=UTC", vec!["--source", "codex", "--timezone", "UTC"]),
    ] {
        assert_eq!(server.json(&format!("/api/usage?{query}")), usage_json(&home, &args), "{query}");
    }
    // The catalog's sessions are of no archived machine.
    assert_eq!(server.json("/api/usage?machine=laptop")["totals"]["calls"], 0);
    for (query, said) in [
        ("since=2026-02-30", "`since`: not a date: `2026-02-30`"),
        ("tz=Nowhere%2FLand", "`tz`: unknown time zone `Nowhere/Land`"),
        ("by=weekly", "unknown report `by=weekly`"),
    ] {
        let (status, body) = server.get(&format!("/api/usage?{query}"));
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(said), "{query}: {body}");
    }

    let sessions = usage_json(&home, &["session"]);
    let line = sessions["sessions"].as_array().unwrap().iter().find(|s| s["sessionId"] == CLAUDE_BASIC).unwrap();
    let page = server.json(&format!("/api/sessions/{}", server.card(CLAUDE_BASIC)["id"].as_str().unwrap()));
    let usage = &page["usage"];
    assert!(usage["totalTokens"].as_u64().unwrap() > 0, "{usage:#}");
    for key in [
        "inputTokens",
        "outputTokens",
        "cacheCreationTokens",
        "cacheReadTokens",
        "totalTokens",
        "totalCost",
        "costComplete",
        "calls",
        "modelsUsed",
        "modelBreakdowns",
    ] {
        assert_eq!(usage[key], line[key], "{key}");
    }
    // A Codex session's, from its `token_count` events, as `sess usage session` has it.
    let codex = server.json(&format!("/api/sessions/{}", server.card(common::CODEX_BASIC)["id"].as_str().unwrap()));
    let line = sessions["sessions"].as_array().unwrap().iter().find(|s| s["sessionId"] == common::CODEX_BASIC).unwrap();
    assert_eq!(codex["usage"]["totalTokens"], line["totalTokens"], "{:#}", codex["usage"]);
    assert_eq!(codex["usage"]["calls"], line["calls"]);
}

/// The calls of a session its agent deleted come from the archive: in the
/// reports (and alone with its machine's filter), on its page, and with
/// `--store ARCHIVE` among every archived session's.
#[test]
fn usage_of_a_deleted_session_comes_from_the_archive() {
    let home = Home::new();
    let store = format!("sqlite:{}", home.path().join(".local/share/sess/archive.sqlite").display());
    ok(&home.run(&["archive"]));
    let before = Server::start(&home, &[], &[]);
    let everything = before.json("/api/usage?tz=UTC&by=session");
    let own =
        before.json(&format!("/api/sessions/{}", before.card(CLAUDE_BASIC)["id"].as_str().unwrap()))["usage"].clone();
    assert!(own["calls"].as_u64().unwrap() > 0, "{own:#}");
    drop(before);

    std::fs::remove_file(home.path().join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl")))
        .unwrap();
    ok(&home.run(&["archive"]));
    let server = Server::start(&home, &[], &[]);
    let after = server.json("/api/usage?tz=UTC&by=session");
    assert_eq!(after["totals"], everything["totals"]);
    let card = server.card(CLAUDE_BASIC);
    let machine = card["machine"].as_str().unwrap().to_owned();
    let only = server.json(&format!("/api/usage?tz=UTC&by=session&machine={machine}"));
    let lines = only["sessions"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{only:#}");
    assert_eq!(lines[0]["sessionId"], CLAUDE_BASIC);
    assert_eq!(only["totals"]["totalTokens"], own["totalTokens"]);
    let page = server.json(&format!("/api/sessions/{}", card["id"].as_str().unwrap()));
    assert_eq!(page["usage"], own);
    drop(server);

    let server = Server::start(&home, &["--store", &store], &[]);
    assert_eq!(server.json("/api/usage?tz=UTC&by=session")["totals"], everything["totals"]);
    let claude = everything["totals"]["sourceBreakdowns"].as_array().unwrap().iter().find(|b| b["source"] == "claude");
    assert_eq!(
        server.json(&format!("/api/usage?machine={machine}&source=claude"))["totals"]["calls"],
        claude.unwrap()["calls"]
    );
    assert_eq!(server.json("/api/usage?machine=elsewhere")["totals"]["calls"], 0);
    let page = server.json(&format!("/api/sessions/{}", server.card(CLAUDE_BASIC)["id"].as_str().unwrap()));
    assert_eq!(page["usage"], own);
}

/// The ids of a listing or of search hits, in order.
fn ids_in_order(listing: &Value) -> Vec<String> {
    let id = |item: &Value| item.get("session").unwrap_or(item)["id"].as_str().unwrap().to_owned();
    listing.as_array().unwrap().iter().map(id).collect()
}

/// `path` (which has a query) fetched `size` items at a time,
/// `&limit={size}&offset=…`, until a page comes back empty: the ids in order,
/// and the `X-Sess-Total` of each page.
fn paged(server: &Server, path: &str, size: usize) -> (Vec<String>, Vec<Option<usize>>) {
    let (mut ids, mut totals) = (Vec::new(), Vec::new());
    for offset in (0..).step_by(size) {
        let (head, body) = raw_get(server, &format!("{path}&limit={size}&offset={offset}"));
        assert!(head.starts_with("http/1.1 200"), "{path} at {offset}: {head}");
        totals.push(head.lines().find_map(|l| l.strip_prefix("x-sess-total: ")).map(|t| t.parse().unwrap()));
        let page = ids_in_order(&serde_json::from_str(&body).unwrap());
        assert!(page.len() <= size, "{page:?}");
        if page.is_empty() {
            return (ids, totals);
        }
        ids.extend(page);
    }
    unreachable!()
}

/// Sessions and hits a page at a time, where the catalog's and the deleted
/// sessions the default archive keeps are merged, and over an archive: the
/// pages are the whole listing in its order, each item once, and every page
/// of sessions says how many there are in all.
#[test]
fn sessions_and_hits_page_through_the_catalog_and_the_archive() {
    let home = Home::new();
    let store = format!("sqlite:{}", home.path().join(".local/share/sess/archive.sqlite").display());
    ok(&home.run(&["archive"]));
    std::fs::remove_file(home.path().join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl")))
        .unwrap();
    ok(&home.run(&["archive"]));
    for args in [&[][..], &["--store", store.as_str()]] {
        let server = Server::start(&home, args, &[]);
        let all = server.json("/api/sessions");
        let all = ids_in_order(&all);
        assert!(all.len() >= 3, "{args:?}: {all:?}");
        let (pages, totals) = paged(&server, "/api/sessions?q=", 1);
        assert_eq!(pages, all, "{args:?}");
        assert!(totals.iter().all(|t| *t == Some(all.len())), "{args:?}: {totals:?}");
        let claude = ids_in_order(&server.json("/api/sessions?source=claude"));
        assert!(claude.len() < all.len(), "{args:?}: {claude:?}");
        let (pages, totals) = paged(&server, "/api/sessions?source=claude", 2);
        assert_eq!(pages, claude, "{args:?}");
        assert!(totals.iter().all(|t| *t == Some(claude.len())), "{args:?}: {totals:?}");

        let hits = ids_in_order(&server.json("/api/search?q=the"));
        assert!(hits.len() >= 3, "{args:?}: {hits:?}");
        for size in [1, 2] {
            let (pages, totals) = paged(&server, "/api/search?q=the", size);
            assert_eq!(pages, hits, "{args:?}, {size} a page");
            assert!(totals.iter().all(Option::is_none), "search pages say no total");
        }
    }
}
