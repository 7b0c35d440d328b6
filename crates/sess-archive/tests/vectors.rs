//! Search by meaning in the archive, the same on SQLite and PostgreSQL: its
//! documents embedded once, a document stored again loses its vectors (and
//! vectors made from a text it no longer has are not kept), another model's
//! vectors are dropped, and the nearest session is found by a paraphrase.
//!
//! With the model `scripts/embed-model` fetches (`SESS_TEST_EMBED_MODEL`),
//! and PostgreSQL on the server `SESS_TEST_PG_URL` names, in a fresh schema;
//! each skipped without, unless `SESS_REQUIRE_EMBED=1` / `SESS_REQUIRE_PG=1`.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::on_postgres;
use sess_archive::{
    Doc, Error, FileWrite, Filter, Kind, Machine, Meta, PostgresVault, SessionChange, SessionWrite, SqliteVault, Vault,
    Vectors,
};
use sess_catalog::Stop;
use sess_embed::Model;

fn model() -> Option<Model> {
    Some(Model::load(&sess_testkit::embed::embed_model_dir()?).unwrap())
}

/// A whole file at `path` (its bytes `text`), and its session `id` whose
/// one message is `text`.
fn stored(path: &str, id: &str, text: &str, version: i64) -> (FileWrite, SessionWrite) {
    let size = i64::try_from(text.len()).unwrap();
    let file = FileWrite {
        source: "claude".to_owned(),
        path: path.to_owned(),
        kind: Kind::Whole,
        base: None,
        version,
        start: 0,
        chunk: text.as_bytes().to_vec(),
        tail: Vec::new(),
        size,
        mtime: version,
        head: format!("h{version}"),
        stored: size,
        mark: String::new(),
        digest: format!("d{version}"),
    };
    let meta = Meta { session_id: id.to_owned(), message_count: 1, modified_ms: version, ..Meta::default() };
    let docs = vec![
        Doc { entry_id: None, role: "title".to_owned(), body: format!("session {id}") },
        Doc { entry_id: Some(format!("{id}-m")), role: "user".to_owned(), body: text.to_owned() },
    ];
    let session = SessionWrite {
        source: "claude".to_owned(),
        path: path.to_owned(),
        members: vec![path.to_owned()],
        change: SessionChange::Whole { meta, docs },
    };
    (file, session)
}

/// Stores the session `id` (again, over what the vault holds of it).
fn store(vault: &mut dyn Vault, machine: &Machine, id: &str, text: &str) {
    let path = format!("/h/.claude/projects/p/{id}.jsonl");
    let base = vault.known(&machine.id).unwrap().into_iter().find(|k| k.path == path);
    let version = base.as_ref().map_or(1, |k| k.version + 1);
    let (mut file, session) = stored(&path, id, text, version);
    file.base = base;
    let done = vault.store(&machine.id, &[file], &[session], version).unwrap();
    assert_eq!(done.raced, 0);
}

fn nearest(vault: &mut dyn Vault, model: &Model, query: &str, filter: &Filter) -> Vec<String> {
    let vector = sess_embed::quantize(&model.embed(query).unwrap().unwrap());
    let hits = sess_archive::search_meaning(vault, &vector, filter, 10, &Stop::never()).unwrap();
    hits.into_iter()
        .map(|hit| format!("{}:{}", hit.session.meta.session_id, hit.entry_id.unwrap_or_default()))
        .collect()
}

const DEPLOY: &str = "The release pipeline pushes the container image to the registry and rolls out the new version.";
const KITCHEN: &str = "Whisk the eggs with sugar, fold in the flour and bake the sponge cake for forty minutes.";
const GARDEN: &str = "Water the tomato plants every morning and prune the basil before it flowers.";

fn suite(vault: &mut dyn Vault, model: &Model) {
    let alpha = Machine { id: "alpha-id".to_owned(), name: "alpha".to_owned() };
    vault.register(&alpha, 1).unwrap();
    assert_eq!(vault.vector_model().unwrap(), None);
    store(vault, &alpha, "s1", DEPLOY);
    store(vault, &alpha, "s2", KITCHEN);

    // Every message embedded once (titles are not), nothing twice.
    assert_eq!(vault.unembedded_count().unwrap(), 2);
    let mut told = Vec::new();
    let first = sess_archive::embed(vault, model, &mut |done, all| told.push((done, all))).unwrap();
    assert_eq!((first.documents, first.dropped), (2, false));
    assert_eq!(told.first(), Some(&(0, 2)));
    assert_eq!(told.last(), Some(&(2, 2)));
    assert_eq!(vault.vector_model().unwrap(), Some(model.id()));
    assert_eq!(sess_archive::embed(vault, model, &mut |_, _| {}).unwrap().documents, 0);

    // A paraphrase of each finds its session first, at its message.
    let every = Filter::default();
    assert_eq!(nearest(vault, model, "ship the build to production", &every)[0], "s1:s1-m");
    assert_eq!(nearest(vault, model, "baking a dessert in the oven", &every)[0], "s2:s2-m");
    // Within a filter: only its sessions.
    let only_s2 = Filter { id_prefix: Some("s2".to_owned()), ..Filter::default() };
    assert_eq!(nearest(vault, model, "ship the build to production", &only_s2), ["s2:s2-m"]);

    // Stored again with other words: its vectors go with its old text.
    store(vault, &alpha, "s1", GARDEN);
    assert_eq!(vault.unembedded_count().unwrap(), 1);
    let mut scanned = Vec::new();
    vault.scan_vectors(&Stop::never(), &mut |doc, _| scanned.push(doc)).unwrap();
    assert_eq!(scanned.len(), 1, "{scanned:?}");

    // Vectors made from a text the document no longer has are not kept.
    let (doc, text) = vault.unembedded(None, 10).unwrap().remove(0);
    store(vault, &alpha, "s1", DEPLOY);
    let bytes = sess_embed::embed_documents(model, &[text.as_str()]).unwrap().remove(0).0;
    assert_eq!(vault.put_vectors(&[Vectors { doc, text, bytes }]).unwrap(), 0);
    assert_eq!(vault.unembedded_count().unwrap(), 1);
    assert_eq!(sess_archive::embed(vault, model, &mut |_, _| {}).unwrap().documents, 1);
    assert_eq!(nearest(vault, model, "ship the build to production", &every)[0], "s1:s1-m");

    // Another model's vectors are dropped: everything is embedded again.
    assert!(vault.vectors_for("another-model").unwrap());
    assert_eq!(vault.unembedded_count().unwrap(), 2);
    let again = sess_archive::embed(vault, model, &mut |_, _| {}).unwrap();
    assert_eq!((again.documents, again.dropped), (2, false));

    // A search out of time stops.
    let vector = sess_embed::quantize(&model.embed("cake").unwrap().unwrap());
    let stopped = sess_archive::search_meaning(vault, &vector, &every, 10, &Stop::after(Duration::ZERO));
    assert!(matches!(stopped, Err(Error::Query(sess_catalog::Error::Stopped { .. }))), "{stopped:?}");
}

#[test]
fn sqlite_embeds_and_searches_by_meaning() {
    let Some(model) = model() else { return };
    let dir = tempfile::tempdir().unwrap();
    suite(&mut SqliteVault::open(&dir.path().join("archive.sqlite")).unwrap(), &model);
}

#[test]
fn postgres_embeds_and_searches_by_meaning() {
    let Some(model) = model() else { return };
    on_postgres(|url, _| suite(&mut PostgresVault::connect(url).unwrap(), &model));
}
