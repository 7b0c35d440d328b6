//! Lineage queries in SQL: the adjacency list `segments.parent_segment_key`
//! walked by `WITH RECURSIVE`, one index probe per level (the primary key up,
//! `segments_by_parent` down). `crates/sess-postgres/README.md` has the
//! measurements against an ltree materialized path that made this choice.
//! Parents are created before their children (`parent_segment_key < key`), so
//! the walks always end.

use sess_store::SegmentInfo;

use super::{StoreError, StoreResult, segment_info};
use crate::error::Context;
use crate::pool::Connection;

/// The key of segment `$2` of session `$1`, and whether the session exists.
const FIND: &str = "
SELECT g.key FROM sessions s LEFT JOIN segments g ON g.session_id = s.id AND g.id = $2 WHERE s.id = $1";

/// The segments segment `$1` descends from, nearest first.
const ANCESTORS: &str = "
WITH RECURSIVE up (key, depth) AS (
    SELECT parent_segment_key, 1 FROM segments WHERE key = $1 AND parent_segment_key IS NOT NULL
    UNION ALL
    SELECT s.parent_segment_key, up.depth + 1
    FROM up JOIN segments s ON s.key = up.key
    WHERE s.parent_segment_key IS NOT NULL
)
SELECT g.id, g.origin, p.id, g.fork_at,
       (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1)
FROM up
JOIN segments g ON g.key = up.key
LEFT JOIN segments p ON p.key = g.parent_segment_key
ORDER BY up.depth";

/// The segments that descend from segment `$1`, breadth first: by depth, and
/// within a depth in the order of their paths of keys (a parent's children
/// after those of the parents before it, each family in creation order).
const DESCENDANTS: &str = "
WITH RECURSIVE down (key, depth, path) AS (
    SELECT key, 1, ARRAY[key] FROM segments WHERE parent_segment_key = $1
    UNION ALL
    SELECT s.key, down.depth + 1, down.path || s.key
    FROM down JOIN segments s ON s.parent_segment_key = down.key
)
SELECT g.id, g.origin, p.id, g.fork_at,
       (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1)
FROM down
JOIN segments g ON g.key = down.key
LEFT JOIN segments p ON p.key = g.parent_segment_key
ORDER BY down.depth, down.path";

/// [`Backend::ancestors`](sess_store::Backend::ancestors).
pub(super) fn ancestors(conn: &mut Connection, session: &str, segment: &str) -> StoreResult<Vec<SegmentInfo>> {
    walk(conn, session, segment, ANCESTORS, "reading a segment's ancestors")
}

/// [`Backend::descendants`](sess_store::Backend::descendants).
pub(super) fn descendants(conn: &mut Connection, session: &str, segment: &str) -> StoreResult<Vec<SegmentInfo>> {
    walk(conn, session, segment, DESCENDANTS, "reading a segment's descendants")
}

/// Finds the segment, then runs the walk `sql` from its key. Segments are
/// never removed, so the two statements need no shared transaction.
fn walk(
    conn: &mut Connection,
    session: &str,
    segment: &str,
    sql: &'static str,
    operation: &'static str,
) -> StoreResult<Vec<SegmentInfo>> {
    let Connection { client, statements } = conn;
    let statement = statements.get(client, FIND).context(operation)?;
    let row = client.query_opt(&statement, &[&session, &segment]).context(operation)?;
    let row = row.ok_or_else(|| StoreError::SessionNotFound { query: session.to_owned() })?;
    let key: Option<i64> = row.try_get(0).context(operation)?;
    let key = key.ok_or_else(|| StoreError::SegmentNotFound { segment: segment.to_owned() })?;
    let statement = statements.get(client, sql).context(operation)?;
    let rows = client.query(&statement, &[&key]).context(operation)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        out.extend(segment_info(row, 0, operation)?);
    }
    Ok(out)
}
