//! Issue 26, item 10: `sess list` dated every session by its file's
//! modification time, so after a restore, a backup or a copy every session
//! showed "just now"; and a Codex rollout whose `session_meta` id is not a
//! UUID (or an OpenCode storage file whose name is not the id inside) was
//! listed under an id no other verb resolved. Here every agent's real
//! sessions are copied (their files' times are now): each listed session's
//! `modified` is its last message's time (never earlier than `created`), from
//! the catalog and from the files alike (pi-family keeps pi's own rule), and
//! `sess show ID` of every listed id opens that session.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::path::Path;

use common::{agents_home, copy_dir, fixture, json_out, sess_at};
use serde_json::Value;
use sess_core::{format_iso_millis, parse_iso_millis};

/// Every agent's real sessions, copied now; with the older OpenCode's
/// `storage/` files (one renamed), and two Codex rollouts whose
/// `session_meta` ids are not UUIDs.
fn home() -> tempfile::TempDir {
    let home = agents_home();
    let root = home.path();
    copy_dir(&fixture("opencode/real-1.1.65/storage"), &root.join(".local/share/opencode/storage"));
    let sessions = root.join(".local/share/opencode/storage/session/global");
    let main = fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| !fs::read_to_string(p).unwrap().contains("\"parentID\""))
        .unwrap();
    fs::rename(&main, sessions.join("ses_renamedcopy.json")).unwrap();

    let day = root.join(".codex/sessions/2026/11/30");
    let uuid = "01a22bd9-1882-7631-acfa-f670d31a90c7";
    let rollout = fs::read_to_string(day.join(format!("rollout-2026-11-30T09-46-17-{uuid}.jsonl"))).unwrap();
    // Named as Codex names a rollout, after its thread id.
    fs::write(day.join("rollout-2026-11-30T09-46-17-my-thread.jsonl"), rollout.replace(uuid, "my-thread")).unwrap();
    // Renamed: the name says one id, the `session_meta` another.
    fs::write(day.join("rollout-copied.jsonl"), rollout.replace(uuid, "thread-7")).unwrap();
    fs::remove_file(day.join(format!("rollout-2026-11-30T09-46-17-{uuid}.jsonl"))).unwrap();
    home
}

fn listed(root: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["list", "--all-projects", "--json"];
    args.extend(extra);
    let out = sess_at(root, &args, "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    json_out(&out).as_array().unwrap().clone()
}

/// When a session was last active by what `sess show` shows of it: its newest
/// message's time, never earlier than `created`.
fn last_activity(shown: &Value, created: Option<&str>) -> Option<i64> {
    let messages = shown["messages"].as_array().unwrap();
    let newest = messages.iter().filter_map(|m| m["timestamp"].as_str().and_then(parse_iso_millis)).max();
    newest.into_iter().chain(created.and_then(parse_iso_millis)).max()
}

#[test]
fn a_copied_session_is_dated_by_its_last_message_and_found_by_its_listed_id() {
    let home = home();
    let root = home.path();
    let from_catalog = listed(root, &[]);
    let from_files = listed(root, &["--no-catalog"]);
    assert_eq!(from_catalog, from_files);
    let mut dated = 0;
    let mut sources = std::collections::BTreeSet::new();
    for session in &from_files {
        let (source, id, path) =
            (session["source"].as_str().unwrap(), session["id"].as_str().unwrap(), session["path"].as_str().unwrap());
        let shown = sess_at(root, &["show", id, "--all", "--json"], "");
        assert_eq!(
            shown.status.code(),
            Some(0),
            "`sess show {id}` ({path}): {}",
            String::from_utf8_lossy(&shown.stderr)
        );
        let shown = json_out(&shown);
        assert_eq!(shown["id"].as_str(), Some(id), "`sess show {id}` opens the session listed ({path})");
        if source == "pi" {
            continue;
        }
        let expected = last_activity(&shown, session["created"].as_str())
            .unwrap_or_else(|| panic!("{source} session {id} records a time"));
        assert_eq!(session["modified"].as_str(), Some(format_iso_millis(expected).as_str()), "{source} {path}");
        dated += 1;
        sources.insert(source.to_owned());
    }
    assert_eq!(sources.into_iter().collect::<Vec<_>>(), ["claude", "codex", "copilot", "gemini", "opencode", "qwen"]);
    assert!(dated > 20, "{dated} sessions dated");
    let ids: Vec<&str> = from_files.iter().map(|s| s["id"].as_str().unwrap()).collect();
    for id in ["my-thread", "copied", "ses_renamedcopy"] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
}
