//! Issue 26, item 1: one slow search stopped `sess serve` for everyone, and
//! kept running after its client had gone. Over a socket: another request
//! is answered while a search runs, the search is cancelled when its client
//! disconnects, and one over its time budget is answered 503 and cancelled.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sess_web::ServeConfig;

#[path = "fakes/slow.rs"]
mod slow;
use slow::Slow;

/// Generous: a hang, not a speed, is what these tests detect.
const PATIENCE: Duration = Duration::from_secs(10);

/// A server over [`Slow`] with `budget`, on a port of its own, and what
/// its library says.
fn server(budget: Duration) -> (u16, Receiver<&'static str>) {
    let (events, heard) = channel();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = ServeConfig { search_budget: budget, ..ServeConfig::new(port) };
    let library = Arc::new(Slow { events: Mutex::new(events) });
    std::thread::spawn(move || sess_web::serve(listener, library, config));
    (port, heard)
}

/// A connection that has sent `GET path`.
fn get(port: u16, path: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").unwrap();
    stream
}

/// The whole response on `stream`.
fn response(mut stream: TcpStream) -> String {
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("an answer within the patience");
    text
}

#[test]
fn another_request_is_answered_while_a_search_runs_and_a_gone_client_cancels_it() {
    let (port, heard) = server(Duration::from_secs(600));
    let slow = get(port, "/api/search?q=slow");
    assert_eq!(heard.recv_timeout(PATIENCE), Ok("started"));
    let other = response(get(port, "/api/projects"));
    assert!(other.starts_with("HTTP/1.1 200"), "{other}");
    let page = response(get(port, "/"));
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    // Another search runs beside the first.
    let second = get(port, "/api/search?q=slow");
    assert_eq!(heard.recv_timeout(PATIENCE), Ok("started"));
    drop(slow);
    assert_eq!(heard.recv_timeout(PATIENCE), Ok("cancelled"), "the search whose client went away is cancelled");
    drop(second);
    assert_eq!(heard.recv_timeout(PATIENCE), Ok("cancelled"));
}

#[test]
fn a_search_over_its_budget_is_503_and_cancelled() {
    let (port, heard) = server(Duration::from_millis(200));
    let answer = response(get(port, "/api/search?q=slow"));
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("time budget"), "{answer}");
    assert_eq!(heard.recv_timeout(PATIENCE), Ok("started"));
    assert_eq!(heard.recv_timeout(PATIENCE), Ok("cancelled"));
}
