//! Lineage queries two ways, on the backend's own tables: (a) the adjacency
//! list `parent_segment_key` walked by `WITH RECURSIVE` (what the backend
//! runs), and (b) an ltree materialized path `lineage_path` (seed 001) with
//! compact labels — each segment's key in base 36 — under a `GiST` index.
//!
//! ```text
//! cargo run --release -p sess-postgres --example lineage_bench -- postgres://postgres@127.0.0.1:5432/test
//! ```
//!
//! It builds schema `sess_bench_lineage` (dropped first, and at the end):
//! 1,000 sessions whose 200 segments form one chain (depth 200), and 1,000
//! sessions whose 200 segments form a random tree (each segment under a
//! random earlier one: wide and shallow); one entry per segment. Then it times
//! each query shape on random segments, and tries a `GiST` index over paths of
//! 32-character labels (entry ids without hyphens) on 100 of the chains.
//! Needs the `ltree` extension (it is created if missing).

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used, missing_docs)]
// Benchmark sizes are far below every limit; the casts are deliberate.
#![allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation, clippy::cast_sign_loss)]

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::{Client, NoTls};
use sess_postgres::PostgresBackend;
use sess_store::Backend;

const SCHEMA: &str = "sess_bench_lineage";
const SESSIONS: usize = 1_000;
const SEGMENTS: usize = 200;
const QUERIES: usize = 300;

/// The backend's ancestors query, returning what it returns.
const CTE_ANCESTORS: &str = "
WITH RECURSIVE up (key, depth) AS (
    SELECT parent_segment_key, 1 FROM segments WHERE key = $1 AND parent_segment_key IS NOT NULL
    UNION ALL
    SELECT s.parent_segment_key, up.depth + 1 FROM up JOIN segments s ON s.key = up.key
    WHERE s.parent_segment_key IS NOT NULL
)
SELECT g.id, g.origin, p.id, g.fork_at,
       (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1)
FROM up JOIN segments g ON g.key = up.key LEFT JOIN segments p ON p.key = g.parent_segment_key
ORDER BY up.depth";

/// The backend's descendants query.
const CTE_DESCENDANTS: &str = "
WITH RECURSIVE down (key, depth, path) AS (
    SELECT key, 1, ARRAY[key] FROM segments WHERE parent_segment_key = $1
    UNION ALL
    SELECT s.key, down.depth + 1, down.path || s.key FROM down JOIN segments s ON s.parent_segment_key = down.key
)
SELECT g.id, g.origin, p.id, g.fork_at,
       (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1)
FROM down JOIN segments g ON g.key = down.key LEFT JOIN segments p ON p.key = g.parent_segment_key
ORDER BY down.depth, down.path";

/// The same rows through the ltree path: ancestors are the paths that contain
/// this one (`@>`), nearest first.
const LTREE_ANCESTORS: &str = "
SELECT g.id, g.origin, p.id, g.fork_at,
       (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1)
FROM segments g LEFT JOIN segments p ON p.key = g.parent_segment_key
WHERE g.lineage_path @> (SELECT lineage_path FROM segments WHERE key = $1) AND g.key <> $1
ORDER BY nlevel(g.lineage_path) DESC";

/// Descendants through the path (`<@`), breadth first as the backend orders them.
const LTREE_DESCENDANTS: &str = "
SELECT g.id, g.origin, p.id, g.fork_at,
       (SELECT e.seq FROM entries e WHERE e.segment_key = g.key ORDER BY e.seq DESC LIMIT 1)
FROM segments g LEFT JOIN segments p ON p.key = g.parent_segment_key
WHERE g.lineage_path <@ (SELECT lineage_path FROM segments WHERE key = $1) AND g.key <> $1
ORDER BY nlevel(g.lineage_path), g.lineage_path";

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap()
}

/// One generated segment.
struct Row {
    key: i64,
    session: String,
    parent: Option<i64>,
    path: String,
    depth: usize,
}

/// The sessions' segments: for each session, `parent_of(i)` is the index of
/// segment `i`'s parent (`None` for the root).
fn generate(first_key: i64, prefix: &str, parent_of: &mut dyn FnMut(usize) -> Option<usize>) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::with_capacity(SESSIONS * SEGMENTS);
    let mut key = first_key;
    for s in 0..SESSIONS {
        let base = rows.len();
        for i in 0..SEGMENTS {
            let parent = parent_of(i).map(|p| base + p);
            let (path, depth) = match parent {
                Some(p) => (format!("{}.{}", rows[p].path, base36(key as u64)), rows[p].depth + 1),
                None => (base36(key as u64), 1),
            };
            rows.push(Row { key, session: format!("{prefix}{s}"), parent: parent.map(|p| rows[p].key), path, depth });
            key += 1;
        }
    }
    rows
}

fn load(client: &mut Client, rows: &[Row]) {
    let mut sessions: Vec<&str> = rows.iter().map(|r| r.session.as_str()).collect();
    sessions.dedup();
    let header = r#"{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/b"}"#;
    let mut tx = client.transaction().unwrap();
    let copy = tx.copy_in("COPY sessions (id, header, updated_ms, next_ord) FROM STDIN (FORMAT binary)").unwrap();
    let mut writer = BinaryCopyInWriter::new(copy, &[Type::TEXT, Type::TEXT, Type::INT8, Type::INT8]);
    for session in &sessions {
        writer.write(&[session, &header, &0_i64, &(SEGMENTS as i64)]).unwrap();
    }
    writer.finish().unwrap();
    let copy = tx
        .copy_in(
            "COPY segments (key, session_id, id, parent_segment_key, fork_at, origin, lineage_path) \
             FROM STDIN (FORMAT text)",
        )
        .unwrap();
    let mut text = String::new();
    for row in rows {
        let (parent, fork_at, origin) = match row.parent {
            Some(p) => (p.to_string(), "0".to_owned(), "fork"),
            None => ("\\N".to_owned(), "\\N".to_owned(), "new"),
        };
        writeln!(text, "{}\t{}\tg{}\t{parent}\t{fork_at}\t{origin}\t{}", row.key, row.session, row.key, row.path)
            .unwrap();
    }
    let mut copy = copy;
    std::io::Write::write_all(&mut copy, text.as_bytes()).unwrap();
    copy.finish().unwrap();
    let copy = tx
        .copy_in(
            "COPY entries (segment_key, seq, session_id, ord, entry_id, parent_id, type, json) \
             FROM STDIN (FORMAT binary)",
        )
        .unwrap();
    let types = [Type::INT8, Type::INT8, Type::TEXT, Type::INT8, Type::TEXT, Type::TEXT, Type::TEXT, Type::TEXT];
    let mut writer = BinaryCopyInWriter::new(copy, &types);
    for (i, row) in rows.iter().enumerate() {
        let id = format!("g{}", row.key);
        let json =
            format!(r#"{{"type":"message","id":"{id}","parentId":null,"message":{{"role":"user","content":"x"}}}}"#);
        let ord = (i % SEGMENTS) as i64;
        writer.write(&[&row.key, &0_i64, &row.session, &ord, &id, &None::<&str>, &"message", &json]).unwrap();
    }
    writer.finish().unwrap();
    tx.commit().unwrap();
}

/// Times `sql` on each key; the mean and 95th percentile, and the mean rows.
fn time(client: &mut Client, sql: &str, keys: &[i64]) -> (Duration, Duration, f64) {
    let statement = client.prepare(sql).unwrap();
    for key in keys.iter().take(20) {
        client.query(&statement, &[key]).unwrap();
    }
    let mut times = Vec::with_capacity(keys.len());
    let mut rows = 0;
    for key in keys {
        let started = Instant::now();
        rows += client.query(&statement, &[key]).unwrap().len();
        times.push(started.elapsed());
    }
    times.sort();
    let mean = times.iter().sum::<Duration>() / u32::try_from(times.len()).unwrap();
    (mean, times[times.len() * 95 / 100], rows as f64 / keys.len() as f64)
}

fn relation_size(client: &mut Client, relation: &str) -> String {
    client.query_one("SELECT pg_size_pretty(pg_relation_size($1::text::regclass))", &[&relation]).unwrap().get(0)
}

fn main() {
    let server = std::env::args().nth(1).unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let url = format!("{server}{}options=-csearch_path%3D{SCHEMA}", if server.contains('?') { '&' } else { '?' });
    let mut admin = Client::connect(&server, NoTls).unwrap();
    admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")).unwrap();
    admin.batch_execute("CREATE EXTENSION IF NOT EXISTS ltree").unwrap();
    let ltree_schema: String = admin
        .query_one("SELECT n.nspname::text FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'ltree'", &[])
        .unwrap()
        .get(0);
    let backend = PostgresBackend::connect(&url).unwrap();
    let mut client = Client::connect(&server, NoTls).unwrap();
    client.batch_execute(&format!("SET search_path = {SCHEMA}, {ltree_schema}")).unwrap();
    client.batch_execute("ALTER TABLE segments ADD COLUMN lineage_path ltree").unwrap();

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let chains = generate(1, "chain-", &mut |i| i.checked_sub(1));
    let first = (SESSIONS * SEGMENTS + 1) as i64;
    let trees = generate(first, "tree-", &mut |i| (i > 0).then(|| rng.below(i)));
    let started = Instant::now();
    load(&mut client, &chains);
    load(&mut client, &trees);
    client
        .batch_execute(
            "SELECT setval(pg_get_serial_sequence('segments', 'key'), (SELECT max(key) FROM segments)); ANALYZE",
        )
        .unwrap();
    let max_depth = trees.iter().map(|r| r.depth).max().unwrap_or(0);
    let mean_depth = trees.iter().map(|r| r.depth).sum::<usize>() as f64 / trees.len() as f64;
    let longest = chains.iter().chain(&trees).map(|r| r.path.len()).max().unwrap_or(0);
    println!(
        "loaded {} segments in {:.1?} (chains: depth {SEGMENTS}; random trees: depth ≤ {max_depth}, mean {mean_depth:.1}; longest path {longest} chars)",
        chains.len() + trees.len(),
        started.elapsed()
    );

    let started = Instant::now();
    let gist = client.batch_execute("CREATE INDEX segments_lineage ON segments USING gist (lineage_path)");
    match &gist {
        Ok(()) => println!(
            "GiST over base-36 labels: built in {:.1?}; {} (the segments heap: {}; its primary key: {})",
            started.elapsed(),
            relation_size(&mut client, "segments_lineage"),
            relation_size(&mut client, "segments"),
            relation_size(&mut client, "segments_pkey")
        ),
        Err(e) => println!("GiST over base-36 labels: FAILED after {:.1?}: {e}", started.elapsed()),
    }
    client.batch_execute("ANALYZE segments").unwrap();

    // Random segments: the chains' leaves (depth 200) and midpoints, the trees' leaves and roots.
    let pick = |rows: &[Row], rng: &mut Rng, filter: &dyn Fn(&Row) -> bool| -> Vec<i64> {
        let candidates: Vec<i64> = rows.iter().filter(|r| filter(r)).map(|r| r.key).collect();
        (0..QUERIES).map(|_| candidates[rng.below(candidates.len())]).collect()
    };
    let chain_leaves = pick(&chains, &mut rng, &|r| r.depth == SEGMENTS);
    let chain_roots = pick(&chains, &mut rng, &|r| r.depth == 1);
    let chain_middles = pick(&chains, &mut rng, &|r| r.depth == SEGMENTS / 2);
    let tree_deepest: Vec<i64> = {
        let deep = max_depth.saturating_sub(2).max(1);
        pick(&trees, &mut rng, &|r| r.depth >= deep)
    };
    let tree_roots = pick(&trees, &mut rng, &|r| r.depth == 1);
    let tree_any = pick(&trees, &mut rng, &|_| true);

    println!();
    println!("| query | segments | (a) WITH RECURSIVE mean / p95 | (b) ltree + GiST mean / p95 | rows |");
    println!("|---|---|---|---|---|");
    let cases: [(&str, &str, &str, &str, &[i64]); 6] = [
        ("ancestors", "chain leaf (depth 200)", CTE_ANCESTORS, LTREE_ANCESTORS, &chain_leaves),
        ("descendants", "chain root (199 below)", CTE_DESCENDANTS, LTREE_DESCENDANTS, &chain_roots),
        ("descendants", "chain middle (100 below)", CTE_DESCENDANTS, LTREE_DESCENDANTS, &chain_middles),
        ("ancestors", "deepest tree segments", CTE_ANCESTORS, LTREE_ANCESTORS, &tree_deepest),
        ("descendants", "tree root (199 below)", CTE_DESCENDANTS, LTREE_DESCENDANTS, &tree_roots),
        ("descendants", "random tree segment", CTE_DESCENDANTS, LTREE_DESCENDANTS, &tree_any),
    ];
    for (query, segments, cte, ltree, keys) in cases {
        let (a_mean, a_p95, a_rows) = time(&mut client, cte, keys);
        let (b_mean, b_p95, b_rows) = time(&mut client, ltree, keys);
        assert!((a_rows - b_rows).abs() < f64::EPSILON, "both ways find the same segments");
        println!("| {query} | {segments} | {a_mean:.2?} / {a_p95:.2?} | {b_mean:.2?} / {b_p95:.2?} | {a_rows:.1} |");
    }

    check_plans(&mut client, chain_middles[0]);

    // The real call, round trips and all, for scale.
    let session_of = |key: i64| chains.iter().chain(&trees).find(|r| r.key == key).map(|r| r.session.clone()).unwrap();
    let calls: Vec<(String, String)> =
        chain_leaves.iter().take(100).map(|&k| (session_of(k), format!("g{k}"))).collect();
    let started = Instant::now();
    for (session, segment) in &calls {
        assert_eq!(backend.ancestors(session, segment).unwrap().len(), SEGMENTS - 1);
    }
    println!();
    println!("Backend::ancestors of a chain leaf, whole call: {:.2?} each", started.elapsed() / 100);
    let calls: Vec<(String, String)> =
        chain_roots.iter().take(100).map(|&k| (session_of(k), format!("g{k}"))).collect();
    let started = Instant::now();
    for (session, segment) in &calls {
        assert_eq!(backend.descendants(session, segment).unwrap().len(), SEGMENTS - 1);
    }
    println!("Backend::descendants of a chain root, whole call: {:.2?} each", started.elapsed() / 100);

    long_labels(&mut client);
    drop(backend);
    admin.batch_execute(&format!("DROP SCHEMA {SCHEMA} CASCADE")).unwrap();
}

/// Paths of long labels: 28 `f`s and the base-36 key, up to 32 characters (as
/// long as an entry id without its hyphens), on 100 of the chains; whether a
/// `GiST` index over them builds, whole and partial.
fn long_labels(client: &mut Client) {
    client
        .batch_execute(
            "CREATE TABLE long_labels AS \
             SELECT key, text2ltree(regexp_replace(ltree2text(lineage_path), '([0-9a-z]+)', \
                    repeat('f', 28) || '\\1', 'g')) AS path \
             FROM segments WHERE session_id IN (SELECT 'chain-' || n FROM generate_series(0, 99) n)",
        )
        .unwrap();
    let longest: i32 = client.query_one("SELECT max(length(ltree2text(path))) FROM long_labels", &[]).unwrap().get(0);
    let started = Instant::now();
    match client.batch_execute("CREATE INDEX long_labels_path ON long_labels USING gist (path)") {
        Ok(()) => println!(
            "GiST over 32-character labels (100 chains, paths ≤ {longest} chars): built in {:.1?}",
            started.elapsed()
        ),
        Err(e) => println!(
            "GiST over 32-character labels (100 chains, paths ≤ {longest} chars): FAILED after {:.1?}: {}",
            started.elapsed(),
            e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_owned())
        ),
    }
    for depth in [30, 60, 70, 100] {
        let sql =
            format!("CREATE INDEX long_labels_{depth} ON long_labels USING gist (path) WHERE nlevel(path) <= {depth}");
        let verdict = match client.batch_execute(&sql) {
            Ok(()) => "builds".to_owned(),
            Err(e) => format!("fails: {}", e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_owned())),
        };
        println!("  partial GiST over paths of ≤ {depth} such labels: {verdict}");
    }
}

/// Whether the ltree queries' plans use the `GiST` index (they should, or the
/// comparison is unfair to them).
fn check_plans(client: &mut Client, key: i64) {
    for (name, sql) in [("ancestors", LTREE_ANCESTORS), ("descendants", LTREE_DESCENDANTS)] {
        let explain = format!("EXPLAIN {}", sql.replace("$1", &key.to_string()));
        let plan: Vec<String> = client.query(explain.as_str(), &[]).unwrap().iter().map(|r| r.get(0)).collect();
        let uses = plan.iter().any(|line| line.contains("segments_lineage"));
        println!("ltree {name} plan uses the GiST index: {uses}");
    }
}
