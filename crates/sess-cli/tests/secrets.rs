//! `sess secrets`: the sessions of every agent the real agents wrote hold
//! none; secrets planted in Claude Code and pi sessions are listed, masked,
//! with where they are, in the current project or every one, in a store and
//! in an archive; the exit code says whether any was found.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{agents_home, json_out, sess_at, stderr, stdout};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const OPENAI: &str = "sk-proj-Zr4Qx9LmT2vB7nK1pW8sYd3Hf6Jc0AeGuVbNi5Ro";
const GITHUB: &str = "ghp_7Hq2LmXv9Rt4Bn8Kc1Wz5Yd3Pf6Js0AeGuVb";
const PASSWORD: &str = "Tr0ub4dorX3zz";
const AWS_ID: &str = "AKIAZ7QW3ERT5YUI2OPL";
const CLAUDE_ID: &str = "5e0c1d2a-7b3f-4c8e-9a01-23456789abcd";
const ELSEWHERE_ID: &str = "6f1d2e3b-8c4a-4d9f-8b12-3456789abcde";
const SECRETS: [&str; 4] = [OPENAI, GITHUB, PASSWORD, AWS_ID];

fn run(home: &Path, args: &[&str]) -> Output {
    sess_at(home, args, "")
}

/// The code `sess` exited with, after checking it wrote no secret.
fn code(output: &Output) -> Option<i32> {
    for secret in SECRETS {
        assert!(!stdout(output).contains(secret), "{secret} in {}", stdout(output));
        assert!(!stderr(output).contains(secret), "{secret} in {}", stderr(output));
    }
    output.status.code()
}

/// A Claude Code session in `cwd`: a prompt with a key, a Bash call with a
/// password in its command and a token in its result.
fn claude_session(home: &Path, id: &str, cwd: &str) {
    let slug: String = cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let line = |n: u32, parent: Option<u32>, kind: &str, message: Value| {
        json!({
            "parentUuid": parent.map(|p| format!("{id}-{p}")), "isSidechain": false, "userType": "external",
            "cwd": cwd, "sessionId": id, "version": "2.1.230", "type": kind, "message": message,
            "uuid": format!("{id}-{n}"), "timestamp": format!("2026-08-20T09:14:0{n}.000Z"),
        })
        .to_string()
    };
    let lines = [
        line(1, None, "user", json!({"role": "user", "content": format!("Use OPENAI_API_KEY={OPENAI} for the demo")})),
        line(
            2,
            Some(1),
            "assistant",
            json!({"role": "assistant", "model": "claude-sonnet-4-5", "content": [
                {"type": "text", "text": "Checking the database."},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                 "input": {"command": format!("PGPASSWORD={PASSWORD} psql -h db -c 'select 1'")}}
            ]}),
        ),
        line(
            3,
            Some(2),
            "user",
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": format!("remote: token {GITHUB} expired")}
            ]}),
        ),
        line(
            4,
            Some(3),
            "assistant",
            json!({"role": "assistant", "model": "claude-sonnet-4-5", "content": [
                {"type": "text", "text": "The token in the output has expired; the rest worked."}
            ]}),
        ),
    ];
    let dir = home.join(".claude/projects").join(slug);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}

/// A home with a Claude Code session with secrets in its own folder (the
/// current project), another in `/srv/elsewhere`, and a pi session with one
/// in the current project.
fn home_with_secrets() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let cwd = home.path().display().to_string();
    claude_session(home.path(), CLAUDE_ID, &cwd);
    claude_session(home.path(), ELSEWHERE_ID, "/srv/elsewhere");
    let slug = format!("--{}--", cwd.trim_start_matches('/').replace('/', "-"));
    let pi = home.path().join(".pi/agent/sessions").join(slug).join("s.jsonl");
    fs::create_dir_all(pi.parent().unwrap()).unwrap();
    let input = format!(
        "{}\n{}\n",
        json!({"role": "user", "content": "what are my credentials?"}),
        json!({"role": "assistant", "content": [{"type": "text", "text": format!("aws_access_key_id = {AWS_ID}")}]})
    );
    let output = sess_at(home.path(), &["append", pi.to_str().unwrap()], &input);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    home
}

/// `(source, id, messageIndex, role, place, rule)` of each item.
fn where_found(items: &Value) -> Vec<(String, String, u64, String, String, String)> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let text = |key: &str| item[key].as_str().unwrap().to_owned();
            (
                text("source"),
                text("id"),
                item["messageIndex"].as_u64().unwrap(),
                text("role"),
                text("place"),
                text("rule"),
            )
        })
        .collect()
}

#[test]
fn the_sessions_every_agent_wrote_hold_no_secret() {
    let home = agents_home();
    let listed = json_out(&run(home.path(), &["list", "--all-projects", "--json"]));
    let sessions = listed.as_array().unwrap().len();
    assert!(sessions >= 10, "{sessions}");
    let output = run(home.path(), &["secrets", "--all-projects"]);
    assert_eq!(code(&output), Some(0), "{}{}", stdout(&output), stderr(&output));
    assert_eq!(stdout(&output), format!("no secrets in {sessions} sessions on this machine\n"));
    let output = run(home.path(), &["secrets", "--all-projects", "--json"]);
    assert_eq!(code(&output), Some(0), "{}", stderr(&output));
    assert_eq!(serde_json::from_slice::<Value>(&output.stdout).unwrap(), json!([]));
}

#[test]
fn secrets_are_listed_masked_with_where_they_are() {
    let home = home_with_secrets();
    let output = run(home.path(), &["secrets", "--json"]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let items: Value = serde_json::from_slice(&output.stdout).unwrap();
    let pi_id = items[0]["id"].as_str().unwrap().to_owned();
    let owned = |s: &str| s.to_owned();
    let mut found = where_found(&items);
    found.sort();
    let mut expected = vec![
        (owned("claude"), owned(CLAUDE_ID), 0, owned("user"), owned("text"), owned("openai-key")),
        (
            owned("claude"),
            owned(CLAUDE_ID),
            1,
            owned("assistant"),
            owned("tool Bash input.command"),
            owned("assignment"),
        ),
        (owned("claude"), owned(CLAUDE_ID), 1, owned("assistant"), owned("tool Bash result"), owned("github-token")),
        (owned("pi"), pi_id.clone(), 1, owned("assistant"), owned("text"), owned("aws-access-key-id")),
    ];
    expected.sort();
    assert_eq!(found, expected);
    let by_rule = |rule: &str| items.as_array().unwrap().iter().find(|i| i["rule"] == rule).unwrap().clone();
    let openai = by_rule("openai-key");
    assert_eq!(openai["excerpt"], "Use OPENAI_API_KEY=sk-p…[redacted openai-key] for the demo");
    assert_eq!(openai["messageId"], format!("{CLAUDE_ID}-1"));
    assert!(openai["path"].as_str().unwrap().ends_with(&format!("{CLAUDE_ID}.jsonl")), "{openai}");
    assert_eq!(by_rule("assignment")["excerpt"], "PGPASSWORD=Tr0…[redacted assignment] psql -h db -c 'select 1'");

    let output = run(home.path(), &["secrets"]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains(&format!("claude  {CLAUDE_ID}  ")), "{text}");
    assert!(text.contains(&format!("  message 0  user  {CLAUDE_ID}-1\n")), "{text}");
    assert!(
        text.contains("    github-token  tool Bash result: remote: token ghp_…[redacted github-token] expired\n"),
        "{text}"
    );
    assert!(text.contains(&format!("pi  {pi_id}  ")), "{text}");
    assert!(
        text.ends_with(&format!(
            "4 secrets in 3 messages of 2 sessions (2 sessions read for `{}`)\n",
            home.path().display()
        )),
        "{text}"
    );
    assert!(!text.contains(ELSEWHERE_ID), "another project's session is not read: {text}");
}

#[test]
fn the_scope_is_the_project_unless_every_one_is_asked_for() {
    let home = home_with_secrets();
    let all = run(home.path(), &["secrets", "--all-projects", "--json", "--source", "claude"]);
    assert_eq!(code(&all), Some(1), "{}", stderr(&all));
    let ids: std::collections::BTreeSet<String> =
        where_found(&serde_json::from_slice(&all.stdout).unwrap()).into_iter().map(|f| f.1).collect();
    assert_eq!(ids, [CLAUDE_ID.to_owned(), ELSEWHERE_ID.to_owned()].into_iter().collect());
    let elsewhere = run(home.path(), &["secrets", "--cwd", "/srv/elsewhere", "--json"]);
    assert_eq!(code(&elsewhere), Some(1), "{}", stderr(&elsewhere));
    let ids: Vec<String> =
        where_found(&serde_json::from_slice(&elsewhere.stdout).unwrap()).into_iter().map(|f| f.1).collect();
    assert_eq!(ids, [ELSEWHERE_ID; 3]);
    let codex = run(home.path(), &["secrets", "--source", "codex"]);
    assert_eq!(code(&codex), Some(0), "{}", stderr(&codex));
    assert_eq!(stdout(&codex), format!("no secrets in 0 sessions for `{}`\n", home.path().display()));
}

#[test]
fn a_store_and_an_archive_are_read_too() {
    let home = home_with_secrets();
    let pi =
        fs::read_dir(home.path().join(".pi/agent/sessions")).unwrap().next().unwrap().unwrap().path().join("s.jsonl");
    let store = format!("dir:{}", home.path().join("store").display());
    let copied = run(home.path(), &["copy", pi.to_str().unwrap(), &store]);
    assert_eq!(copied.status.code(), Some(0), "{}", stderr(&copied));
    let output = run(home.path(), &["--store", &store, "secrets", "--json"]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let rules: Vec<String> =
        where_found(&serde_json::from_slice(&output.stdout).unwrap()).into_iter().map(|f| f.5).collect();
    assert_eq!(rules, ["aws-access-key-id"]);

    let archive = format!("sqlite:{}", home.path().join("archive.sqlite").display());
    let archived = run(home.path(), &["--store", &archive, "archive"]);
    assert_eq!(archived.status.code(), Some(0), "{}", stderr(&archived));
    let output = run(home.path(), &["--store", &archive, "secrets", "--json"]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let mut ids: Vec<String> =
        where_found(&serde_json::from_slice(&output.stdout).unwrap()).into_iter().map(|f| f.1).collect();
    ids.dedup();
    assert_eq!(ids.len(), 3, "both Claude Code sessions and the pi one: {ids:?}");
}

/// A Claude Code session in the current project whose only secret is in its
/// title (a `custom-title` line) and whose prompt holds `GITHUB`.
fn titled_session(home: &Path, id: &str) {
    let cwd = home.display().to_string();
    let slug: String = cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let lines = [
        json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": id,
               "type": "user", "message": {"role": "user", "content": format!("rotate the deploy token {GITHUB} today")},
               "uuid": format!("{id}-1"), "timestamp": "2026-08-20T09:14:01.000Z"}),
        json!({"type": "custom-title", "customTitle": format!("deploy with {OPENAI}"), "sessionId": id}),
    ];
    let dir = home.join(".claude/projects").join(slug);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(format!("{id}.jsonl")), lines.map(|l| l.to_string()).join("\n") + "\n").unwrap();
}

/// Issue 26, item 8: `sess secrets` missed a secret that was only in a
/// session's title (`custom-title`), though `export --redact` masks it.
#[test]
fn a_secret_in_a_title_is_found() {
    let home = tempfile::tempdir().unwrap();
    titled_session(home.path(), CLAUDE_ID);
    let output = run(home.path(), &["secrets", "--json"]);
    assert_eq!(code(&output), Some(1), "{}", stderr(&output));
    let items: Value = serde_json::from_slice(&output.stdout).unwrap();
    let places: Vec<(&str, &str)> =
        items.as_array().unwrap().iter().map(|i| (i["place"].as_str().unwrap(), i["rule"].as_str().unwrap())).collect();
    assert!(places.contains(&("title", "openai-key")), "{items}");
    let text = stdout(&run(home.path(), &["secrets"]));
    assert!(text.contains("  title\n") && text.contains("openai-key"), "{text}");
}

/// Issue 26, item 8: `sess list` and search snippets showed secrets
/// unmasked. They are masked unless `--reveal-secrets` is given.
#[test]
fn listings_and_snippets_mask_secrets_unless_asked_to_reveal_them() {
    let home = tempfile::tempdir().unwrap();
    titled_session(home.path(), CLAUDE_ID);
    for args in [&["list"][..], &["list", "--json"], &["search", "deploy"], &["search", "deploy", "--json"]] {
        let output = run(home.path(), args);
        assert_eq!(code(&output), Some(0), "{args:?}: {}", stderr(&output));
        assert!(stdout(&output).contains("[redacted "), "{args:?}: {}", stdout(&output));
    }
    let listed = stdout(&run(home.path(), &["list", "--reveal-secrets", "--json"]));
    assert!(listed.contains(OPENAI) && listed.contains(GITHUB), "{listed}");
    let found = stdout(&run(home.path(), &["search", "rotate", "--reveal-secrets"]));
    assert!(found.contains(GITHUB), "{found}");
    // An archive's listing too.
    assert_eq!(code(&run(home.path(), &["archive"])), Some(0));
    let url = format!("sqlite:{}", home.path().join(".local/share/sess/archive.sqlite").display());
    let listed = run(home.path(), &["--store", &url, "list", "--json"]);
    assert_eq!(code(&listed), Some(0), "{}", stderr(&listed));
    assert!(stdout(&listed).contains("[redacted "), "{}", stdout(&listed));
    let revealed = stdout(&run(home.path(), &["--store", &url, "list", "--json", "--reveal-secrets"]));
    assert!(revealed.contains(OPENAI), "{revealed}");
}
