//! Issue 26, item 1: `notifications/cancelled` did not stop a running
//! search: `rmcp` cancels the request's token, but the search went on until
//! its budget ran out. A search whose request the client cancels is told
//! at once (well before the budget).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

#[path = "../../sess-web/tests/fakes/slow.rs"]
mod slow;
use slow::Slow;

/// Less than the search's budget ([`sess_mcp::tools::SEARCH_BUDGET`]): a
/// search told only when its budget ends is not told in time.
const PATIENCE: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_search_is_stopped_before_its_budget_ends() {
    assert!(PATIENCE < sess_mcp::tools::SEARCH_BUDGET);
    let (events, heard) = channel();
    let library = Arc::new(Slow { events: Mutex::new(events) });
    let context: sess_mcp::ContextFn = Arc::new(|_, _| Err("no context".to_owned()));
    let server = sess_mcp::Sess::new(library, context, None);
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let running = tokio::spawn(async move {
        let service = server.serve((server_read, server_write)).await.unwrap();
        let _ = service.waiting().await;
    });
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |message: Value| {
        write.write_all(format!("{message}\n").as_bytes()).await.unwrap();
        write.flush().await.unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}))
    .await;
    let answer = tokio::time::timeout(PATIENCE, lines.next_line()).await.unwrap().unwrap().unwrap();
    assert!(answer.contains("\"id\":1"), "{answer}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_sessions", "arguments": {"query": "slow", "cwd": "*"}}}))
    .await;
    let started = tokio::task::spawn_blocking(move || {
        let first = heard.recv_timeout(PATIENCE);
        (first, heard)
    });
    let (first, heard) = started.await.unwrap();
    assert_eq!(first, Ok("started"));
    send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the user pressed Esc"}}))
    .await;
    let told = tokio::task::spawn_blocking(move || heard.recv_timeout(PATIENCE)).await.unwrap();
    assert_eq!(told, Ok("cancelled"), "the search is told its request was cancelled");
    running.abort();
}
