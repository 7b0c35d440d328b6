//! Append throughput: batched [`Backend::append`] calls against raw binary
//! `COPY` of the same rows into the same `entries` table.
//!
//! ```text
//! cargo run --release -p sess-postgres --example append_bench -- postgres://postgres@127.0.0.1:5432/test
//! ```
//!
//! Each run gets a fresh schema (`sess_bench_append_<run>`, dropped after) and
//! writes 200,000 entries of about 500 bytes (assistant messages) after one
//! first entry: appends of 100 entries per call, one writer, with
//! `synchronous_commit` on and off (and 1,000 per call); four writers on four
//! sessions; and `COPY`
//! of the same rows, once as one statement and once per 100 rows with a commit
//! each. Appends also keep the session's listing totals and message texts,
//! which `COPY` does not.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used, missing_docs)]
// Benchmark sizes are far below every limit; the casts are deliberate.
#![allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation, clippy::cast_sign_loss)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::{Client, NoTls};
use sess_core::{Entry, SessionHeader};
use sess_postgres::{PostgresBackend, SynchronousCommit};
use sess_store::{Appended, Backend, NewSegment};

const BATCH: usize = 100;
const CALLS: usize = 2_000;

/// About 500 bytes, like an assistant turn.
fn entry(id: &str, parent: &str, n: usize) -> String {
    let text = format!("step {n}: ").repeat(4) + &"lorem ipsum dolor sit amet, ".repeat(12);
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"provider":"p","model":"m","timestamp":1767225601000}}}}"#
    )
}

/// The first entry and `CALLS * BATCH` more, each under the previous, ids
/// prefixed with `prefix`.
fn entries(prefix: &str) -> Vec<Entry> {
    let first =
        format!(r#"{{"type":"message","id":"{prefix}0","parentId":null,"message":{{"role":"user","content":"go"}}}}"#);
    let mut out = vec![Entry::parse(&first).unwrap()];
    for n in 1..=CALLS * BATCH {
        out.push(Entry::parse(&entry(&format!("{prefix}{n}"), &format!("{prefix}{}", n - 1), n)).unwrap());
    }
    out
}

/// A fresh schema's URL, its name, and a client on it.
fn fresh(server: &str, run: &str) -> (String, String, Client) {
    let schema = format!("sess_bench_append_{run}");
    let mut admin = Client::connect(server, NoTls).unwrap();
    admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).unwrap();
    let url = format!("{server}{}options=-csearch_path%3D{schema}", if server.contains('?') { '&' } else { '?' });
    let client = Client::connect(&url, NoTls).unwrap();
    (url, schema, client)
}

fn drop_schema(server: &str, schema: &str) {
    Client::connect(server, NoTls).unwrap().batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).unwrap();
}

/// A session `session` whose one segment holds `first`.
fn start(backend: &PostgresBackend, session: &str, first: &Entry) {
    backend.create_session(&SessionHeader::new(session, "2026-01-01T00:00:00.000Z", "/b", None), None).unwrap();
    backend.create_segment(session, &NewSegment::New, std::slice::from_ref(first)).unwrap();
}

/// Appends of `batch` entries each; the time they took.
fn append_all(backend: &PostgresBackend, session: &str, entries: &[Entry], batch: usize) -> Duration {
    let segment = entries[0].id().to_string();
    let started = Instant::now();
    for (call, batch_entries) in entries[1..].chunks(batch).enumerate() {
        let expected = (1 + call * batch) as u64;
        let batch = batch_entries;
        assert_eq!(backend.append(session, &segment, expected, batch).unwrap(), Appended::Done { first_seq: expected });
    }
    started.elapsed()
}

fn appends(server: &str, run: &str, synchronous_commit: SynchronousCommit, batch: usize) -> Duration {
    let (url, schema, _) = fresh(server, run);
    let backend = PostgresBackend::builder().synchronous_commit(synchronous_commit).connect(&url).unwrap();
    let entries = entries("e");
    start(&backend, "s", &entries[0]);
    let took = append_all(&backend, "s", &entries, batch);
    drop(backend);
    drop_schema(server, &schema);
    took
}

/// Four writers, each appending to its own session.
fn four_writers(server: &str) -> Duration {
    let (url, schema, _) = fresh(server, "four");
    let backend = Arc::new(PostgresBackend::builder().pool_size(4).connect(&url).unwrap());
    let all: Vec<Vec<Entry>> = (0..4).map(|w| entries(&format!("w{w}-"))).collect();
    for (w, entries) in all.iter().enumerate() {
        start(&backend, &format!("s{w}"), &entries[0]);
    }
    let started = Instant::now();
    std::thread::scope(|scope| {
        for (w, entries) in all.iter().enumerate() {
            let backend = backend.clone();
            scope.spawn(move || append_all(&backend, &format!("s{w}"), entries, BATCH));
        }
    });
    let took = started.elapsed();
    drop(backend);
    drop_schema(server, &schema);
    took
}

/// The same rows by binary `COPY` into `entries`, in chunks of `chunk` rows,
/// each in its own transaction.
fn copy(server: &str, run: &str, chunk: usize) -> Duration {
    let (url, schema, mut client) = fresh(server, run);
    let backend = PostgresBackend::connect(&url).unwrap();
    let entries = entries("e");
    start(&backend, "s", &entries[0]);
    let key: i64 = client.query_one("SELECT key FROM segments", &[]).unwrap().get(0);
    let types = [Type::INT8, Type::INT8, Type::TEXT, Type::INT8, Type::TEXT, Type::TEXT, Type::TEXT, Type::TEXT];
    let started = Instant::now();
    for (c, rows) in entries[1..].chunks(chunk).enumerate() {
        let mut tx = client.transaction().unwrap();
        let sink = tx
            .copy_in(
                "COPY entries (segment_key, seq, session_id, ord, entry_id, parent_id, type, json) \
                 FROM STDIN (FORMAT binary)",
            )
            .unwrap();
        let mut writer = BinaryCopyInWriter::new(sink, &types);
        for (i, entry) in rows.iter().enumerate() {
            let seq = (1 + c * chunk + i) as i64;
            let parent = entry.parent_id().map(sess_core::EntryId::as_str);
            writer
                .write(&[&key, &seq, &"s", &seq, &entry.id().as_str(), &parent, &entry.type_name(), &entry.json()])
                .unwrap();
        }
        writer.finish().unwrap();
        tx.commit().unwrap();
    }
    let took = started.elapsed();
    drop(backend);
    drop_schema(server, &schema);
    took
}

fn main() {
    let server = std::env::args().nth(1).unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let rows = (CALLS * BATCH) as f64;
    let bytes = entries("e").iter().skip(1).map(|e| e.json().len()).sum::<usize>() as f64 / rows;
    println!("{} rows of {bytes:.0} bytes of JSON each", CALLS * BATCH);
    let copy_one = copy(server.as_str(), "copy", CALLS * BATCH);
    let copy_rate = rows / copy_one.as_secs_f64();
    let results = [
        ("COPY, one statement (binary)", copy_one, rows),
        ("COPY per 100 rows, a commit each", copy(&server, "copy_chunks", BATCH), rows),
        ("append, 100 per call, synchronous_commit on", appends(&server, "on", SynchronousCommit::On, BATCH), rows),
        ("append, 100 per call, synchronous_commit off", appends(&server, "off", SynchronousCommit::Off, BATCH), rows),
        (
            "append, 1000 per call, synchronous_commit on",
            appends(&server, "big", SynchronousCommit::On, 10 * BATCH),
            rows,
        ),
        ("append, 100 per call, 4 writers on 4 sessions (sync on)", four_writers(&server), rows * 4.0),
    ];
    println!();
    println!("| method | rows | time | rows/s | vs one COPY |");
    println!("|---|---|---|---|---|");
    for (method, took, rows) in results {
        let rate = rows / took.as_secs_f64();
        println!(
            "| {method} | {rows:.0} | {:.2} s | {rate:.0} | {:.0}% |",
            took.as_secs_f64(),
            100.0 * rate / copy_rate
        );
    }
}
