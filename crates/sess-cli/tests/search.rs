//! `sess index` and `sess search` over a scratch home where pi-mono, Claude
//! Code and Codex keep sessions.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use pretty_assertions::assert_eq;
use serde_json::Value;

mod common;
use common::{CLAUDE_BASIC, CODEX_BASIC, CODEX_FORK, Home, PI_MAIN, stderr, stdout};

fn hits(items: &Value) -> Vec<(&str, &str)> {
    items.as_array().unwrap().iter().map(|i| (i["source"].as_str().unwrap(), i["id"].as_str().unwrap())).collect()
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                pending.push(entry.path());
            } else {
                files.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn index_builds_then_refreshes_without_reading_unchanged_files() {
    let home = Home::new();
    let agents = [".pi", ".claude", ".codex"].map(|d| snapshot(&home.path().join(d)));
    let first = home.json(&["index", "--json"]);
    assert_eq!((first["files"].as_u64(), first["added"].as_u64()), (Some(5), Some(5)), "{first}");
    assert_eq!(first["sessions"].as_u64(), Some(5));
    assert!(first["messages"].as_u64().unwrap() > 10);
    assert!(home.path().join(".local/share/sess/catalog.sqlite").is_file());
    let again = home.json(&["index", "--json"]);
    assert_eq!((again["unchanged"].as_u64(), again["added"].as_u64()), (Some(5), Some(0)));
    // The agents' files are as they were.
    assert_eq!([".pi", ".claude", ".codex"].map(|d| snapshot(&home.path().join(d))), agents);

    let text = stdout(&home.run(&["index"]));
    assert!(text.starts_with("5 sessions in `"), "{text}");
    assert!(text.contains("5 unchanged"), "{text}");
}

#[test]
fn search_finds_each_agents_messages_with_their_entries() {
    let home = Home::new();
    let found = home.json(&["search", "--all-projects", "--json", "\"alternative question\""]);
    assert_eq!(hits(&found), [("pi", PI_MAIN)]);
    let hit = &found[0];
    assert!(hit["entryId"].as_str().is_some_and(|e| !e.is_empty()), "{hit}");
    assert!(hit["path"].as_str().unwrap().ends_with("main.jsonl"));
    let [start, end] = [0, 1].map(|i| usize::try_from(hit["matches"][0][i].as_u64().unwrap()).unwrap());
    assert_eq!(&hit["snippet"].as_str().unwrap()[start..end], "alternative question");

    assert_eq!(hits(&home.json(&["search", "--all-projects", "--json", "uptime"])), [("claude", CLAUDE_BASIC)]);
    // The fork copied the history it continues into its own file: both match.
    let codex = home.json(&["search", "--all-projects", "--json", "test_parse_dates"]);
    let mut found = hits(&codex);
    found.sort_unstable();
    assert_eq!(found, [("codex", CODEX_BASIC), ("codex", CODEX_FORK)]);
    let only_claude = home.json(&["search", "--all-projects", "--json", "--source", "claude", "test_parse_dates"]);
    assert_eq!(hits(&only_claude), []);
}

#[test]
fn search_defaults_to_the_current_project_and_points_elsewhere() {
    let home = Home::new();
    let out = home.run(&["search", "uptime"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("no hits for `uptime` in `"), "{text}");
    assert!(text.contains("1 sessions in other projects match: `sess search --all-projects uptime`"), "{text}");

    let there = home.json(&["search", "--cwd", "/home/dev/demo-project", "--json", "hello"]);
    assert_eq!(hits(&there), [("pi", PI_MAIN)]);
    let text = stdout(&home.run(&["search", "--cwd", "/home/dev/demo-project", "hello"]));
    assert!(text.contains(&format!("sess show {PI_MAIN} --leaf ")), "{text}");
}

#[test]
fn search_without_refresh_sees_only_the_catalog() {
    let home = Home::new();
    // A catalog given with --catalog goes in a folder that exists.
    std::fs::create_dir(home.path().join("elsewhere")).unwrap();
    let catalog = home.path().join("elsewhere/catalog.sqlite");
    let catalog = catalog.to_str().unwrap();
    assert_eq!(
        hits(&home.json(&["search", "--all-projects", "--json", "--no-refresh", "--catalog", catalog, "uptime"])),
        []
    );
    assert_eq!(hits(&home.json(&["search", "--all-projects", "--json", "--catalog", catalog, "uptime"])).len(), 1);
}

#[test]
fn a_query_with_no_words_is_an_error() {
    let home = Home::new();
    let out = home.run(&["search", "--all-projects", "\"\" *"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has no words to search for"), "{}", stderr(&out));
}

/// One HTTP/1.1 GET with this `Host`: the status code and the body.
fn get(port: u16, host: &str, path: &str) -> (u16, String) {
    request(port, &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"))
}

/// One HTTP/1.1 POST of JSON with the page's token.
fn post(port: u16, path: &str, token: &str, body: &str) -> (u16, String) {
    request(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\n\
             X-Sess-Token: {token}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
}

fn request(port: u16, text: &str) -> (u16, String) {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(text.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split(' ').nth(1).unwrap().parse().unwrap();
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

/// Starts `sess serve --port 0` in `home` with `args` before the verb; the
/// server, its port and its first line.
fn serve(home: &Home, args: &[&str]) -> (Server, u16, String) {
    use std::io::BufRead as _;
    let catalog = home.path().join("catalog.sqlite");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(args)
        .args(["serve", "--port", "0", "--catalog", catalog.to_str().unwrap()])
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut line = String::new();
    std::io::BufReader::new(stdout).read_line(&mut line).unwrap();
    let port = line.rsplit(':').next().unwrap().trim_end_matches(|c: char| !c.is_ascii_digit()).parse().unwrap();
    (server, port, line)
}

/// Kills the server when the test ends, passed or not.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_answers_on_loopback_with_the_catalog_and_refuses_other_hosts() {
    let home = Home::new();
    let (server, port, line) = serve(&home, &[]);
    assert!(line.starts_with("5 sessions; serving http://127.0.0.1:"), "{line}");
    let host = format!("127.0.0.1:{port}");

    let (status, body) = get(port, &host, "/api/sessions");
    assert_eq!(status, 200, "{body}");
    let sessions: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(sessions.as_array().unwrap().len(), 5);
    let (status, body) = get(port, &format!("localhost:{port}"), "/api/search?q=uptime");
    assert_eq!(status, 200, "{body}");
    let found: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(found[0]["session"]["sessionId"], CLAUDE_BASIC);
    // A page from another site that resolves its own name to 127.0.0.1 gets nothing.
    assert_eq!(get(port, &format!("attacker.example:{port}"), "/api/sessions").0, 403);
    // Sessions are named by catalog ids, never by paths.
    assert_eq!(get(port, &host, "/api/sessions/%2Fetc%2Fpasswd").0, 404);
    drop(server);
}

#[test]
fn a_store_given_with_store_is_indexed_and_searched_too() {
    let home = Home::new();
    let db = home.path().join("agents.db");
    let url = format!("sqlite:{}", db.display());
    let pi = home.path().join(".pi/agent/sessions/--home-dev-demo-project--/main.jsonl");
    let copied = home.run(&["copy", pi.to_str().unwrap(), &url]);
    assert_eq!(copied.status.code(), Some(0), "{}", stderr(&copied));

    let indexed = home.json(&["--store", &url, "index", "--json"]);
    assert_eq!(indexed["store"]["added"].as_u64(), Some(1), "{indexed}");
    assert_eq!(indexed["sessions"].as_u64(), Some(6));
    let again = home.json(&["--store", &url, "index", "--json"]);
    assert_eq!(again["store"]["unchanged"].as_u64(), Some(1), "{again}");

    // With --store, only the store's sessions, of every project.
    let found = home.json(&["--store", &url, "search", "--json", "\"alternative question\""]);
    assert_eq!(hits(&found), [("pi", PI_MAIN)]);
    assert_eq!(found[0]["store"].as_str(), Some(url.as_str()));
    let text = stdout(&home.run(&["--store", &url, "search", "\"alternative question\""]));
    assert!(text.contains(&format!("sess show --store {url} {PI_MAIN} --leaf ")), "{text}");
    // Without it, the store's sessions are in the catalog with the files'.
    let everywhere = home.json(&["search", "--all-projects", "--json", "\"alternative question\""]);
    assert_eq!(everywhere.as_array().unwrap().len(), 2);
}

#[test]
fn the_page_forks_a_stored_session_into_its_store() {
    let home = Home::new();
    let url = format!("sqlite:{}", home.path().join("agents.db").display());
    let pi = home.path().join(".pi/agent/sessions/--home-dev-demo-project--/main.jsonl");
    assert_eq!(home.run(&["copy", pi.to_str().unwrap(), &url]).status.code(), Some(0));
    let (server, port, line) = serve(&home, &["--store", &url]);
    assert!(line.starts_with("6 sessions;"), "{line}");
    let host = format!("127.0.0.1:{port}");
    let (_, page) = get(port, &host, "/");
    let token = page.split("name=\"sess-token\" content=\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let (_, body) = get(port, &host, "/api/search?q=%22alternative%20question%22");
    let hits: Value = serde_json::from_str(&body).unwrap();
    let hit = hits.as_array().unwrap().iter().find(|h| h["session"]["store"] == url.as_str());
    let hit = hit.expect("a hit in the store's copy");
    let id = hit["session"]["id"].as_str().unwrap();
    let entry = hit["entryId"].as_str().unwrap();
    let (status, body) =
        post(port, &format!("/api/sessions/{id}/fork"), &token, &format!("{{\"entryId\":\"{entry}\"}}"));
    assert_eq!(status, 200, "{body}");
    let forked: Value = serde_json::from_str(&body).unwrap();
    let new_id = forked["sessionId"].as_str().unwrap();
    assert_eq!(forked["resumeCommand"].as_str().unwrap(), format!("sess --store {url} append {new_id}"));
    drop(server);
    let listed = home.json(&["--store", &url, "list", "--json"]);
    let ids: Vec<&str> = listed.as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&new_id) && ids.contains(&PI_MAIN), "{ids:?}");
}

/// A v1 pi file (no entry ids) read without `sess migrate`: the command search
/// prints finds the entry, `show` shows the same ids on every read, and
/// `sess migrate` writes the ids the reads showed.
#[test]
fn a_legacy_files_minted_ids_are_the_same_for_search_show_and_migrate() {
    let home = Home::new();
    let path = home.path().join(".pi/agent/sessions/--work-legacy--/legacy.jsonl");
    common::place(&common::fixture("legacy/v1-basic.jsonl"), &path, 1);
    let text = stdout(&home.run(&["search", "--all-projects", "\"second question\""]));
    let command = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("sess show legacy-v1 --leaf "))
        .unwrap_or_else(|| panic!("{text}"));
    let leaf = command.trim();
    let shown = home.json(&["show", "legacy-v1", "--leaf", leaf, "--json"]);
    let ids = |shown: &Value| -> Vec<String> {
        shown["messages"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(ids(&shown).last().map(String::as_str), Some(leaf), "{shown}");
    let found = home.json(&["search", "--cwd", "/work/legacy", "--json", "\"second question\""]);
    assert_eq!(found[0]["entryId"].as_str(), Some(leaf), "{found}");
    let all = home.json(&["show", "legacy-v1", "--json"]);
    assert_eq!(ids(&home.json(&["show", "legacy-v1", "--json"])), ids(&all), "the same ids on every read");
    assert!(ids(&all).iter().all(|id| id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit())), "{all}");

    let migrated = home.run(&["migrate", path.to_str().unwrap()]);
    assert_eq!(migrated.status.code(), Some(0), "{}", stderr(&migrated));
    assert_eq!(ids(&home.json(&["show", "legacy-v1", "--json"])), ids(&all), "migrate wrote the ids reads showed");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.lines().any(|l| l.contains("second question") && l.contains(&format!("\"id\":\"{leaf}\""))));
}

/// Issue 26, items 1 and 11: a query of 10,000 words ran (and its heading
/// repeated it whole); `NEAR(a b)` with a hit in the conversation searched
/// the tool index with an FTS5 syntax error.
#[test]
fn a_query_of_too_many_words_is_refused_and_near_is_words() {
    let home = Home::new();
    let words: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let out = home.run(&["search", "--all-projects", &words.join(" ")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("has 10000 words; a search takes at most 64"), "{}", stderr(&out));
    let out = home.run(&["search", "--all-projects", "NEAR(hello there)"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    assert!(!stderr(&out).contains("syntax error"), "{}", stderr(&out));
}

/// Issue 26, item 1: `sess search` had no time budget, so a slow query ran
/// for as long as it took. `--timeout SECS` bounds it: a search that runs
/// out says so and how to give it longer, with exit 2 (the run failed); the
/// same search within its budget, and with `--timeout 0` (none), answers.
#[test]
fn a_search_that_runs_out_of_its_time_budget_stops_and_says_so() {
    let home = Home::new();
    let out = home.run(&["search", "--all-projects", "--timeout", "0.000000001", "uptime"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the search was stopped after") && err.contains("its time budget"), "{err}");
    assert!(err.contains("--timeout"), "{err}");
    assert_eq!(stdout(&out), "");
    for timeout in ["30", "0"] {
        let found = home.json(&["search", "--all-projects", "--json", "--timeout", timeout, "uptime"]);
        assert_eq!(hits(&found), [("claude", CLAUDE_BASIC)], "--timeout {timeout}");
    }
    let out = home.run(&["search", "--timeout", "-1", "uptime"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
