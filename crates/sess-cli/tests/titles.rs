//! Titles through the `sess` binary, on files the real oh-my-pi 18.2.3 wrote:
//! `sess list`, `sess show`, `sess search` and `sess tree` name a session by
//! its title slot, `sess rename` writes the slot in place, and
//! `sess fork --new-session` keeps the name.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use common::{fixture, json_out, place, sess_at, stderr, stdout};

const FIXED: &str = "Fix the parser: \"last line\" été";
const FIRST_PROMPT: &str = "Why does the parser drop the last line?";
const SLOT: usize = 256;

/// A home where oh-my-pi keeps `renamed.jsonl`; returns it and the file.
fn omp_home() -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let from = fixture("pi-family/oh-my-pi-18.2.3-titles/renamed.jsonl");
    let name = "2026-12-02T01-02-27-868Z_01a23446-3c1c-7000-a9a7-06b19e569f2b.jsonl";
    let file = home.path().join(".omp/agent/sessions/--home-dev-demo--").join(name);
    place(&from, &file, 10);
    (home, file)
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The titles `sess list --json` gives, by session id, with and without the catalog.
fn listed_titles(home: &Path) -> Vec<(String, Option<String>)> {
    let mut all = Vec::new();
    for catalog in [&[][..], &["--no-catalog"][..]] {
        let mut args = vec!["list", "--all-projects", "--json"];
        args.extend_from_slice(catalog);
        let listed = json_out(&sess_at(home, &args, ""));
        let mut titles: Vec<(String, Option<String>)> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["id"].as_str().unwrap().to_owned(), s["title"].as_str().map(str::to_owned)))
            .collect();
        titles.sort();
        all.push(titles);
    }
    assert_eq!(all[0], all[1], "the catalog and the files agree");
    all.swap_remove(0)
}

fn shown_title(home: &Path, file: &Path) -> Value {
    json_out(&sess_at(home, &["show", path_str(file), "--json"], ""))["title"].clone()
}

#[test]
fn a_session_oh_my_pi_renamed_in_place_is_listed_and_shown_by_its_slot() {
    let (home, file) = omp_home();
    let home = home.path();
    // The header has no title: before the slot was read, the first prompt named it.
    assert_eq!(lines(&file)[1].get("title"), None);
    let titles = listed_titles(home);
    assert_eq!(titles.len(), 1);
    assert_eq!(titles[0].1.as_deref(), Some(FIXED));
    assert_ne!(titles[0].1.as_deref(), Some(FIRST_PROMPT));
    assert_eq!(shown_title(home, &file), FIXED);
    let text = stdout(&sess_at(home, &["show", path_str(&file)], ""));
    assert_eq!(text.lines().next(), Some(FIXED));
    let list_text = stdout(&sess_at(home, &["list", "--all-projects"], ""));
    assert!(list_text.contains(FIXED), "{list_text}");
    // Both title_change entries are shown as what they are.
    let tree = stdout(&sess_at(home, &["tree", path_str(&file)], ""));
    assert!(tree.contains("title: Parser drops last line"), "{tree}");
    assert!(tree.contains(&format!("title: {FIXED}")), "{tree}");
}

#[test]
fn sess_rename_writes_the_slot_in_place_and_every_reader_follows() {
    let (home, file) = omp_home();
    let home = home.path();
    let before = fs::read(&file).unwrap();
    // The catalog knows the old name first.
    assert_eq!(listed_titles(home)[0].1.as_deref(), Some(FIXED));

    let renamed = sess_at(home, &["rename", path_str(&file), "Parser\tfixed"], "");
    assert_eq!(renamed.status.code(), Some(0), "{}", stderr(&renamed));
    assert_eq!(stdout(&renamed), "Parser fixed\n");
    let after = fs::read(&file).unwrap();
    assert_eq!(&after[SLOT..before.len()], &before[SLOT..], "only the slot changed, and a line was added");
    let all = lines(&file);
    assert_eq!((all[0]["type"].as_str(), all[0]["title"].as_str()), (Some("title"), Some("Parser fixed")));
    assert_eq!(all[0]["source"], "user");
    let last = all.last().unwrap();
    assert_eq!(last["type"], "title_change");
    assert_eq!((last["title"].as_str(), last["previousTitle"].as_str()), (Some("Parser fixed"), Some(FIXED)));
    assert_eq!(all[0]["updatedAt"], last["timestamp"]);
    assert!(all.iter().all(|l| l["type"] != "session_info"), "no session_info in an oh-my-pi file");

    assert_eq!(listed_titles(home)[0].1.as_deref(), Some("Parser fixed"));
    assert_eq!(shown_title(home, &file), "Parser fixed");
    let search = json_out(&sess_at(home, &["search", "fixed", "--all-projects", "--json"], ""));
    let hit = &search.as_array().unwrap()[0];
    assert_eq!((hit["title"].as_str(), hit["role"].as_str()), (Some("Parser fixed"), Some("title")));
    let tree = stdout(&sess_at(home, &["tree", path_str(&file)], ""));
    assert!(tree.contains("title: Parser fixed  ← leaf"), "{tree}");
}

#[test]
fn a_fork_into_a_new_session_keeps_the_name() {
    let (home, file) = omp_home();
    let home = home.path();
    let answer = lines(&file)[3]["id"].as_str().unwrap().to_owned();
    let forked = sess_at(home, &["fork", path_str(&file), "--at", &answer, "--new-session"], "");
    assert_eq!(forked.status.code(), Some(0), "{}", stderr(&forked));
    let new = PathBuf::from(stdout(&forked).trim());
    let text = fs::read_to_string(&new).unwrap();
    assert_eq!(text.find('\n'), Some(SLOT - 1));
    let all = lines(&new);
    assert_eq!((all[0]["title"].as_str(), all[0]["source"].as_str()), (Some(FIXED), Some("user")));
    assert_eq!((all[1]["title"].as_str(), all[1]["titleSource"].as_str()), (Some(FIXED), Some("user")));
    assert_eq!(shown_title(home, &new), FIXED);
    let titles = listed_titles(home);
    assert_eq!(titles.len(), 2);
    assert!(titles.iter().all(|(_, title)| title.as_deref() == Some(FIXED)), "{titles:?}");
}

/// `header` and one user message.
fn plain_session(dir: &Path, header: &str) -> PathBuf {
    let file = dir.join("2026-01-01T00-00-00-000Z_s1.jsonl");
    let message = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#;
    fs::write(&file, format!("{header}\n{message}\n")).unwrap();
    file
}

#[test]
fn a_session_info_is_added_by_what_the_file_holds_not_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    // Outside any agent's folder: a file with no title of its own is named the pi-mono way.
    let untitled = plain_session(
        dir.path(),
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
    );
    let before = fs::read_to_string(&untitled).unwrap();
    let renamed = sess_at(dir.path(), &["rename", path_str(&untitled), "Named"], "");
    assert_eq!(stdout(&renamed), "Named\n");
    let after = fs::read_to_string(&untitled).unwrap();
    assert_eq!(&after[..before.len()], before, "every byte is kept");
    let all = lines(&untitled);
    assert_eq!((all.len(), all[2]["type"].as_str(), all[2]["name"].as_str()), (3, Some("session_info"), Some("Named")));
    assert_eq!(shown_title(dir.path(), &untitled), "Named");

    // A header with a title of its own (xcsh): the header only, even in pi's folder.
    let pi_dir = dir.path().join(".pi/agent/sessions/--p--");
    fs::create_dir_all(&pi_dir).unwrap();
    let titled = plain_session(
        &pi_dir,
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","title":"Old"}"#,
    );
    assert_eq!(sess_at(dir.path(), &["rename", path_str(&titled), "New"], "").status.code(), Some(0));
    let all = lines(&titled);
    assert_eq!((all.len(), all[0]["title"].as_str()), (2, Some("New")));
}
