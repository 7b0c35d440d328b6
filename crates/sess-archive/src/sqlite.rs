//! The archive in an SQLite database file (WAL), beside the tables of the
//! SQLite store when it is one: `sess archive`'s default.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::batch::{self, Writer};
use sess_catalog::Stop;

use crate::error::{Error, Result};
use crate::vault::{
    ArchivedSession, Doc, DocKey, FileWrite, Filter, Grown, Hit, Kind, KnownFile, Meta, SessionWrite, Stored,
    StoredFile, Vault, Vectors, snippet_parts,
};

/// The schema version this build writes: 2 keeps each file's digest, 3
/// documents' vectors (a build before would store a document again and
/// leave it the vectors of its old text).
const VERSION: i64 = 3;

/// How many documents a session may have: a document's FTS rowid is its
/// session's key shifted by this many bits, plus its number.
const DOC_BITS: u32 = 24;

/// How many words of context a snippet has around its matches.
const SNIPPET_WORDS: usize = 16;

/// How many SQLite virtual-machine steps pass between two looks at a
/// search's [`Stop`].
const STEPS: i32 = 1_000;

/// The text index: a session's docs are the rowids from its key shifted by
/// [`DOC_BITS`].
const FTS: &str = "CREATE VIRTUAL TABLE IF NOT EXISTS archive_fts USING fts5(
    body, role UNINDEXED, entry_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS archive_vectors (doc INTEGER PRIMARY KEY, vectors BLOB NOT NULL);";

/// How many vectors a scan reads between two looks at its [`Stop`].
const SCAN_LOOK: usize = 512;

/// The archive in an SQLite file.
pub struct SqliteVault {
    conn: Connection,
    path: PathBuf,
}

impl SqliteVault {
    /// Opens (making it, with its folder, when missing) the archive in the
    /// SQLite file `path`.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("making", parent, e))?;
        }
        let fail = |source| Error::Sqlite { path: path.to_owned(), source };
        let mut conn = Connection::open(path).map_err(fail)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(fail)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(fail)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(fail)?;
        // A batch is up to 64 MiB: a cache that holds it is not spilled
        // to the log in the middle of the transaction.
        conn.pragma_update(None, "cache_size", -65_536).map_err(fail)?;
        conn.pragma_update(None, "wal_autocheckpoint", 16_384).map_err(fail)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(fail)?;
        tx.execute_batch(&batch::tables("INTEGER PRIMARY KEY", "INTEGER", "BLOB")).map_err(fail)?;
        tx.execute_batch(FTS).map_err(fail)?;
        let found: Option<String> = tx
            .query_row("SELECT value FROM archive_meta WHERE key = 'version'", [], |r| r.get(0))
            .optional()
            .map_err(fail)?;
        match found.and_then(|v| v.parse::<i64>().ok()) {
            Some(found) if found > VERSION => {
                return Err(Error::TooNew { location: path.display().to_string(), found, known: VERSION });
            }
            Some(found) if found < VERSION => {
                if found < 2 {
                    add_digests(&tx).map_err(fail)?;
                }
                tx.execute("UPDATE archive_meta SET value = ?1 WHERE key = 'version'", [VERSION.to_string()])
                    .map_err(fail)?;
            }
            Some(_) => {}
            None => {
                tx.execute("INSERT INTO archive_meta (key, value) VALUES ('version', ?1)", [VERSION.to_string()])
                    .map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)?;
        Ok(Self { conn, path: path.to_owned() })
    }

    /// Whether the SQLite file `path` holds an archive (without changing it;
    /// a path that is not a regular file is not opened).
    pub fn holds_archive(path: &Path) -> bool {
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return false;
        }
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Connection::open_with_flags(path, flags)
            .and_then(|conn| {
                conn.query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'archive_sessions'",
                    [],
                    |r| r.get::<_, i64>(0),
                )
            })
            .is_ok_and(|n| n > 0)
    }

    /// The files of the session `key` at the versions `listing` selects.
    fn assemble(&mut self, key: i64, listing: &str) -> Result<Vec<StoredFile>> {
        let fail = self.fail();
        let mut statement = self.conn.prepare(&listing.replace('$', "?")).map_err(&fail)?;
        let listed = statement
            .query_map([key], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get(3)?)))
            .map_err(&fail)?
            .collect::<rusqlite::Result<Vec<(i64, String, String, i64)>>>()
            .map_err(&fail)?;
        let mut files = Vec::with_capacity(listed.len());
        let mut chunks = self
            .conn
            .prepare("SELECT start, bytes FROM archive_chunks WHERE file = ?1 AND version = ?2 ORDER BY start")
            .map_err(&fail)?;
        for (id, path, growth, version) in listed {
            let mut bytes: Vec<u8> = Vec::new();
            let rows = chunks
                .query_map(params![id, version], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))
                .map_err(&fail)?;
            for row in rows {
                let (start, chunk) = row.map_err(&fail)?;
                crate::contents::append_chunk(&mut bytes, start, &chunk, &path)?;
            }
            let tail: Option<Vec<u8>> = self
                .conn
                .query_row(
                    "SELECT bytes FROM archive_tails WHERE file = ?1 AND version = ?2",
                    params![id, version],
                    |r| r.get(0),
                )
                .optional()
                .map_err(&fail)?;
            bytes.extend(tail.unwrap_or_default());
            files.push(StoredFile { path, kind: Kind::from_name(&growth), version, bytes });
        }
        Ok(files)
    }

    fn fail(&self) -> impl Fn(rusqlite::Error) -> Error + use<> {
        let path = self.path.clone();
        move |source| Error::Sqlite { path: path.clone(), source }
    }
}

/// Schema 1 to 2: every file gets its digest, the hash of what is stored
/// of its current version (read from its chunks, one at a time).
fn add_digests(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch("ALTER TABLE archive_files ADD COLUMN digest TEXT NOT NULL DEFAULT ''")?;
    tx.execute(batch::WHOLE_DIGESTS, [])?;
    let files = tx
        .prepare(batch::LINE_FILES)?
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut chunks = tx.prepare(&batch::sqlite_form(batch::VERSION_CHUNKS))?;
    for (id, version) in files {
        let mut digest = crate::read::Sha256::default();
        let mut rows = chunks.query(params![id, version])?;
        while let Some(row) = rows.next()? {
            crate::read::Digest::update(&mut digest, row.get_ref(0)?.as_blob()?);
        }
        tx.execute(&batch::sqlite_form(batch::SET_DIGEST), params![id, crate::read::short(&digest)])?;
    }
    Ok(())
}

fn session_of(row: &rusqlite::Row<'_>) -> rusqlite::Result<ArchivedSession> {
    Ok(ArchivedSession {
        key: row.get("id")?,
        machine_id: row.get("machine")?,
        machine: row.get("machine_name")?,
        source: row.get("source")?,
        path: row.get("path")?,
        meta: Meta {
            session_id: row.get("session_id")?,
            title: row.get("title")?,
            cwd: row.get("cwd")?,
            created: row.get("created")?,
            message_count: row.get("message_count")?,
            modified_ms: row.get("modified_ms")?,
        },
        archived_ms: row.get("archived_ms")?,
        updated_ms: row.get("updated_ms")?,
        deleted_ms: row.get("deleted_ms")?,
    })
}

const SESSIONS: &str = "SELECT s.*, m.name AS machine_name FROM archive_sessions s
    JOIN archive_machines m ON m.id = s.machine
    WHERE (?1 IS NULL OR m.name = ?1 OR substr(s.machine, 1, length(?1)) = ?1)
      AND (?2 IS NULL OR s.source = ?2)
      AND (?3 IS NULL OR substr(s.session_id, 1, length(?3)) = ?3)
      AND (NOT ?4 OR s.deleted_ms IS NOT NULL)";

/// The statements of a batch in an SQLite transaction.
struct SqliteWriter<'t>(&'t rusqlite::Transaction<'t>);

impl SqliteWriter<'_> {
    fn run(&self, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
        self.0.prepare_cached(&batch::sqlite_form(sql))?.execute(params)
    }

    fn one<T: rusqlite::types::FromSql>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> rusqlite::Result<Option<T>> {
        self.0.prepare_cached(&batch::sqlite_form(sql))?.query_row(params, |r| r.get(0)).optional()
    }
}

impl SqliteWriter<'_> {
    /// Inserts `docs` from the rowid `from`, up to the last of its session's.
    fn insert_docs(&self, from: i64, docs: &[Doc]) -> rusqlite::Result<()> {
        let end = ((from >> DOC_BITS) + 1) << DOC_BITS;
        // Vectors are of the text they were made from, never of a new one.
        let count = i64::try_from(docs.len()).unwrap_or(i64::MAX);
        self.run("DELETE FROM archive_vectors WHERE doc >= $1 AND doc < $2", params![from, end.min(from + count)])?;
        let mut insert =
            self.0.prepare_cached("INSERT INTO archive_fts (rowid, body, role, entry_id) VALUES (?1, ?2, ?3, ?4)")?;
        for (rowid, doc) in (from..end).zip(docs) {
            insert.execute(params![rowid, doc.body, doc.role, doc.entry_id])?;
        }
        Ok(())
    }
}

impl Writer for SqliteWriter<'_> {
    type Error = rusqlite::Error;

    fn insert_file(&mut self, machine_id: &str, w: &FileWrite) -> rusqlite::Result<Option<i64>> {
        let kind = w.kind.as_str();
        self.one(
            batch::INSERT_FILE,
            params![machine_id, w.source, w.path, kind, w.version, w.size, w.mtime, w.head, w.stored, w.mark, w.digest],
        )
    }

    fn update_file(&mut self, w: &FileWrite, base: &KnownFile) -> rusqlite::Result<bool> {
        let kind = w.kind.as_str();
        let changed = self.run(
            batch::UPDATE_FILE,
            params![
                w.source,
                kind,
                w.version,
                w.size,
                w.mtime,
                w.head,
                w.stored,
                w.mark,
                w.digest,
                base.id,
                base.version,
                base.stored
            ],
        )?;
        Ok(changed == 1)
    }

    fn insert_chunk(&mut self, file: i64, w: &FileWrite) -> rusqlite::Result<()> {
        self.run(batch::INSERT_CHUNK, params![file, w.version, w.start, w.chunk]).map(drop)
    }

    fn put_tail(&mut self, file: i64, w: &FileWrite) -> rusqlite::Result<()> {
        self.run(batch::PUT_TAIL, params![file, w.version, w.tail]).map(drop)
    }

    fn put_session(
        &mut self,
        machine_id: &str,
        session: &SessionWrite,
        m: &Meta,
        now_ms: i64,
    ) -> rusqlite::Result<i64> {
        let row = params![
            machine_id,
            session.source,
            session.path,
            m.session_id,
            m.title,
            m.cwd,
            m.created,
            m.message_count,
            m.modified_ms,
            now_ms
        ];
        self.one(batch::PUT_SESSION, row)?.ok_or(rusqlite::Error::QueryReturnedNoRows)
    }

    fn grow_session(
        &mut self,
        machine_id: &str,
        path: &str,
        grown: &Grown,
        now_ms: i64,
    ) -> rusqlite::Result<Option<i64>> {
        let row = params![machine_id, path, grown.title, grown.message_count, grown.modified_ms, now_ms];
        self.one(batch::GROW_SESSION, row)
    }

    fn file_id(&mut self, machine_id: &str, path: &str) -> rusqlite::Result<Option<i64>> {
        self.one(batch::FILE_ID, params![machine_id, path])
    }

    fn link(&mut self, session: i64, file: i64, position: i64) -> rusqlite::Result<()> {
        self.run(batch::LINK, params![session, file, position]).map(drop)
    }

    fn replace_docs(&mut self, session: i64, docs: &[Doc]) -> rusqlite::Result<()> {
        let first = session << DOC_BITS;
        self.run(
            "DELETE FROM archive_fts WHERE rowid BETWEEN ?1 AND ?2",
            params![first, first | ((1 << DOC_BITS) - 1)],
        )?;
        self.run(
            "DELETE FROM archive_vectors WHERE doc BETWEEN ?1 AND ?2",
            params![first, first | ((1 << DOC_BITS) - 1)],
        )?;
        self.insert_docs(first, docs)
    }

    fn append_docs(&mut self, session: i64, docs: &[Doc]) -> rusqlite::Result<()> {
        let first = session << DOC_BITS;
        let last: Option<i64> = self.one(
            "SELECT max(rowid) FROM archive_fts WHERE rowid BETWEEN $1 AND $2",
            params![first, first | ((1 << DOC_BITS) - 1)],
        )?;
        self.insert_docs(last.map_or(first, |last| last + 1), docs)
    }
}

impl Vault for SqliteVault {
    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn register(&mut self, machine: &crate::Machine, now_ms: i64) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO archive_machines (id, name, first_ms, last_ms) VALUES (?1, ?2, ?3, ?3)
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_ms = excluded.last_ms",
                params![machine.id, machine.name, now_ms],
            )
            .map_err(self.fail())?;
        Ok(())
    }

    fn known(&mut self, machine_id: &str) -> Result<Vec<KnownFile>> {
        let fail = self.fail();
        let mut statement = self
            .conn
            .prepare(
                "SELECT id, path, source, version, size, mtime, head, stored, mark, deleted_ms IS NOT NULL, digest,
                   EXISTS (SELECT 1 FROM archive_sessions s WHERE s.machine = archive_files.machine AND s.path = archive_files.path)
                 FROM archive_files WHERE machine = ?1",
            )
            .map_err(&fail)?;
        let rows = statement
            .query_map([machine_id], |r| {
                Ok(KnownFile {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    source: r.get(2)?,
                    version: r.get(3)?,
                    size: r.get(4)?,
                    mtime: r.get(5)?,
                    head: r.get(6)?,
                    stored: r.get(7)?,
                    mark: r.get(8)?,
                    digest: r.get(10)?,
                    deleted: r.get(9)?,
                    main: r.get(11)?,
                })
            })
            .map_err(&fail)?;
        rows.collect::<rusqlite::Result<_>>().map_err(fail)
    }

    fn store(
        &mut self,
        machine_id: &str,
        files: &[FileWrite],
        sessions: &[SessionWrite],
        now_ms: i64,
    ) -> Result<Stored> {
        let path = self.path.clone();
        let fail = move |source| Error::Sqlite { path: path.clone(), source };
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(&fail)?;
        let stored = batch::store(&mut SqliteWriter(&tx), machine_id, files, sessions, now_ms).map_err(&fail)?;
        tx.commit().map_err(&fail)?;
        Ok(stored)
    }

    fn mark_deleted(&mut self, machine_id: &str, file_ids: &[i64], now_ms: i64) -> Result<usize> {
        let path = self.path.clone();
        let fail = move |source| Error::Sqlite { path: path.clone(), source };
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(&fail)?;
        let mut sessions = 0;
        for id in file_ids {
            tx.execute(
                "UPDATE archive_files SET deleted_ms = ?1 WHERE id = ?2 AND deleted_ms IS NULL",
                params![now_ms, id],
            )
            .map_err(&fail)?;
            sessions += tx
                .execute(
                    "UPDATE archive_sessions SET deleted_ms = ?1
                     WHERE machine = ?2 AND deleted_ms IS NULL
                       AND path = (SELECT path FROM archive_files WHERE id = ?3)",
                    params![now_ms, machine_id, id],
                )
                .map_err(&fail)?;
        }
        tx.commit().map_err(&fail)?;
        Ok(sessions)
    }

    fn sessions(&mut self, filter: &Filter) -> Result<Vec<ArchivedSession>> {
        let fail = self.fail();
        let sql = format!("{SESSIONS} ORDER BY s.modified_ms DESC, s.id DESC");
        let mut statement = self.conn.prepare(&sql).map_err(&fail)?;
        let rows = statement
            .query_map(params![filter.machine, filter.source, filter.id_prefix, filter.gone], session_of)
            .map_err(&fail)?;
        rows.collect::<rusqlite::Result<_>>().map_err(fail)
    }

    fn files(&mut self, key: i64) -> Result<Vec<StoredFile>> {
        self.assemble(key, crate::vault::NEWEST)
    }

    fn versions(&mut self, key: i64) -> Result<Vec<StoredFile>> {
        self.assemble(key, crate::vault::EVERY_VERSION)
    }

    fn search(&mut self, query: &str, filter: &Filter, limit: usize, stop: &Stop) -> Result<Vec<Hit>> {
        sess_catalog::check_words(query).map_err(Error::Query)?;
        let Some(fts) = sess_catalog::to_fts(query) else { return Ok(Vec::new()) };
        let watched = stop.clone();
        let fail = self.fail();
        self.conn.progress_handler(STEPS, Some(move || watched.reason().is_some())).map_err(&fail)?;
        let hits = self.search_fts(&fts, filter, limit, stop);
        self.conn.progress_handler(0, None::<fn() -> bool>).map_err(&fail)?;
        match (hits, stop.reason()) {
            (Err(_), Some(reason)) => Err(Error::Query(sess_catalog::Error::Stopped { reason })),
            (hits, _) => hits,
        }
    }

    fn vector_model(&mut self) -> Result<Option<String>> {
        let fail = self.fail();
        self.conn
            .query_row("SELECT value FROM archive_meta WHERE key = 'vectors_model'", [], |r| r.get(0))
            .optional()
            .map_err(fail)
    }

    fn vectors_for(&mut self, model: &str) -> Result<bool> {
        let fail = self.fail();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(&fail)?;
        let found: Option<String> = tx
            .query_row("SELECT value FROM archive_meta WHERE key = 'vectors_model'", [], |r| r.get(0))
            .optional()
            .map_err(&fail)?;
        if found.as_deref() == Some(model) {
            return Ok(false);
        }
        let dropped = tx.execute("DELETE FROM archive_vectors", []).map_err(&fail)? > 0;
        tx.execute("INSERT OR REPLACE INTO archive_meta (key, value) VALUES ('vectors_model', ?1)", [model])
            .map_err(&fail)?;
        tx.commit().map_err(fail)?;
        Ok(dropped)
    }

    fn unembedded_count(&mut self) -> Result<usize> {
        let fail = self.fail();
        let count: i64 = self
            .conn
            .query_row(&format!("SELECT count(*) FROM archive_fts f WHERE {UNEMBEDDED}"), [], |r| r.get(0))
            .map_err(fail)?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    fn unembedded(&mut self, after: Option<DocKey>, limit: usize) -> Result<Vec<(DocKey, String)>> {
        let fail = self.fail();
        let after = after.map_or(-1, |key| (key.session << DOC_BITS) | key.seq);
        let mut select = self
            .conn
            .prepare_cached(&format!(
                "SELECT f.rowid, f.body FROM archive_fts f WHERE f.rowid > ?1 AND {UNEMBEDDED} ORDER BY f.rowid LIMIT ?2"
            ))
            .map_err(&fail)?;
        let rows = select
            .query_map(params![after, i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                Ok((doc_key(r.get(0)?), r.get(1)?))
            })
            .map_err(&fail)?;
        rows.collect::<rusqlite::Result<_>>().map_err(fail)
    }

    fn put_vectors(&mut self, vectors: &[Vectors]) -> Result<usize> {
        let fail = self.fail();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(&fail)?;
        let mut kept = 0;
        {
            let mut put = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO archive_vectors (doc, vectors) SELECT ?1, ?2
                     WHERE EXISTS (SELECT 1 FROM archive_fts WHERE rowid = ?1 AND body = ?3)",
                )
                .map_err(&fail)?;
            for v in vectors {
                kept +=
                    put.execute(params![(v.doc.session << DOC_BITS) | v.doc.seq, v.bytes, v.text]).map_err(&fail)?;
            }
        }
        tx.commit().map_err(fail)?;
        Ok(kept)
    }

    fn scan_vectors(&mut self, stop: &Stop, each: &mut dyn FnMut(DocKey, &[u8])) -> Result<()> {
        let fail = self.fail();
        let mut scan = self
            .conn
            .prepare_cached("SELECT doc, vectors FROM archive_vectors WHERE length(vectors) > 0")
            .map_err(&fail)?;
        let mut rows = scan.query([]).map_err(&fail)?;
        let mut read = 0_usize;
        while let Some(row) = rows.next().map_err(&fail)? {
            read += 1;
            if read.is_multiple_of(SCAN_LOOK)
                && let Some(reason) = stop.reason()
            {
                return Err(Error::Query(sess_catalog::Error::Stopped { reason }));
            }
            let doc: i64 = row.get(0).map_err(&fail)?;
            each(doc_key(doc), row.get_ref(1).and_then(|v| Ok(v.as_blob()?)).map_err(&fail)?);
        }
        Ok(())
    }

    fn doc(&mut self, key: DocKey) -> Result<Option<Doc>> {
        let fail = self.fail();
        self.conn
            .query_row(
                "SELECT entry_id, role, body FROM archive_fts WHERE rowid = ?1",
                [(key.session << DOC_BITS) | key.seq],
                |r| Ok(Doc { entry_id: r.get(0)?, role: r.get(1)?, body: r.get(2)? }),
            )
            .optional()
            .map_err(fail)
    }
}

/// The documents of `archive_fts f` with no vectors, but titles.
const UNEMBEDDED: &str = "f.role <> 'title' AND NOT EXISTS (SELECT 1 FROM archive_vectors v WHERE v.doc = f.rowid)";

/// The document of the FTS rowid `rowid`.
fn doc_key(rowid: i64) -> DocKey {
    DocKey { session: rowid >> DOC_BITS, seq: rowid & ((1 << DOC_BITS) - 1) }
}

impl SqliteVault {
    /// [`Vault::search`] of the FTS5 query `fts`. A snippet is cut from
    /// `highlight()` in one pass ([`sess_catalog::snippet_window`]):
    /// `snippet()` compares every match with every other, seconds over a
    /// message that repeats the word.
    fn search_fts(&mut self, fts: &str, filter: &Filter, limit: usize, stop: &Stop) -> Result<Vec<Hit>> {
        let sessions: HashMap<i64, ArchivedSession> = self.sessions(filter)?.into_iter().map(|s| (s.key, s)).collect();
        let fail = self.fail();
        let mut best: Vec<(i64, i64)> = Vec::new();
        {
            let mut statement = self
                .conn
                .prepare("SELECT rowid FROM archive_fts WHERE archive_fts MATCH ?1 ORDER BY rank")
                .map_err(&fail)?;
            let mut rows = statement.query([fts]).map_err(&fail)?;
            let mut seen = std::collections::HashSet::new();
            while let Some(row) = rows.next().map_err(&fail)? {
                let rowid: i64 = row.get(0).map_err(&fail)?;
                let key = rowid >> DOC_BITS;
                if sessions.contains_key(&key) && seen.insert(key) {
                    best.push((key, rowid));
                    if best.len() >= limit {
                        break;
                    }
                }
            }
        }
        let mut hits = Vec::with_capacity(best.len());
        for (key, rowid) in best {
            if let Some(reason) = stop.reason() {
                return Err(Error::Query(sess_catalog::Error::Stopped { reason }));
            }
            let (role, entry_id, marked): (String, Option<String>, String) = self
                .conn
                .query_row(
                    "SELECT role, entry_id, highlight(archive_fts, 0, char(1), char(2))
                     FROM archive_fts WHERE archive_fts MATCH ?1 AND rowid = ?2",
                    params![fts, rowid],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .map_err(&fail)?;
            let snippet = sess_catalog::snippet_window(&marked, ('\u{1}', '\u{2}'), SNIPPET_WORDS);
            let Some(session) = sessions.get(&key).cloned() else { continue };
            hits.push(Hit { session, entry_id, role, snippet: snippet_parts(&snippet) });
        }
        Ok(hits)
    }
}
