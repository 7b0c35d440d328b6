//! The two writes of entries. Checks are made in the order the JSONL and
//! SQLite backends make them (session, segment, length, chain, ids), so every
//! backend answers the same inputs alike.
//!
//! An append is one statement ([`APPEND`]) in its own implicit transaction:
//! one round trip. It reads the segment's length and tail (the end of the
//! primary key index), and only if they are what the caller expects does it
//! take the session's row lock, hand out the next insertion orders
//! (`sessions.next_ord`), add the batch's summary totals and insert the
//! entries and their message texts. Writers of one session thus take turns on
//! its row. The length is read from the statement's snapshot, so when another
//! appender commits while this one waits for the row, the seqs it read as free
//! are taken: the `(segment_key, seq)` primary key refuses the rows, and the
//! append is answered [`Appended::TailMoved`] with nothing written.

use postgres::Transaction;
use sess_core::Entry;
use sess_store::discovery::SummaryTally;
use sess_store::{
    Appended, NewSegment, SegmentInfo, check_chain, check_fork_point, check_new_root, check_segment_entries,
};

use super::{StoreError, StoreResult, from_int, to_int, unique_violation};
use crate::error::{Context, Error};
use crate::pool::{Connection, Statements};

/// Appends a batch to segment `$2` of session `$1` if it has `$3` entries and
/// its last entry is `$4`. `$5`…`$9`: the entries' ids, parent ids, types,
/// JSON texts and message texts; `$10`…`$14`: the batch's summary totals
/// (whether it sets the name, the name, its message count, its first user
/// message and its latest activity); `$15`: the time. Returns whether the
/// session exists, the segment's key, last seq and last entry id as read, and
/// the first `ord` handed out (null when nothing was written).
const APPEND: &str = "
WITH tail AS (
    SELECT g.key, t.seq, t.entry_id
    FROM segments g
    LEFT JOIN LATERAL (
        SELECT e.seq, e.entry_id FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1
    ) t ON true
    WHERE g.session_id = $1 AND g.id = $2
), placed AS (
    UPDATE sessions SET
        next_ord = next_ord + cardinality($5::text[]),
        name = CASE WHEN $10::boolean THEN $11::text ELSE name END,
        message_count = message_count + $12::bigint,
        first_message = coalesce(first_message, $13::text),
        last_activity = greatest(last_activity, $14::double precision),
        updated_ms = $15::bigint
    WHERE id = $1
      AND EXISTS (
          SELECT 1 FROM tail
          WHERE coalesce(tail.seq + 1, 0) = $3::bigint AND tail.entry_id IS NOT DISTINCT FROM $4::text
      )
    RETURNING next_ord - cardinality($5::text[]) AS first_ord
), batch AS (
    SELECT tail.key, $3::bigint + b.i - 1 AS seq, placed.first_ord + b.i - 1 AS ord,
           b.id, b.parent, b.type, b.json, b.text
    FROM tail, placed,
         unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
             WITH ORDINALITY AS b (id, parent, type, json, text, i)
), entry_rows AS (
    INSERT INTO entries (segment_key, seq, session_id, ord, entry_id, parent_id, type, json)
    SELECT key, seq, $1, ord, id, parent, type, json FROM batch
), text_rows AS (
    INSERT INTO message_texts (session_id, ord, text)
    SELECT $1, ord, text FROM batch WHERE text IS NOT NULL
)
SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1), tail.key, tail.seq, tail.entry_id, placed.first_ord
FROM (VALUES (1)) AS one (x) LEFT JOIN tail ON true LEFT JOIN placed ON true";

/// The length and last entry of segment `$2` of session `$1`, as [`APPEND`]
/// reports them, without writing.
const TAIL: &str = "
SELECT true, g.key, t.seq, t.entry_id
FROM sessions s
LEFT JOIN segments g ON g.session_id = s.id AND g.id = $2
LEFT JOIN LATERAL (
    SELECT e.seq, e.entry_id FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1
) t ON true
WHERE s.id = $1";

/// A batch in the columns [`APPEND`] takes.
pub(super) struct Batch<'a> {
    pub(super) ids: Vec<&'a str>,
    pub(super) parents: Vec<Option<&'a str>>,
    pub(super) types: Vec<Option<&'a str>>,
    pub(super) jsons: Vec<&'a str>,
    /// What each entry adds to the listing's text, if anything.
    pub(super) texts: Vec<Option<String>>,
    /// The batch's own summary totals, counted from zero.
    pub(super) tally: SummaryTally,
    /// Whether the batch holds a `session_info` entry, whose name (or lack of
    /// one) replaces the session's.
    pub(super) sets_name: bool,
}

impl<'a> Batch<'a> {
    pub(super) fn new(entries: &'a [Entry]) -> Self {
        let mut tally = SummaryTally::default();
        let mut batch = Batch {
            ids: Vec::with_capacity(entries.len()),
            parents: Vec::with_capacity(entries.len()),
            types: Vec::with_capacity(entries.len()),
            jsons: Vec::with_capacity(entries.len()),
            texts: Vec::with_capacity(entries.len()),
            tally: SummaryTally::default(),
            sets_name: false,
        };
        for entry in entries {
            batch.ids.push(entry.id().as_str());
            batch.parents.push(entry.parent_id().map(sess_core::EntryId::as_str));
            batch.types.push(Some(entry.type_name()).filter(|t| !t.is_empty()));
            batch.jsons.push(entry.json());
            batch.texts.push(tally.push(entry.json()));
            batch.sets_name |= entry.type_name() == "session_info";
        }
        batch.tally = tally;
        batch
    }
}

/// What [`APPEND`] or [`TAIL`] found (`first_ord`: only [`APPEND`]).
struct Tail {
    session_exists: bool,
    key: Option<i64>,
    len: u64,
    last_entry: Option<String>,
    first_ord: Option<i64>,
}

impl Tail {
    fn from_row(row: &postgres::Row, operation: &'static str) -> StoreResult<Self> {
        let last_seq: Option<i64> = row.try_get(2).context(operation)?;
        Ok(Self {
            session_exists: row.try_get(0).context(operation)?,
            key: row.try_get(1).context(operation)?,
            len: from_int(last_seq.map_or(0, |s| s + 1), "entries")?,
            last_entry: row.try_get(3).context(operation)?,
            first_ord: None,
        })
    }

    /// The answer for a segment that does not take the batch: its session or
    /// segment is missing, its length moved, or the batch does not continue it.
    fn refusal(&self, session: &str, segment: &str, expected_len: u64, entries: &[Entry]) -> StoreResult<Appended> {
        if let Some(moved) = self.missing_or_moved(session, segment, expected_len)? {
            return Ok(moved);
        }
        check_chain(entries, self.last_entry.as_deref(), false)?;
        Err(StoreError::Conflict { what: format!("segment {segment} of session {session} changed during the append") })
    }

    /// An error when the session or the segment is missing; `TailMoved` when
    /// the segment no longer has `expected_len` entries.
    fn missing_or_moved(&self, session: &str, segment: &str, expected_len: u64) -> StoreResult<Option<Appended>> {
        if !self.session_exists {
            return Err(StoreError::SessionNotFound { query: session.to_owned() });
        }
        if self.key.is_none() {
            return Err(StoreError::SegmentNotFound { segment: segment.to_owned() });
        }
        Ok((self.len != expected_len).then_some(Appended::TailMoved { len: self.len }))
    }
}

/// [`Backend::append`](sess_store::Backend::append).
pub(super) fn append(
    conn: &mut Connection,
    now_ms: i64,
    session: &str,
    segment: &str,
    expected_len: u64,
    entries: &[Entry],
) -> StoreResult<Appended> {
    const OPERATION: &str = "appending entries";
    let Connection { client, statements } = conn;
    // The batch must be a chain with no compaction; the statement checks that
    // its first entry's parent is the segment's tail.
    let first_parent = entries.first().and_then(|e| e.parent_id()).map(sess_core::EntryId::as_str);
    if let Err(invalid) = check_chain(entries, first_parent, false) {
        let statement = statements.get(client, TAIL).context(OPERATION)?;
        let tail = match client.query_opt(&statement, &[&session, &segment]).context(OPERATION)? {
            Some(row) => Tail::from_row(&row, OPERATION)?,
            None => return Err(StoreError::SessionNotFound { query: session.to_owned() }),
        };
        return match tail.missing_or_moved(session, segment, expected_len)? {
            Some(moved) => Ok(moved),
            None => Err(invalid),
        };
    }
    let batch = Batch::new(entries);
    let tail = match run_append(client, statements, now_ms, session, segment, expected_len, first_parent, &batch) {
        Ok(tail) => tail,
        Err(source) => {
            return match unique_violation(&source) {
                // Another writer took these seqs while this one waited.
                Some("entries_pkey") => {
                    let statement = statements.get(client, TAIL).context(OPERATION)?;
                    let row = client.query_one(&statement, &[&session, &segment]).context(OPERATION)?;
                    Ok(Appended::TailMoved { len: Tail::from_row(&row, OPERATION)?.len })
                }
                Some(_) => Err(entry_exists(session, &source)),
                None => Err(Error::Sql { operation: OPERATION, source }.into()),
            };
        }
    };
    if tail.first_ord.is_some() {
        return Ok(Appended::Done { first_seq: expected_len });
    }
    tail.refusal(session, segment, expected_len, entries)
}

/// Runs [`APPEND`].
#[allow(clippy::too_many_arguments)] // The statement's parameters, named.
fn run_append(
    client: &mut impl postgres::GenericClient,
    statements: &mut Statements,
    now_ms: i64,
    session: &str,
    segment: &str,
    expected_len: u64,
    expected_tail: Option<&str>,
    batch: &Batch<'_>,
) -> Result<Tail, postgres::Error> {
    let statement = statements.get(client, APPEND)?;
    let count = i64::try_from(batch.tally.message_count).unwrap_or(i64::MAX);
    let row = client.query_one(
        &statement,
        &[
            &session,
            &segment,
            &to_int(expected_len),
            &expected_tail,
            &batch.ids,
            &batch.parents,
            &batch.types,
            &batch.jsons,
            &batch.texts,
            &batch.sets_name,
            &batch.tally.name,
            &count,
            &batch.tally.first_message,
            &batch.tally.last_activity,
            &now_ms,
        ],
    )?;
    // Errors converting the row are client errors too.
    let last_seq: Option<i64> = row.try_get(2)?;
    Ok(Tail {
        session_exists: row.try_get(0)?,
        key: row.try_get(1)?,
        len: u64::try_from(last_seq.map_or(0, |s| s + 1)).unwrap_or_default(),
        last_entry: row.try_get(3)?,
        first_ord: row.try_get(4)?,
    })
}

/// [`Backend::create_segment`](sess_store::Backend::create_segment): one
/// transaction that locks the session's row first, so the checks and the
/// writes see the same session.
pub(super) fn create_segment(
    conn: &mut Connection,
    now_ms: i64,
    session: &str,
    start: &NewSegment,
    entries: &[Entry],
) -> StoreResult<SegmentInfo> {
    const OPERATION: &str = "creating a segment";
    let Connection { client, statements } = conn;
    let mut tx = client.transaction().context(OPERATION)?;
    let statement = statements.get(&mut tx, "SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE").context(OPERATION)?;
    if tx.query_opt(&statement, &[&session]).context(OPERATION)?.is_none() {
        return Err(StoreError::SessionNotFound { query: session.to_owned() });
    }
    let (parent, parent_entry) = match start {
        NewSegment::New => {
            let parent = check_new_root(entries, |parent| entry_exists_in(&mut tx, statements, session, parent))?;
            (None, parent.map(str::to_owned))
        }
        NewSegment::Fork { parent, fork_at } | NewSegment::Compact { parent, fork_at } => {
            let statement = statements
                .get(
                    &mut tx,
                    "SELECT g.key, \
                            (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1), \
                            (SELECT e.entry_id FROM entries e WHERE e.segment_key = g.key AND e.seq = $3) \
                     FROM segments g WHERE g.session_id = $1 AND g.id = $2",
                )
                .context(OPERATION)?;
            let row = tx.query_opt(&statement, &[&session, parent, &to_int(*fork_at)]).context(OPERATION)?;
            let row = row.ok_or_else(|| StoreError::SegmentNotFound { segment: parent.clone() })?;
            let key: i64 = row.try_get(0).context(OPERATION)?;
            let last_seq: Option<i64> = row.try_get(1).context(OPERATION)?;
            check_fork_point(start, from_int(last_seq.map_or(0, |s| s + 1), "entries")?)?;
            let entry: Option<String> = row.try_get(2).context(OPERATION)?;
            let entry = entry.ok_or_else(|| Error::CorruptRow {
                table: "entries",
                reason: format!("segment {parent} has a gap at seq {fork_at}"),
            })?;
            (Some((key, parent.clone(), *fork_at)), Some(entry))
        }
    };
    let origin = check_segment_entries(start, entries, parent_entry.as_deref())?;
    let id = entries.first().map(|e| e.id().to_string()).unwrap_or_default();
    let statement = statements
        .get(
            &mut tx,
            "INSERT INTO segments (session_id, id, parent_segment_key, fork_at, origin) \
             VALUES ($1, $2, $3, $4, $5) RETURNING key",
        )
        .context(OPERATION)?;
    let parent_key = parent.as_ref().map(|(key, _, _)| *key);
    let fork_at = parent.as_ref().map(|(_, _, at)| to_int(*at));
    // A unique key the new rows break means an entry (or segment) exists.
    let taken = |source: postgres::Error| -> StoreError {
        if unique_violation(&source).is_some() {
            entry_exists(session, &source)
        } else {
            Error::Sql { operation: OPERATION, source }.into()
        }
    };
    tx.query_one(&statement, &[&session, &id, &parent_key, &fork_at, &origin.as_str()]).map_err(taken)?;
    let batch = Batch::new(entries);
    let tail = run_append(&mut tx, statements, now_ms, session, &id, 0, None, &batch).map_err(taken)?;
    if tail.first_ord.is_none() {
        return Err(StoreError::Conflict { what: format!("segment {id} of session {session} changed as it was made") });
    }
    tx.commit().context(OPERATION)?;
    Ok(SegmentInfo { id, origin, parent: parent.map(|(_, parent, at)| (parent, at)), len: entries.len() as u64 })
}

fn entry_exists_in(
    tx: &mut Transaction<'_>,
    statements: &mut Statements,
    session: &str,
    id: &str,
) -> StoreResult<bool> {
    const OPERATION: &str = "looking up an entry";
    let statement = statements
        .get(tx, "SELECT EXISTS (SELECT 1 FROM entries WHERE session_id = $1 AND entry_id = $2)")
        .context(OPERATION)?;
    let row = tx.query_one(&statement, &[&session, &id]).context(OPERATION)?;
    Ok(row.try_get(0).context(OPERATION)?)
}

/// The conflict of a batch holding an id the session has (or holds twice).
fn entry_exists(session: &str, source: &postgres::Error) -> StoreError {
    let detail = source.as_db_error().and_then(|db| db.detail()).unwrap_or("an entry id is taken");
    StoreError::Conflict { what: format!("an entry of the batch exists in session {session}: {detail}") }
}
