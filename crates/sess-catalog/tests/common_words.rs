//! Searches for words that match more messages than the catalog ranks at a
//! time (its window of newest matches), tool output matched by a phrase's
//! words, the stored text, and a refresh that finds nothing changed.
#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write the agents' files directly")]

mod common;

use std::collections::HashSet;

use common::{Setup, pi_session};
use pretty_assertions::assert_eq;
use serde_json::json;
use sess_catalog::{Hit, SearchParams};

/// More messages than one window (1,000) say `error`.
const SESSIONS: usize = 40;
const MESSAGES: usize = 30;

/// `count` pi sessions in `cwd`, each with [`MESSAGES`] messages that say
/// `error`, read by one refresh (so they are newer than any read before).
fn add_erring(s: &mut Setup, prefix: &str, cwd: &str, count: usize) {
    for i in 0..count {
        let texts: Vec<String> = (0..MESSAGES).map(|m| format!("error number {m} in step {i}")).collect();
        let messages: Vec<(&str, &str)> = texts.iter().map(|t| ("user", t.as_str())).collect();
        s.add(
            sess_sources::pi::SOURCE,
            &format!("{prefix}{i:02}.jsonl"),
            &pi_session(&format!("{prefix}{i:02}"), cwd, &messages),
        );
    }
    s.refresh();
}

fn search(s: &Setup, params: &SearchParams) -> Vec<Hit> {
    s.catalog.search(params).unwrap()
}

fn ids(hits: &[Hit]) -> Vec<String> {
    hits.iter().map(|h| h.session.id.clone()).collect()
}

#[test]
fn a_common_word_fills_every_hit_from_its_newest_matches() {
    let mut s = Setup::new();
    add_erring(&mut s, "old", "/work/old", 5);
    add_erring(&mut s, "new", "/work/new", SESSIONS);
    let hits = search(&s, &SearchParams { limit: 25, ..SearchParams::new("error") });
    let found = ids(&hits);
    assert_eq!(found.len(), 25, "{found:?}");
    assert_eq!(found.iter().collect::<HashSet<_>>().len(), 25, "one hit per session: {found:?}");
    // The newest thousand matches hold more than 25 sessions: the older
    // project's are not among them.
    assert!(found.iter().all(|id| id.starts_with("new")), "{found:?}");
    for hit in &hits {
        assert!(hit.snippet.iter().any(|p| p.hit && p.text.eq_ignore_ascii_case("error")), "{hit:?}");
    }
}

#[test]
fn a_filter_reads_older_windows_until_it_has_its_hits() {
    let mut s = Setup::new();
    add_erring(&mut s, "old", "/work/old", 5);
    add_erring(&mut s, "new", "/work/new", SESSIONS);
    // Every match of the newest windows is another project's.
    let params = SearchParams { cwd: Some("/work/old".into()), ..SearchParams::new("error") };
    let mut found = ids(&search(&s, &params));
    found.sort();
    assert_eq!(found, ["old00", "old01", "old02", "old03", "old04"]);
    // So does a page past the newest window's sessions.
    let all: Vec<String> = ids(&search(&s, &SearchParams { limit: 45, ..SearchParams::new("error") }));
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 45, "{all:?}");
}

#[test]
fn a_rare_word_is_ranked_over_all_its_matches() {
    let mut s = Setup::new();
    let texts = [("user", "the zebra crossing fails"), ("user", "zebra zebra zebra")];
    s.add(sess_sources::pi::SOURCE, "zebra.jsonl", &pi_session("zebra", "/work/z", &texts));
    add_erring(&mut s, "new", "/work/new", SESSIONS);
    let hits = search(&s, &SearchParams::new("zebra"));
    assert_eq!(ids(&hits), ["zebra"]);
    // Its best message: the one that says it most.
    assert_eq!(hits[0].entry_id.as_deref(), Some("e1"));
}

fn claude_line(kind: &str, uuid: &str, content: &serde_json::Value) -> String {
    let line = json!({
        "type": kind, "uuid": uuid, "sessionId": uuid, "cwd": "/work/app",
        "timestamp": "2026-01-02T03:04:05.000Z", "message": {"role": kind, "content": content},
    });
    format!("{line}\n")
}

/// A Claude Code session whose command printed `output`.
fn claude_session(id: &str, prompt: &str, output: &str) -> String {
    [
        claude_line("user", &format!("{id}-u"), &json!(prompt)),
        claude_line(
            "assistant",
            &format!("{id}-a"),
            &json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]),
        ),
        claude_line(
            "user",
            &format!("{id}-r"),
            &json!([{"type": "tool_result", "tool_use_id": "t1", "content": output}]),
        ),
    ]
    .concat()
}

#[test]
fn tool_output_matches_a_phrases_words_and_shows_the_phrase_where_it_has_it() {
    let mut s = Setup::new();
    s.add(
        sess_sources::claude::SOURCE,
        "a.jsonl",
        &claude_session("a", "build it", "the connection was refused by the host"),
    );
    s.add(
        sess_sources::claude::SOURCE,
        "b.jsonl",
        &claude_session("b", "build again", "error: connection refused (port 5432)"),
    );
    s.refresh();
    let hits = search(&s, &SearchParams::new("\"connection refused\""));
    let mut found = ids(&hits);
    found.sort();
    assert_eq!(found, ["a", "b"], "both outputs hold the words");
    for hit in &hits {
        assert_eq!(hit.role, "tool");
        let marked: Vec<&str> = hit.snippet.iter().filter(|p| p.hit).map(|p| p.text.as_str()).collect();
        if hit.session.id == "b" {
            assert_eq!(marked, ["connection refused"], "the phrase: {hit:?}");
        } else {
            assert_eq!(marked, ["connection", "refused"], "its words: {hit:?}");
        }
    }
}

#[test]
fn a_refresh_that_finds_nothing_changed_does_not_wait_for_a_writer() {
    let mut s = Setup::new();
    add_erring(&mut s, "p", "/work/p", 2);
    // Another process writes to the catalog (an index build, say) and keeps
    // its write lock.
    let other = rusqlite::Connection::open(s.catalog.path()).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    // (A refresh that wrote would wait 30 s for the lock, then fail.)
    let report = s.refresh();
    assert_eq!((report.unchanged, report.added), (2, 0));
    assert_eq!(ids(&search(&s, &SearchParams::new("error"))).len(), 2);
    other.execute_batch("ROLLBACK").unwrap();
}
