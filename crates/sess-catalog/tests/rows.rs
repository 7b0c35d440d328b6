//! Sessions that are rows of a database file (an agent that keeps its
//! sessions in SQLite): keyed by the database and the session id, read again
//! when their version changes, dropped when they are gone.
#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write the database file directly")]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use sess_catalog::{Catalog, ListParams, SearchParams, SourceFile};
use sess_sources::{
    Env, FoundFiles, FoundRow, Head, Indexed, Listing, Message, Role, Scope, Source, SourceKind, Transcript,
};

/// How many sessions the test source has read.
static READS: AtomicUsize = AtomicUsize::new(0);

/// A source whose "database" is a file of lines `ID TEXT`.
struct Rows;

impl Source for Rows {
    fn name(&self) -> &'static str {
        "rows"
    }
    fn agent(&self) -> &'static str {
        "Rows"
    }
    fn location(&self) -> &'static str {
        "a test file"
    }
    fn roots(&self, _env: &Env) -> Vec<PathBuf> {
        Vec::new()
    }
    fn find(&self, _env: &Env) -> FoundFiles {
        FoundFiles::default()
    }
    fn list(&self, _env: &Env, _scope: Scope<'_>) -> Listing {
        Listing::default()
    }
    fn detect(&self, _head: &Head<'_>) -> Option<usize> {
        None
    }
    fn load(&self, _path: &Path) -> sess_sources::Result<Transcript> {
        unreachable!("the catalog reads rows with index_row")
    }
    fn index(&self, _path: &Path, _bytes: &[u8]) -> Result<Indexed, String> {
        Err("a database is read by rows".to_owned())
    }
    fn index_row(&self, database: &Path, id: &str) -> Result<Indexed, String> {
        READS.fetch_add(1, Ordering::SeqCst);
        let text = fs::read_to_string(database).map_err(|e| e.to_string())?;
        let messages: Vec<Message> = text
            .lines()
            .filter_map(|line| line.split_once(' '))
            .filter(|(row, _)| *row == id)
            .map(|(_, words)| Message::new(Role::User).with(sess_sources::Block::text(words)))
            .collect();
        Ok(Indexed { session_id: id.to_owned(), message_count: messages.len(), messages, ..Indexed::default() })
    }
}

const ROWS: SourceKind = SourceKind::of(&Rows);

fn row(database: &Path, id: &str, version: i64) -> SourceFile {
    SourceFile::row(ROWS, FoundRow { id: id.to_owned(), database: database.to_owned(), version })
}

#[test]
fn rows_are_sessions_of_their_own_read_again_when_their_version_changes() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("agent.db");
    fs::write(&database, "s1 the parser fails on tabs\ns2 deploy the staging cluster\n").unwrap();
    let mut catalog = Catalog::open(dir.path().join("catalog.sqlite")).unwrap();
    let search = |catalog: &Catalog, q: &str| -> Vec<String> {
        catalog.search(&SearchParams::new(q)).unwrap().into_iter().map(|h| h.session.id).collect()
    };

    let report = catalog.refresh(&[row(&database, "s1", 10), row(&database, "s2", 20)], &mut |_| {}).unwrap();
    assert_eq!((report.added, report.problems.len()), (2, 0));
    assert_eq!(READS.load(Ordering::SeqCst), 2);
    assert_eq!(search(&catalog, "tabs"), ["s1"]);
    assert_eq!(search(&catalog, "staging"), ["s2"]);
    let rows = catalog.sessions(&ListParams::default()).unwrap();
    assert!(rows.iter().all(|r| r.database_row && r.path == database), "{rows:?}");
    assert_eq!(rows.iter().find(|r| r.id == "s2").unwrap().modified_ms, 20);

    // The same versions: nothing is read, though the file changed.
    fs::write(&database, "s1 the parser fails on tabs and spaces\ns2 deploy the staging cluster\n").unwrap();
    let report = catalog.refresh(&[row(&database, "s1", 10), row(&database, "s2", 20)], &mut |_| {}).unwrap();
    assert_eq!((report.unchanged, READS.load(Ordering::SeqCst)), (2, 2));
    assert!(search(&catalog, "spaces").is_empty());

    // s1's version moved: only it is read again; s2 is gone.
    let report = catalog.refresh(&[row(&database, "s1", 11)], &mut |_| {}).unwrap();
    assert_eq!((report.reread + report.added, report.removed), (1, 1));
    assert_eq!(READS.load(Ordering::SeqCst), 3);
    assert_eq!(search(&catalog, "spaces"), ["s1"]);
    assert!(search(&catalog, "staging").is_empty());

    // Its sessions, by the database's path.
    let at = catalog.sessions_at(&[database.clone(), dir.path().join("other.db")]).unwrap();
    assert_eq!(at.iter().map(|r| (r.id.as_str(), r.database_row)).collect::<Vec<_>>(), [("s1", true)]);
}
