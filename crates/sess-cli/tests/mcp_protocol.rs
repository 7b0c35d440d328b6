//! Issue 26, items 1 and 11: `sess mcp` as a process. It kept running (a
//! core busy) when its client closed stdin; it answered malformed JSON with
//! nothing and a request whose params are not an object with -32601; a
//! search of 10,000 words came back as empty text that was no tool error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)] // A panic is how a test fails.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

mod common;
use common::{claude_codex_pi_home as home, spawn_mcp};

/// Generous: a hang, not a speed, is what these tests detect.
const PATIENCE: Duration = Duration::from_secs(20);

/// The server's messages, as they come.
struct Output(Receiver<Value>);

fn start(home: &Path) -> (Child, ChildStdin, Output) {
    let mut child = spawn_mcp(home, &["--all-projects"]);
    let mut input = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (heard, output) = channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        while stdout.read_line(&mut line).is_ok_and(|n| n > 0) {
            if heard.send(serde_json::from_str(&line).unwrap()).is_err() {
                break;
            }
            line.clear();
        }
    });
    let mut output = Output(output);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}});
    writeln!(input, "{init}").unwrap();
    assert_eq!(read(&mut output)["id"], 0);
    writeln!(input, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
    (child, input, output)
}

/// The server's next message, within [`PATIENCE`].
fn read(output: &mut Output) -> Value {
    output.0.recv_timeout(PATIENCE).expect("an answer within the patience")
}

/// Whether `child` exits within [`PATIENCE`]; it is killed if not.
fn exits(mut child: Child) -> bool {
    let (done, exited) = channel();
    let id = child.id();
    std::thread::spawn(move || done.send(child.wait().map(|s| s.code())).unwrap());
    let exited = exited.recv_timeout(PATIENCE).is_ok();
    if !exited {
        let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
    }
    exited
}

#[test]
fn the_server_exits_when_stdin_closes() {
    let home = home();
    let (child, input, output) = start(home.path());
    drop(input);
    drop(output);
    assert!(exits(child), "sess mcp still runs after its stdin closed");
}

#[test]
fn the_server_exits_when_stdin_closes_during_a_search() {
    let home = home();
    // A message of 8,000 words `a`: searching `a` eight times took about a
    // minute a hit, and the server read stdin again only after it.
    let pi = home.path().join(".pi/agent/sessions/--home-dev-demo-project--");
    let header = r#"{"type":"session","version":3,"id":"long","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let text = "a ".repeat(8_000);
    let message = format!(
        r#"{{"type":"message","id":"e0","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":"{}"}}],"timestamp":1}}}}"#,
        text.trim()
    );
    std::fs::write(pi.join("long.jsonl"), format!("{header}\n{message}\n")).unwrap();
    let (child, mut input, _output) = start(home.path());
    let words = "a ".repeat(8);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "search_sessions", "arguments": {"query": words, "cwd": "*"}}});
    writeln!(input, "{call}").unwrap();
    drop(input);
    assert!(exits(child), "sess mcp still runs after its stdin closed");
}

#[test]
fn malformed_json_is_a_parse_error_and_params_must_be_an_object() {
    let home = home();
    let (child, mut input, mut output) = start(home.path());
    writeln!(input, "{{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": ").unwrap();
    let answer = read(&mut output);
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    for params in [json!([1, 2]), json!("tools"), json!(3)] {
        let request = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": params});
        writeln!(input, "{request}").unwrap();
        let answer = read(&mut output);
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert_eq!(answer["id"], 8, "{answer}");
    }
    // Still serving.
    writeln!(input, "{}", json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})).unwrap();
    let answer = read(&mut output);
    assert_eq!(answer["id"], 9, "{answer}");
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    drop(input);
    assert!(exits(child));
}

#[test]
fn a_search_of_too_many_words_is_a_tool_error_that_says_so() {
    let home = home();
    let (child, mut input, mut output) = start(home.path());
    let words: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "search_sessions", "arguments": {"query": words.join(" "), "cwd": "*"}}});
    writeln!(input, "{call}").unwrap();
    let answer = read(&mut output);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("10000 words"), "{text}");
    // A long query that is fine is not echoed whole: the answer has room.
    let long = "parser ".repeat(20_000);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_sessions", "arguments": {"query": long, "cwd": "*", "max_chars": 2000}}});
    writeln!(input, "{call}").unwrap();
    let answer = read(&mut output);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.is_empty() && text.len() <= 2_000, "{text}");
    drop(input);
    assert!(exits(child));
}
