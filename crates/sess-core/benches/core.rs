//! The hot paths of `sess-core` on generated sessions (`cargo bench -p sess-core`):
//! line reading, context rebuild, segment derivation and migrations v1/v2 → v3.
//!
//! Inputs come from `sess_testkit::workload` (seeded, so every run reads the
//! same bytes) and are a few megabytes, so the whole suite takes seconds.
//! Whole-command comparisons with the peer are `bench/compare`'s job.
#![allow(clippy::unwrap_used, reason = "a benchmark whose input cannot be set up should stop")]

use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use sess_core::{EntryIndex, Leaf, ReadOutcome, context, read, segment};
use sess_testkit::workload::pi_session;

/// Session sizes, in bytes.
const SIZES: &[usize] = &[1_000_000, 4_000_000];

static SESSIONS: LazyLock<Vec<String>> = LazyLock::new(|| SIZES.iter().map(|&size| pi_session(size, 1)).collect());

fn session(size: usize) -> &'static str {
    &SESSIONS[SIZES.iter().position(|&s| s == size).unwrap()]
}

fn parse(text: &str) -> ReadOutcome {
    read(text.as_bytes())
}

fn main() {
    divan::main();
}

/// `sess_core::read`: every line through the lenient reader into entries.
#[divan::bench(args = SIZES)]
fn read_lines(bencher: Bencher, size: usize) {
    let text = session(size);
    bencher.counter(BytesCount::of_str(text)).bench(|| parse(divan::black_box(text)));
}

/// Index the entries and rebuild the context at the last entry (what `sess
/// context` does after reading).
#[divan::bench(args = SIZES)]
fn context_at_leaf(bencher: Bencher, size: usize) {
    let outcome = parse(session(size));
    let entries = outcome.file.entries();
    bencher.bench(|| {
        let index = EntryIndex::new(entries);
        context::build(entries, &index, Leaf::Last)
    });
}

/// The context serialised as `sess context` prints it.
#[divan::bench(args = SIZES)]
fn context_to_json(bencher: Bencher, size: usize) {
    let outcome = parse(session(size));
    let entries = outcome.file.entries();
    let ctx = context::build(entries, &EntryIndex::new(entries), Leaf::Last);
    bencher.bench(|| serde_json::to_string(&ctx).unwrap());
}

/// `segment::derive` over every entry.
#[divan::bench(args = SIZES)]
fn segments(bencher: Bencher, size: usize) {
    let outcome = parse(session(size));
    let entries = outcome.file.entries();
    bencher.bench(|| segment::derive(entries));
}

/// Reading a v2 file (the v2 → v3 step: every line parsed to a value, hook
/// messages renamed, changed lines re-serialised).
#[divan::bench(args = SIZES)]
fn migrate_v2(bencher: Bencher, size: usize) {
    let text = session(size).replacen("\"version\":3", "\"version\":2", 1);
    bencher.counter(BytesCount::of_str(&text)).bench(|| parse(divan::black_box(&text)));
}

/// Reading a v1 file (no `version`: every entry gets a new id and the previous
/// entry as its parent, then v2 → v3; every line is re-serialised).
#[divan::bench(args = SIZES)]
fn migrate_v1(bencher: Bencher, size: usize) {
    let text = session(size).replacen("\"version\":3,", "", 1);
    bencher.counter(BytesCount::of_str(&text)).bench(|| parse(divan::black_box(&text)));
}
