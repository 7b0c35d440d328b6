//! What tools answered is searchable: the first 16 KiB of each tool result
//! and each error, as hits of role `tool` ranked after the conversation's own
//! words; a catalog of the version before them is built again.
#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write the agents' files directly")]

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;
use sess_catalog::{Catalog, Hit, SearchParams, SourceFile};
use sess_sources::SourceKind;

/// A Claude Code line.
fn line(kind: &str, uuid: &str, content: &serde_json::Value) -> String {
    let line = json!({
        "type": kind, "uuid": uuid, "sessionId": "s", "cwd": "/work/app",
        "timestamp": "2026-01-02T03:04:05.000Z", "message": {"role": kind, "content": content},
    });
    format!("{line}\n")
}

/// A Claude Code session: a prompt, a tool call and its result, an answer.
fn claude_session(prompt: &str, command: &str, output: &str, answer: &str) -> String {
    [
        line("user", "u1", &json!(prompt)),
        line(
            "assistant",
            "a1",
            &json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}]),
        ),
        line("user", "r1", &json!([{"type": "tool_result", "tool_use_id": "t1", "content": output, "is_error": true}])),
        line("assistant", "a2", &json!([{"type": "text", "text": answer}])),
    ]
    .concat()
}

struct Setup {
    dir: tempfile::TempDir,
    files: Vec<SourceFile>,
}

impl Setup {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap(), files: Vec::new() }
    }

    fn add(&mut self, source: SourceKind, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        fs::write(&path, text).unwrap();
        self.files.push(SourceFile::new(source, path.clone()));
        path
    }

    fn catalog_path(&self) -> PathBuf {
        self.dir.path().join("catalog.sqlite")
    }

    fn refreshed(&self) -> Catalog {
        let mut catalog = Catalog::open(self.catalog_path()).unwrap();
        catalog.refresh(&self.files, &mut |_| {}).unwrap();
        catalog
    }
}

fn search(catalog: &Catalog, query: &str) -> Vec<Hit> {
    catalog.search(&SearchParams::new(query)).unwrap()
}

/// `(session id, role, entry id)` of each hit.
fn hits(catalog: &Catalog, query: &str) -> Vec<(String, String, Option<String>)> {
    search(catalog, query).into_iter().map(|h| (h.session.id, h.role, h.entry_id)).collect()
}

#[test]
fn a_tool_result_is_found_and_says_where() {
    let mut s = Setup::new();
    let output = "npm ERR! ECONNREFUSED 127.0.0.1:5432 while connecting to the database";
    s.add(
        sess_sources::claude::SOURCE,
        "one.jsonl",
        &claude_session("run the tests", "npm test", output, "the db is down"),
    );
    let catalog = s.refreshed();
    let found = search(&catalog, "ECONNREFUSED");
    assert_eq!(found.len(), 1);
    // The result is shown under the call, in the message `a1` opened.
    assert_eq!((found[0].role.as_str(), found[0].entry_id.as_deref()), ("tool", Some("a1")));
    assert!(found[0].snippet_text().contains("ECONNREFUSED 127.0.0.1:5432"), "{:?}", found[0].snippet);
    // Filters apply to tool output too.
    let elsewhere = SearchParams { cwd: Some("/elsewhere".into()), ..SearchParams::new("ECONNREFUSED") };
    assert!(catalog.search(&elsewhere).unwrap().is_empty());
    let here = SearchParams { cwd: Some("/work/app".into()), ..SearchParams::new("ECONNREFUSED") };
    assert_eq!(catalog.search(&here).unwrap().len(), 1);
    // The conversation's words are found as before (a tool result leaves the
    // assistant message `a1` open: the answer is part of it).
    assert_eq!(hits(&catalog, "\"db is down\""), [("one".into(), "assistant".into(), Some("a1".into()))]);
}

#[test]
fn tool_output_ranks_below_the_conversation() {
    let mut s = Setup::new();
    // Said once in the conversation of `talk`; many times in a tool's output
    // of `tool` (which BM25 alone would put first).
    s.add(
        sess_sources::claude::SOURCE,
        "talk.jsonl",
        &claude_session("why is the linker slow today", "ls", "a b c", "no idea"),
    );
    s.add(
        sess_sources::claude::SOURCE,
        "tool.jsonl",
        &claude_session("build it", "cargo build", &"linker linker linker ".repeat(20), "done"),
    );
    // Both: the hit is the conversation's.
    s.add(
        sess_sources::claude::SOURCE,
        "both.jsonl",
        &claude_session("build again", "cargo build", &"linker ".repeat(50), "the linker failed again, see above"),
    );
    let catalog = s.refreshed();
    let found = hits(&catalog, "linker");
    let order: Vec<(&str, &str)> = found.iter().map(|(id, role, _)| (id.as_str(), role.as_str())).collect();
    assert_eq!(order.len(), 3, "{order:?}");
    assert_eq!(order[2], ("tool", "tool"), "{order:?}");
    assert!(order[..2].contains(&("both", "assistant")) && order[..2].contains(&("talk", "user")), "{order:?}");
    // A limit that the conversation fills leaves tool output out.
    let two = catalog.search(&SearchParams { limit: 2, ..SearchParams::new("linker") }).unwrap();
    assert!(two.iter().all(|h| h.role != "tool"), "{two:?}");
}

#[test]
fn only_the_first_16_kib_of_a_result_is_searched() {
    let mut s = Setup::new();
    let output = format!("{} needle-early {} needlelate", "x ".repeat(100), "y ".repeat(16 * 1024));
    s.add(sess_sources::claude::SOURCE, "big.jsonl", &claude_session("read the log", "cat log", &output, "ok"));
    let catalog = s.refreshed();
    assert_eq!(search(&catalog, "needle-early").len(), 1);
    assert!(search(&catalog, "needlelate").is_empty());
}

#[test]
fn errors_and_pi_tool_results_are_searched_and_replaced_when_the_file_changes() {
    let mut s = Setup::new();
    let header = r#"{"type":"session","version":3,"id":"p1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/app"}"#;
    let entry = |id: &str, parent: &str, message: serde_json::Value| {
        let parent = if parent.is_empty() { json!(null) } else { json!(parent) };
        format!(
            "{}\n",
            json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", "message": message})
        )
    };
    let first = [
        format!("{header}\n"),
        entry("e1", "", json!({"role": "user", "content": "deploy", "timestamp": 1})),
        entry(
            "e2",
            "e1",
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "make deploy"}}], "timestamp": 2}),
        ),
        entry(
            "e3",
            "e2",
            json!({"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "permission denied (publickey)"}], "isError": true, "timestamp": 3}),
        ),
    ]
    .concat();
    let path = s.add(sess_sources::pi::SOURCE, "p1.jsonl", &first);
    let catalog = s.refreshed();
    assert_eq!(hits(&catalog, "publickey"), [("p1".into(), "tool".into(), Some("e2".into()))]);
    drop(catalog);
    // Grown: a failed turn whose error the harness wrote, and a second call
    // with its result, both read from where the catalog stopped.
    let grown = [
        entry(
            "e4",
            "e3",
            json!({"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "overloaded_error: try later", "timestamp": 4}),
        ),
        entry(
            "e5",
            "e4",
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "df"}}], "timestamp": 5}),
        ),
        entry(
            "e6",
            "e5",
            json!({"role": "toolResult", "toolCallId": "c2", "content": [{"type": "text", "text": "no space left on device"}], "timestamp": 6}),
        ),
    ]
    .concat();
    append(&path, &grown);
    let mut catalog = Catalog::open(s.catalog_path()).unwrap();
    assert_eq!(catalog.refresh(&s.files, &mut |_| {}).unwrap().grown, 1);
    assert_eq!(hits(&catalog, "overloaded_error"), [("p1".into(), "tool".into(), Some("e4".into()))]);
    assert_eq!(hits(&catalog, "\"no space left\""), [("p1".into(), "tool".into(), Some("e5".into()))]);
    assert_eq!(search(&catalog, "publickey").len(), 1);
    // Rewritten: the old output is gone from the index.
    fs::write(&path, first.replace("permission denied (publickey)", "host key verification failed")).unwrap();
    assert_eq!(catalog.refresh(&s.files, &mut |_| {}).unwrap().reread, 1);
    assert!(search(&catalog, "publickey").is_empty());
    assert!(search(&catalog, "space").is_empty());
    assert_eq!(search(&catalog, "verification").len(), 1);
    // Removed: nothing of it is found.
    s.files.clear();
    catalog.refresh(&s.files, &mut |_| {}).unwrap();
    assert!(search(&catalog, "verification").is_empty());
}

fn append(path: &Path, text: &str) {
    OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

#[test]
fn a_catalog_of_the_version_before_tool_output_is_built_again() {
    let mut s = Setup::new();
    s.add(
        sess_sources::claude::SOURCE,
        "one.jsonl",
        &claude_session("run it", "npm test", "ECONNRESET by peer", "retry"),
    );
    drop(s.refreshed());
    {
        // What version 1 left: its tables, no tool documents.
        let conn = rusqlite::Connection::open(s.catalog_path()).unwrap();
        conn.execute_batch(
            "DROP TABLE IF EXISTS tool_fts; DELETE FROM docs WHERE role = 'tool'; PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let mut catalog = Catalog::open(s.catalog_path()).unwrap();
    let report = catalog.refresh(&s.files, &mut |_| {}).unwrap();
    assert_eq!((report.added, report.unchanged), (1, 0));
    assert_eq!(hits(&catalog, "ECONNRESET"), [("one".into(), "tool".into(), Some("a1".into()))]);
}

#[test]
fn a_result_written_after_a_refresh_read_its_call_is_found() {
    let mut s = Setup::new();
    // pi: the call is cataloged, then the file grows by its result.
    let header = r#"{"type":"session","version":3,"id":"p2","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/app"}"#;
    let call = json!({"type": "message", "id": "e1", "parentId": null, "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "make"}}], "timestamp": 1}});
    let result = json!({"type": "message", "id": "e2", "parentId": "e1", "timestamp": "2026-01-01T00:00:02.000Z",
        "message": {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "segmentation fault (core dumped)"}], "timestamp": 2}});
    let pi = s.add(sess_sources::pi::SOURCE, "p2.jsonl", &format!("{header}\n{call}\n"));
    // Claude Code: the same.
    let claude_call = line(
        "assistant",
        "a1",
        &json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "go test"}}]),
    );
    let claude_result = line(
        "user",
        "r1",
        &json!([{"type": "tool_result", "tool_use_id": "t1", "content": "panic: runtime error: index out of range"}]),
    );
    let claude =
        s.add(sess_sources::claude::SOURCE, "c2.jsonl", &[line("user", "u1", &json!("test it")), claude_call].concat());
    drop(s.refreshed());
    append(&pi, &format!("{result}\n"));
    append(&claude, &claude_result);
    let mut catalog = Catalog::open(s.catalog_path()).unwrap();
    assert_eq!(catalog.refresh(&s.files, &mut |_| {}).unwrap().grown, 2);
    // pi: at the `toolResult` entry, a leaf `sess show --leaf` takes.
    assert_eq!(hits(&catalog, "segmentation"), [("p2".into(), "tool".into(), Some("e2".into()))]);
    // Claude Code: the message that shows it was read before; no id.
    assert_eq!(hits(&catalog, "\"index out of range\""), [("c2".into(), "tool".into(), None)]);
}
