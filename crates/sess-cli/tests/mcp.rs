//! `sess mcp` over stdio, driven as an MCP client does (JSON-RPC lines):
//! initialize, list the tools, call each with good and bad arguments, and
//! read a session window by window to its end. Sessions are copies of what
//! the real agents wrote.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods, clippy::needless_pass_by_value)] // A panic is how a test fails; json! values are passed as made.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout};

use serde_json::{Value, json};

mod common;
use common::{claude_codex_pi_home as home, spawn_mcp};

struct Client {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn start(home: &Path, args: &[&str]) -> Self {
        let mut child = spawn_mcp(home, args);
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut client = Self { child, input, output, next: 1 };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
        );
        assert_eq!(init["serverInfo"]["name"], "sess", "{init}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "the server closed stdout");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{message}");
                return message["result"].clone();
            }
        }
    }

    /// A tool's text, and whether it is a tool error.
    fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let text = result["content"][0]["text"].as_str().unwrap().to_owned();
        (text, result["isError"] == true)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value after `key ` on the line of `text` that holds `holding`.
fn field_after<'t>(text: &'t str, holding: &str, key: &str) -> &'t str {
    let line = text.lines().find(|l| l.contains(holding)).unwrap_or_else(|| panic!("no `{holding}` in {text}"));
    let rest = &line[line.find(key).unwrap() + key.len()..];
    rest.split_whitespace().next().unwrap()
}

#[test]
fn the_tools_are_listed_with_their_arguments() {
    let home = home();
    let mut client = Client::start(home.path(), &["--all-projects"]);
    let tools = client.request("tools/list", json!({}));
    let mut names: Vec<&str> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["list_sessions", "read_session", "search_sessions", "session_context"]);
    let search = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "search_sessions").unwrap();
    assert_eq!(search["inputSchema"]["required"], json!(["query"]), "{search}");
    for argument in ["query", "source", "cwd", "since", "limit", "max_chars"] {
        assert!(search["inputSchema"]["properties"].get(argument).is_some(), "{argument}: {search}");
    }
}

#[test]
fn search_list_read_and_context_answer_and_bad_arguments_are_tool_errors() {
    let home = home();
    let mut client = Client::start(home.path(), &["--all-projects"]);

    let (found, error) = client.call("search_sessions", json!({"query": "subagent counted"}));
    assert!(!error, "{found}");
    assert!(found.contains("claude d0320bc2-9f9f-4dd3-b19b-6e52d18059d0"), "{found}");
    assert!(found.contains("[[counted]]"), "{found}");
    let reference = field_after(&found, "d0320bc2", "ref ").to_owned();

    let (listed, error) = client.call("list_sessions", json!({"source": "codex"}));
    assert!(!error, "{listed}");
    assert_eq!(listed.matches(" · codex ").count(), 4, "{listed}");
    let (recent, _) = client.call("list_sessions", json!({"since": "1d", "limit": 2}));
    assert!(recent.starts_with("2 sessions"), "{recent}");

    // Read by ref or by id, a window at a time, to the end.
    let (whole, error) = client.call("read_session", json!({"id": "d0320bc2"}));
    assert!(!error && whole.contains("The subagent counted 2 files.") && whole.contains("that is the end"), "{whole}");
    let (by_ref, _) = client.call("read_session", json!({"id": reference}));
    assert_eq!(by_ref, whole);
    let mut offset = 0;
    let mut windows = 0;
    loop {
        let (window, error) = client.call("read_session", json!({"id": "01a22bd9-19ce", "offset": offset, "limit": 2}));
        assert!(!error, "{window}");
        windows += 1;
        if window.contains("that is the end") {
            break;
        }
        let next = window.rsplit("\"offset\": ").next().unwrap().trim_end_matches(|c: char| !c.is_ascii_digit());
        let next: usize = next.parse().unwrap();
        assert!(next > offset, "{window}");
        offset = next;
        assert!(windows < 100);
    }
    assert!(windows >= 2, "{windows}");

    // A small budget is kept, and says what it left out.
    let (small, _) = client.call("read_session", json!({"id": "d0320bc2", "max_chars": 1000}));
    assert!(small.chars().count() <= 1000 && small.contains("next: read_session"), "{small}");

    let (context, error) = client.call("session_context", json!({"id": "01a22b45"}));
    assert!(!error, "{context}");
    let context: Value = serde_json::from_str(&context).unwrap();
    assert!(!context["messages"].as_array().unwrap().is_empty());

    for (tool, arguments, says) in [
        ("search_sessions", json!({"query": "  "}), "`query` is empty"),
        ("search_sessions", json!({"query": "x", "source": "vim"}), "`source` is one of"),
        ("list_sessions", json!({"since": "last week"}), "`since` is a date"),
        ("read_session", json!({"id": "ffffffff"}), "no session has the ref or id `ffffffff`"),
        ("read_session", json!({"id": "d0320bc2", "around_entry": "nope"}), "has no message with entry `nope`"),
        ("session_context", json!({"id": "d0320bc2"}), "works on pi-family sessions"),
        ("session_context", json!({"id": "01a22b45", "entry": "nope"}), "has no entry `nope`"),
    ] {
        let (text, error) = client.call(tool, arguments);
        assert!(error, "{tool}: {text}");
        assert!(text.contains(says), "{tool}: {text}");
    }
    // Still serving after every error.
    let (again, error) = client.call("list_sessions", json!({"limit": 1}));
    assert!(!error && again.starts_with("1 sessions"), "{again}");
}

#[test]
fn the_default_scope_is_the_servers_project() {
    let home = home();
    let project = home.path().join("elsewhere");
    std::fs::create_dir_all(&project).unwrap();
    let mut client = Client::start(home.path(), &[]);
    let (listed, _) = client.call("list_sessions", json!({}));
    assert!(listed.starts_with("0 sessions in project"), "{listed}");
    let (everywhere, _) = client.call("list_sessions", json!({"cwd": "*"}));
    assert!(!everywhere.starts_with("0 sessions"), "{everywhere}");
    let (demo, _) = client.call("list_sessions", json!({"cwd": "/home/dev/demo-project"}));
    assert!(demo.contains(" · pi 01a22b45"), "{demo}");
}

/// A Claude Code session of `count` user messages (`message N`) in
/// `home`, the last of which is `last` instead.
fn long_claude_session(home: &Path, id: &str, count: usize, last: &str) {
    let dir = home.join(".claude/projects/-work-long");
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = String::new();
    for i in 0..count {
        let text = if i + 1 == count { last.to_owned() } else { format!("message {i}") };
        let parent = if i == 0 { Value::Null } else { json!(format!("u{}", i - 1)) };
        let line = json!({
            "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/work/long",
            "sessionId": id, "type": "user", "message": {"role": "user", "content": text},
            "uuid": format!("u{i}"), "timestamp": format!("2026-08-20T09:{:02}:{:02}.000Z", (i / 60) % 60, i % 60),
        });
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    std::fs::write(dir.join(format!("{id}.jsonl")), lines).unwrap();
}

/// Issue 26, item 6: `read_session` read only the newest 300 messages (the
/// `sess show` default): of a long session it said "300 messages in all" and
/// offset 0 was a late message. And a budget smaller than one message gave
/// nothing with `next: offset 0`, so a client following the cursor looped
/// forever. The whole transcript is paged, and every answer makes progress.
#[test]
fn read_session_pages_through_every_message_and_always_makes_progress() {
    let home = home();
    let id = "7e57a11c-0000-4000-8000-000000000026";
    long_claude_session(home.path(), id, 1_000, &"a long last message ".repeat(300));
    let mut client = Client::start(home.path(), &["--all-projects"]);
    let (first, error) = client.call("read_session", json!({"id": id, "offset": 0, "limit": 2}));
    assert!(!error, "{first}");
    assert!(first.contains("1000 messages in all"), "{first}");
    assert!(first.contains("[0] user") && first.contains("message 0\n") && first.contains("message 1\n"), "{first}");
    assert!(first.contains("\"offset\": 2}"), "{first}");
    let (late, _) = client.call("read_session", json!({"id": id, "offset": 650, "limit": 1}));
    assert!(late.contains("[650] user") && late.contains("message 650\n"), "{late}");

    // Following the cursor under the smallest budget reaches the end, each answer further on.
    let mut offset = 997;
    let mut answers = 0;
    loop {
        let (window, error) = client.call("read_session", json!({"id": id, "offset": offset, "max_chars": 1000}));
        assert!(!error && window.chars().count() <= 1000, "{window}");
        answers += 1;
        assert!(answers < 10, "no progress: {window}");
        if window.contains("that is the end") {
            assert!(window.contains("[999] user") && window.contains("cut"), "the last message, cut: {window}");
            break;
        }
        let next = window.rsplit("\"offset\": ").next().unwrap().trim_end_matches(|c: char| !c.is_ascii_digit());
        let next: usize = next.parse().unwrap();
        assert!(next > offset, "{window}");
        offset = next;
    }
}

/// Issue 26, item 8: the MCP tools showed secrets unmasked. Listings and
/// snippets are masked; with `sess mcp --redact`, every answer is.
#[test]
fn listings_are_masked_and_redact_masks_every_answer() {
    const KEY: &str = "ghp_7Hq2LmXv9Rt4Bn8Kc1Wz5Yd3Pf6Js0AeGuVb";
    let home = home();
    let id = "7e57a11c-0000-4000-8000-000000000008";
    long_claude_session(home.path(), id, 1, &format!("the deploy token is {KEY}, keep it"));
    let mut client = Client::start(home.path(), &["--all-projects"]);
    let (listed, _) = client.call("list_sessions", json!({"cwd": "/work/long"}));
    let (found, _) = client.call("search_sessions", json!({"query": "deploy token", "cwd": "*"}));
    for text in [&listed, &found] {
        assert!(!text.contains(KEY) && text.contains("[redacted github-token]"), "{text}");
    }
    let (read, _) = client.call("read_session", json!({"id": id}));
    assert!(read.contains(KEY), "without --redact a transcript is shown as written: {read}");
    drop(client);
    let mut client = Client::start(home.path(), &["--all-projects", "--redact"]);
    let (read, error) = client.call("read_session", json!({"id": id}));
    assert!(!error && !read.contains(KEY) && read.contains("[redacted github-token]"), "{read}");
}

/// Issue 30: the server sees a session its agent began after the server
/// started (no restart), and says which sessions are working now.
#[test]
fn a_session_begun_after_the_server_started_is_listed_with_its_state() {
    let home = home();
    let mut client = Client::start(home.path(), &["--all-projects"]);
    let id = "7e57a11c-0000-4000-8000-000000000030";
    let (before, _) = client.call("list_sessions", json!({"source": "claude"}));
    assert!(!before.contains(id), "{before}");

    long_claude_session(home.path(), id, 3, "Is the build green?");
    // The server's catalog counts as fresh for two seconds after a refresh.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let (after, _) = client.call("list_sessions", json!({"source": "claude"}));
    let line = after.lines().find(|l| l.contains(id)).unwrap_or_else(|| panic!("not listed: {after}"));
    assert!(line.contains(" · working"), "a question without its answer: {line}");
    let (read, error) = client.call("read_session", json!({"id": id}));
    assert!(!error, "{read}");
    assert!(read.lines().next().unwrap().ends_with(" · working · 3 messages in all"), "{read}");
}

/// `sess mcp --model DIR`: `search_sessions` finds a session by what it was
/// about (hybrid by default, or `mode: "semantic"`), and says a hit no word
/// matched was found by meaning; an unknown mode is a tool error.
#[test]
fn search_sessions_searches_by_meaning_with_a_model() {
    let Some(model) = sess_testkit::embed::embed_model_dir() else { return };
    let home = home();
    let mut client = Client::start(home.path(), &["--all-projects", "--model", model.to_str().unwrap()]);
    // Claude Code's "Start the slow build in the background.", in other words.
    let query = "kick off a long compilation that runs behind the scenes";
    let (words, error) = client.call("search_sessions", json!({"query": query, "mode": "lexical"}));
    assert!(!error && words.starts_with("0 sessions"), "{words}");
    for arguments in [json!({"query": query}), json!({"query": query, "mode": "semantic"})] {
        let (found, error) = client.call("search_sessions", arguments.clone());
        assert!(!error, "{found}");
        // The first hit: its card's lines, then its entry's.
        let first = found.split("\nref ").nth(1).unwrap_or_default();
        assert!(first.contains("claude 8b6d40a5-430e-448a-b2d4-e0292f81d519"), "{arguments}: {found}");
        assert!(first.contains("(by meaning)"), "{arguments}: {found}");
    }
    let (refused, error) = client.call("search_sessions", json!({"query": query, "mode": "fuzzy"}));
    assert!(error && refused.contains("no search mode `fuzzy`"), "{refused}");
}
