//! The archive's storage, the same on SQLite and PostgreSQL: what is stored
//! comes back byte for byte, lines added are stored once, versions are kept,
//! a write from a stale read stores nothing, gone sessions are marked and
//! come back, machines are told apart, and text is searched.
//!
//! PostgreSQL runs on the server `SESS_TEST_PG_URL` names, in a fresh schema
//! (skipped without it, unless `SESS_REQUIRE_PG=1`).

#![allow(clippy::unwrap_used, clippy::print_stderr)]

mod common;

use common::on_postgres;
use pretty_assertions::assert_eq;
use sess_archive::{
    Doc, Error, FileWrite, Filter, Grown, Kind, KnownFile, Machine, Meta, PostgresVault, SessionChange, SessionWrite,
    SqliteVault, Vault,
};
use sess_catalog::Stop;

fn machine(name: &str) -> Machine {
    Machine { id: format!("{name}-id"), name: name.to_owned() }
}

/// A file write of `chunk` (whole lines) and `tail` at `start`, over `base`.
fn write(path: &str, base: Option<&KnownFile>, version: i64, start: i64, chunk: &[u8], tail: &[u8]) -> FileWrite {
    let stored = start + i64::try_from(chunk.len()).unwrap();
    FileWrite {
        source: "claude".to_owned(),
        path: path.to_owned(),
        kind: Kind::Lines,
        base: base.cloned(),
        version,
        start,
        chunk: chunk.to_vec(),
        tail: tail.to_vec(),
        size: stored + i64::try_from(tail.len()).unwrap(),
        mtime: stored,
        head: format!("h{version}"),
        stored,
        mark: format!("m{stored}"),
        digest: format!("d{stored}"),
    }
}

fn session(path: &str, id: &str, words: &str) -> SessionWrite {
    SessionWrite {
        source: "claude".to_owned(),
        path: path.to_owned(),
        members: vec![path.to_owned()],
        change: SessionChange::Whole {
            meta: Meta {
                session_id: id.to_owned(),
                title: Some(format!("about {words}")),
                cwd: Some("/work".to_owned()),
                created: None,
                message_count: 2,
                modified_ms: 1_000,
            },
            docs: vec![Doc { entry_id: Some("u1".to_owned()), role: "user".to_owned(), body: words.to_owned() }],
        },
    }
}

fn known(vault: &mut dyn Vault, machine: &Machine, path: &str) -> KnownFile {
    vault.known(&machine.id).unwrap().into_iter().find(|k| k.path == path).unwrap()
}

fn key(vault: &mut dyn Vault, id: &str) -> i64 {
    let filter = Filter { id_prefix: Some(id.to_owned()), ..Filter::default() };
    vault.sessions(&filter).unwrap()[0].key
}

fn suite(vault: &mut dyn Vault) {
    let alpha = machine("alpha");
    vault.register(&alpha, 1).unwrap();
    let path = "/home/a/.claude/projects/p/s1.jsonl";

    // A new file: its lines and its torn tail come back as they were.
    let first = write(path, None, 1, 0, b"{\"n\":1}\n", b"{\"n\":2");
    let stored = vault.store(&alpha.id, &[first], &[session(path, "s1", "quokka migration")], 10).unwrap();
    assert_eq!((stored.files, stored.bytes, stored.raced), (1, 8, 0));
    let s1 = key(vault, "s1");
    assert_eq!(vault.files(s1).unwrap()[0].bytes, b"{\"n\":1}\n{\"n\":2");
    let base = known(vault, &alpha, path);
    assert!(base.main && !base.deleted);
    assert_eq!(base.digest, "d8", "the digest of the stored lines is kept");

    // Lines added: stored once; a second write from the same (stale) read
    // stores nothing.
    let added = write(path, Some(&base), 1, 8, b"{\"n\":2}\n{\"n\":3}\n", b"");
    assert_eq!(vault.store(&alpha.id, std::slice::from_ref(&added), &[], 20).unwrap().files, 1);
    let again = vault.store(&alpha.id, &[added], &[], 21).unwrap();
    assert_eq!((again.files, again.raced), (0, 1));
    assert_eq!(vault.files(s1).unwrap()[0].bytes, b"{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");

    // Issue 26, item 9: lines appended add their text and messages to the
    // session's (its text is not rebuilt); lines another archiver stored
    // first add nothing twice.
    let base = known(vault, &alpha, path);
    let grown = |words: &str| SessionWrite {
        change: SessionChange::Grown(Grown {
            title: None,
            message_count: 1,
            modified_ms: 2_000,
            docs: vec![Doc { entry_id: Some("u9".to_owned()), role: "user".to_owned(), body: words.to_owned() }],
        }),
        ..session(path, "s1", "")
    };
    let more = write(path, Some(&base), 1, 24, b"{\"n\":4}\n", b"");
    vault.store(&alpha.id, std::slice::from_ref(&more), &[grown("platypus")], 22).unwrap();
    vault.store(&alpha.id, &[more], &[grown("platypus")], 23).unwrap();
    let listed = vault.sessions(&Filter::default()).unwrap();
    assert_eq!((listed[0].meta.message_count, listed[0].meta.modified_ms), (3, 2_000));
    assert_eq!(listed[0].meta.title.as_deref(), Some("about quokka migration"));
    assert_eq!(vault.search("platypus", &Filter::default(), 10, &Stop::never()).unwrap().len(), 1);
    assert_eq!(
        vault.search("quokka", &Filter::default(), 10, &Stop::never()).unwrap().len(),
        1,
        "the earlier text is kept"
    );
    let both = vault.search("platypus OR quokka", &Filter::default(), 10, &Stop::never()).unwrap();
    assert_eq!(both.len(), 1, "one session");

    // A rewrite is a new version; the old one is kept.
    let base = known(vault, &alpha, path);
    let rewritten = write(path, Some(&base), 2, 0, b"{\"n\":9}\n", b"");
    vault.store(&alpha.id, &[rewritten], &[session(path, "s1", "quokka rewritten")], 30).unwrap();
    assert_eq!(vault.files(s1).unwrap()[0].bytes, b"{\"n\":9}\n");
    let versions: Vec<(i64, Vec<u8>)> = vault.versions(s1).unwrap().into_iter().map(|f| (f.version, f.bytes)).collect();
    assert_eq!(
        versions,
        vec![(1, b"{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n".to_vec()), (2, b"{\"n\":9}\n".to_vec())]
    );
    assert!(
        vault.search("platypus", &Filter::default(), 10, &Stop::never()).unwrap().is_empty(),
        "read whole, the text is replaced"
    );

    // Search: the newest text only, ranked, with the match marked.
    let hits = vault.search("quokka", &Filter::default(), 10, &Stop::never()).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].session.meta.session_id, "s1");
    assert!(hits[0].snippet.iter().any(|p| p.hit && p.text.to_lowercase() == "quokka"), "{:?}", hits[0].snippet);
    assert!(vault.search("migration", &Filter::default(), 10, &Stop::never()).unwrap().is_empty());
    assert_eq!(vault.search("quok*", &Filter::default(), 10, &Stop::never()).unwrap().len(), 1);
    assert!(vault.search("quokka NOT rewritten", &Filter::default(), 10, &Stop::never()).unwrap().is_empty());
    // Issue 26, item 1: a repeated word costs once, a query of thousands of
    // words is refused, and a search stops when it is cancelled.
    assert_eq!(vault.search(&"quokka ".repeat(10_000), &Filter::default(), 10, &Stop::never()).unwrap().len(), 1);
    let many: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let refused = vault.search(&many.join(" "), &Filter::default(), 10, &Stop::never()).unwrap_err();
    assert!(matches!(refused, Error::Query(sess_catalog::Error::TooManyWords { .. })), "{refused}");
    let cancelled = Stop::never().or_when(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)));
    let stopped = vault.search("quokka", &Filter::default(), 10, &cancelled).unwrap_err();
    let reason = sess_catalog::Stopped::Cancelled;
    assert!(matches!(stopped, Error::Query(sess_catalog::Error::Stopped { reason: r }) if r == reason), "{stopped}");
    assert_eq!(vault.search("quokka", &Filter::default(), 10, &Stop::never()).unwrap().len(), 1);

    // Another machine's session of the same path is its own.
    let beta = machine("beta");
    vault.register(&beta, 40).unwrap();
    let other = write(path, None, 1, 0, b"{\"b\":1}\n", b"");
    vault.store(&beta.id, &[other], &[session(path, "s2", "wombat")], 41).unwrap();
    let of = |vault: &mut dyn Vault, name: &str| -> Vec<String> {
        let filter = Filter { machine: Some(name.to_owned()), ..Filter::default() };
        vault.sessions(&filter).unwrap().into_iter().map(|s| s.meta.session_id).collect()
    };
    assert_eq!(of(vault, "alpha"), vec!["s1"]);
    assert_eq!(of(vault, "beta"), vec!["s2"]);
    assert_eq!(of(vault, "beta-i"), vec!["s2"], "an id prefix selects the machine too");
    let beta_only = Filter { machine: Some("beta".to_owned()), ..Filter::default() };
    assert!(vault.search("quokka", &beta_only, 10, &Stop::never()).unwrap().is_empty());

    // Gone: marked once, kept, listed as gone; back when it is stored again.
    let base = known(vault, &alpha, path);
    assert_eq!(vault.mark_deleted(&alpha.id, &[base.id], 50).unwrap(), 1);
    assert_eq!(vault.mark_deleted(&alpha.id, &[base.id], 51).unwrap(), 0);
    let gone = Filter { gone: true, ..Filter::default() };
    let listed = vault.sessions(&gone).unwrap();
    assert_eq!((listed.len(), listed[0].deleted_ms), (1, Some(50)));
    assert_eq!(vault.files(s1).unwrap()[0].bytes, b"{\"n\":9}\n");
    assert!(known(vault, &alpha, path).deleted);
    let base = known(vault, &alpha, path);
    let back = FileWrite { mtime: 99, ..write(path, Some(&base), 2, 8, b"", b"") };
    vault.store(&alpha.id, &[back], &[session(path, "s1", "quokka back")], 60).unwrap();
    assert!(vault.sessions(&gone).unwrap().is_empty());
    assert!(!known(vault, &alpha, path).deleted);
}

#[test]
fn sqlite_keeps_what_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep/archive.sqlite");
    suite(&mut SqliteVault::open(&path).unwrap());
    assert!(SqliteVault::holds_archive(&path));
    // Opened again, it holds the same.
    let mut again = SqliteVault::open(&path).unwrap();
    assert_eq!(again.sessions(&Filter::default()).unwrap().len(), 2);
}

/// The short hash the archive keeps (the first 12 bytes of SHA-256, in hex).
fn short_hash(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)[..12].iter().fold(String::new(), |hex, b| hex + &format!("{b:02x}"))
}

/// Stores a file of lines in two chunks and a whole file, for an archive
/// made before digests were kept.
fn store_for_migration(vault: &mut dyn Vault) -> (Machine, &'static str, &'static str) {
    let alpha = machine("alpha");
    vault.register(&alpha, 1).unwrap();
    let (lines, whole) = ("/h/.claude/projects/p/s1.jsonl", "/h/.gemini/tmp/p/chats/s2.json");
    vault
        .store(&alpha.id, &[write(lines, None, 1, 0, b"{\"n\":1}\n", b"{\"n")], &[session(lines, "s1", "a")], 2)
        .unwrap();
    let base = known(vault, &alpha, lines);
    vault.store(&alpha.id, &[write(lines, Some(&base), 1, 8, b"{\"n\":2}\n", b"")], &[], 3).unwrap();
    let doc = FileWrite { kind: Kind::Whole, head: "whole-head".to_owned(), ..write(whole, None, 1, 0, b"{}", b"") };
    vault.store(&alpha.id, &[doc], &[session(whole, "s2", "b")], 4).unwrap();
    (alpha, lines, whole)
}

/// What an archive made before digests were kept holds, once opened: the
/// digest of each file's stored lines (a whole file's: its head).
fn check_migrated(vault: &mut dyn Vault, alpha: &Machine, lines: &str, whole: &str) {
    assert_eq!(known(vault, alpha, lines).digest, short_hash(b"{\"n\":1}\n{\"n\":2}\n"));
    assert_eq!(known(vault, alpha, whole).digest, "whole-head");
    let s1 = key(vault, "s1");
    assert_eq!(vault.files(s1).unwrap()[0].bytes, b"{\"n\":1}\n{\"n\":2}\n");
}

// Issue 26, item 2: the digest is a new column; an archive the previous
// version made (schema 1, no digests) must still open, with digests made
// from what it stored.
#[test]
fn a_sqlite_archive_made_before_digests_opens_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.sqlite");
    let (alpha, lines, whole) = store_for_migration(&mut SqliteVault::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "ALTER TABLE archive_files DROP COLUMN digest; UPDATE archive_meta SET value = '1' WHERE key = 'version'",
    )
    .unwrap();
    drop(conn);
    let mut vault = SqliteVault::open(&path).unwrap();
    check_migrated(&mut vault, &alpha, lines, whole);
    drop(vault);
    // Opened again, nothing more to do.
    check_migrated(&mut SqliteVault::open(&path).unwrap(), &alpha, lines, whole);
}

#[test]
fn a_sqlite_file_without_an_archive_is_not_one() {
    let dir = tempfile::tempdir().unwrap();
    assert!(!SqliteVault::holds_archive(&dir.path().join("missing.sqlite")));
}

#[test]
fn postgres_keeps_what_it_is_given() {
    on_postgres(|url, _| {
        assert!(!PostgresVault::holds_archive(url).unwrap());
        suite(&mut PostgresVault::connect(url).unwrap());
        assert!(PostgresVault::holds_archive(url).unwrap());
    });
}

// Issue 26, item 2: as on SQLite, a schema made before digests were kept.
#[test]
fn a_postgres_archive_made_before_digests_opens_with_them() {
    on_postgres(|url, _| {
        let (alpha, lines, whole) = store_for_migration(&mut PostgresVault::connect(url).unwrap());
        let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
        client
            .batch_execute(
                "ALTER TABLE archive_files DROP COLUMN digest; UPDATE archive_meta SET value = '1' WHERE key = 'version'",
            )
            .unwrap();
        drop(client);
        check_migrated(&mut PostgresVault::connect(url).unwrap(), &alpha, lines, whole);
        check_migrated(&mut PostgresVault::connect(url).unwrap(), &alpha, lines, whole);
    });
}
