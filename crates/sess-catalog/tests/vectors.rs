//! The vectors of search by meaning: made after a refresh for the documents
//! that have none, dropped with the documents a refresh replaces, and made
//! again for another model. With the model `scripts/embed-model` fetches
//! (`SESS_TEST_EMBED_MODEL`); without it the tests say they skipped
//! (`SESS_REQUIRE_EMBED=1`: they fail).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

mod common;

use common::Setup;
use sess_embed::Model;

fn model() -> Option<Model> {
    Some(Model::load(&sess_testkit::embed::embed_model_dir()?).unwrap())
}

#[test]
fn documents_get_vectors_once_and_lose_them_with_their_session() {
    let Some(model) = model() else { return };
    let mut setup = Setup::new();
    setup.copy(sess_sources::claude::SOURCE, "claude-code/claude-health-endpoint.jsonl", "health.jsonl");
    setup.copy(
        sess_sources::codex::SOURCE,
        "codex/codex-basic-rollout.jsonl",
        "rollout-2026-08-20T10-02-11-0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81.jsonl",
    );
    setup.refresh();
    let first = setup.catalog.embed(&model, &mut |_, _| {}).unwrap();
    assert!(first.documents > 0 && first.vectors >= first.documents / 2, "{first:?}");
    assert!(!first.dropped);
    let (documents, bytes) = setup.catalog.vector_count().unwrap();
    assert_eq!(documents, first.documents);
    assert_eq!(bytes, first.vectors * model.dims());

    // Nothing new: nothing embedded.
    let again = setup.catalog.embed(&model, &mut |_, _| {}).unwrap();
    assert_eq!(again.documents, 0);

    // A session rewritten: its documents and their vectors replaced, the other's kept.
    let health = setup.dir.path().join("health.jsonl");
    let text = std::fs::read_to_string(&health).unwrap();
    std::fs::write(&health, text.replace("Express", "Fastify")).unwrap();
    setup.refresh();
    let (kept, _) = setup.catalog.vector_count().unwrap();
    assert!(kept < documents, "{kept} of {documents}");
    let redone = setup.catalog.embed(&model, &mut |_, _| {}).unwrap();
    assert_eq!(kept + redone.documents, setup.catalog.vector_count().unwrap().0);
    assert_eq!(setup.catalog.vector_count().unwrap().0, documents);
}
