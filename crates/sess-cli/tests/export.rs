//! `sess export`: every agent's real sessions in every format (found as `sess
//! show` finds them), stores and archives, `--leaf`, `--redact`, and `-o`
//! (atomic, and never into a FIFO, a device, a session file, an agent's or
//! sess's own folder, an SQLite database or through a link).

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::os::unix::fs::FileTypeExt as _;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::Value;

use common::{CLAUDE_BASIC, Home, PI_MAIN, SessRun, agents_home, fixture, json_out, ok, sess_at, stderr, stdout};

/// `sess` in `home` with `args`; killed (and the test failed) after 20 s, so
/// a write that blocks on a FIFO fails instead of hanging.
fn run(home: &Path, args: &[&str]) -> Output {
    SessRun::new(home, args).time_limit(Duration::from_secs(20)).output()
}

/// Asserts `output` is a refusal (exit 2) whose message contains `needle`.
#[track_caller]
fn refused(output: &Output, needle: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(2), "stdout: {}\nstderr: {err}", stdout(output));
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Every message of `messages` and of the subagent turns under their calls.
fn all_messages(messages: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    for message in messages.as_array().unwrap() {
        out.push(message);
        for block in message["blocks"].as_array().unwrap() {
            if let Some(turns) = block.get("subagent") {
                out.extend(all_messages(turns));
            }
        }
    }
    out
}

/// The blocks of type `kind` in `messages`, subagents' included.
fn blocks<'a>(messages: &[&'a Value], kind: &str) -> Vec<&'a Value> {
    messages.iter().flat_map(|m| m["blocks"].as_array().unwrap()).filter(|b| b["type"] == kind).collect()
}

#[test]
fn every_agents_sessions_export_in_every_format() {
    let home = agents_home();
    let home = home.path();
    let listed = json_out(&sess_at(home, &["list", "--all-projects", "--json"], ""));
    let ids: Vec<&str> = listed.as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    let sources: std::collections::BTreeSet<&str> =
        listed.as_array().unwrap().iter().map(|s| s["source"].as_str().unwrap()).collect();
    assert_eq!(sources.len(), 7, "{sources:?}");
    assert!(ids.len() >= 25, "{}", ids.len());
    for id in ids {
        let shown = ok(&run(home, &["show", "--json", "--all", id]));
        // json: what `sess show --json --all` prints, byte for byte.
        let json = ok(&run(home, &["export", "--format", "json", id]));
        assert_eq!(json, shown, "{id}");
        let transcript: Value = serde_json::from_str(&shown).unwrap();
        let top: Vec<&Value> = transcript["messages"].as_array().unwrap().iter().collect();
        let every = all_messages(&transcript["messages"]);

        // md: the title, the id, a heading per run of a role, every text of the session's own messages as written.
        let md = ok(&run(home, &["export", id]));
        assert!(md.starts_with("# "), "{id}: {md}");
        assert!(md.contains(&format!("- **Session:** `{}`", transcript["id"].as_str().unwrap())), "{id}: {md}");
        for message in &top {
            let heading = match message["role"].as_str().unwrap() {
                "user" => "## User",
                "assistant" => "## Assistant",
                _ => "## System",
            };
            assert!(md.contains(&format!("{heading}\n")), "{id}: {heading}");
        }
        for text in blocks(&top, "text") {
            let text = text["text"].as_str().unwrap().trim_end();
            assert!(md.contains(text), "{id}: {text:?} not in the Markdown");
        }
        let calls = blocks(&every, "tool_call");
        for call in &calls {
            assert!(md.contains(&format!("**{}** · ", call["name"].as_str().unwrap().replace('*', "\\*"))), "{id}");
        }

        // html: one self-contained page; a part for every message, text, tool call and error.
        let html = ok(&run(home, &["export", "--format", "html", id]));
        assert!(html.starts_with("<!doctype html>\n"), "{id}");
        assert!(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"));
        assert!(!html.contains("<script") && !html.contains("<link") && !html.contains(" src=\"http"), "{id}");
        let count = |testid: &str| html.matches(&format!("data-testid=\"{testid}\"")).count();
        assert_eq!(count("message"), every.len(), "{id}");
        assert_eq!(count("text-block"), blocks(&every, "text").len(), "{id}");
        assert_eq!(count("tool-call"), calls.len(), "{id}");
        assert_eq!(count("error-block"), blocks(&every, "error").len(), "{id}");
        assert_eq!(count("thinking"), blocks(&every, "thinking").len(), "{id}");

        // --redact changes nothing in the agents' real sessions: none holds a secret.
        let redacted = run(home, &["export", "--format", "json", "--redact", id]);
        assert_eq!(stdout(&redacted), shown, "{id}: --redact changed a session with no secret");
        assert!(stderr(&redacted).contains("masked 0 secrets"), "{id}: {}", stderr(&redacted));
    }
}

#[test]
fn a_stored_and_an_archived_session_export_as_show_reads_them() {
    let home = Home::new();
    let dir = home.path().join("store");
    ok(&home.run(&[
        "copy",
        s(&home.path().join(".pi/agent/sessions/--home-dev-demo-project--/main.jsonl")),
        &format!("dir:{}", s(&dir)),
    ]));
    let store = format!("dir:{}", s(&dir));
    let shown = ok(&home.run(&["--store", &store, "show", "--json", "--all", PI_MAIN]));
    assert_eq!(ok(&home.run(&["--store", &store, "export", "--format", "json", PI_MAIN])), shown);
    let md = ok(&home.run(&["--store", &store, "export", PI_MAIN]));
    assert!(md.contains("## User\n") && md.contains(&format!("- **Session:** `{PI_MAIN}`")), "{md}");

    ok(&home.run(&["archive"]));
    let archive = format!("sqlite:{}", s(&home.path().join(".local/share/sess/archive.sqlite")));
    let shown = ok(&home.run(&["--store", &archive, "show", "--json", "--all", CLAUDE_BASIC]));
    assert_eq!(ok(&home.run(&["--store", &archive, "export", "--format", "json", CLAUDE_BASIC])), shown);
    let html = ok(&home.run(&["--store", &archive, "export", "--format", "html", CLAUDE_BASIC]));
    assert!(html.contains("Add /health endpoint"), "{html}");
    refused(&home.run(&["--store", &archive, "export", "--leaf", "x", CLAUDE_BASIC]), "--leaf does not apply");
}

#[test]
fn leaf_exports_a_branch_of_a_pi_session_only() {
    let home = Home::new();
    let at_leaf = ok(&home.run(&["show", "--json", "--all", "--leaf", "19238abe", PI_MAIN]));
    let exported = ok(&home.run(&["export", "--format", "json", "--leaf", "19238abe", PI_MAIN]));
    assert_eq!(exported, at_leaf);
    assert_ne!(exported, ok(&home.run(&["export", "--format", "json", PI_MAIN])));
    assert!(ok(&home.run(&["export", "--leaf", "19238abe", PI_MAIN])).contains("second answer"));
    refused(&home.run(&["export", "--leaf", "nowhere", PI_MAIN]), "has no entry `nowhere`");
    refused(&home.run(&["export", "--leaf", "x", CLAUDE_BASIC]), "--leaf works on pi-family sessions");
}

/// A pi session whose messages hold fake secrets of the shapes the rules know.
fn session_with_secrets(dir: &Path) -> (std::path::PathBuf, [&'static str; 2]) {
    const GITHUB: &str = "ghp_Zx8Qw2Lm4Nb6Vc1Ty3Ru5Ie7Op9As0Df2Gh4";
    const PASSWORD: &str = "postgres://app:Tr0ub4dor-x9Q@db.internal:5432/app";
    let lines = [
        serde_json::json!({"type": "session", "version": 3, "id": "5ec7e700-0000-4000-8000-000000000001",
            "timestamp": "2026-03-01T09:00:00.000Z", "cwd": "/home/dev/keys"}),
        serde_json::json!({"type": "message", "id": "b0000001", "parentId": null, "timestamp": "2026-03-01T09:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": format!("Use {GITHUB} to push, and the database at {PASSWORD}")}], "timestamp": 1}}),
    ];
    let path = dir.join("keys.jsonl");
    fs::write(&path, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    (path, [GITHUB, "Tr0ub4dor-x9Q"])
}

#[test]
fn redact_masks_secrets_in_every_format_and_says_how_many() {
    let home = Home::new();
    let (session, secrets) = session_with_secrets(home.path());
    for format in ["md", "html", "json"] {
        let plain = ok(&home.run(&["export", "--format", format, s(&session)]));
        assert!(secrets.iter().all(|secret| plain.contains(secret)), "{format}: {plain}");
        let output = home.run(&["export", "--format", format, "--redact", s(&session)]);
        let redacted = ok(&output);
        for secret in secrets {
            assert!(!redacted.contains(secret), "{format}: {secret} in {redacted}");
        }
        assert!(redacted.contains("[redacted"), "{format}: {redacted}");
        let said = stderr(&output);
        let count: usize =
            said.trim().strip_prefix("masked ").and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
        assert!(count >= 2, "{said}");
        assert!(said.trim().ends_with(" secrets"), "{said}");
    }
}

/// A Claude Code session whose `Edit` writes a (made-up) GitHub token into a file.
fn edit_with_a_secret(home: &Path) -> &'static str {
    const SESSION: &str = "5ec7e700-0000-4000-8000-0000000000e1";
    const TOKEN: &str = "ghp_Zx8Qw2Lm4Nb6Vc1Ty3Ru5Ie7Op9As0Df2Gh4";
    let line = |n: u32, parent: Option<u32>, kind: &str, message: Value| {
        let uuid = |n: u32| format!("e1e1e1e1-0000-4000-8000-{n:012}");
        serde_json::json!({"parentUuid": parent.map(uuid), "isSidechain": false, "cwd": "/home/dev/keys",
            "sessionId": SESSION, "version": "2.1.230", "type": kind, "message": message, "uuid": uuid(n),
            "timestamp": format!("2026-03-01T09:00:0{n}.000Z")})
        .to_string()
            + "\n"
    };
    let edit = serde_json::json!({"type": "tool_use", "id": "toolu_e1", "name": "Edit", "input": {
        "file_path": "/home/dev/keys/.env", "old_string": "GITHUB=", "new_string": format!("GITHUB={TOKEN}")}});
    let lines = [
        line(1, None, "user", serde_json::json!({"role": "user", "content": "Put the token in .env"})),
        line(2, Some(1), "assistant", serde_json::json!({"role": "assistant", "content": [edit]})),
        line(
            3,
            Some(2),
            "user",
            serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_e1", "content": "The file has been updated."}]}),
        ),
    ];
    let path = home.join(format!(".claude/projects/-home-dev-keys/{SESSION}.jsonl"));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, lines.concat()).unwrap();
    TOKEN
}

#[test]
fn an_edits_diff_is_exported_and_redacted_with_its_input() {
    let home = Home::new();
    let token = edit_with_a_secret(home.path());
    let id = "5ec7e700-0000-4000-8000-0000000000e1";
    let shown = ok(&home.run(&["show", "--json", "--all", id]));
    let plain = ok(&home.run(&["export", "--format", "json", id]));
    assert_eq!(plain, shown);
    let transcript: Value = serde_json::from_str(&plain).unwrap();
    let diffs = &transcript["messages"][1]["blocks"][0]["diffs"];
    assert_eq!(diffs[0]["path"], "/home/dev/keys/.env", "{transcript:#}");
    assert!(diffs.to_string().contains(token));
    let md = ok(&home.run(&["export", id]));
    assert!(md.contains(&format!("```diff\n--- a/home/dev/keys/.env\n+++ b/home/dev/keys/.env\n@@ -1,1 +1,1 @@\n-GITHUB=\n+GITHUB={token}\n```")), "{md}");
    let html = ok(&home.run(&["export", "--format", "html", id]));
    assert!(
        html.contains(&format!("<span class=\"diff-line diff-add\" data-testid=\"diff-line\">+GITHUB={token}</span>")),
        "{html}"
    );

    // Redacted, the diff is made from the masked input: the token is in no format.
    for format in ["json", "md", "html"] {
        let output = home.run(&["export", "--redact", "--format", format, id]);
        let redacted = ok(&output);
        assert!(!redacted.contains(token), "{format}: {redacted}");
        assert!(stderr(&output).contains("masked 1 secret\n"), "{}", stderr(&output));
        if format == "json" {
            let transcript: Value = serde_json::from_str(&redacted).unwrap();
            let added = &transcript["messages"][1]["blocks"][0]["diffs"][0]["hunks"][0]["lines"][1];
            assert_eq!(added["kind"], "add");
            assert!(
                added["text"].as_str().unwrap().starts_with("GITHUB=ghp_")
                    && added["text"].as_str().unwrap().contains("[redacted"),
                "{added}"
            );
        }
    }
}

#[test]
fn output_is_written_atomically_and_the_format_follows_its_extension() {
    let home = Home::new();
    let dir = home.path().join("out");
    fs::create_dir(&dir).unwrap();
    let md = dir.join("claude.md");
    let quiet = run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&md)]);
    assert_eq!(stdout(&quiet), "", "nothing on stdout with -o");
    ok(&quiet);
    assert_eq!(fs::read_to_string(&md).unwrap(), ok(&home.run(&["export", CLAUDE_BASIC])));
    let html = dir.join("claude.HTML");
    ok(&run(home.path(), &["export", CLAUDE_BASIC, "--output", s(&html)]));
    assert_eq!(fs::read_to_string(&html).unwrap(), ok(&home.run(&["export", "--format", "html", CLAUDE_BASIC])));
    // An existing export is replaced, a JSON one too (it is no agent's session), and no temporary file stays.
    let json = dir.join("claude.json");
    ok(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&json)]));
    ok(&run(home.path(), &["export", PI_MAIN, "-o", s(&json)]));
    assert_eq!(fs::read_to_string(&json).unwrap(), ok(&home.run(&["show", "--json", "--all", PI_MAIN])));
    ok(&run(home.path(), &["export", "--format", "md", CLAUDE_BASIC, "-o", s(&html)]));
    assert!(fs::read_to_string(&html).unwrap().starts_with("# Add /health endpoint"));
    let mut names: Vec<String> =
        fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["claude.HTML", "claude.json", "claude.md"]);
}

#[test]
fn output_refuses_fifos_devices_sessions_and_agents_folders() {
    let home = Home::new();
    let fifo = home.path().join("pipe.md");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&fifo)]), "FIFO");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO is left as it is");
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", "/dev/null"]), "character device");
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(home.path())]), "directory");

    // The session exported, by path or by id, and any other agent's session file.
    let claude = home.path().join(format!(".claude/projects/-home-alice-src-todo-api/{CLAUDE_BASIC}.jsonl"));
    let before = fs::read(&claude).unwrap();
    refused(&run(home.path(), &["export", s(&claude), "-o", s(&claude)]), "is the session being exported");
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&claude)]), "is the session being exported");
    assert_eq!(fs::read(&claude).unwrap(), before);
    let copy = home.path().join("copy.jsonl");
    fs::copy(&claude, &copy).unwrap();
    refused(&run(home.path(), &["export", PI_MAIN, "-o", s(&copy)]), "is a Claude Code session");
    let pi = home.path().join("pi.jsonl");
    fs::copy(fixture("pi-family/pi-mono-0.73.1-main.jsonl"), &pi).unwrap();
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&pi)]), "is a pi-family session");
    assert_eq!(fs::read(&copy).unwrap(), before);

    // A new file where an agent keeps its sessions, through a `..` too.
    let inside = home.path().join(".codex/sessions/2026/08/20/export.json");
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&inside)]), "where Codex keeps its sessions");
    assert!(!inside.exists());
    let sneaky = home.path().join("out/../.claude/projects/x.md");
    fs::create_dir(home.path().join("out")).unwrap();
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&sneaky)]), "where Claude Code keeps its sessions");
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&home.path().join("nowhere/x.md"))]), "does not exist");
}

/// Issue 26, item 4: `-o` wrote over sess's own archive and catalog (the
/// archive may be the only copy of deleted sessions). Any SQLite database and
/// any file of sess's data folder are refused, as agents' files are.
#[test]
fn output_refuses_sess_own_archive_catalog_and_any_sqlite_database() {
    let home = Home::new();
    ok(&home.run(&["index"]));
    ok(&home.run(&["archive"]));
    let data = home.path().join(".local/share/sess");
    for name in ["archive.sqlite", "catalog.sqlite"] {
        let file = data.join(name);
        let before = fs::read(&file).unwrap();
        refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&file)]), "sess keeps its own data");
        assert_eq!(fs::read(&file).unwrap(), before, "{name} is left as it was");
    }
    let new = data.join("notes.md");
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&new)]), "sess keeps its own data");
    assert!(!new.exists());
    // A database elsewhere, whatever its name, through a `..` too.
    fs::create_dir(home.path().join("out")).unwrap();
    let copy = home.path().join("out/backup.md");
    fs::copy(data.join("archive.sqlite"), &copy).unwrap();
    let before = fs::read(&copy).unwrap();
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&copy)]), "is an SQLite database");
    assert_eq!(fs::read(&copy).unwrap(), before);
    let sneaky = home.path().join("out/../.local/share/sess/archive.sqlite");
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&sneaky)]), "sess keeps its own data");
}

/// Issue 26, item 5: a link at the `-o` target that pointed into an agent's
/// folder was written through. The link's final target is checked, and a
/// link is refused: the user passes the real path.
#[test]
fn output_refuses_links_and_names_where_they_lead() {
    let home = Home::new();
    let out = home.path().join("out");
    fs::create_dir(&out).unwrap();
    // A dangling link into Claude Code's folder, through a second link.
    let inside = home.path().join(".claude/projects/-home-alice-src-todo-api/planted.jsonl");
    let hop = out.join("hop.md");
    std::os::unix::fs::symlink(&inside, &hop).unwrap();
    let link = out.join("link.md");
    std::os::unix::fs::symlink(&hop, &link).unwrap();
    refused(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&link)]), "where Claude Code keeps its sessions");
    assert!(!inside.exists(), "nothing is written through the link");
    // A link to a file of one's own: refused, naming the real path, which is written.
    let real = out.join("real.md");
    fs::write(&real, "old").unwrap();
    let mine = out.join("mine.md");
    std::os::unix::fs::symlink(&real, &mine).unwrap();
    let output = run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&mine)]);
    refused(&output, "is a symbolic link");
    assert!(stderr(&output).contains(s(&fs::canonicalize(&real).unwrap())), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(&real).unwrap(), "old");
    ok(&run(home.path(), &["export", CLAUDE_BASIC, "-o", s(&real)]));
    assert!(fs::read_to_string(&real).unwrap().starts_with("# Add /health endpoint"));
    assert!(fs::symlink_metadata(&mine).unwrap().file_type().is_symlink());
}
