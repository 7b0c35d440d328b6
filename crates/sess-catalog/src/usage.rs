//! The model calls the catalog keeps (`sess usage`): written as sessions are
//! read, and read back as the rows of a report.
//!
//! A session's calls come from its main file (part 0) and from the files
//! its source names in [`Source::usage_files`](sess_sources::Source::usage_files)
//! (its subagents' transcripts), each a part of its own that is read again
//! only when its size or modification time changed — and looked at only
//! when the session's main file changed, as a subagent's transcript is
//! finished before the main file records its answer.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rusqlite::{OptionalExtension as _, Transaction, params};
use sess_sources::{Call, SourceKind};
use sess_usage::SessionOf;

use crate::catalog::Catalog;
use crate::error::Result;
use crate::refresh::{SourceFile, Stat, path_key, stat};

/// A companion file the catalog read for its calls.
pub(crate) struct KnownPart {
    id: i64,
    path: String,
    stat: Stat,
}

/// What changed among a session's companion files.
#[derive(Default)]
pub(crate) struct Parts {
    /// Files new or changed, with their calls.
    changed: Vec<(String, Stat, Vec<Call>)>,
    /// Files no longer there.
    gone: Vec<i64>,
}

/// The companion files the catalog read, by session.
pub(crate) fn known_parts(tx: &rusqlite::Connection) -> Result<HashMap<i64, Vec<KnownPart>>> {
    let mut statement = tx.prepare("SELECT session, id, path, file_size, file_mtime_ns FROM usage_parts")?;
    let mut parts: HashMap<i64, Vec<KnownPart>> = HashMap::new();
    let rows = statement.query_map([], |row| {
        let part =
            KnownPart { id: row.get(1)?, path: row.get(2)?, stat: Stat { size: row.get(3)?, mtime_ns: row.get(4)? } };
        Ok((row.get::<_, i64>(0)?, part))
    })?;
    for row in rows {
        let (session, part) = row?;
        parts.entry(session).or_default().push(part);
    }
    Ok(parts)
}

/// Reads the companion files of the session `file` that are new or changed
/// since `known`.
pub(crate) fn read_parts(file: &SourceFile, known: &[KnownPart]) -> Parts {
    let mut parts = Parts::default();
    if file.row.is_some() {
        return parts;
    }
    let source = file.source.source();
    let mut listed = HashSet::new();
    for path in source.usage_files(&file.path) {
        let key = path_key(&path);
        let Some(stat) = stat(&path) else { continue };
        listed.insert(key.clone());
        if known.iter().any(|part| part.path == key && part.stat == stat) {
            continue;
        }
        // A file that cannot be read now is read at the next change of its session.
        let Ok(bytes) = source.read_whole(&path) else { continue };
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        parts.changed.push((key, stat, source.usage(&path, &bytes[..complete])));
    }
    parts.gone = known.iter().filter(|part| !listed.contains(&part.path)).map(|part| part.id).collect();
    parts
}

/// Replaces the calls of session `key`'s main file with `calls`; a call
/// without a time of its own is at `default_ms` (the file's modification).
pub(crate) fn replace_main(tx: &Transaction<'_>, key: i64, calls: &[Call], default_ms: i64) -> Result<()> {
    tx.execute("DELETE FROM usage WHERE session = ?1 AND part = 0", [key])?;
    insert(tx, key, 0, calls, default_ms)
}

/// Adds the calls of lines added to session `key`'s main file: a call whose
/// key is there already replaces it (a later line of the same response). A
/// call whose lines do not name its model (the model was set in earlier
/// lines: a Codex turn's context) has the model of the call before it.
pub(crate) fn add_main(tx: &Transaction<'_>, key: i64, calls: &[Call], default_ms: i64) -> Result<()> {
    let mut model: Option<String> = tx
        .query_row(
            "SELECT model FROM usage WHERE session = ?1 AND part = 0 AND model IS NOT NULL ORDER BY id DESC LIMIT 1",
            [key],
            |row| row.get(0),
        )
        .optional()?;
    let calls: Vec<Call> = calls
        .iter()
        .map(|call| {
            if call.model.is_some() {
                model.clone_from(&call.model);
                call.clone()
            } else {
                Call { model: model.clone(), ..call.clone() }
            }
        })
        .collect();
    insert(tx, key, 0, &calls, default_ms)
}

/// Writes what changed among session `key`'s companion files.
pub(crate) fn write_parts(tx: &Transaction<'_>, key: i64, parts: &Parts) -> Result<()> {
    // Every delete names the session with the part: the calls' index
    // (`usage_call`) starts with the session, and a delete by part alone
    // read the whole table for each file, which made a first build grow with
    // the square of the sessions.
    for id in &parts.gone {
        tx.prepare_cached("DELETE FROM usage WHERE session = ?1 AND part = ?2")?.execute(params![key, id])?;
        tx.prepare_cached("DELETE FROM usage_parts WHERE id = ?1")?.execute([id])?;
    }
    for (path, stat, calls) in &parts.changed {
        // The file may have been another session's part until now.
        let known: Option<(i64, i64)> = tx
            .prepare_cached("SELECT id, session FROM usage_parts WHERE path = ?1")?
            .query_row([path], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        // A plain insert or update by id: an upsert opens a statement
        // savepoint, at which FTS5 writes out the terms it holds, for every
        // session with a companion file.
        let part = if let Some((part, session)) = known {
            tx.prepare_cached("DELETE FROM usage WHERE session = ?1 AND part = ?2")?.execute(params![session, part])?;
            tx.prepare_cached("UPDATE usage_parts SET session = ?2, file_size = ?3, file_mtime_ns = ?4 WHERE id = ?1")?
                .execute(params![part, key, stat.size, stat.mtime_ns])?;
            part
        } else {
            tx.prepare_cached(
                "INSERT INTO usage_parts (session, path, file_size, file_mtime_ns) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![key, path, stat.size, stat.mtime_ns])?;
            tx.last_insert_rowid()
        };
        insert(tx, key, part, calls, stat.mtime_ns / 1_000_000)?;
    }
    Ok(())
}

/// Removes every call of session `key`.
pub(crate) fn delete_session(tx: &Transaction<'_>, key: i64) -> Result<()> {
    tx.execute("DELETE FROM usage WHERE session = ?1", [key])?;
    tx.execute("DELETE FROM usage_parts WHERE session = ?1", [key])?;
    Ok(())
}

fn insert(tx: &Transaction<'_>, session: i64, part: i64, calls: &[Call], default_ms: i64) -> Result<()> {
    let mut statement = tx.prepare_cached(
        "INSERT INTO usage (session, part, key, at_ms, model, input, output, cache_creation, cache_read, reasoning, cost,
                            not_counts)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT (session, part, key) DO UPDATE SET at_ms = ?4, model = ?5, input = ?6, output = ?7,
           cache_creation = ?8, cache_read = ?9, reasoning = ?10, cost = ?11, not_counts = ?12",
    )?;
    for call in calls {
        let at_ms = call.timestamp.as_deref().and_then(sess_core::parse_iso_millis).unwrap_or(default_ms);
        statement.execute(params![
            session,
            part,
            call.key.as_deref().map(sess_usage::key_hash),
            at_ms,
            call.model,
            to_i64(call.input),
            to_i64(call.output),
            to_i64(call.cache_creation),
            to_i64(call.cache_read),
            to_i64(call.reasoning),
            call.cost,
            (!call.not_counts.is_empty()).then(|| call.not_counts.join("; "))
        ])?;
    }
    Ok(())
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Which calls [`Catalog::usage`] reads.
#[derive(Clone, Debug, Default)]
pub struct UsageParams {
    /// Only these agents' (all when empty).
    pub sources: Vec<SourceKind>,
    /// Only those of sessions whose agent worked in this directory.
    pub cwd: Option<String>,
    /// The calls of this store's sessions too (`--store URL`), not only of
    /// the agents' files (with a session named, every store's: the session
    /// says which).
    pub store: Option<String>,
    /// Only the calls of the session with this key
    /// ([`SessionRow::key`](crate::SessionRow::key)), with those of the other
    /// sessions that hold one of its responses (a copy a resumed or forked
    /// session made, or the original it copied): a report of them counts
    /// each response once, in the session that began first, as a report of
    /// every session does.
    pub session: Option<i64>,
}

impl Catalog {
    /// The paths of the agents' sessions the catalog holds (a session of
    /// rows as `DATABASE#id`), to tell what else a caller has from what the
    /// catalog counts.
    pub fn session_paths(&self) -> Result<HashSet<String>> {
        let mut statement = self.conn.prepare("SELECT path FROM sessions WHERE store IS NULL")?;
        let paths = statement.query_map([], |row| row.get(0))?;
        Ok(paths.collect::<rusqlite::Result<_>>()?)
    }

    /// The calls the catalog holds, as a report's rows: the sessions that
    /// began first come first (a response copied into a later session
    /// counts in the first one), each session's calls in order.
    pub fn usage(&self, params: &UsageParams) -> Result<Vec<sess_usage::Row>> {
        let sources: Vec<&str> = params.sources.iter().map(|s| s.as_str()).collect();
        // Sorted below, not by SQLite: sorting the joined rows spilled them to
        // temporary files (a second at 400,000 calls).
        let mut statement = self.conn.prepare(
            "SELECT s.source, s.session_id, s.path, s.cwd, s.title, u.key, u.at_ms, u.model,
                    u.input, u.output, u.cache_creation, u.cache_read, u.reasoning, u.cost,
                    s.created, s.id, u.part, u.id, u.not_counts
             FROM usage u JOIN sessions s ON s.id = u.session
             WHERE (?1 IS NULL OR s.cwd = ?1) AND (s.store IS NULL OR s.store = ?2 OR ?3 IS NOT NULL)
               AND (?3 IS NULL OR u.session = ?3
                    OR (u.key IN (SELECT key FROM usage WHERE session = ?3 AND key IS NOT NULL)
                        AND s.source = (SELECT source FROM sessions WHERE id = ?3)))",
        )?;
        // Each session's strings are read once and shared by its calls' rows,
        // as is each model's name.
        let mut sessions: HashMap<i64, (String, Arc<SessionOf>)> = HashMap::new();
        let mut models: HashMap<String, Arc<str>> = HashMap::new();
        let mut calls = Vec::new();
        let mut rows = statement.query(params![params.cwd, params.store, params.session])?;
        while let Some(row) = rows.next()? {
            let key: i64 = row.get(15)?;
            let session = match sessions.entry(key) {
                Entry::Occupied(known) => &known.into_mut().1,
                Entry::Vacant(new) => {
                    let of = SessionOf {
                        source: row.get(0)?,
                        session_id: row.get(1)?,
                        path: row.get(2)?,
                        project: row.get(3)?,
                        title: row.get(4)?,
                    };
                    let created: Option<String> = row.get(14)?;
                    &new.insert((created.unwrap_or_default(), Arc::new(of))).1
                }
            };
            if !sources.is_empty() && !sources.contains(&session.source.as_str()) {
                continue;
            }
            let model =
                row.get_ref(7)?.as_str_or_null().map_err(rusqlite::Error::from)?.map(|name| match models.get(name) {
                    Some(model) => model.clone(),
                    None => models.entry(name.to_owned()).or_insert_with(|| Arc::from(name)).clone(),
                });
            let count = |i| row.get::<_, i64>(i).map(|n| u64::try_from(n).unwrap_or(0));
            let order = (key, row.get::<_, i64>(16)?, row.get::<_, i64>(17)?);
            calls.push((
                order,
                sess_usage::Row {
                    session: session.clone(),
                    key: row.get(5)?,
                    at_ms: row.get(6)?,
                    model,
                    tokens: sess_usage::Tokens {
                        input: count(8)?,
                        output: count(9)?,
                        cache_creation: count(10)?,
                        cache_read: count(11)?,
                        reasoning: count(12)?,
                    },
                    cost: row.get(13)?,
                    not_counts: row.get(18)?,
                },
            ));
        }
        // The sessions that began first first (no start: first of all), each
        // session's calls in order: the sessions are put in order once, then
        // the calls by their session's place.
        let mut order: Vec<(&str, i64)> = sessions.iter().map(|(key, (created, _))| (created.as_str(), *key)).collect();
        order.sort_unstable();
        let place: HashMap<i64, i64> = order.iter().zip(0..).map(|((_, key), i)| (*key, i)).collect();
        for ((session, _, _), _) in &mut calls {
            *session = place[session];
        }
        calls.sort_unstable_by_key(|(order, _)| *order);
        Ok(calls.into_iter().map(|(_, row)| row).collect())
    }
}
