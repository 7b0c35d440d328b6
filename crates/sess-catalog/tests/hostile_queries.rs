//! Issue 26, items 1 and 11: queries that cost too much or that FTS5 could
//! not read. A repeated word made snippets quadratic, `NEAR(a b)` was a raw
//! "SQL logic error", a query of thousands of words ran unbounded, and a
//! search could neither run out of time nor be cancelled.
#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write the agents' files directly")]

mod common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use common::{Setup, pi_session};
use sess_catalog::{Error, SearchParams, Stop, Stopped};
use sess_sources::SourceKind;

fn setup() -> Setup {
    let mut s = Setup::new();
    s.add(SourceKind::native(), "near.jsonl", &pi_session("near", "/w", &[("user", "near a b"), ("assistant", "ok")]));
    let long = "a ".repeat(8_000);
    s.add(SourceKind::native(), "long.jsonl", &pi_session("long", "/w", &[("user", long.trim()), ("assistant", "ok")]));
    s.refresh();
    s
}

#[test]
fn near_and_brackets_are_words() {
    let s = setup();
    // The tool index's query was `("NEAR" "a") "b"`: a syntax error.
    let hits = s.catalog.search(&SearchParams::new("NEAR(a b)")).unwrap();
    assert_eq!(hits.iter().map(|h| h.session.id.as_str()).collect::<Vec<_>>(), ["near"]);
    let hits = s.catalog.search(&SearchParams::new("(near) \"a b\" b")).unwrap();
    assert_eq!(hits.len(), 1);
}

#[test]
fn a_repeated_word_gives_a_short_snippet_of_its_message() {
    let s = setup();
    let hits = s.catalog.search(&SearchParams::new("a ".repeat(50))).unwrap();
    let long = hits.iter().find(|h| h.session.id == "long").unwrap();
    let text = long.snippet_text();
    assert!(text.split_whitespace().count() <= 22, "{text:?}");
    assert!(long.snippet.iter().filter(|p| p.hit).count() >= 10, "{:?}", long.snippet);
}

#[test]
fn a_query_of_too_many_words_is_refused() {
    let s = setup();
    let words: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let error = s.catalog.search(&SearchParams::new(words.join(" "))).unwrap_err();
    assert!(matches!(error, Error::TooManyWords { words: 10_000, .. }), "{error}");
}

#[test]
fn a_search_stops_when_cancelled_or_out_of_time() {
    let s = setup();
    let cancelled = Stop::never().or_when(Arc::new(AtomicBool::new(true)));
    let error = s.catalog.search(&SearchParams { stop: cancelled, ..SearchParams::new("a") }).unwrap_err();
    assert!(matches!(error, Error::Stopped { reason: Stopped::Cancelled }), "{error}");
    let spent = Stop::after(Duration::ZERO);
    let error = s.catalog.search(&SearchParams { stop: spent, ..SearchParams::new("a") }).unwrap_err();
    assert!(matches!(error, Error::Stopped { reason: Stopped::OutOfTime { .. } }), "{error}");
    assert!(error.to_string().contains("time budget"), "{error}");
    // The connection runs the next search to its end.
    assert_eq!(s.catalog.search(&SearchParams::new("near")).unwrap().len(), 1);
}
