//! Finding Claude Code sessions: config folders, project folder names (the
//! CLI's UTF-16 slug rule), listings by folder and by `cwd`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;
use sess_sources::{Error, Listing, Scope, claude};

const ID_A: &str = "3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c01";
const ID_B: &str = "8d4e1f20-3c5b-4a69-b7e8-0f1a2b3c4d55";
const ID_C: &str = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

/// A session file whose lines name `cwd`, with one prompt.
fn session(cwd: &str, prompt: &str) -> String {
    [
        json!({"type": "queue-operation", "operation": "dequeue", "timestamp": "2026-08-20T09:00:00.000Z"}),
        json!({"type": "user", "uuid": "u1", "timestamp": "2026-08-20T09:00:01.000Z", "cwd": cwd, "message": {"role": "user", "content": prompt}}),
        json!({"type": "assistant", "uuid": "u2", "timestamp": "2026-08-20T09:00:02.000Z", "cwd": cwd, "message": {"id": "m", "content": [{"type": "text", "text": "ok"}]}}),
    ]
    .iter()
    .map(|l| l.to_string() + "\n")
    .collect()
}

/// Writes `text` at `config/projects/<folder>/<name>`.
fn put(config: &Path, folder: &str, name: &str, text: &str) -> PathBuf {
    let path = config.join("projects").join(folder).join(name);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

/// `(id, cwd)` of each listed session, sorted.
fn ids(listing: &Listing) -> Vec<(String, Option<String>)> {
    let mut ids: Vec<_> = listing.sessions.iter().map(|s| (s.id.clone(), s.cwd.clone())).collect();
    ids.sort();
    ids
}

fn project(config: &Path, cwd: &str) -> Listing {
    claude::list(&[config.to_owned()], Scope::Project(Path::new(cwd)))
}

mod config_dirs {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn home_claude_when_unset_or_empty() {
        let home = Path::new("/home/a");
        assert_eq!(claude::config_dirs(None, home), [PathBuf::from("/home/a/.claude")]);
        assert_eq!(claude::config_dirs(Some(""), home), [PathBuf::from("/home/a/.claude")]);
        assert_eq!(claude::config_dirs(Some(" , ,"), home), [PathBuf::from("/home/a/.claude")]);
    }

    #[test]
    fn a_comma_separated_list_without_empty_or_repeated_entries() {
        let dirs = claude::config_dirs(Some("/x/one,, /x/two ,/x/one,"), Path::new("/home/a"));
        assert_eq!(dirs, [PathBuf::from("/x/one"), PathBuf::from("/x/two")]);
        assert_eq!(claude::config_dirs(Some("/only"), Path::new("/h")), [PathBuf::from("/only")]);
    }
}

mod project_dir_name {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn everything_but_ascii_letters_and_digits_is_a_dash() {
        let cases = [
            ("/Users/a/my_app.v2", "-Users-a-my-app-v2"),
            (r"C:\Users\x\Dev", "C--Users-x-Dev"),
            ("/Users/bob/work/app_v2.1", "-Users-bob-work-app-v2-1"),
            ("/home/alice/src/todo-api", "-home-alice-src-todo-api"),
            ("/tmp/a b~c", "-tmp-a-b-c"),
            // One dash per BMP character: CJK, accented letters.
            ("/home/太郎/プロジェクト", "-home----------"),
            ("/café", "-caf-"),
            // A decomposed é is an ASCII e and a combining mark.
            ("/cafe\u{301}", "-cafe-"),
            // Two dashes per astral character (a surrogate pair): emoji, rare CJK.
            ("/tmp/🚀x", "-tmp---x"),
            ("/𠮷", "---"),
        ];
        for (cwd, name) in cases {
            assert_eq!(claude::project_dir_name(cwd), name, "{cwd}");
        }
    }

    #[test]
    fn long_names_are_returned_whole() {
        let cwd = format!("/{}", "a".repeat(250));
        let name = claude::project_dir_name(&cwd);
        assert_eq!(name.len(), 251);
        // 150 emoji are 300 UTF-16 units.
        assert_eq!(claude::project_dir_name(&"🚀".repeat(150)).len(), 300);
    }
}

#[test]
fn a_project_lists_its_folder_with_what_a_listing_needs() {
    let config = tempfile::tempdir().unwrap();
    let path = put(
        config.path(),
        "-home-alice-src-todo-api",
        &format!("{ID_A}.jsonl"),
        &session("/home/alice/src/todo-api", "Add a health check"),
    );
    put(config.path(), "-home-alice-src-other", &format!("{ID_B}.jsonl"), &session("/home/alice/src/other", "x"));
    let listing = project(config.path(), "/home/alice/src/todo-api");
    assert!(listing.problems.is_empty());
    assert_eq!(listing.sessions.len(), 1);
    let info = &listing.sessions[0];
    assert_eq!(info.source, sess_sources::claude::SOURCE);
    assert_eq!(info.id, ID_A);
    assert_eq!(info.path, path);
    assert_eq!(info.cwd.as_deref(), Some("/home/alice/src/todo-api"));
    assert_eq!(info.title.as_deref(), Some("Add a health check"));
    assert_eq!(info.first_message.as_deref(), Some("Add a health check"));
    assert_eq!(info.created.as_deref(), Some("2026-08-20T09:00:00.000Z"), "the first line's timestamp");
    assert_eq!(info.message_count, 2);
    assert_eq!(info.parent_session, None);
    // The last message's time, not the file's (issue 26, item 10).
    assert_eq!(info.modified_ms, sess_core::parse_iso_millis("2026-08-20T09:00:02.000Z").unwrap());
}

#[test]
fn the_slug_folder_is_trusted_even_for_a_moved_session() {
    let config = tempfile::tempdir().unwrap();
    put(config.path(), "-work-app", &format!("{ID_A}.jsonl"), &session("/old/place", "moved"));
    assert_eq!(ids(&project(config.path(), "/work/app")), [(ID_A.into(), Some("/old/place".into()))]);
}

#[test]
fn the_fixtures_list_with_their_titles() {
    let config = tempfile::tempdir().unwrap();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude-code");
    let basic = fs::read_to_string(fixtures.join("claude-basic-toolcall.jsonl")).unwrap();
    let compact = fs::read_to_string(fixtures.join("claude-compact-branch.jsonl")).unwrap();
    put(config.path(), "-home-alice-src-todo-api", &format!("{ID_A}.jsonl"), &basic);
    put(config.path(), "-Users-bob-work-app-v2-1", &format!("{ID_B}.jsonl"), &compact);
    let listing = project(config.path(), "/Users/bob/work/app_v2.1");
    assert_eq!(listing.sessions.len(), 1);
    let info = &listing.sessions[0];
    assert_eq!(info.title.as_deref(), Some("Login card layout"));
    assert_eq!(info.first_message.as_deref(), Some("Why does the login form look broken in this screenshot?"));
    assert_eq!(info.created.as_deref(), Some("2026-08-21T14:00:00.500Z"));
    assert_eq!(info.message_count, 13);
    let all = claude::list(&[config.path().to_owned()], Scope::All);
    assert_eq!(all.sessions.len(), 2);
}

#[test]
fn subagents_and_other_files_are_not_sessions() {
    let config = tempfile::tempdir().unwrap();
    let c = config.path();
    let folder = "-p";
    put(c, folder, &format!("{ID_A}.jsonl"), &session("/p", "main"));
    put(c, folder, "agent-1a2b3c.jsonl", &session("/p", "old flat subagent"));
    put(c, folder, &format!("{ID_A}/subagents/agent-a7f3.jsonl"), &session("/p", "subagent"));
    put(c, folder, &format!("{ID_A}/subagents/agent-a7f3.meta.json"), "{}");
    put(c, folder, &format!("{ID_A}/subagents/workflows/wf_1/journal.jsonl"), "{}\n");
    put(c, folder, &format!("{ID_A}/tool-results/toolu_1.jsonl"), "{}\n");
    put(c, folder, "sessions-index.json", "{}");
    put(c, folder, "notes.txt", "x");
    put(c, folder, ".hidden.jsonl", &session("/p", "editor swap"));
    fs::create_dir_all(c.join("projects").join(folder).join("dir.jsonl")).unwrap();
    let listing = project(c, "/p");
    assert_eq!(ids(&listing), [(ID_A.into(), Some("/p".into()))]);
    assert!(listing.problems.is_empty());
    let files = claude::session_files(&[c.to_owned()]);
    assert_eq!(files, [(ID_A.to_owned(), c.join("projects").join(folder).join(format!("{ID_A}.jsonl")))]);
}

#[test]
fn a_missing_config_folder_lists_as_empty() {
    let config = tempfile::tempdir().unwrap();
    let missing = config.path().join("nope");
    for scope in [Scope::All, Scope::Project(Path::new("/p"))] {
        let listing = claude::list(std::slice::from_ref(&missing), scope);
        assert!(listing.sessions.is_empty() && listing.problems.is_empty());
    }
    assert_eq!(claude::session_files(&[missing]), []);
    // A config folder without `projects/` too.
    assert!(claude::list(&[config.path().to_owned()], Scope::All).sessions.is_empty());
}

#[cfg(unix)]
#[test]
fn an_unreadable_file_is_a_problem_and_the_others_still_list() {
    let config = tempfile::tempdir().unwrap();
    put(config.path(), "-p", &format!("{ID_A}.jsonl"), &session("/p", "fine"));
    let dangling = config.path().join("projects/-p").join(format!("{ID_B}.jsonl"));
    std::os::unix::fs::symlink(config.path().join("gone"), &dangling).unwrap();
    let listing = project(config.path(), "/p");
    assert_eq!(ids(&listing), [(ID_A.into(), Some("/p".into()))]);
    assert_eq!(listing.problems.len(), 1);
    assert!(matches!(&listing.problems[0], Error::NotFound { path } if *path == dangling));
    // The id still resolves; loading it reports the error.
    assert_eq!(claude::session_files(&[config.path().to_owned()]).len(), 2);
    assert!(matches!(claude::load(&dangling), Err(Error::NotFound { .. })));
}

#[test]
fn cjk_and_emoji_projects_are_found_by_their_folder_name() {
    let config = tempfile::tempdir().unwrap();
    let cjk = "/home/太郎/プロジェクト";
    let emoji = "/Users/me/🚀 launch";
    put(config.path(), "-home----------", &format!("{ID_A}.jsonl"), &session(cjk, "日本語のプロンプト"));
    put(config.path(), "-Users-me----launch", &format!("{ID_B}.jsonl"), &session(emoji, "ship it 🚀"));
    let listing = project(config.path(), cjk);
    assert_eq!(ids(&listing), [(ID_A.into(), Some(cjk.into()))]);
    assert_eq!(listing.sessions[0].title.as_deref(), Some("日本語のプロンプト"));
    assert_eq!(ids(&project(config.path(), emoji)), [(ID_B.into(), Some(emoji.into()))]);
}

#[test]
fn a_long_path_is_found_by_prefix_and_confirmed_by_cwd() {
    let config = tempfile::tempdir().unwrap();
    let base = format!("/{}", "deep/".repeat(45)); // 226 units
    let wanted = format!("{base}wanted");
    let other = format!("{base}other");
    let prefix = &claude::project_dir_name(&wanted)[..200];
    assert_eq!(prefix, &claude::project_dir_name(&other)[..200], "both share the cut name");
    put(config.path(), &format!("{prefix}-1x2y3z"), &format!("{ID_A}.jsonl"), &session(&wanted, "mine"));
    put(config.path(), &format!("{prefix}-9q8r7s"), &format!("{ID_B}.jsonl"), &session(&other, "not mine"));
    // A folder with the same prefix holding a session of this cwd and one of another.
    put(config.path(), &format!("{prefix}-1x2y3z"), &format!("{ID_C}.jsonl"), &session(&other, "stray"));
    let listing = project(config.path(), &wanted);
    assert_eq!(ids(&listing), [(ID_A.into(), Some(wanted.clone()))]);
    assert!(listing.problems.is_empty());
}

#[test]
fn a_long_path_without_a_prefix_folder_is_found_by_scanning() {
    let config = tempfile::tempdir().unwrap();
    let wanted = format!("/{}", "x".repeat(230));
    put(config.path(), "renamed-by-CLAUDE_CODE_PROJECT_DIR_NAME", &format!("{ID_A}.jsonl"), &session(&wanted, "found"));
    assert_eq!(ids(&project(config.path(), &wanted)), [(ID_A.into(), Some(wanted.clone()))]);
}

#[test]
fn a_missing_slug_folder_is_found_by_the_cwd_in_the_files() {
    let config = tempfile::tempdir().unwrap();
    // The CLI named the folder after the real path of a symlinked cwd.
    put(config.path(), "-private-var-work-app", &format!("{ID_A}.jsonl"), &session("/var/work/app", "via symlink"));
    put(
        config.path(),
        "-private-var-work-app",
        &format!("{ID_C}.jsonl"),
        &session("/private/var/work/app", "real path"),
    );
    put(config.path(), "-elsewhere", &format!("{ID_B}.jsonl"), &session("/elsewhere", "no"));
    // A trailing separator does not matter.
    let listing = project(config.path(), "/var/work/app/");
    assert_eq!(ids(&listing), [(ID_A.into(), Some("/var/work/app".into()))]);
}

#[test]
fn the_cwd_is_read_from_the_first_line_that_has_one() {
    let config = tempfile::tempdir().unwrap();
    let text = format!(
        "{}\nnot json\n{}",
        json!({"type": "summary", "summary": "s", "leafUuid": "x"}),
        session("/scan/me", "p")
    );
    put(config.path(), "-somewhere-else", &format!("{ID_A}.jsonl"), &text);
    let listing = project(config.path(), "/scan/me");
    assert_eq!(ids(&listing), [(ID_A.into(), Some("/scan/me".into()))]);
}

#[test]
fn all_lists_every_project_of_every_config_folder() {
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    put(one.path(), "-a", &format!("{ID_A}.jsonl"), &session("/a", "a"));
    put(one.path(), "-b", &format!("{ID_B}.jsonl"), &session("/b", "b"));
    put(two.path(), "-c", &format!("{ID_C}.jsonl"), &session("/c", "c"));
    let configs = [one.path().to_owned(), two.path().to_owned()];
    let listing = claude::list(&configs, Scope::All);
    assert_eq!(
        ids(&listing),
        [(ID_C.into(), Some("/c".into())), (ID_A.into(), Some("/a".into())), (ID_B.into(), Some("/b".into()))]
    );
    let files: Vec<_> = claude::session_files(&configs).into_iter().map(|(id, _)| id).collect();
    assert_eq!(files, [ID_A, ID_B, ID_C]);
    // A project of the second folder.
    assert_eq!(ids(&claude::list(&configs, Scope::Project(Path::new("/c")))), [(ID_C.into(), Some("/c".into()))]);
}

#[test]
fn load_names_the_transcript_after_the_file_and_reports_a_missing_file() {
    let config = tempfile::tempdir().unwrap();
    let path = put(config.path(), "-p", &format!("{ID_A}.jsonl"), &session("/p", "hello"));
    let transcript = claude::load(&path).unwrap();
    assert_eq!(
        (transcript.id.as_str(), transcript.cwd.as_deref(), transcript.title.as_deref()),
        (ID_A, Some("/p"), Some("hello"))
    );
    assert!(matches!(claude::load(&config.path().join("missing.jsonl")), Err(Error::NotFound { .. })));
}
