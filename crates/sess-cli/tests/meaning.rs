//! Search by meaning from the command line: `sess index --model DIR` embeds
//! the messages that have no vector yet, once. With the model
//! `scripts/embed-model` fetches (`SESS_TEST_EMBED_MODEL`); the tests that
//! need it say they skipped without it (`SESS_REQUIRE_EMBED=1`: they fail).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use common::{SessRun, claude_codex_pi_home, json_out, stderr};

fn model() -> Option<std::path::PathBuf> {
    sess_testkit::embed::embed_model_dir()
}

#[test]
fn index_embeds_each_message_once() {
    let Some(model) = model() else { return };
    let home = claude_codex_pi_home();
    let model = model.to_str().unwrap();
    let first = SessRun::new(home.path(), &["index", "--json", "--model", model]).output();
    assert!(first.status.success(), "{}", stderr(&first));
    let first = json_out(&first);
    let embedded = &first["embedded"];
    assert!(embedded["documents"].as_u64().unwrap() >= first["messages"].as_u64().unwrap(), "{first}");
    assert!(embedded["vectors"].as_u64().unwrap() > 0, "{first}");
    // The variable names the model too; nothing is left to embed.
    let again = SessRun::new(home.path(), &["index", "--json"]).env("SESS_EMBED_MODEL", model).output();
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(json_out(&again)["embedded"]["documents"], 0);
}

#[test]
fn a_folder_that_is_no_model_is_named() {
    let home = claude_codex_pi_home();
    let output = SessRun::new(home.path(), &["index", "--model", "/nonexistent/model"]).output();
    assert_eq!(output.status.code(), Some(2));
    let says = stderr(&output);
    assert!(says.contains("cannot load the embedding model in `/nonexistent/model`"), "{says}");
    assert!(says.contains("has no tokenizer.json"), "{says}");
}

#[test]
fn a_search_by_meaning_without_a_model_says_how_to_give_one() {
    let home = claude_codex_pi_home();
    for mode in ["semantic", "hybrid"] {
        let output = SessRun::new(home.path(), &["search", "slow build", "--mode", mode, "--all-projects"]).output();
        assert_eq!(output.status.code(), Some(2), "{mode}");
        let says = stderr(&output);
        assert!(says.contains("search by meaning needs an embedding model"), "{says}");
        assert!(says.contains("--model DIR or $SESS_EMBED_MODEL"), "{says}");
    }
}

#[test]
fn a_paraphrase_finds_its_session_by_meaning_and_not_by_words() {
    let Some(model) = model() else { return };
    let home = claude_codex_pi_home();
    let model = model.to_str().unwrap();
    // Claude Code's "Start the slow build in the background.", in other words.
    let query = "kick off a long compilation that runs behind the scenes";
    let search = |mode: &str| {
        let output = SessRun::new(home.path(), &["search", query, "--all-projects", "--json", "--mode", mode])
            .env("SESS_EMBED_MODEL", model)
            .output();
        assert!(output.status.success(), "{mode}: {}", stderr(&output));
        json_out(&output)
    };
    assert_eq!(search("lexical"), serde_json::json!([]));
    for mode in ["semantic", "hybrid"] {
        let hits = search(mode);
        assert_eq!(hits[0]["id"], "8b6d40a5-430e-448a-b2d4-e0292f81d519", "{mode}: {hits}");
        assert_eq!(hits[0]["matched"], serde_json::json!(["meaning"]), "{mode}");
        assert!(hits[0]["snippet"].as_str().unwrap().contains("build"), "{mode}: {hits}");
    }
    // A word search with a model: both sides, each hit saying which found it.
    let output = SessRun::new(home.path(), &["search", "slow build", "--all-projects", "--json"])
        .env("SESS_EMBED_MODEL", model)
        .output();
    let hits = json_out(&output);
    assert_eq!(hits[0]["id"], "8b6d40a5-430e-448a-b2d4-e0292f81d519", "{hits}");
    assert_eq!(hits[0]["matched"], serde_json::json!(["words", "meaning"]), "{hits}");
}

#[test]
fn an_archive_embedded_with_a_model_is_searched_by_meaning() {
    let Some(model) = model() else { return };
    let home = claude_codex_pi_home();
    let model = model.to_str().unwrap();
    let store = format!("sqlite:{}", home.path().join("kept.sqlite").display());
    let query = "kick off a long compilation that runs behind the scenes";
    let search = |mode: &str| {
        SessRun::new(home.path(), &["--store", &store, "search", query, "--json", "--mode", mode])
            .env("SESS_EMBED_MODEL", model)
            .output()
    };
    // Archived without a model: no vectors, and a search by meaning says how to make them.
    let archived = SessRun::new(home.path(), &["--store", &store, "archive", "--json"]).output();
    assert!(archived.status.success(), "{}", stderr(&archived));
    assert!(json_out(&archived).get("embedded").is_none());
    let refused = search("semantic");
    assert_eq!(refused.status.code(), Some(2));
    let says = stderr(&refused);
    assert!(says.contains("has no vectors made with this model"), "{says}");
    assert!(says.contains("archive --model DIR"), "{says}");

    // `--model` embeds every archived message once.
    let first = SessRun::new(home.path(), &["--store", &store, "archive", "--json", "--model", model]).output();
    assert!(first.status.success(), "{}", stderr(&first));
    let embedded = &json_out(&first)["embedded"];
    assert!(embedded["documents"].as_u64().unwrap() > 0, "{embedded}");
    let again =
        SessRun::new(home.path(), &["--store", &store, "archive", "--json"]).env("SESS_EMBED_MODEL", model).output();
    assert_eq!(json_out(&again)["embedded"]["documents"], 0);

    // The paraphrase: not by words, by meaning in both other modes.
    let lexical = search("lexical");
    assert!(lexical.status.success(), "{}", stderr(&lexical));
    assert_eq!(json_out(&lexical), serde_json::json!([]));
    for mode in ["semantic", "hybrid"] {
        let output = search(mode);
        assert!(output.status.success(), "{mode}: {}", stderr(&output));
        let hits = json_out(&output);
        assert_eq!(hits[0]["id"], "8b6d40a5-430e-448a-b2d4-e0292f81d519", "{mode}: {hits}");
        assert_eq!(hits[0]["matched"], serde_json::json!(["meaning"]), "{mode}");
        assert_eq!(hits[0]["store"], store.as_str(), "{mode}");
    }
}
