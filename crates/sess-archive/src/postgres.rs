//! The archive in a PostgreSQL schema, shared by every machine of a fleet;
//! its text is searched there (`tsvector` and a GIN index), so no machine
//! needs a catalog of the whole fleet.

use std::collections::HashMap;
use std::time::Duration;

use postgres::types::ToSql;
use postgres::{Client, Transaction};

use sess_catalog::Stop;

use crate::batch::{self, Writer};
use crate::error::{Error, Result};
use crate::tsvector::Tsvector;
use crate::vault::{
    ArchivedSession, Doc, DocKey, FileWrite, Filter, Grown, Hit, Kind, KnownFile, Meta, SessionWrite, Stored,
    StoredFile, Vault, Vectors, snippet_parts,
};

/// The schema version this build writes: 2 keeps each file's digest, 3
/// documents' vectors (a build before would store a document again and
/// leave it the vectors of its old text).
const VERSION: i64 = 3;

/// How many vectors a scan reads between two looks at its [`Stop`].
const SCAN_LOOK: usize = 512;

/// The text index: a `tsvector` made here per doc ([`Tsvector`]), in a GIN
/// index; stored text compressed with lz4.
const DOCS: &str = "CREATE TABLE IF NOT EXISTS archive_docs (
    session BIGINT NOT NULL, seq INTEGER NOT NULL, entry_id TEXT, role TEXT NOT NULL,
    body TEXT COMPRESSION lz4 NOT NULL, tsv tsvector NOT NULL, PRIMARY KEY (session, seq));
CREATE INDEX IF NOT EXISTS archive_docs_tsv ON archive_docs USING GIN (tsv);";

/// Documents' vectors (schema 3), and an index of those without: made after
/// an older archive's table has the column.
const VECTORS: &str = "ALTER TABLE archive_docs ADD COLUMN IF NOT EXISTS vectors BYTEA;
CREATE INDEX IF NOT EXISTS archive_docs_unembedded ON archive_docs (session, seq)
    WHERE vectors IS NULL AND role <> 'title';";

/// The archive in a PostgreSQL schema.
pub struct PostgresVault {
    client: Client,
    location: String,
}

impl PostgresVault {
    /// Connects to the schema of `url` and makes the archive's tables there
    /// when missing (under an advisory lock, so machines starting at once do
    /// not race).
    pub fn connect(url: &str) -> Result<Self> {
        let connected = sess_postgres::connect(url, Duration::ZERO)?;
        let mut vault = Self { client: connected.client, location: connected.location };
        let schema = connected.schema.replace('"', "\"\"");
        let location = vault.location.clone();
        let fail = |source| Error::Postgres { location: location.clone(), source };
        let mut tx = vault.client.transaction().map_err(fail)?;
        tx.execute("SELECT pg_advisory_xact_lock(hashtext('sess-archive'))", &[]).map_err(fail)?;
        let tables = batch::tables("BIGSERIAL PRIMARY KEY", "BIGINT", "BYTEA COMPRESSION lz4");
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"; {tables} {DOCS}")).map_err(fail)?;
        let found = tx
            .query_opt("SELECT value FROM archive_meta WHERE key = 'version'", &[])
            .map_err(fail)?
            .and_then(|row| row.get::<_, String>(0).parse::<i64>().ok());
        match found {
            Some(found) if found > VERSION => {
                return Err(Error::TooNew { location: location.clone(), found, known: VERSION });
            }
            Some(found) if found < VERSION => {
                if found < 2 {
                    add_digests(&mut tx).map_err(fail)?;
                }
                tx.batch_execute(VECTORS).map_err(fail)?;
                tx.execute("UPDATE archive_meta SET value = $1 WHERE key = 'version'", &[&VERSION.to_string()])
                    .map_err(fail)?;
            }
            // An archive of this version has them: ALTER TABLE would lock the
            // documents against every reader on each connection.
            Some(_) => {}
            None => {
                tx.batch_execute(VECTORS).map_err(fail)?;
                tx.execute("INSERT INTO archive_meta (key, value) VALUES ('version', $1)", &[&VERSION.to_string()])
                    .map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)?;
        Ok(vault)
    }

    /// Whether the schema of `url` holds an archive (without making one).
    pub fn holds_archive(url: &str) -> Result<bool> {
        let mut connected = sess_postgres::connect(url, Duration::ZERO)?;
        let location = connected.location.clone();
        let row = connected
            .client
            .query_one("SELECT to_regclass('archive_sessions') IS NOT NULL", &[])
            .map_err(|source| Error::Postgres { location, source })?;
        Ok(row.get(0))
    }

    /// The files of the session `key` at the versions `listing` selects.
    fn assemble(&mut self, key: i64, listing: &str) -> Result<Vec<StoredFile>> {
        let fail = self.fail();
        let listed = self.client.query(listing, &[&key]).map_err(&fail)?;
        let mut files = Vec::with_capacity(listed.len());
        for row in listed {
            let (id, path, growth, version): (i64, String, String, i64) =
                (row.get(0), row.get(1), row.get(2), row.get(3));
            let mut bytes = Vec::new();
            let chunks = self
                .client
                .query(
                    "SELECT start, bytes FROM archive_chunks WHERE file = $1 AND version = $2 ORDER BY start",
                    &[&id, &version],
                )
                .map_err(&fail)?;
            for chunk in chunks {
                crate::contents::append_chunk(&mut bytes, chunk.get(0), chunk.get::<_, &[u8]>(1), &path)?;
            }
            let tail = self
                .client
                .query_opt("SELECT bytes FROM archive_tails WHERE file = $1 AND version = $2", &[&id, &version])
                .map_err(&fail)?;
            if let Some(tail) = tail {
                bytes.extend_from_slice(tail.get::<_, &[u8]>(0));
            }
            files.push(StoredFile { path, kind: Kind::from_name(&growth), version, bytes });
        }
        Ok(files)
    }

    fn fail(&self) -> impl Fn(postgres::Error) -> Error + use<> {
        let location = self.location.clone();
        move |source| Error::Postgres { location: location.clone(), source }
    }
}

/// Schema 1 to 2: every file gets its digest, the hash of what is stored
/// of its current version (read from its chunks, a file at a time).
fn add_digests(tx: &mut Transaction<'_>) -> Result<(), postgres::Error> {
    tx.batch_execute("ALTER TABLE archive_files ADD COLUMN IF NOT EXISTS digest TEXT NOT NULL DEFAULT ''")?;
    tx.execute(batch::WHOLE_DIGESTS, &[])?;
    let files: Vec<(i64, i64)> = tx.query(batch::LINE_FILES, &[])?.iter().map(|r| (r.get(0), r.get(1))).collect();
    let chunks = tx.prepare(batch::VERSION_CHUNKS)?;
    for (id, version) in files {
        let mut digest = crate::read::Sha256::default();
        for row in tx.query(&chunks, &[&id, &version])? {
            crate::read::Digest::update(&mut digest, row.get::<_, &[u8]>(0));
        }
        tx.execute(batch::SET_DIGEST, &[&id, &crate::read::short(&digest)])?;
    }
    Ok(())
}

/// Text as PostgreSQL takes it: no NUL characters.
fn text(value: &str) -> std::borrow::Cow<'_, str> {
    if value.contains('\0') { value.replace('\0', " ").into() } else { value.into() }
}

fn opt_text(value: Option<&String>) -> Option<String> {
    value.map(|v| text(v).into_owned())
}

fn session_of(row: &postgres::Row) -> ArchivedSession {
    ArchivedSession {
        key: row.get("id"),
        machine_id: row.get("machine"),
        machine: row.get("machine_name"),
        source: row.get("source"),
        path: row.get("path"),
        meta: Meta {
            session_id: row.get("session_id"),
            title: row.get("title"),
            cwd: row.get("cwd"),
            created: row.get("created"),
            message_count: row.get("message_count"),
            modified_ms: row.get("modified_ms"),
        },
        archived_ms: row.get("archived_ms"),
        updated_ms: row.get("updated_ms"),
        deleted_ms: row.get("deleted_ms"),
    }
}

const SESSIONS: &str = "SELECT s.*, m.name AS machine_name FROM archive_sessions s
    JOIN archive_machines m ON m.id = s.machine
    WHERE ($1::text IS NULL OR m.name = $1 OR starts_with(s.machine, $1))
      AND ($2::text IS NULL OR s.source = $2)
      AND ($3::text IS NULL OR starts_with(s.session_id, $3))
      AND (NOT $4 OR s.deleted_ms IS NOT NULL)";

/// The statements of a batch in a PostgreSQL transaction.
struct PostgresWriter<'a, 't>(&'a mut Transaction<'t>);

impl Writer for PostgresWriter<'_, '_> {
    type Error = postgres::Error;

    fn insert_file(&mut self, machine_id: &str, w: &FileWrite) -> Result<Option<i64>, postgres::Error> {
        let (path, kind) = (text(&w.path), w.kind.as_str());
        let row = [
            &machine_id as &(dyn ToSql + Sync),
            &w.source,
            &path,
            &kind,
            &w.version,
            &w.size,
            &w.mtime,
            &w.head,
            &w.stored,
            &w.mark,
            &w.digest,
        ];
        Ok(self.0.query_opt(batch::INSERT_FILE, &row)?.map(|r| r.get(0)))
    }

    fn update_file(&mut self, w: &FileWrite, base: &KnownFile) -> Result<bool, postgres::Error> {
        let kind = w.kind.as_str();
        let row = [
            &w.source as &(dyn ToSql + Sync),
            &kind,
            &w.version,
            &w.size,
            &w.mtime,
            &w.head,
            &w.stored,
            &w.mark,
            &w.digest,
            &base.id,
            &base.version,
            &base.stored,
        ];
        Ok(self.0.execute(batch::UPDATE_FILE, &row)? == 1)
    }

    fn insert_chunk(&mut self, file: i64, w: &FileWrite) -> Result<(), postgres::Error> {
        self.0.execute(batch::INSERT_CHUNK, &[&file, &w.version, &w.start, &w.chunk]).map(drop)
    }

    fn put_tail(&mut self, file: i64, w: &FileWrite) -> Result<(), postgres::Error> {
        self.0.execute(batch::PUT_TAIL, &[&file, &w.version, &w.tail]).map(drop)
    }

    fn put_session(
        &mut self,
        machine_id: &str,
        session: &SessionWrite,
        m: &Meta,
        now_ms: i64,
    ) -> Result<i64, postgres::Error> {
        let (path, id) = (text(&session.path), text(&m.session_id));
        let (title, cwd, created) =
            (opt_text(m.title.as_ref()), opt_text(m.cwd.as_ref()), opt_text(m.created.as_ref()));
        let row = [
            &machine_id as &(dyn ToSql + Sync),
            &session.source,
            &path,
            &id,
            &title,
            &cwd,
            &created,
            &m.message_count,
            &m.modified_ms,
            &now_ms,
        ];
        Ok(self.0.query_one(batch::PUT_SESSION, &row)?.get(0))
    }

    fn grow_session(
        &mut self,
        machine_id: &str,
        path: &str,
        grown: &Grown,
        now_ms: i64,
    ) -> Result<Option<i64>, postgres::Error> {
        let (path, title) = (text(path), opt_text(grown.title.as_ref()));
        let row =
            [&machine_id as &(dyn ToSql + Sync), &path, &title, &grown.message_count, &grown.modified_ms, &now_ms];
        Ok(self.0.query_opt(batch::GROW_SESSION, &row)?.map(|r| r.get(0)))
    }

    fn file_id(&mut self, machine_id: &str, path: &str) -> Result<Option<i64>, postgres::Error> {
        Ok(self.0.query_opt(batch::FILE_ID, &[&machine_id, &text(path)])?.map(|r| r.get(0)))
    }

    fn link(&mut self, session: i64, file: i64, position: i64) -> Result<(), postgres::Error> {
        self.0.execute(batch::LINK, &[&session, &file, &position]).map(drop)
    }

    fn replace_docs(&mut self, session: i64, docs: &[Doc]) -> Result<(), postgres::Error> {
        self.0.execute("DELETE FROM archive_docs WHERE session = $1", &[&session])?;
        self.insert_docs(session, 0, docs)
    }

    fn append_docs(&mut self, session: i64, docs: &[Doc]) -> Result<(), postgres::Error> {
        if docs.is_empty() {
            return Ok(());
        }
        let next: i32 = self
            .0
            .query_one("SELECT COALESCE(max(seq) + 1, 0) FROM archive_docs WHERE session = $1", &[&session])?
            .get(0);
        self.insert_docs(session, next, docs)
    }
}

impl PostgresWriter<'_, '_> {
    /// Inserts `docs` as the session's from the number `from` on, in one
    /// statement.
    fn insert_docs(&mut self, session: i64, from: i32, docs: &[Doc]) -> Result<(), postgres::Error> {
        if docs.is_empty() {
            return Ok(());
        }
        let seqs: Vec<i32> =
            (0..docs.len()).map(|seq| from.saturating_add(i32::try_from(seq).unwrap_or(i32::MAX))).collect();
        let entry_ids: Vec<Option<String>> = docs.iter().map(|d| opt_text(d.entry_id.as_ref())).collect();
        let roles: Vec<&str> = docs.iter().map(|d| d.role.as_str()).collect();
        let bodies: Vec<std::borrow::Cow<'_, str>> = docs.iter().map(|d| text(&d.body)).collect();
        let vectors: Vec<Tsvector> = bodies.iter().map(|body| Tsvector::of(body)).collect();
        self.0.execute(
            "INSERT INTO archive_docs (session, seq, entry_id, role, body, tsv)
             SELECT $1, s, e, r, b, t FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::tsvector[])
               AS u(s, e, r, b, t)",
            &[&session, &seqs, &entry_ids, &roles, &bodies, &vectors],
        )?;
        Ok(())
    }
}

impl Vault for PostgresVault {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn register(&mut self, machine: &crate::Machine, now_ms: i64) -> Result<()> {
        let fail = self.fail();
        self.client
            .execute(
                "INSERT INTO archive_machines (id, name, first_ms, last_ms) VALUES ($1, $2, $3, $3)
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_ms = excluded.last_ms",
                &[&machine.id, &text(&machine.name), &now_ms],
            )
            .map_err(fail)?;
        Ok(())
    }

    fn known(&mut self, machine_id: &str) -> Result<Vec<KnownFile>> {
        let fail = self.fail();
        let rows = self
            .client
            .query(
                "SELECT id, path, source, version, size, mtime, head, stored, mark, deleted_ms IS NOT NULL, digest,
                   EXISTS (SELECT 1 FROM archive_sessions s WHERE s.machine = archive_files.machine AND s.path = archive_files.path)
                 FROM archive_files WHERE machine = $1",
                &[&machine_id],
            )
            .map_err(fail)?;
        Ok(rows
            .iter()
            .map(|r| KnownFile {
                id: r.get(0),
                path: r.get(1),
                source: r.get(2),
                version: r.get(3),
                size: r.get(4),
                mtime: r.get(5),
                head: r.get(6),
                stored: r.get(7),
                mark: r.get(8),
                digest: r.get(10),
                deleted: r.get(9),
                main: r.get(11),
            })
            .collect())
    }

    fn store(
        &mut self,
        machine_id: &str,
        files: &[FileWrite],
        sessions: &[SessionWrite],
        now_ms: i64,
    ) -> Result<Stored> {
        let fail = self.fail();
        let mut tx = self.client.transaction().map_err(&fail)?;
        let stored = batch::store(&mut PostgresWriter(&mut tx), machine_id, files, sessions, now_ms).map_err(&fail)?;
        tx.commit().map_err(&fail)?;
        Ok(stored)
    }

    fn mark_deleted(&mut self, machine_id: &str, file_ids: &[i64], now_ms: i64) -> Result<usize> {
        let fail = self.fail();
        let mut tx = self.client.transaction().map_err(&fail)?;
        tx.execute(
            "UPDATE archive_files SET deleted_ms = $1 WHERE id = ANY($2) AND deleted_ms IS NULL",
            &[&now_ms, &file_ids],
        )
        .map_err(&fail)?;
        let sessions = tx
            .execute(
                "UPDATE archive_sessions SET deleted_ms = $1
                 WHERE machine = $2 AND deleted_ms IS NULL
                   AND path IN (SELECT path FROM archive_files WHERE id = ANY($3))",
                &[&now_ms, &machine_id, &file_ids],
            )
            .map_err(&fail)?;
        tx.commit().map_err(&fail)?;
        Ok(usize::try_from(sessions).unwrap_or(usize::MAX))
    }

    fn sessions(&mut self, filter: &Filter) -> Result<Vec<ArchivedSession>> {
        let fail = self.fail();
        let sql = format!("{SESSIONS} ORDER BY s.modified_ms DESC, s.id DESC");
        let rows = self
            .client
            .query(&sql, &[&filter.machine, &filter.source, &filter.id_prefix, &filter.gone])
            .map_err(fail)?;
        Ok(rows.iter().map(session_of).collect())
    }

    fn files(&mut self, key: i64) -> Result<Vec<StoredFile>> {
        self.assemble(key, crate::vault::NEWEST)
    }

    fn versions(&mut self, key: i64) -> Result<Vec<StoredFile>> {
        self.assemble(key, crate::vault::EVERY_VERSION)
    }

    /// The budget of `stop` is the statement's timeout; its flag is looked
    /// at before the query and after it.
    fn search(&mut self, query: &str, filter: &Filter, limit: usize, stop: &Stop) -> Result<Vec<Hit>> {
        sess_catalog::check_words(query).map_err(Error::Query)?;
        let Some(tsquery) = sess_catalog::to_tsquery(query) else { return Ok(Vec::new()) };
        let stopped = |reason| Error::Query(sess_catalog::Error::Stopped { reason });
        if let Some(reason) = stop.reason() {
            return Err(stopped(reason));
        }
        let fail = self.fail();
        // At least a millisecond: 0 would mean no timeout.
        let timeout = stop.remaining().map_or(0, |left| left.as_millis().clamp(1, u128::from(u32::MAX)));
        self.client.batch_execute(&format!("SET statement_timeout = {timeout}")).map_err(&fail)?;
        let hits = self.search_tsquery(&tsquery, filter, limit);
        self.client.batch_execute("SET statement_timeout = 0").map_err(&fail)?;
        match (hits, stop.reason()) {
            (Err(_), Some(reason)) => Err(stopped(reason)),
            (hits, _) => hits,
        }
    }

    fn vector_model(&mut self) -> Result<Option<String>> {
        let fail = self.fail();
        let row =
            self.client.query_opt("SELECT value FROM archive_meta WHERE key = 'vectors_model'", &[]).map_err(fail)?;
        Ok(row.map(|row| row.get(0)))
    }

    fn vectors_for(&mut self, model: &str) -> Result<bool> {
        let fail = self.fail();
        let mut tx = self.client.transaction().map_err(&fail)?;
        tx.execute("SELECT pg_advisory_xact_lock(hashtext('sess-archive-vectors'))", &[]).map_err(&fail)?;
        let found: Option<String> = tx
            .query_opt("SELECT value FROM archive_meta WHERE key = 'vectors_model'", &[])
            .map_err(&fail)?
            .map(|row| row.get(0));
        if found.as_deref() == Some(model) {
            return Ok(false);
        }
        let dropped =
            tx.execute("UPDATE archive_docs SET vectors = NULL WHERE vectors IS NOT NULL", &[]).map_err(&fail)? > 0;
        tx.execute(
            "INSERT INTO archive_meta (key, value) VALUES ('vectors_model', $1)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&model],
        )
        .map_err(&fail)?;
        tx.commit().map_err(fail)?;
        Ok(dropped)
    }

    fn unembedded_count(&mut self) -> Result<usize> {
        let fail = self.fail();
        let row = self
            .client
            .query_one("SELECT count(*) FROM archive_docs WHERE vectors IS NULL AND role <> 'title'", &[])
            .map_err(fail)?;
        Ok(usize::try_from(row.get::<_, i64>(0)).unwrap_or(0))
    }

    fn unembedded(&mut self, after: Option<DocKey>, limit: usize) -> Result<Vec<(DocKey, String)>> {
        let fail = self.fail();
        let after = after.unwrap_or(DocKey { session: i64::MIN, seq: i64::MIN });
        let seq = i32::try_from(after.seq.clamp(i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(i32::MIN);
        let rows = self
            .client
            .query(
                "SELECT session, seq, body FROM archive_docs
                 WHERE vectors IS NULL AND role <> 'title' AND (session, seq) > ($1, $2)
                 ORDER BY session, seq LIMIT $3",
                &[&after.session, &seq, &i64::try_from(limit).unwrap_or(i64::MAX)],
            )
            .map_err(fail)?;
        Ok(rows
            .iter()
            .map(|row| (DocKey { session: row.get(0), seq: i64::from(row.get::<_, i32>(1)) }, row.get(2)))
            .collect())
    }

    fn put_vectors(&mut self, vectors: &[Vectors]) -> Result<usize> {
        let fail = self.fail();
        let sessions: Vec<i64> = vectors.iter().map(|v| v.doc.session).collect();
        let seqs: Vec<i32> = vectors.iter().map(|v| i32::try_from(v.doc.seq).unwrap_or(-1)).collect();
        let texts: Vec<&str> = vectors.iter().map(|v| v.text.as_str()).collect();
        let bytes: Vec<&[u8]> = vectors.iter().map(|v| v.bytes.as_slice()).collect();
        let kept = self
            .client
            .execute(
                "UPDATE archive_docs d SET vectors = u.v
                 FROM unnest($1::bigint[], $2::int[], $3::text[], $4::bytea[]) AS u(s, q, b, v)
                 WHERE d.session = u.s AND d.seq = u.q AND d.body = u.b",
                &[&sessions, &seqs, &texts, &bytes],
            )
            .map_err(fail)?;
        Ok(usize::try_from(kept).unwrap_or(usize::MAX))
    }

    fn scan_vectors(&mut self, stop: &Stop, each: &mut dyn FnMut(DocKey, &[u8])) -> Result<()> {
        let fail = self.fail();
        let none: [&(dyn ToSql + Sync); 0] = [];
        let mut rows = self
            .client
            .query_raw("SELECT session, seq, vectors FROM archive_docs WHERE octet_length(vectors) > 0", none)
            .map_err(&fail)?;
        let mut read = 0_usize;
        while let Some(row) = postgres::fallible_iterator::FallibleIterator::next(&mut rows).map_err(&fail)? {
            read += 1;
            if read.is_multiple_of(SCAN_LOOK)
                && let Some(reason) = stop.reason()
            {
                return Err(Error::Query(sess_catalog::Error::Stopped { reason }));
            }
            let key = DocKey { session: row.get(0), seq: i64::from(row.get::<_, i32>(1)) };
            each(key, row.get::<_, &[u8]>(2));
        }
        Ok(())
    }

    fn doc(&mut self, key: DocKey) -> Result<Option<Doc>> {
        let fail = self.fail();
        let seq = i32::try_from(key.seq).unwrap_or(-1);
        let row = self
            .client
            .query_opt(
                "SELECT entry_id, role, body FROM archive_docs WHERE session = $1 AND seq = $2",
                &[&key.session, &seq],
            )
            .map_err(fail)?;
        Ok(row.map(|row| Doc { entry_id: row.get(0), role: row.get(1), body: row.get(2) }))
    }
}

impl PostgresVault {
    /// [`Vault::search`] of `tsquery`.
    fn search_tsquery(&mut self, tsquery: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        let fail = self.fail();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = format!(
            "WITH q AS (SELECT $5::text::tsquery AS q),
             chosen AS (SELECT s.id FROM ({SESSIONS}) s),
             best AS (
               SELECT DISTINCT ON (d.session) d.session, d.seq, ts_rank(d.tsv, q.q) AS rank
               FROM archive_docs d, q WHERE d.tsv @@ q.q AND d.session IN (SELECT id FROM chosen)
               ORDER BY d.session, rank DESC, d.seq),
             top AS (SELECT * FROM best ORDER BY rank DESC, session DESC LIMIT $6)
             SELECT top.session, d.entry_id, d.role,
               ts_headline('simple', d.body, q.q, 'StartSel=\u{1}, StopSel=\u{2}, MaxWords=24, MinWords=12, MaxFragments=1')
             FROM top JOIN archive_docs d ON d.session = top.session AND d.seq = top.seq, q
             ORDER BY top.rank DESC, top.session DESC"
        );
        let rows = self
            .client
            .query(&sql, &[&filter.machine, &filter.source, &filter.id_prefix, &filter.gone, &tsquery, &limit])
            .map_err(&fail)?;
        let keys: Vec<i64> = rows.iter().map(|r| r.get(0)).collect();
        let sessions: HashMap<i64, ArchivedSession> = self
            .client
            .query(
                "SELECT s.*, m.name AS machine_name FROM archive_sessions s
                 JOIN archive_machines m ON m.id = s.machine WHERE s.id = ANY($1)",
                &[&keys],
            )
            .map_err(&fail)?
            .iter()
            .map(|row| {
                let session = session_of(row);
                (session.key, session)
            })
            .collect();
        Ok(rows
            .iter()
            .filter_map(|row| {
                let session = sessions.get(&row.get::<_, i64>(0))?.clone();
                let snippet: String = row.get(3);
                Some(Hit { session, entry_id: row.get(1), role: row.get(2), snippet: snippet_parts(&snippet) })
            })
            .collect())
    }
}
