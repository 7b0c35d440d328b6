//! The catalog against real files: every source, incremental refresh,
//! deletions, growing and rewritten files, unreadable files, and ranking.
#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write the agents' files directly")]

mod common;

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::Path;

use common::{FIXTURES, Setup, pi_session};
use pretty_assertions::assert_eq;
use sess_catalog::{ListParams, SearchParams, StoredSession, Within};

fn claude_line(uuid: &str, role: &str, text: &str) -> String {
    format!(
        r#"{{"type":"{role}","uuid":"{uuid}","sessionId":"s","cwd":"/work/app","timestamp":"2026-01-02T03:04:05.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}]}}}}"#
    ) + "\n"
}

fn append(path: &Path, text: &str) {
    OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

#[test]
fn every_source_is_indexed_and_searched() {
    let mut s = Setup::new();
    s.copy(sess_sources::pi::SOURCE, "pi-family/pi-mono-0.73.1-main.jsonl", "pi.jsonl");
    s.copy(
        sess_sources::claude::SOURCE,
        "claude-code/claude-basic-toolcall.jsonl",
        "5f0c1a2b-aaaa-4000-8000-000000000001.jsonl",
    );
    s.copy(
        sess_sources::codex::SOURCE,
        "codex/codex-basic-rollout.jsonl",
        "rollout-2026-01-01T00-00-00-0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
    );
    let report = s.refresh();
    assert_eq!((report.files, report.added, report.problems.len()), (3, 3, 0));
    assert_eq!(s.catalog.len().unwrap(), 3);

    // A pi message on an abandoned branch is found, with its entry id.
    let hits = s.search("\"alternative question\"");
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].session.source, hits[0].role.as_str()), (sess_sources::pi::SOURCE, "user"));
    assert!(hits[0].entry_id.is_some());
    assert!(hits[0].snippet.iter().any(|p| p.hit && p.text == "alternative question"));

    let hits = s.search("uptime");
    assert!(hits.iter().any(|h| h.session.source == sess_sources::claude::SOURCE), "{hits:?}");
    let hits = s.search("test_parse_dates");
    assert_eq!(hits.iter().map(|h| h.session.source).collect::<Vec<_>>(), [sess_sources::codex::SOURCE]);
    // Codex's injected harness text is not the user's.
    assert!(s.search("sandboxing").is_empty());
}

#[test]
fn tool_names_and_commands_are_searchable_but_not_their_output() {
    let mut s = Setup::new();
    s.copy(
        sess_sources::claude::SOURCE,
        "claude-code/claude-basic-toolcall.jsonl",
        "5f0c1a2b-aaaa-4000-8000-000000000001.jsonl",
    );
    s.refresh();
    let text = fs::read_to_string(Path::new(FIXTURES).join("claude-code/claude-basic-toolcall.jsonl")).unwrap();
    assert!(text.contains("\"name\":\"Bash\""), "the fixture calls Bash");
    assert!(!s.search("Bash").is_empty());
}

#[test]
fn unchanged_files_are_not_read_again_and_deleted_files_drop_out() {
    let mut s = Setup::new();
    let a = s.add(sess_sources::pi::SOURCE, "a.jsonl", &pi_session("a", "/p", &[("user", "alpha words")]));
    s.add(sess_sources::pi::SOURCE, "b.jsonl", &pi_session("b", "/p", &[("user", "beta words")]));
    assert_eq!(s.refresh().added, 2);
    let again = s.refresh();
    assert_eq!((again.unchanged, again.added, again.reread, again.grown), (2, 0, 0, 0));

    fs::remove_file(&a).unwrap();
    s.files.retain(|f| f.path != a);
    let report = s.refresh();
    assert_eq!((report.removed, report.unchanged), (1, 1));
    assert!(s.search("alpha").is_empty());
    assert_eq!(s.ids("words"), ["b"]);
}

#[test]
fn a_refresh_within_an_agent_or_of_some_files_removes_only_what_it_covers() {
    let mut s = Setup::new();
    let a = s.add(sess_sources::pi::SOURCE, "a.jsonl", &pi_session("a", "/p", &[("user", "alpha words")]));
    let b = s.add(sess_sources::pi::SOURCE, "b.jsonl", &pi_session("b", "/p", &[("user", "beta words")]));
    let c = s.add(
        sess_sources::claude::SOURCE,
        "5f0c1a2b-aaaa-4000-8000-000000000005.jsonl",
        &claude_line("u1", "user", "gamma words"),
    );
    assert_eq!(s.refresh().added, 3);
    let file = |path: &Path| s.files.iter().find(|f| f.path == path).unwrap().clone();
    let (file_b, file_c) = (file(&b), file(&c));

    // Some files that changed: the others stay.
    append(&c, &claude_line("u2", "assistant", "delta words"));
    let report = s.catalog.refresh_within(std::slice::from_ref(&file_c), Within::These, &mut |_| {}).unwrap();
    assert_eq!((report.removed, report.grown), (0, 1));
    assert_eq!(s.ids("words").len(), 3);
    assert_eq!(s.ids("delta"), ["5f0c1a2b-aaaa-4000-8000-000000000005"]);
    let at = s.catalog.sessions_at(&[a.clone(), c.clone()]).unwrap();
    let mut ids: Vec<(&str, usize)> = at.iter().map(|r| (r.id.as_str(), r.message_count)).collect();
    ids.sort_unstable();
    assert_eq!(ids, [("5f0c1a2b-aaaa-4000-8000-000000000005", 2), ("a", 1)]);

    // One agent's files: its others go, another agent's stay.
    let report = s
        .catalog
        .refresh_within(std::slice::from_ref(&file_b), Within::Agent(sess_sources::pi::SOURCE), &mut |_| {})
        .unwrap();
    assert_eq!(report.removed, 1);
    assert_eq!(s.ids("words"), ["5f0c1a2b-aaaa-4000-8000-000000000005", "b"]);

    // A file given that is gone goes, whatever the scope.
    fs::remove_file(&c).unwrap();
    let report = s.catalog.refresh_within(&[file_c, file_b], Within::These, &mut |_| {}).unwrap();
    assert_eq!((report.removed, report.unchanged), (1, 1));
    assert_eq!(s.ids("words"), ["b"]);
}

#[test]
fn a_grown_file_is_read_from_where_the_catalog_stopped() {
    let mut s = Setup::new();
    // Past the first 4 KiB, so that a change there is not seen as a rewrite.
    let filler: String = (0..40).map(|i| claude_line(&format!("f{i}"), "user", &"filler ".repeat(20))).collect();
    let path = s.add(
        sess_sources::claude::SOURCE,
        "5f0c1a2b-aaaa-4000-8000-000000000002.jsonl",
        &(filler + &claude_line("u1", "user", "alpha prompt")),
    );
    s.refresh();
    assert_eq!(s.catalog.sessions(&ListParams::default()).unwrap()[0].message_count, 41);

    // Rewrite an indexed line in place (same length), then append.
    let text = fs::read_to_string(&path).unwrap().replace("alpha prompt", "omega prompt");
    fs::write(&path, text).unwrap();
    append(&path, &claude_line("u2", "assistant", "gamma reply"));
    append(&path, r#"{"type":"custom-title","customTitle":"Login form fix","sessionId":"s"}"#);
    append(&path, "\n");
    let report = s.refresh();
    assert_eq!((report.grown, report.reread, report.messages), (1, 0, 1));
    // The new lines are in; the old ones were not read again.
    assert_eq!(s.search("gamma")[0].entry_id.as_deref(), Some("u2"));
    assert_eq!(s.search("alpha").len(), 1);
    assert!(s.search("omega").is_empty());
    let row = &s.catalog.sessions(&ListParams::default()).unwrap()[0];
    assert_eq!((row.message_count, row.title.as_deref()), (42, Some("Login form fix")));
    assert_eq!(s.search("\"login form\"")[0].role, "title");
}

#[test]
fn a_line_still_being_written_waits_for_its_end() {
    let mut s = Setup::new();
    let path = s.add(
        sess_sources::claude::SOURCE,
        "5f0c1a2b-aaaa-4000-8000-000000000003.jsonl",
        &claude_line("u1", "user", "first"),
    );
    s.refresh();
    let line = claude_line("u2", "user", "second half");
    append(&path, &line[..20]);
    assert_eq!(s.refresh().grown, 1);
    assert!(s.search("second").is_empty());
    append(&path, &line[20..]);
    assert_eq!(s.refresh().grown, 1);
    assert_eq!(s.search("second")[0].entry_id.as_deref(), Some("u2"));
}

#[test]
fn a_rewritten_file_is_read_again_whole() {
    let mut s = Setup::new();
    let path =
        s.add(sess_sources::pi::SOURCE, "a.jsonl", &pi_session("a", "/p", &[("user", "alpha"), ("assistant", "beta")]));
    s.refresh();
    fs::write(&path, pi_session("a", "/p", &[("user", "delta")])).unwrap();
    let report = s.refresh();
    assert_eq!((report.reread, report.grown), (1, 0));
    assert!(s.search("alpha").is_empty());
    assert_eq!(s.ids("delta"), ["a"]);
}

#[test]
fn an_unreadable_file_is_reported_skipped_and_read_once_it_changes() {
    let mut s = Setup::new();
    s.add(sess_sources::pi::SOURCE, "good.jsonl", &pi_session("good", "/p", &[("user", "fine words")]));
    let bad = s.add(sess_sources::pi::SOURCE, "bad.jsonl", "this is not json\n{\"type\":\"message\"}\n");
    let report = s.refresh();
    assert_eq!((report.added, report.problems.len()), (1, 1));
    assert_eq!(report.problems[0].path, bad);
    assert!(report.problems[0].reason.contains("not a pi-family session"), "{}", report.problems[0].reason);
    // Still reported, not read again.
    let again = s.refresh();
    assert_eq!((again.unchanged, again.added, again.problems.len()), (1, 0, 1));
    // Fixed: it is read.
    fs::write(&bad, pi_session("bad", "/p", &[("user", "repaired words")])).unwrap();
    let fixed = s.refresh();
    assert_eq!((fixed.added, fixed.problems.len()), (1, 0));
    assert_eq!(s.ids("repaired"), ["bad"]);
    // And the catalog never wrote to the agents' files.
    assert_eq!(fs::read_to_string(&bad).unwrap(), pi_session("bad", "/p", &[("user", "repaired words")]));
}

#[test]
fn titles_rank_above_passing_mentions_and_phrases_keep_their_order() {
    let mut s = Setup::new();
    let mention = "we looked at many things today and one of them was the login page and later the form";
    s.add(sess_sources::pi::SOURCE, "m.jsonl", &pi_session("mention", "/p", &[("user", mention)]));
    let titled = pi_session("titled", "/p", &[("user", "help me please")])
        + r#"{"type":"session_info","id":"i1","parentId":"e0","timestamp":"2026-01-01T00:00:09.000Z","name":"Login form"}"#
        + "\n";
    s.add(sess_sources::pi::SOURCE, "t.jsonl", &titled);
    s.add(sess_sources::pi::SOURCE, "r.jsonl", &pi_session("reversed", "/p", &[("user", "the form for login")]));
    s.refresh();
    assert_eq!(s.ids("login form")[0], "titled");
    let mut phrase = s.ids("\"login form\"");
    phrase.sort();
    assert_eq!(phrase, ["titled"]);
    let mut prefix = s.ids("log*");
    prefix.sort();
    assert_eq!(prefix, ["mention", "reversed", "titled"]);
    assert_eq!(s.ids("login NOT page").len(), 2);
    assert!(matches!(s.catalog.search(&SearchParams::new("  ** ")), Err(sess_catalog::Error::EmptyQuery { .. })));
}

#[test]
fn filters_by_source_and_directory() {
    let mut s = Setup::new();
    s.add(sess_sources::pi::SOURCE, "a.jsonl", &pi_session("a", "/one", &[("user", "shared words")]));
    s.add(sess_sources::pi::SOURCE, "b.jsonl", &pi_session("b", "/two", &[("user", "shared words")]));
    s.add(
        sess_sources::claude::SOURCE,
        "5f0c1a2b-aaaa-4000-8000-000000000004.jsonl",
        &claude_line("u1", "user", "shared words"),
    );
    s.refresh();
    let search = |source, cwd: Option<&str>| {
        let params = SearchParams { source, cwd: cwd.map(str::to_owned), ..SearchParams::new("shared") };
        let mut ids: Vec<String> = s.catalog.search(&params).unwrap().into_iter().map(|h| h.session.id).collect();
        ids.sort();
        ids
    };
    assert_eq!(search(None, None).len(), 3);
    assert_eq!(search(Some(sess_sources::claude::SOURCE), None), ["5f0c1a2b-aaaa-4000-8000-000000000004"]);
    assert_eq!(search(None, Some("/two")), ["b"]);
    let projects = s.catalog.projects().unwrap();
    assert_eq!(projects.len(), 3);
    let listed = s.catalog.sessions(&ListParams { text: Some("/ONE".into()), ..ListParams::default() }).unwrap();
    assert_eq!(listed.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["a"]);
    let key = listed[0].key;
    assert_eq!(s.catalog.session(key).unwrap().unwrap().id, "a");
}

fn stored(id: &str, version: &str) -> StoredSession {
    StoredSession {
        id: id.to_owned(),
        version: version.to_owned(),
        title: Some(format!("title of {id}")),
        title_explicit: true,
        cwd: Some("/store/project".to_owned()),
        created: None,
        modified_ms: 1,
        message_count: 1,
    }
}

fn entries_saying(text: &str) -> Vec<sess_core::Entry> {
    let line = format!(
        r#"{{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"{text}"}}}}"#
    );
    vec![sess_core::Entry::parse(&line).unwrap()]
}

#[test]
fn store_sessions_are_read_when_their_version_changes_and_kept_apart_from_files() {
    let mut s = Setup::new();
    s.add(sess_sources::pi::SOURCE, "a.jsonl", &pi_session("a", "/p", &[("user", "file words")]));
    s.refresh();
    let url = "sqlite:/tmp/agents.db";
    let reads = std::cell::RefCell::new(Vec::new());
    let mut read = |session: &StoredSession| -> Result<Vec<sess_core::Entry>, String> {
        reads.borrow_mut().push(session.id.clone());
        match session.id.as_str() {
            "broken" => Err("no such table".to_owned()),
            id => Ok(entries_saying(&format!("stored words of {id}"))),
        }
    };
    let report = s.catalog.refresh_store(url, &[stored("s1", "1"), stored("s2", "1")], &mut read).unwrap();
    assert_eq!((report.added, report.unchanged), (2, 0));
    let hit = &s.search("\"stored words of s2\"")[0];
    assert_eq!((hit.session.store.as_deref(), hit.session.id.as_str()), (Some(url), "s2"));
    assert_eq!(hit.entry_id.as_deref(), Some("m1"));
    assert_eq!(s.search("\"title of s1\"")[0].role, "title");

    // Unchanged versions are not read; a changed one is; a dropped one goes.
    let report = s.catalog.refresh_store(url, &[stored("s1", "1"), stored("s2", "2")], &mut read).unwrap();
    assert_eq!((report.unchanged, report.reread, report.added), (1, 1, 0));
    let report = s.catalog.refresh_store(url, &[stored("s2", "2"), stored("broken", "1")], &mut read).unwrap();
    assert_eq!((report.removed, report.problems.len()), (1, 1));
    assert_eq!(*reads.borrow(), ["s1", "s2", "s2", "broken"]);
    assert!(s.search("s1").iter().all(|h| h.session.id != "s1"));

    // Refreshing the files leaves the store's sessions alone, and back.
    assert_eq!(s.refresh().removed, 0);
    assert_eq!(s.ids("\"stored words\""), ["s2"]);
    assert_eq!(s.catalog.refresh_store("dir:/elsewhere", &[], &mut read).unwrap().removed, 0);
    assert_eq!(s.ids("\"file words\""), ["a"]);
}

#[test]
fn a_grown_codex_rollout_keeps_its_messages_line_numbers() {
    let mut s = Setup::new();
    let text = fs::read_to_string(Path::new(FIXTURES).join("codex/codex-basic-rollout.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let name = "rollout-2026-08-20T10-02-11-0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81.jsonl";
    let path = s.add(sess_sources::codex::SOURCE, name, &(lines[..7].join("\n") + "\n"));
    s.refresh();
    append(&path, &(lines[7..21].join("\n") + "\n"));
    assert_eq!(s.refresh().grown, 1);
    // The ids a whole read gives the same messages.
    let whole = sess_sources::codex::parse(fs::read(&path).unwrap().as_slice());
    let ids: Vec<Option<&str>> = whole.messages.iter().map(|m| m.id.as_deref()).collect();
    assert_eq!(ids, [Some("6"), Some("8")]);
    assert_eq!(s.search("test_parse_dates")[0].entry_id.as_deref(), Some("6"));
    assert_eq!(s.search("month")[0].entry_id.as_deref(), Some("8"));
}

#[test]
fn a_grown_codex_rollout_with_ordinals_keeps_the_ids_a_whole_read_gives() {
    // Codex 0.171 numbers its lines (`ordinal`); message ids come from them.
    let mut s = Setup::new();
    let name = "rollout-2026-11-30T09-46-18-01a22bd9-1dad-7982-8c13-8e5f854e52d0.jsonl";
    let text =
        fs::read_to_string(Path::new(FIXTURES).join("codex/real-0.171.0/codex-home/sessions/2026/11/30").join(name))
            .unwrap();
    assert!(text.contains("\"ordinal\""));
    let lines: Vec<&str> = text.lines().collect();
    let path = s.add(sess_sources::codex::SOURCE, name, &(lines[..lines.len() / 2].join("\n") + "\n"));
    s.refresh();
    append(&path, &(lines[lines.len() / 2..].join("\n") + "\n"));
    assert_eq!(s.refresh().grown, 1);
    let whole = sess_sources::codex::parse(fs::read(&path).unwrap().as_slice());
    let late = whole.messages.last().unwrap();
    let word = late
        .blocks
        .iter()
        .find_map(|b| match b {
            sess_sources::Block::Text { text } => {
                text.split_whitespace().find(|w| w.len() > 4 && w.chars().all(char::is_alphabetic))
            }
            _ => None,
        })
        .unwrap();
    let hit = s.search(word).into_iter().find(|h| h.entry_id == late.id);
    assert!(hit.is_some(), "no hit on `{word}` with the id {:?} a whole read gives", late.id);
}

/// Seven pi sessions saying `shared`, five in `/big` and two in `/small`.
fn seven_sessions() -> Setup {
    let mut s = Setup::new();
    for i in 0..7 {
        let cwd = if i < 5 { "/big" } else { "/small" };
        let text = format!("shared words {}", "again ".repeat(i));
        s.add(sess_sources::pi::SOURCE, &format!("p{i}.jsonl"), &pi_session(&format!("p{i}"), cwd, &[("user", &text)]));
    }
    s.refresh();
    s
}

#[test]
fn sessions_page_by_offset_and_count_in_all() {
    let s = seven_sessions();
    let list = |cwd: Option<&str>, limit, offset| -> Vec<String> {
        let params = ListParams { cwd: cwd.map(str::to_owned), limit, offset, ..ListParams::default() };
        s.catalog.sessions(&params).unwrap().into_iter().map(|r| r.id).collect()
    };
    let all = list(None, 100, 0);
    assert_eq!(all.len(), 7);
    let paged: Vec<String> = [0, 3, 6].into_iter().flat_map(|offset| list(None, 3, offset)).collect();
    assert_eq!(paged, all);
    assert_eq!(list(None, 3, 6).len(), 1);
    assert!(list(None, 3, 7).is_empty());
    assert!(list(None, 3, usize::MAX).is_empty());
    let big = list(Some("/big"), 100, 0);
    assert_eq!(big.len(), 5);
    assert_eq!(list(Some("/big"), 2, 2), big[2..4]);

    let count = |params: ListParams| s.catalog.session_count(&params).unwrap();
    assert_eq!(count(ListParams::default()), 7);
    // Whatever the page asked for, the count is of every session the filters select.
    assert_eq!(count(ListParams { limit: 1, offset: 5, ..ListParams::default() }), 7);
    assert_eq!(count(ListParams { cwd: Some("/big".into()), limit: 1, ..ListParams::default() }), 5);
    assert_eq!(count(ListParams { text: Some("SMALL".into()), ..ListParams::default() }), 2);
    assert_eq!(count(ListParams { source: Some(sess_sources::claude::SOURCE), ..ListParams::default() }), 0);
}

#[test]
fn search_hits_page_by_offset() {
    let s = seven_sessions();
    let search = |cwd: Option<&str>, limit, offset| -> Vec<String> {
        let params = SearchParams { cwd: cwd.map(str::to_owned), limit, offset, ..SearchParams::new("shared") };
        let hits = s.catalog.search(&params).unwrap();
        assert!(hits.iter().all(|h| h.snippet_text().contains("shared")), "each page's hits have snippets");
        hits.into_iter().map(|h| h.session.id).collect()
    };
    let all = search(None, 100, 0);
    assert_eq!(all.len(), 7);
    let paged: Vec<String> = [0, 2, 4, 6].into_iter().flat_map(|offset| search(None, 2, offset)).collect();
    assert_eq!(paged, all);
    assert!(search(None, 2, 7).is_empty());
    assert!(search(None, 2, usize::MAX).is_empty());
    let big = search(Some("/big"), 100, 0);
    assert_eq!(big.len(), 5);
    assert_eq!(search(Some("/big"), 3, 3), big[3..]);
}

/// Issue 26, item 10: a catalog of version 4 kept no `active_ms` for Claude
/// Code and Codex sessions, so a listing from it took the files' times while
/// one from the files took the last messages'; it is built again.
#[test]
fn a_catalog_that_dated_sessions_by_their_files_is_built_again() {
    let mut s = Setup::new();
    s.copy(
        sess_sources::claude::SOURCE,
        "claude-code/claude-basic-toolcall.jsonl",
        "3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c01.jsonl",
    );
    s.refresh();
    let Setup { dir, catalog, files } = s;
    drop(catalog);
    let path = dir.path().join("cache/catalog.sqlite");
    {
        // What version 4 left: no time of their own for Claude Code sessions.
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("UPDATE sessions SET active_ms = NULL; PRAGMA user_version = 4;").unwrap();
    }
    let mut catalog = sess_catalog::Catalog::open(&path).unwrap();
    catalog.refresh(&files, &mut |_| {}).unwrap();
    let listed = catalog.listed(sess_sources::claude::SOURCE).unwrap();
    let modified: Vec<i64> = listed.sessions.iter().map(|(info, _)| info.modified_ms).collect();
    assert_eq!(modified, [sess_core::parse_iso_millis("2026-08-20T09:14:05.310Z").unwrap()]);
}
