//! The two writes of entries, each inside the caller's `BEGIN IMMEDIATE`
//! transaction: checks first (in the order the JSONL backend makes them, so
//! both backends answer the same inputs alike), then the rows, then the
//! session's summary totals.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, Transaction};
use sess_core::Entry;
use sess_store::discovery::SummaryTally;
use sess_store::{
    Appended, NewSegment, SegmentInfo, check_chain, check_fork_point, check_new_root, check_segment_entries,
};

use super::{StoreError, StoreResult, from_int, segment_key, to_int};
use crate::error::{Context, Error};

/// [`Backend::create_segment`](sess_store::Backend::create_segment).
pub(super) fn create_segment(
    tx: &mut Transaction<'_>,
    now_ms: i64,
    session: &str,
    start: &NewSegment,
    entries: &[Entry],
) -> StoreResult<SegmentInfo> {
    let mut tally = load_tally(tx, session)?;
    let (parent, parent_entry) = match start {
        NewSegment::New => {
            let parent = check_new_root(entries, |parent| entry_exists(tx, session, parent))?;
            (None, parent.map(str::to_owned))
        }
        NewSegment::Fork { parent, fork_at } | NewSegment::Compact { parent, fork_at } => {
            let key = segment_key(tx, session, parent)?;
            check_fork_point(start, segment_len(tx, key)?)?;
            let entry = entry_at(tx, key, *fork_at)?;
            (Some((key, parent.clone(), *fork_at)), Some(entry))
        }
    };
    let origin = check_segment_entries(start, entries, parent_entry.as_deref())?;
    check_unique(tx, session, entries)?;
    let id = entries.first().map(|e| e.id().to_string()).unwrap_or_default();
    let key: i64 = tx
        .prepare_cached(
            "INSERT INTO segments (session_id, id, parent_segment_key, fork_at, origin) \
             VALUES (?1, ?2, ?3, ?4, ?5) RETURNING key",
        )
        .and_then(|mut s| {
            let fork_at = parent.as_ref().map(|(_, _, at)| to_int(*at)).transpose()?;
            s.query_row((session, &id, parent.as_ref().map(|(k, _, _)| *k), fork_at, origin.as_str()), |r| r.get(0))
        })
        .context("creating a segment")?;
    insert_entries(tx, session, key, 0, entries, &mut tally).context("creating a segment")?;
    store_tally(tx, session, &tally, now_ms)?;
    Ok(SegmentInfo { id, origin, parent: parent.map(|(_, parent, at)| (parent, at)), len: entries.len() as u64 })
}

/// [`Backend::append`](sess_store::Backend::append).
pub(super) fn append(
    tx: &mut Transaction<'_>,
    now_ms: i64,
    session: &str,
    segment: &str,
    expected_len: u64,
    entries: &[Entry],
) -> StoreResult<Appended> {
    let mut tally = load_tally(tx, session)?;
    let key = segment_key(tx, session, segment)?;
    let len = segment_len(tx, key)?;
    if len != expected_len {
        return Ok(Appended::TailMoved { len });
    }
    let tail = len.checked_sub(1).map(|seq| entry_at(tx, key, seq)).transpose()?;
    check_chain(entries, tail.as_deref(), false)?;
    check_unique(tx, session, entries)?;
    // The transaction holds the write lock, so the seqs are free; should a
    // writer that does not take it have raced us, the (segment_key, seq) key
    // refuses the rows and the append is answered as a moved tail.
    let savepoint = tx.savepoint().context("appending entries")?;
    match insert_entries(&savepoint, session, key, len, entries, &mut tally) {
        Ok(()) => savepoint.commit().context("appending entries")?,
        Err(e) if is_primary_key_violation(&e) => {
            drop(savepoint);
            return Ok(Appended::TailMoved { len: segment_len(tx, key)? });
        }
        Err(source) => return Err(Error::Sql { operation: "appending entries", source }.into()),
    }
    store_tally(tx, session, &tally, now_ms)?;
    Ok(Appended::Done { first_seq: len })
}

/// Inserts `entries` at seqs `first_seq..` of segment `key`, after the last
/// entry of the session in insertion order, and counts them into `tally`.
fn insert_entries(
    conn: &Connection,
    session: &str,
    key: i64,
    first_seq: u64,
    entries: &[Entry],
    tally: &mut SummaryTally,
) -> rusqlite::Result<()> {
    let last_ord: Option<i64> = conn
        .prepare_cached("SELECT ord FROM entries WHERE session_id = ?1 ORDER BY ord DESC LIMIT 1")?
        .query_row([session], |r| r.get(0))
        .optional()?;
    let first_ord = last_ord.map_or(0, |o| o + 1);
    let mut insert = conn.prepare_cached(
        "INSERT INTO entries (segment_key, seq, session_id, ord, entry_id, parent_id, type, json) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut insert_text =
        conn.prepare_cached("INSERT INTO message_texts (session_id, ord, text) VALUES (?1, ?2, ?3)")?;
    for ((seq, ord), entry) in (to_int(first_seq)?..).zip(first_ord..).zip(entries) {
        let kind = Some(entry.type_name()).filter(|t| !t.is_empty());
        let parent = entry.parent_id().map(sess_core::EntryId::as_str);
        insert.execute((key, seq, session, ord, entry.id().as_str(), parent, kind, entry.json()))?;
        if let Some(text) = tally.push(entry.json()) {
            insert_text.execute((session, ord, text))?;
        }
    }
    Ok(())
}

fn is_primary_key_violation(error: &rusqlite::Error) -> bool {
    error.sqlite_error().is_some_and(|e| e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
}

/// The session's summary totals; [`StoreError::SessionNotFound`] if there is no such session.
fn load_tally(conn: &Connection, session: &str) -> StoreResult<SummaryTally> {
    let row: Option<(Option<String>, i64, Option<String>, f64)> = conn
        .prepare_cached("SELECT name, message_count, first_message, last_activity FROM sessions WHERE id = ?1")
        .and_then(|mut s| s.query_row([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).optional())
        .context("reading a session")?;
    let (name, message_count, first_message, last_activity) =
        row.ok_or_else(|| StoreError::SessionNotFound { query: session.to_owned() })?;
    Ok(SummaryTally { name, message_count: from_int(message_count, "sessions")?, first_message, last_activity })
}

fn store_tally(conn: &Connection, session: &str, tally: &SummaryTally, now_ms: i64) -> StoreResult<()> {
    conn.prepare_cached(
        "UPDATE sessions SET name = ?2, message_count = ?3, first_message = ?4, last_activity = ?5, updated_ms = ?6 \
         WHERE id = ?1",
    )
    .and_then(|mut s| {
        s.execute((
            session,
            &tally.name,
            to_int(tally.message_count)?,
            &tally.first_message,
            tally.last_activity,
            now_ms,
        ))
    })
    .context("updating a session's summary")?;
    Ok(())
}

/// The number of entries of segment `key`: its last seq + 1, read from the
/// end of the primary key index.
pub(super) fn segment_len(conn: &Connection, key: i64) -> StoreResult<u64> {
    let last: Option<i64> = conn
        .prepare_cached("SELECT seq FROM entries WHERE segment_key = ?1 ORDER BY seq DESC LIMIT 1")
        .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
        .context("reading a segment's length")?;
    Ok(from_int(last.map_or(0, |seq| seq + 1), "entries")?)
}

/// The id of the entry at `seq` of segment `key`.
fn entry_at(conn: &Connection, key: i64, seq: u64) -> StoreResult<String> {
    let id: Option<String> = conn
        .prepare_cached("SELECT entry_id FROM entries WHERE segment_key = ?1 AND seq = ?2")
        .and_then(|mut s| s.query_row((key, to_int(seq)?), |r| r.get(0)).optional())
        .context("reading an entry")?;
    id.ok_or_else(|| {
        Error::CorruptRow { table: "entries", reason: format!("segment {key} has a gap at seq {seq}") }.into()
    })
}

fn entry_exists(conn: &Connection, session: &str, id: &str) -> StoreResult<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM entries WHERE session_id = ?1 AND entry_id = ?2)")
        .and_then(|mut s| s.query_row([session, id], |r| r.get(0)))
        .context("looking up an entry")?)
}

/// Entry ids are unique in a session: none of `entries` may exist, nor repeat.
fn check_unique(conn: &Connection, session: &str, entries: &[Entry]) -> StoreResult<()> {
    let mut seen = HashSet::new();
    for entry in entries {
        let id = entry.id().as_str();
        if !seen.insert(id) || entry_exists(conn, session, id)? {
            return Err(StoreError::Conflict { what: format!("entry {id} exists") });
        }
    }
    Ok(())
}
