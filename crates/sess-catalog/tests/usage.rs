//! The model calls the catalog keeps: each response once with its last
//! line's usage, also when its lines are read in two refreshes; subagents'
//! transcripts counted with their session and read again only when they
//! change; calls dropped with their session.
#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write session files directly")]

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::Path;

use sess_catalog::{Catalog, SourceFile, UsageParams};

const SESSION: &str = "5f0c1a2b-0000-4000-8000-000000000001";

fn assistant(id: &str, request: &str, at: &str, output: u64) -> String {
    format!(
        r#"{{"type":"assistant","uuid":"u-{id}-{output}","sessionId":"{SESSION}","cwd":"/work/app","timestamp":"{at}","requestId":"{request}","message":{{"id":"{id}","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"ok"}}],"usage":{{"input_tokens":10,"output_tokens":{output},"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}}}}}"#
    ) + "\n"
}

fn append(path: &Path, text: &str) {
    OpenOptions::new().append(true).create(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

/// `(session id, output tokens)` of every call, in order.
fn calls(catalog: &Catalog) -> Vec<(String, u64)> {
    catalog
        .usage(&UsageParams::default())
        .unwrap()
        .into_iter()
        .map(|row| (row.session.session_id.clone(), row.tokens.output))
        .collect()
}

#[test]
fn a_response_split_across_two_refreshes_counts_once_with_its_last_usage() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join(format!("{SESSION}.jsonl"));
    let user = format!(
        r#"{{"type":"user","uuid":"u0","sessionId":"{SESSION}","cwd":"/work/app","timestamp":"2026-05-01T10:00:00Z","message":{{"role":"user","content":"hello"}}}}"#
    ) + "\n";
    append(&main, &user);
    append(&main, &assistant("msg_1", "req_1", "2026-05-01T10:00:01Z", 5));
    let mut catalog = Catalog::open(dir.path().join("catalog.sqlite")).unwrap();
    let files = [SourceFile::new(sess_sources::claude::SOURCE, main.clone())];
    catalog.refresh(&files, &mut |_| {}).unwrap();
    assert_eq!(calls(&catalog), [(SESSION.to_owned(), 5)]);

    // The response's second line, then a second response: read as a tail.
    append(&main, &assistant("msg_1", "req_1", "2026-05-01T10:00:02Z", 50));
    append(&main, &assistant("msg_2", "req_2", "2026-05-01T10:01:00Z", 7));
    let report = catalog.refresh(&files, &mut |_| {}).unwrap();
    assert_eq!(report.grown, 1, "{report:?}");
    assert_eq!(calls(&catalog), [(SESSION.to_owned(), 50), (SESSION.to_owned(), 7)]);

    // A subagent's transcript counts with the session once the main file changes.
    let subagents = dir.path().join(SESSION).join("subagents");
    fs::create_dir_all(&subagents).unwrap();
    fs::write(subagents.join("agent-a1.jsonl"), assistant("msg_sub", "req_sub", "2026-05-01T10:00:30Z", 3)).unwrap();
    append(&main, &assistant("msg_3", "req_3", "2026-05-01T10:02:00Z", 1));
    catalog.refresh(&files, &mut |_| {}).unwrap();
    let mut outputs: Vec<u64> = calls(&catalog).into_iter().map(|(_, output)| output).collect();
    outputs.sort_unstable();
    assert_eq!(outputs, [1, 3, 7, 50]);

    // Read whole again (rewritten): the same calls, not twice.
    let bytes = fs::read(&main).unwrap();
    let before = catalog.usage(&UsageParams::default()).unwrap();
    let rewritten = String::from_utf8(bytes).unwrap().replacen("hello", "HELLO", 1);
    fs::write(&main, rewritten).unwrap();
    let report = catalog.refresh(&files, &mut |_| {}).unwrap();
    assert_eq!(report.reread, 1, "{report:?}");
    let after = catalog.usage(&UsageParams::default()).unwrap();
    assert_eq!(after.len(), before.len());

    // The session gone: its calls too.
    catalog.refresh(&[], &mut |_| {}).unwrap();
    assert!(calls(&catalog).is_empty());
}

#[test]
fn calls_are_filtered_by_agent_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join(format!("{SESSION}.jsonl"));
    append(&main, &assistant("msg_1", "req_1", "2026-05-01T10:00:01Z", 5));
    let mut catalog = Catalog::open(dir.path().join("catalog.sqlite")).unwrap();
    catalog.refresh(&[SourceFile::new(sess_sources::claude::SOURCE, main)], &mut |_| {}).unwrap();
    let only = |params: UsageParams| catalog.usage(&params).unwrap().len();
    assert_eq!(only(UsageParams { cwd: Some("/work/app".into()), ..UsageParams::default() }), 1);
    assert_eq!(only(UsageParams { cwd: Some("/work/other".into()), ..UsageParams::default() }), 0);
    assert_eq!(only(UsageParams { sources: vec![sess_sources::codex::SOURCE], ..UsageParams::default() }), 0);
    assert_eq!(only(UsageParams { sources: vec![sess_sources::claude::SOURCE], ..UsageParams::default() }), 1);
}

/// An assistant line of session `session`, begun at `at`.
fn answer(session: &str, id: &str, at: &str, output: u64) -> String {
    assistant(id, &format!("req-{id}"), at, output).replace(SESSION, session)
}

#[test]
fn a_sessions_calls_come_with_those_of_the_sessions_sharing_a_response() {
    let dir = tempfile::tempdir().unwrap();
    let (original, fork, other) =
        (SESSION, "5f0c1a2b-0000-4000-8000-000000000002", "5f0c1a2b-0000-4000-8000-000000000003");
    // The fork copied the original's first response, then made one of its own.
    append(&dir.path().join(format!("{original}.jsonl")), &answer(original, "msg_a", "2026-05-01T10:00:00Z", 1));
    append(&dir.path().join(format!("{original}.jsonl")), &answer(original, "msg_b", "2026-05-01T10:01:00Z", 2));
    append(&dir.path().join(format!("{fork}.jsonl")), &answer(fork, "msg_a", "2026-05-02T10:00:00Z", 1));
    append(&dir.path().join(format!("{fork}.jsonl")), &answer(fork, "msg_c", "2026-05-02T10:01:00Z", 3));
    append(&dir.path().join(format!("{other}.jsonl")), &answer(other, "msg_d", "2026-05-03T10:00:00Z", 4));
    let mut catalog = Catalog::open(dir.path().join("catalog.sqlite")).unwrap();
    let files: Vec<SourceFile> = [original, fork, other]
        .iter()
        .map(|id| SourceFile::new(sess_sources::claude::SOURCE, dir.path().join(format!("{id}.jsonl"))))
        .collect();
    catalog.refresh(&files, &mut |_| {}).unwrap();
    let key = |id: &str| {
        let list = catalog.sessions(&sess_catalog::ListParams::default()).unwrap();
        list.into_iter().find(|s| s.id == id).unwrap().key
    };
    let of = |session: i64| -> Vec<(String, u64)> {
        let params = UsageParams { session: Some(session), ..UsageParams::default() };
        catalog
            .usage(&params)
            .unwrap()
            .into_iter()
            .map(|row| (row.session.session_id.clone(), row.tokens.output))
            .collect()
    };
    // Earliest session first: the copy of msg_a counts in the original.
    assert_eq!(of(key(fork)), [(original.to_owned(), 1), (fork.to_owned(), 1), (fork.to_owned(), 3)]);
    assert_eq!(of(key(original)), [(original.to_owned(), 1), (original.to_owned(), 2), (fork.to_owned(), 1)]);
    assert_eq!(of(key(other)), [(other.to_owned(), 4)]);
    assert_eq!(of(-1), []);
}
