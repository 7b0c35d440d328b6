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

    // The sign bits of the rewritten session are its new documents': the
    // first pass finds what every vector finds, and the session at its message.
    let query = "a fastify route that reports whether the service is alive";
    let vector = sess_embed::quantize(&model.embed(query).unwrap().unwrap());
    let params = sess_catalog::SearchParams::new(query);
    let fast = setup.catalog.search_meaning(&vector, &params).unwrap();
    let exact = setup.catalog.search_meaning_exact(&vector, &params).unwrap();
    assert_eq!(fast, exact);
    assert_eq!(fast.len(), 2, "{fast:?}");
    assert!(fast[0].session.path.ends_with("health.jsonl"), "{fast:?}");
}

/// What the generated sessions talk about: a session keeps to one topic.
const TOPICS: [&[&str]; 8] = [
    &["server", "boot", "port", "listen", "startup", "crash", "daemon", "socket"],
    &["database", "migration", "schema", "column", "index", "table", "rollback", "query"],
    &["stylesheet", "layout", "margin", "flexbox", "colour", "font", "button", "sidebar"],
    &["test", "assertion", "flaky", "fixture", "mock", "coverage", "suite", "failure"],
    &["parser", "grammar", "token", "syntax", "expression", "lexer", "ast", "precedence"],
    &["login", "password", "session", "cookie", "token", "oauth", "signin", "account"],
    &["deploy", "container", "image", "cluster", "registry", "release", "rollout", "pipeline"],
    &["memory", "leak", "heap", "allocation", "profile", "garbage", "pointer", "buffer"],
];

/// The common words every topic's messages have too.
const COMMON: [&str; 10] = ["the", "we", "should", "check", "again", "why", "this", "now", "it", "fix"];

/// Binary codes pass the nearest documents on, and their int8 vectors rank
/// them: over more documents than that first pass keeps, the sessions found
/// are those the int8 scan of every vector finds.
#[test]
fn the_sign_bits_find_what_the_int8_scan_finds() {
    let Some(model) = model() else { return };
    let mut setup = Setup::new();
    let mut seed = 7_u64;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(seed >> 33).unwrap() % n
    };
    // 400 sessions of 9 messages: 3,600 documents, more than the first pass keeps.
    for session in 0..400 {
        let topic = TOPICS[session % TOPICS.len()];
        let messages: Vec<String> = (0..9)
            .map(|_| {
                (0..12)
                    .map(|_| if next(3) == 0 { COMMON[next(COMMON.len())] } else { topic[next(topic.len())] })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let pairs: Vec<(&str, &str)> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| (if i % 2 == 0 { "user" } else { "assistant" }, m.as_str()))
            .collect();
        let id = format!("s{session:04}");
        setup.add(sess_sources::pi::SOURCE, &format!("{id}.jsonl"), &common::pi_session(&id, "/p", &pairs));
    }
    setup.refresh();
    let report = setup.catalog.embed(&model, &mut |_, _| {}).unwrap();
    assert!(report.documents > sess_catalog::CANDIDATES, "{report:?}");
    for query in ["the web server would not start", "a sql table change", "a leak of ram", "why do the tests fail"] {
        let vector = sess_embed::quantize(&model.embed(query).unwrap().unwrap());
        let params = sess_catalog::SearchParams { limit: 10, ..sess_catalog::SearchParams::new(query) };
        let fast: Vec<String> =
            setup.catalog.search_meaning(&vector, &params).unwrap().into_iter().map(|h| h.session.id).collect();
        let exact: Vec<String> =
            setup.catalog.search_meaning_exact(&vector, &params).unwrap().into_iter().map(|h| h.session.id).collect();
        assert_eq!(exact.len(), 10);
        let shared = fast.iter().filter(|id| exact.contains(id)).count();
        assert!(shared >= 9, "{query}: {shared} of 10 shared\n{fast:?}\n{exact:?}");
        assert_eq!(fast[0], exact[0], "{query}");
    }

    // Out of time: both stop, and say so.
    let vector = sess_embed::quantize(&model.embed("server boot").unwrap().unwrap());
    let params = sess_catalog::SearchParams {
        stop: sess_catalog::Stop::after(std::time::Duration::ZERO),
        ..sess_catalog::SearchParams::new("server boot")
    };
    for stopped in
        [setup.catalog.search_meaning(&vector, &params), setup.catalog.search_meaning_exact(&vector, &params)]
    {
        assert!(
            matches!(stopped, Err(sess_catalog::Error::Stopped { reason: sess_catalog::Stopped::OutOfTime { .. } })),
            "{stopped:?}"
        );
    }
}
