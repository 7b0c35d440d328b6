//! The archive in a PostgreSQL schema, shared by every machine of a fleet;
//! its text is searched there (`tsvector` and a GIN index), so no machine
//! needs a catalog of the whole fleet.

use std::collections::HashMap;
use std::time::Duration;

use postgres::{Client, Transaction};

use crate::error::{Error, Result};
use crate::tsvector::Tsvector;
use crate::vault::{
    ArchivedSession, FileWrite, Filter, Hit, Kind, KnownFile, Meta, SessionWrite, Stored, StoredFile, Vault,
    snippet_parts,
};

/// The schema version this build writes.
const VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS archive_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS archive_machines (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, first_ms BIGINT NOT NULL, last_ms BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS archive_files (
    id BIGSERIAL PRIMARY KEY, machine TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL,
    growth TEXT NOT NULL, version BIGINT NOT NULL, size BIGINT NOT NULL, mtime BIGINT NOT NULL,
    head TEXT NOT NULL, stored BIGINT NOT NULL, mark TEXT NOT NULL, deleted_ms BIGINT,
    UNIQUE (machine, path));
CREATE TABLE IF NOT EXISTS archive_chunks (
    file BIGINT NOT NULL, version BIGINT NOT NULL, start BIGINT NOT NULL, bytes BYTEA COMPRESSION lz4 NOT NULL,
    PRIMARY KEY (file, version, start));
CREATE TABLE IF NOT EXISTS archive_tails (
    file BIGINT NOT NULL, version BIGINT NOT NULL, bytes BYTEA NOT NULL, PRIMARY KEY (file, version));
CREATE TABLE IF NOT EXISTS archive_sessions (
    id BIGSERIAL PRIMARY KEY, machine TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL,
    session_id TEXT NOT NULL, title TEXT, cwd TEXT, created TEXT, message_count BIGINT NOT NULL,
    modified_ms BIGINT NOT NULL, archived_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
    deleted_ms BIGINT, UNIQUE (machine, path));
CREATE INDEX IF NOT EXISTS archive_sessions_session_id ON archive_sessions (session_id);
CREATE TABLE IF NOT EXISTS archive_members (
    session BIGINT NOT NULL, file BIGINT NOT NULL, position BIGINT NOT NULL, PRIMARY KEY (session, file));
CREATE TABLE IF NOT EXISTS archive_docs (
    session BIGINT NOT NULL, seq INTEGER NOT NULL, entry_id TEXT, role TEXT NOT NULL, body TEXT COMPRESSION lz4 NOT NULL,
    tsv tsvector NOT NULL,
    PRIMARY KEY (session, seq));
CREATE INDEX IF NOT EXISTS archive_docs_tsv ON archive_docs USING GIN (tsv);
";

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
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"; {SCHEMA}")).map_err(fail)?;
        let found = tx
            .query_opt("SELECT value FROM archive_meta WHERE key = 'version'", &[])
            .map_err(fail)?
            .and_then(|row| row.get::<_, String>(0).parse::<i64>().ok());
        match found {
            Some(found) if found > VERSION => {
                return Err(Error::TooNew { location: location.clone(), found, known: VERSION });
            }
            Some(_) => {}
            None => {
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

fn store_file(tx: &mut Transaction<'_>, machine_id: &str, write: &FileWrite) -> Result<Option<i64>, postgres::Error> {
    let path = text(&write.path);
    Ok(match &write.base {
        None => tx
            .query_opt(
                "INSERT INTO archive_files (machine, source, path, growth, version, size, mtime, head, stored, mark)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (machine, path) DO NOTHING RETURNING id",
                &[
                    &machine_id,
                    &write.source,
                    &path,
                    &write.kind.as_str(),
                    &write.version,
                    &write.size,
                    &write.mtime,
                    &write.head,
                    &write.stored,
                    &write.mark,
                ],
            )?
            .map(|row| row.get(0)),
        Some(base) => {
            let changed = tx.execute(
                "UPDATE archive_files SET source = $1, growth = $2, version = $3, size = $4, mtime = $5,
                   head = $6, stored = $7, mark = $8, deleted_ms = NULL
                 WHERE id = $9 AND version = $10 AND stored = $11",
                &[
                    &write.source,
                    &write.kind.as_str(),
                    &write.version,
                    &write.size,
                    &write.mtime,
                    &write.head,
                    &write.stored,
                    &write.mark,
                    &base.id,
                    &base.version,
                    &base.stored,
                ],
            )?;
            (changed == 1).then_some(base.id)
        }
    })
}

fn store_session(
    tx: &mut Transaction<'_>,
    machine_id: &str,
    session: &SessionWrite,
    ids: &HashMap<&str, i64>,
    now_ms: i64,
) -> Result<(), postgres::Error> {
    let meta = &session.meta;
    let key: i64 = tx
        .query_one(
            "INSERT INTO archive_sessions (machine, source, path, session_id, title, cwd, created,
               message_count, modified_ms, archived_ms, updated_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
             ON CONFLICT (machine, path) DO UPDATE SET source = excluded.source,
               session_id = excluded.session_id, title = excluded.title, cwd = excluded.cwd,
               created = excluded.created, message_count = excluded.message_count,
               modified_ms = excluded.modified_ms, updated_ms = excluded.updated_ms, deleted_ms = NULL
             RETURNING id",
            &[
                &machine_id,
                &session.source,
                &text(&session.path),
                &text(&meta.session_id),
                &opt_text(meta.title.as_ref()),
                &opt_text(meta.cwd.as_ref()),
                &opt_text(meta.created.as_ref()),
                &meta.message_count,
                &meta.modified_ms,
                &now_ms,
            ],
        )?
        .get(0);
    for (position, member) in session.members.iter().enumerate() {
        let file = match ids.get(member.as_str()) {
            Some(&id) => Some(id),
            None => tx
                .query_opt(
                    "SELECT id FROM archive_files WHERE machine = $1 AND path = $2",
                    &[&machine_id, &text(member)],
                )?
                .map(|row| row.get::<_, i64>(0)),
        };
        if let Some(file) = file {
            let position = i64::try_from(position).unwrap_or(i64::MAX);
            tx.execute(
                "INSERT INTO archive_members (session, file, position) VALUES ($1, $2, $3)
                 ON CONFLICT (session, file) DO UPDATE SET position = excluded.position",
                &[&key, &file, &position],
            )?;
        }
    }
    tx.execute("DELETE FROM archive_docs WHERE session = $1", &[&key])?;
    if session.docs.is_empty() {
        return Ok(());
    }
    // One statement for all of a session's docs.
    let seqs: Vec<i32> = (0..session.docs.len()).map(|seq| i32::try_from(seq).unwrap_or(i32::MAX)).collect();
    let entry_ids: Vec<Option<String>> = session.docs.iter().map(|d| opt_text(d.entry_id.as_ref())).collect();
    let roles: Vec<&str> = session.docs.iter().map(|d| d.role.as_str()).collect();
    let bodies: Vec<std::borrow::Cow<'_, str>> = session.docs.iter().map(|d| text(&d.body)).collect();
    let vectors: Vec<Tsvector> = bodies.iter().map(|body| Tsvector::of(body)).collect();
    tx.execute(
        "INSERT INTO archive_docs (session, seq, entry_id, role, body, tsv)
         SELECT $1, s, e, r, b, t FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::tsvector[])
           AS u(s, e, r, b, t)",
        &[&key, &seqs, &entry_ids, &roles, &bodies, &vectors],
    )?;
    Ok(())
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
                "SELECT id, path, source, version, size, mtime, head, stored, mark, deleted_ms IS NOT NULL,
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
                deleted: r.get(9),
                main: r.get(10),
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
        let mut stored = Stored::default();
        let mut ids: HashMap<&str, i64> = HashMap::new();
        for write in files {
            let Some(id) = store_file(&mut tx, machine_id, write).map_err(&fail)? else {
                stored.raced += 1;
                continue;
            };
            ids.insert(write.path.as_str(), id);
            let new_version = write.base.as_ref().is_none_or(|b| b.version != write.version);
            if !write.chunk.is_empty() {
                tx.execute(
                    "INSERT INTO archive_chunks (file, version, start, bytes) VALUES ($1, $2, $3, $4)
                     ON CONFLICT DO NOTHING",
                    &[&id, &write.version, &write.start, &write.chunk],
                )
                .map_err(&fail)?;
            }
            if !write.chunk.is_empty() || new_version {
                stored.files += 1;
                stored.bytes += write.chunk.len() as u64;
            }
            tx.execute(
                "INSERT INTO archive_tails (file, version, bytes) VALUES ($1, $2, $3)
                 ON CONFLICT (file, version) DO UPDATE SET bytes = excluded.bytes",
                &[&id, &write.version, &write.tail],
            )
            .map_err(&fail)?;
        }
        for session in sessions {
            store_session(&mut tx, machine_id, session, &ids, now_ms).map_err(&fail)?;
        }
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

    fn search(&mut self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>> {
        let Some(tsquery) = sess_catalog::to_tsquery(query) else { return Ok(Vec::new()) };
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
