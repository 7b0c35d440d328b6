//! `--store` and `sess copy`: sessions in a tree of files (`dir:`) and in SQLite
//! (`sqlite:`), copied between them without losing a byte.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{PgSchema, fixture, json_out as json, ok, pg_schema, sess_with as sess};

const MAIN: &str = "pi-family/pi-mono-0.73.1-main.jsonl";
const MAIN_ID: &str = "01a22b45-5c27-7725-b56f-8270ebb2b80e";

fn ids_of(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_session_copied_file_to_sqlite_to_files_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite:{}", dir.path().join("store.db").display());
    let files = format!("dir:{}", dir.path().join("sessions").display());
    let original = fixture(MAIN);
    let copied = ok(&sess(&["copy", original.to_str().unwrap(), &sqlite], ""));
    assert!(copied.contains("copied 1 sessions (18 entries)"), "{copied}");
    ok(&sess(&["copy", &sqlite, &files], ""));
    // A second copy finds the session already there.
    assert!(ok(&sess(&["copy", &sqlite, &files], "")).contains("1 sessions were already there"));

    // The file in the tree has the original's bytes.
    let written: Vec<PathBuf> = walk(&dir.path().join("sessions"));
    assert_eq!(written.len(), 1);
    assert_eq!(std::fs::read(&written[0]).unwrap(), std::fs::read(&original).unwrap());

    // Same segments and the same context at every leaf, in all three places.
    let segments = json(&sess(&["segments", "--json", original.to_str().unwrap()], ""));
    for store in [&sqlite, &files] {
        assert_eq!(json(&sess(&["segments", "--json", "--store", store, MAIN_ID], "")), segments, "{store}");
        assert_eq!(
            json(&sess(&["tree", "--json", "--store", store, "01a22b45-5c27"], "")),
            json(&sess(&["tree", "--json", original.to_str().unwrap()], ""))
        );
    }
    for leaf in ids_of(&original) {
        let expected = json(&sess(&["context", "--leaf", &leaf, original.to_str().unwrap()], ""));
        for store in [&sqlite, &files] {
            let ours = json(&sess(&["context", "--store", store, "--leaf", &leaf, MAIN_ID], ""));
            assert_eq!(ours, expected, "{store} at {leaf}");
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.file_name().unwrap().to_string_lossy().starts_with('.') {
                out.extend(walk(&path));
            }
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
    out
}

fn messages(count: usize, tag: &str) -> String {
    let mut text = String::new();
    for n in 0..count {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        writeln!(text, "{{\"role\":\"{role}\",\"content\":\"{tag} {n}\",\"provider\":\"p\",\"model\":\"m\"}}").unwrap();
    }
    text
}

#[test]
fn two_processes_appending_to_one_sqlite_session_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite:{}", dir.path().join("store.db").display());
    ok(&sess(&["copy", fixture(MAIN).to_str().unwrap(), &sqlite], ""));
    let spawn = |tag: String| {
        let sqlite = sqlite.clone();
        std::thread::spawn(move || ok(&sess(&["append", "--store", &sqlite, MAIN_ID], &messages(150, &tag))))
    };
    let writers: Vec<_> = (0..2).map(|w| spawn(format!("writer {w}"))).collect();
    let outputs: Vec<Vec<String>> =
        writers.into_iter().map(|w| w.join().unwrap().lines().map(str::to_owned).collect()).collect();
    let files = dir.path().join("out");
    ok(&sess(&["copy", &sqlite, &format!("dir:{}", files.display())], ""));
    let file = &walk(&files)[0];
    let lines: Vec<Value> =
        std::fs::read_to_string(file).unwrap().lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 18 + 300);
    let parent = |id: &str| lines.iter().find(|l| l["id"] == id).unwrap()["parentId"].as_str().map(str::to_owned);
    for ids in &outputs {
        assert_eq!(ids.len(), 150);
        for pair in ids.windows(2) {
            assert_eq!(parent(&pair[1]).as_deref(), Some(pair[0].as_str()));
        }
    }
    assert_eq!(ok(&sess(&["verify", file.to_str().unwrap()], "")).lines().next().unwrap().contains(": ok"), true);
}

#[test]
fn fork_at_a_turn_in_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite:{}", dir.path().join("store.db").display());
    ok(&sess(&["copy", fixture(MAIN).to_str().unwrap(), &sqlite], ""));
    // On the leaf's path, turn 1 runs from "hello" to the branch summary before
    // "third question": the fork keeps it and drops the rest.
    let new_session = ok(&sess(&["fork", "--store", &sqlite, MAIN_ID, "--at", "turn:1", "--new-session"], ""));
    let context = json(&sess(&["context", "--store", &sqlite, new_session.trim()], ""));
    let roles: Vec<&str> =
        context["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "branchSummary"]);
    assert_eq!(context["messages"][0]["content"][0]["text"], "hello");
    let missing = sess(&["fork", "--store", &sqlite, MAIN_ID, "--at", "turn:99"], "");
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("turn 99 does not exist"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
    let listed = json(&sess(&["list", "--store", &sqlite, "--json"], ""));
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert_eq!(listed[0]["source"], "sqlite");
}

/// A fork into a new session in a store drops the path's label entries as a
/// file's fork does, and keeps the chain whole: the entry after the label
/// f6836503 hangs under the entry before it, so the context is the original's.
#[test]
fn fork_into_a_new_session_in_a_store_keeps_the_context_across_a_label() {
    let dir = tempfile::tempdir().unwrap();
    let original = fixture(MAIN);
    let expected = json(&sess(&["context", "--leaf", "5ef624f7", original.to_str().unwrap()], ""));
    let schema = pg_schema("fork_into_a_new_session_in_a_store");
    let mut stores = vec![
        format!("sqlite:{}", dir.path().join("store.db").display()),
        format!("dir:{}", dir.path().join("sessions").display()),
    ];
    stores.extend(schema.as_ref().map(|s| s.url.clone()));
    for store in &stores {
        ok(&sess(&["copy", original.to_str().unwrap(), store], ""));
        let new_session = ok(&sess(&["fork", "--store", store, MAIN_ID, "--at", "5ef624f7", "--new-session"], ""));
        let context = json(&sess(&["context", "--store", store, new_session.trim()], ""));
        assert_eq!(context, expected, "{store}");
    }
}

#[test]
fn store_urls_are_checked() {
    let bad = sess(&["list", "--store", "ftp://x"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a store URL"));
    let pg = sess(&["list", "--store", "postgres://nobody@127.0.0.1:1/none"], "");
    assert_eq!(pg.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&pg.stderr).contains("cannot open the PostgreSQL store"));
}

/// A server that accepts connections and never sends a byte: `sess` gives up
/// after the URL's `connect_timeout`, exits 2 and names the host.
#[test]
fn a_postgres_server_that_never_answers_is_an_error_naming_the_host() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        // Holds every connection open, silent, until the test process ends.
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    for verb in [&["list"][..], &["show", MAIN_ID]] {
        let url = format!("postgres://nobody@127.0.0.1:{port}/none?connect_timeout=1");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_sess"))
            .args(["--store", &url])
            .args(verb)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = common::wait_at_most(child, std::time::Duration::from_secs(15));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{verb:?}: {stderr}");
        assert!(stderr.contains(&format!("127.0.0.1:{port}")) && stderr.contains("no answer"), "{verb:?}: {stderr}");
    }
}

#[test]
fn sessions_go_through_postgres_and_writers_on_several_processes_lose_nothing() {
    let Some(schema) = pg_schema("sessions_go_through_postgres") else { return };
    let pg = schema.url.clone();
    let dir = tempfile::tempdir().unwrap();
    let original = fixture(MAIN);
    ok(&sess(&["copy", original.to_str().unwrap(), &pg], ""));
    let segments = json(&sess(&["segments", "--json", original.to_str().unwrap()], ""));
    assert_eq!(json(&sess(&["segments", "--json", "--store", &pg, MAIN_ID], "")), segments);
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let pg = pg.clone();
            std::thread::spawn(move || {
                ok(&sess(&["append", "--store", &pg, MAIN_ID], &messages(100, &format!("w{w}"))))
            })
        })
        .collect();
    let outputs: Vec<Vec<String>> =
        writers.into_iter().map(|w| w.join().unwrap().lines().map(str::to_owned).collect()).collect();
    let files = dir.path().join("out");
    ok(&sess(&["copy", &pg, &format!("dir:{}", files.display())], ""));
    let lines: Vec<Value> = std::fs::read_to_string(&walk(&files)[0])
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 18 + 300);
    let parent = |id: &str| lines.iter().find(|l| l["id"] == id).unwrap()["parentId"].as_str().map(str::to_owned);
    for ids in &outputs {
        assert_eq!(ids.len(), 100);
        for pair in ids.windows(2) {
            assert_eq!(parent(&pair[1]).as_deref(), Some(pair[0].as_str()));
        }
    }
    // The original 18 entries came back byte for byte, first.
    let original_lines: Vec<String> = std::fs::read_to_string(&original).unwrap().lines().map(str::to_owned).collect();
    let back: Vec<String> =
        std::fs::read_to_string(&walk(&files)[0]).unwrap().lines().take(19).map(str::to_owned).collect();
    assert_eq!(back, original_lines);
}

/// A header-only session copied into a store: `sess append` to it stores every
/// id it prints, the first as the root, and the store reads them back.
#[test]
fn appends_to_a_stored_session_with_no_entries_are_all_stored() {
    let dir = tempfile::tempdir().unwrap();
    let header_only = dir.path().join("header-only.jsonl");
    let id = "01a3c0de-0000-7000-8000-000000000001";
    std::fs::write(
        &header_only,
        format!("{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}}\n"),
    )
    .unwrap();
    let (stores, _schema) = copy_targets(dir.path(), "empty", "appends_to_a_stored_session_with_no_entries");
    for (n, store) in stores.iter().enumerate() {
        ok(&sess(&["copy", header_only.to_str().unwrap(), store], ""));
        // Two user messages: no assistant message yet.
        let input = "{\"role\":\"user\",\"content\":\"one\"}\n{\"role\":\"user\",\"content\":\"two\"}\n";
        let printed: Vec<String> =
            ok(&sess(&["append", "--store", store, id], input)).lines().map(str::to_owned).collect();
        assert_eq!(printed.len(), 2, "{store}");
        let out = dir.path().join(format!("out{n}"));
        ok(&sess(&["copy", store, &format!("dir:{}", out.display())], ""));
        assert_eq!(ids_of(&walk(&out)[0]), printed, "{store}");
        let segments = json(&sess(&["segments", "--json", "--store", store, id], ""));
        assert_eq!(segments.as_array().map(Vec::len), Some(1), "{store}: one segment, rooted at the first entry");
    }
}

/// The stores a copy goes into: SQLite, a tree of files, and PostgreSQL when
/// the tests have a server (the schema is dropped with the returned guard).
fn copy_targets(dir: &Path, tag: &str, test: &str) -> (Vec<String>, Option<PgSchema>) {
    let mut stores = vec![
        format!("sqlite:{}", dir.join(format!("{tag}.db")).display()),
        format!("dir:{}", dir.join(format!("{tag}-files")).display()),
    ];
    let schema = pg_schema(test);
    stores.extend(schema.as_ref().map(|s| s.url.clone()));
    (stores, schema)
}

#[test]
fn a_re_run_completes_what_an_interrupted_copy_left() {
    let dir = tempfile::tempdir().unwrap();
    let original = fixture(MAIN);
    let text = std::fs::read_to_string(&original).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let segments = json(&sess(&["segments", "--json", original.to_str().unwrap()], ""));
    let tree = json(&sess(&["tree", "--json", original.to_str().unwrap()], ""));
    for kept in [0, 7] {
        // What an interrupted copy leaves: the session with its first `kept` entries (or none).
        let partial = dir.path().join(format!("partial-{kept}.jsonl"));
        std::fs::write(&partial, lines[..=kept].join("\n") + "\n").unwrap();
        let (stores, _schema) = copy_targets(dir.path(), &format!("kept-{kept}"), "a_re_run_completes");
        for store in &stores {
            ok(&sess(&["copy", partial.to_str().unwrap(), store], ""));
            let output = sess(&["copy", original.to_str().unwrap(), store], "");
            let out = ok(&output);
            assert!(
                out.contains(&format!(
                    "completed 1 sessions an earlier copy had left unfinished ({} entries)",
                    18 - kept
                )),
                "{store}: {out}"
            );
            assert_eq!(json(&sess(&["segments", "--json", "--store", store, MAIN_ID], "")), segments, "{store}");
            assert_eq!(json(&sess(&["tree", "--json", "--store", store, MAIN_ID], "")), tree, "{store}");
            if let Some(files) = store.strip_prefix("dir:") {
                let written = walk(Path::new(files));
                assert_eq!(std::fs::read(&written[0]).unwrap(), text.as_bytes(), "the original bytes");
            }
            let again = ok(&sess(&["copy", original.to_str().unwrap(), store], ""));
            assert!(again.contains("1 sessions were already there"), "{store}: {again}");
        }
    }
}

const BRANCHED_ID: &str = "01a22b45-5c2c-7431-b56d-8b48c24371f1";
const OH_MY_PI_ID: &str = "01a22b46-5ef8-7000-9e30-b866ca7c6997";

#[test]
fn a_conflict_on_one_session_is_reported_and_the_others_are_copied() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("from/--home-dev-demo-project--");
    std::fs::create_dir_all(&project).unwrap();
    let names =
        ["pi-mono-0.73.1-main.jsonl", "pi-mono-0.73.1-createBranchedSession.jsonl", "oh-my-pi-18.2.3-bun.jsonl"];
    for name in names {
        std::fs::copy(fixture(&format!("pi-family/{name}")), project.join(name)).unwrap();
    }
    let from = format!("dir:{}", dir.path().join("from").display());
    // Another session with the same id, whose entries differ.
    let other = dir.path().join("other.jsonl");
    let text = std::fs::read_to_string(fixture(MAIN)).unwrap();
    std::fs::write(&other, text.replace("second question", "another question")).unwrap();
    let (stores, _schema) = copy_targets(dir.path(), "to", "a_conflict_on_one_session");
    for store in &stores {
        ok(&sess(&["copy", other.to_str().unwrap(), store], ""));
        let output = sess(&["copy", &from, store], "");
        assert_eq!(output.status.code(), Some(1), "{store}: {}", common::stderr(&output));
        let out = common::stdout(&output);
        assert!(out.contains("copied 2 sessions"), "{store}: {out}");
        assert!(out.contains("1 sessions were not copied:"), "{store}: {out}");
        assert!(out.contains(&format!("session {MAIN_ID} is already in `{store}` with different entries")), "{out}");
        for (name, session) in [(names[1], BRANCHED_ID), (names[2], OH_MY_PI_ID)] {
            let file = project.join(name);
            let segments = json(&sess(&["segments", "--json", file.to_str().unwrap()], ""));
            assert_eq!(json(&sess(&["segments", "--json", "--store", store, session], "")), segments, "{store} {name}");
        }
        // The conflicting session was left as it was.
        let kept = json(&sess(&["segments", "--json", other.to_str().unwrap()], ""));
        assert_eq!(json(&sess(&["segments", "--json", "--store", store, MAIN_ID], "")), kept);
    }
}
