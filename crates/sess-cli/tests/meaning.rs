//! Search by meaning from the command line: `sess index --model DIR` embeds
//! the messages that have no vector yet, once. With the model
//! `scripts/embed-model` fetches (`SESS_TEST_EMBED_MODEL`); the tests that
//! need it say they skipped without it (`SESS_REQUIRE_EMBED=1`: they fail).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use common::{SessRun, claude_codex_pi_home, json_out, stderr};

fn model() -> Option<std::ffi::OsString> {
    let dir = std::env::var_os("SESS_TEST_EMBED_MODEL");
    if dir.is_none() {
        assert!(
            std::env::var("SESS_REQUIRE_EMBED").as_deref() != Ok("1"),
            "SESS_TEST_EMBED_MODEL is not set (run scripts/embed-model)"
        );
        #[allow(clippy::print_stderr)] // The suite says what it skipped.
        {
            eprintln!("meaning: SKIPPED: SESS_TEST_EMBED_MODEL is not set (run scripts/embed-model)");
        }
    }
    dir
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
