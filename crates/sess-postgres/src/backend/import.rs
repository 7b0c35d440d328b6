//! [`Backend::import_session`](sess_store::Backend::import_session) in bulk:
//! one transaction of a handful of round trips whatever the session's size.
//! The segments are the entries' own derivation (the rule every backend
//! shares), inserted by one statement with keys drawn from their sequence up
//! front; the entries and their message texts stream in with binary `COPY`.

use postgres::Transaction;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use sess_core::segment::{Deriver, Placement, Segments};
use sess_core::{Entry, SessionHeader};

use super::write::Batch;
use super::{StoreError, StoreResult, unique_violation};
use crate::error::{Context, Error};
use crate::pool::{Connection, Statements};

/// How many entries go between two `progress` calls.
const PROGRESS_EVERY: u64 = 1024;

/// Creates session `header` holding `entries` in one transaction. `progress`
/// hears of the entries as they are sent; if the transaction then fails,
/// nothing of the session is kept.
pub(super) fn import_session(
    conn: &mut Connection,
    now_ms: i64,
    header: &SessionHeader,
    title_line: Option<&str>,
    entries: &[Entry],
    progress: &mut dyn FnMut(u64),
) -> StoreResult<()> {
    let session = header.id();
    let mut placer = Deriver::default();
    let placements: Vec<Placement> = entries.iter().map(|e| placer.push(e)).collect();
    let segments = placer.finish();
    let batch = Batch::new(entries);

    let Connection { client, statements } = conn;
    let mut tx = client.transaction().context(OPERATION)?;
    // A bulk copy's time grows with the session: the statement timeout that
    // bounds every other call does not apply to it.
    tx.batch_execute("SET LOCAL statement_timeout TO 0").context(OPERATION)?;
    insert_session(&mut tx, statements, now_ms, header, title_line, &batch)?;
    if !entries.is_empty() {
        let keys = insert_segments(&mut tx, statements, session, entries, &segments)?;
        copy_entries(&mut tx, session, entries, &placements, &keys, progress)?;
        copy_texts(&mut tx, session, &batch)?;
    }
    tx.commit().context(OPERATION)?;
    Ok(())
}

const OPERATION: &str = "importing a session";

/// The session's row, with its summary totals and next insertion order.
fn insert_session(
    tx: &mut Transaction<'_>,
    statements: &mut Statements,
    now_ms: i64,
    header: &SessionHeader,
    title_line: Option<&str>,
    batch: &Batch<'_>,
) -> StoreResult<()> {
    let statement = statements
        .get(
            tx,
            "INSERT INTO sessions (id, header, title_line, updated_ms, next_ord, name, message_count, \
                                   first_message, last_activity) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING 1",
        )
        .context(OPERATION)?;
    let tally = &batch.tally;
    let next_ord = i64::try_from(batch.ids.len()).unwrap_or(i64::MAX);
    let message_count = i64::try_from(tally.message_count).unwrap_or(i64::MAX);
    let created = tx
        .query_opt(
            &statement,
            &[
                &header.id(),
                &header.json(),
                &title_line,
                &now_ms,
                &next_ord,
                &tally.name,
                &message_count,
                &tally.first_message,
                &tally.last_activity,
            ],
        )
        .context(OPERATION)?;
    if created.is_none() {
        return Err(StoreError::Conflict { what: format!("session {} exists", header.id()) });
    }
    Ok(())
}

/// The derived segments, in one statement; their keys, drawn from the
/// sequence up front and given in creation order, so a parent's key is below
/// its children's.
fn insert_segments(
    tx: &mut Transaction<'_>,
    statements: &mut Statements,
    session: &str,
    entries: &[Entry],
    segments: &Segments,
) -> StoreResult<Vec<i64>> {
    let statement = statements
        .get(tx, "SELECT nextval(pg_get_serial_sequence('segments', 'key')) FROM generate_series(1, $1::bigint)")
        .context(OPERATION)?;
    let count = i64::try_from(segments.segments.len()).unwrap_or(i64::MAX);
    let mut keys = Vec::with_capacity(segments.segments.len());
    for row in tx.query(&statement, &[&count]).context(OPERATION)? {
        keys.push(row.try_get::<_, i64>(0).context(OPERATION)?);
    }
    keys.sort_unstable();
    let ids: Vec<&str> = (0..segments.segments.len()).map(|i| segments.id(entries, i).as_str()).collect();
    let parents: Vec<Option<i64>> = segments.segments.iter().map(|s| s.parent.map(|p| keys[p])).collect();
    let fork_ats: Vec<Option<i64>> =
        segments.segments.iter().map(|s| s.fork_at.map(|at| i64::try_from(at).unwrap_or(i64::MAX))).collect();
    let origins: Vec<&str> = segments.segments.iter().map(|s| s.origin.as_str()).collect();
    let statement = statements
        .get(
            tx,
            "INSERT INTO segments (key, session_id, id, parent_segment_key, fork_at, origin) \
             SELECT u.key, $1, u.id, u.parent, u.fork_at, u.origin \
             FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::text[]) \
                 AS u (key, id, parent, fork_at, origin)",
        )
        .context(OPERATION)?;
    tx.execute(&statement, &[&session, &keys, &ids, &parents, &fork_ats, &origins])
        .map_err(|source| conflict_or(session, source))?;
    Ok(keys)
}

/// The entries, by binary `COPY`, telling `progress` every
/// [`PROGRESS_EVERY`] entries.
fn copy_entries(
    tx: &mut Transaction<'_>,
    session: &str,
    entries: &[Entry],
    placements: &[Placement],
    keys: &[i64],
    progress: &mut dyn FnMut(u64),
) -> StoreResult<()> {
    let copy = tx
        .copy_in(
            "COPY entries (segment_key, seq, session_id, ord, entry_id, parent_id, type, json) \
             FROM STDIN (FORMAT binary)",
        )
        .context(OPERATION)?;
    let types = [Type::INT8, Type::INT8, Type::TEXT, Type::INT8, Type::TEXT, Type::TEXT, Type::TEXT, Type::TEXT];
    let mut writer = BinaryCopyInWriter::new(copy, &types);
    let mut pending = 0;
    for (ord, (placement, entry)) in placements.iter().zip(entries).enumerate() {
        let key = keys[placement.segment];
        let seq = i64::try_from(placement.seq).unwrap_or(i64::MAX);
        let ord = i64::try_from(ord).unwrap_or(i64::MAX);
        let parent = entry.parent_id().map(sess_core::EntryId::as_str);
        let kind = Some(entry.type_name()).filter(|t| !t.is_empty());
        writer
            .write(&[&key, &seq, &session, &ord, &entry.id().as_str(), &parent, &kind, &entry.json()])
            .map_err(|source| conflict_or(session, source))?;
        pending += 1;
        if pending == PROGRESS_EVERY {
            progress(pending);
            pending = 0;
        }
    }
    writer.finish().map_err(|source| conflict_or(session, source))?;
    if pending > 0 {
        progress(pending);
    }
    Ok(())
}

/// The listing's message texts, by binary `COPY`.
fn copy_texts(tx: &mut Transaction<'_>, session: &str, batch: &Batch<'_>) -> StoreResult<()> {
    let copy =
        tx.copy_in("COPY message_texts (session_id, ord, text) FROM STDIN (FORMAT binary)").context(OPERATION)?;
    let mut writer = BinaryCopyInWriter::new(copy, &[Type::TEXT, Type::INT8, Type::TEXT]);
    for (ord, text) in batch.texts.iter().enumerate() {
        if let Some(text) = text {
            let ord = i64::try_from(ord).unwrap_or(i64::MAX);
            writer.write(&[&session, &ord, text]).context(OPERATION)?;
        }
    }
    writer.finish().context(OPERATION)?;
    Ok(())
}

/// A unique violation (an entry id the input holds twice) as a conflict, any
/// other failure as itself.
fn conflict_or(session: &str, source: postgres::Error) -> StoreError {
    if unique_violation(&source).is_some() {
        let detail = source.as_db_error().and_then(|db| db.detail()).unwrap_or("an entry id repeats");
        StoreError::Conflict { what: format!("session {session} holds an entry id twice: {detail}") }
    } else {
        Error::Sql { operation: OPERATION, source }.into()
    }
}
