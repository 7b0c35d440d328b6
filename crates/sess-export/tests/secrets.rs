//! The bundled secret rules against a corpus of made-up secrets (every one
//! masked, by the rule expected), near misses (none found), and every
//! committed fixture of every agent (nothing found: no false positives).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use rstest::rstest;
use serde::Deserialize;
use sess_export::Redactor;

/// A made-up secret in a text, and the rule that must mask it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    rule: String,
    secret: String,
    text: String,
    #[serde(default)]
    note: Option<String>,
}

/// A text that looks like a secret of `rule` and holds none.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NearMiss {
    rule: String,
    text: String,
    why: String,
}

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/secrets")
}

fn corpus() -> Vec<Case> {
    serde_json::from_str(&std::fs::read_to_string(folder().join("corpus.json")).unwrap()).unwrap()
}

fn near_misses() -> Vec<NearMiss> {
    serde_json::from_str(&std::fs::read_to_string(folder().join("near_misses.json")).unwrap()).unwrap()
}

fn rule_names() -> Vec<String> {
    Redactor::bundled().rules().map(|r| r.name.to_owned()).collect()
}

/// How many characters of a secret of `chars` characters a mask keeps.
fn kept(chars: usize) -> usize {
    (chars / 4).min(4)
}

/// Checks that `case` is masked by its rule: a finding of that rule covers
/// the secret, the masked text keeps no run of it longer than the mask
/// keeps, and masking again changes nothing.
fn assert_masked(redactor: &Redactor, case: &Case) {
    let at = case.text.find(&case.secret).unwrap_or_else(|| panic!("{}: the secret is not in the text", case.rule));
    let end = at + case.secret.len();
    let findings = redactor.find(&case.text);
    let covering = findings.iter().find(|f| f.start <= at && end <= f.end).unwrap_or_else(|| {
        panic!("{}: no finding covers {:?} in {:?}: {findings:?}", case.rule, case.secret, case.text)
    });
    assert_eq!(covering.rule, case.rule, "the rule that masks {:?} ({:?})", case.secret, case.note);

    let masked = redactor.redact(&case.text);
    // The masks' rule names are no part of the text.
    let left =
        rule_names().iter().fold(masked.to_string(), |text, name| text.replace(&format!("[redacted {name}]"), ""));
    let secret: Vec<char> = case.secret.chars().collect();
    let width = (kept(case.text[covering.start..covering.end].chars().count()) + 1).max(6).min(secret.len());
    for run in secret.windows(width) {
        let run: String = run.iter().collect();
        assert!(!left.contains(&run), "{}: {run:?} of the secret survives in {masked:?}", case.rule);
    }
    assert!(masked.contains(&format!("[redacted {}]", case.rule)), "{masked}");
    assert_eq!(redactor.redact(&masked), masked, "masking twice changes nothing");
}

#[test]
fn the_corpus_has_forty_secrets_and_every_rule_some() {
    let corpus = corpus();
    assert!(corpus.len() >= 40, "{} secrets", corpus.len());
    let names = rule_names();
    let covered: BTreeSet<&str> = corpus.iter().map(|c| c.rule.as_str()).collect();
    let near: BTreeSet<String> = near_misses().into_iter().map(|n| n.rule).collect();
    for name in &names {
        assert!(covered.contains(name.as_str()), "no secret of `{name}` in the corpus");
        assert!(near.contains(name), "no near miss of `{name}`");
    }
    for rule in covered.iter().copied().chain(near.iter().map(String::as_str)) {
        assert!(names.iter().any(|n| n == rule), "`{rule}` is not a rule");
    }
}

#[test]
fn every_secret_of_the_corpus_is_masked_by_its_rule() {
    let redactor = Redactor::bundled();
    for case in &corpus() {
        assert_masked(&redactor, case);
    }
}

#[test]
fn no_near_miss_is_found() {
    let redactor = Redactor::bundled();
    for miss in &near_misses() {
        assert_eq!(redactor.find(&miss.text), [], "{} ({}): {:?}", miss.rule, miss.why, miss.text);
    }
}

/// Each rule on its own: its secrets of the corpus masked, its near misses
/// left alone.
#[rstest]
#[case::gcp_service_account("gcp-service-account")]
#[case::private_key_block("private-key-block")]
#[case::anthropic_key("anthropic-key")]
#[case::openrouter_key("openrouter-key")]
#[case::openai_key("openai-key")]
#[case::deepseek_key("deepseek-key")]
#[case::groq_key("groq-key")]
#[case::xai_key("xai-key")]
#[case::huggingface_token("huggingface-token")]
#[case::perplexity_key("perplexity-key")]
#[case::replicate_token("replicate-token")]
#[case::github_token("github-token")]
#[case::gitlab_token("gitlab-token")]
#[case::slack_webhook("slack-webhook")]
#[case::slack_token("slack-token")]
#[case::stripe_key("stripe-key")]
#[case::google_api_key("google-api-key")]
#[case::google_oauth("google-oauth")]
#[case::aws_access_key_id("aws-access-key-id")]
#[case::aws_secret_access_key("aws-secret-access-key")]
#[case::azure_connection_string("azure-connection-string")]
#[case::azure_sas_token("azure-sas-token")]
#[case::azure_client_secret("azure-client-secret")]
#[case::npm_token("npm-token")]
#[case::pypi_token("pypi-token")]
#[case::sendgrid_key("sendgrid-key")]
#[case::digitalocean_token("digitalocean-token")]
#[case::jwt("jwt")]
#[case::bearer_token("bearer-token")]
#[case::connection_string_password("connection-string-password")]
#[case::assignment("assignment")]
fn rule(#[case] name: &str) {
    let redactor = Redactor::bundled();
    let cases: Vec<Case> = corpus().into_iter().filter(|c| c.rule == name).collect();
    assert!(!cases.is_empty(), "no secret of `{name}` in the corpus");
    for case in &cases {
        assert_masked(&redactor, case);
    }
    let misses: Vec<NearMiss> = near_misses().into_iter().filter(|n| n.rule == name).collect();
    assert!(!misses.is_empty(), "no near miss of `{name}`");
    for miss in &misses {
        assert_eq!(redactor.find(&miss.text), [], "{name} ({}): {:?}", miss.why, miss.text);
    }
}

/// The cases of [`rule`] are the rules of the file, in its order.
#[test]
fn every_rule_has_its_own_test() {
    let source = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/secrets.rs")).unwrap();
    let cases: Vec<String> = source
        .lines()
        .filter_map(|line| line.trim().strip_prefix("#[case::"))
        .filter_map(|rest| rest.split_once("(\"").and_then(|(_, name)| name.split_once("\")")))
        .map(|(name, _)| name.to_owned())
        .collect();
    assert_eq!(cases, rule_names());
}

/// The README's table of rules names every rule, in the file's order.
#[test]
fn the_readme_lists_every_rule() {
    let readme = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let section = &readme[readme.find("## Secrets").unwrap()..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once("` |"))
        .map(|(name, _)| name)
        .collect();
    assert_eq!(listed, rule_names());
}

/// The fixtures that hold a secret on purpose, and why: none so far.
const FIXTURES_WITH_SECRETS: [(&str, &str); 0] = [];

/// Every file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// No committed fixture of any agent holds anything the rules call a secret,
/// read as text, byte for byte (databases too).
#[test]
fn no_fixture_file_holds_a_secret() {
    let redactor = Redactor::bundled();
    let root = fixtures();
    let files = files_under(&root);
    assert!(files.len() > 100, "{} fixture files", files.len());
    let mut found = Vec::new();
    for path in &files {
        let name = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        for finding in redactor.find(&text) {
            if !FIXTURES_WITH_SECRETS.iter().any(|(file, _)| *file == name) {
                found.push(format!("{name}: {} {:?}", finding.rule, &text[finding.start..finding.end]));
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}

/// Every session of the fixtures, read by its agent's reader (pi-family ones
/// on every branch), is left as it is by `redact_transcript`.
#[test]
fn no_fixture_session_changes_when_redacted() {
    let redactor = Redactor::bundled();
    let root = fixtures();
    let mut loaded = 0;
    for path in files_under(&root) {
        let Some(mut transcript) = load(&path) else { continue };
        loaded += 1;
        let before = transcript.clone();
        let masked = redactor.redact_transcript(&mut transcript);
        assert_eq!(masked, 0, "{}", path.display());
        assert_eq!(transcript, before, "{}", path.display());
    }
    for database in files_under(&root).into_iter().filter(|p| p.extension().is_some_and(|e| e == "db")) {
        let head = std::fs::read(&database).unwrap();
        let head = &head[..head.len().min(sess_sources::DETECT_BYTES)];
        let kind = sess_sources::detect(&database, head).unwrap_or_else(|| panic!("{}", database.display()));
        let ids = kind.source().row_ids(&database).unwrap();
        assert!(!ids.is_empty(), "{}", database.display());
        for id in ids {
            let mut transcript = kind.source().load_row(&database, &id).unwrap();
            loaded += 1;
            let before = transcript.clone();
            assert_eq!(redactor.redact_transcript(&mut transcript), 0, "{} {id}", database.display());
            assert_eq!(transcript, before);
        }
    }
    assert!(loaded >= 30, "{loaded} sessions read");
}

/// The transcript of the session file at `path`, when an agent's reader
/// recognises it; a pi-family session has every entry of every branch.
fn load(path: &Path) -> Option<sess_sources::Transcript> {
    let bytes = std::fs::read(path).ok()?;
    let head = &bytes[..bytes.len().min(sess_sources::DETECT_BYTES)];
    let kind = sess_sources::detect(path, head)?;
    if kind.is_native() {
        let file = sess_core::read(&bytes).file;
        let mut transcript = sess_sources::pi::transcript(&file, sess_core::Leaf::Last);
        transcript.messages = sess_sources::pi::entry_messages(file.entries());
        return Some(transcript);
    }
    kind.source().load(path).ok()
}
