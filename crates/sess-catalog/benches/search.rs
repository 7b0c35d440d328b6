//! Search and refresh over the catalog of 2,000 Claude Code transcripts, the
//! workload of DESIGN.md §7 (`cargo bench -p sess-catalog`).
//!
//! The transcripts (`sess_testkit::workload::claude_transcripts`, seed 1) are
//! written and cataloged once; each bench then runs against that catalog.
//! Their prose comes from a vocabulary of about eighty words, so a one-word
//! query matches most messages: `common_word` is the worst case for ranking.
#![allow(clippy::unwrap_used, reason = "a benchmark whose input cannot be set up should stop")]
#![allow(clippy::print_stderr, reason = "the size of the workload is worth a line")]

use std::sync::{LazyLock, Mutex};

use divan::Bencher;
use sess_catalog::{Catalog, SearchParams};

mod workload;
use workload::TRANSCRIPTS;

/// Queries, from the worst case (a word in most messages) to a rare one.
const QUERIES: &[&str] = &["error", "\"session file\"", "pars*", "parser NOT config", "zebra"];

struct Inputs {
    transcripts: workload::Transcripts,
    catalog: Mutex<Catalog>,
}

static INPUTS: LazyLock<Inputs> = LazyLock::new(|| {
    let transcripts = workload::write();
    let dir = transcripts.dir.path();
    let mut catalog = Catalog::open(dir.join("catalog.sqlite")).unwrap();
    let report = catalog.refresh(&transcripts.files, &mut |_| {}).unwrap();
    assert_eq!(report.added, TRANSCRIPTS);
    eprintln!("catalog of {TRANSCRIPTS} transcripts: {} messages indexed", report.messages);
    Inputs { transcripts, catalog: Mutex::new(catalog) }
});

fn main() {
    divan::main();
}

/// `Catalog::search` with 20 hits, snippets included.
#[divan::bench(args = QUERIES)]
fn search(bencher: Bencher, query: &str) {
    let catalog = INPUTS.catalog.lock().unwrap();
    let params = SearchParams::new(query);
    bencher.bench_local(|| catalog.search(&params).unwrap());
}

/// `Catalog::search` in one project's sessions (a hundredth of them), as
/// `sess search` does by default.
#[divan::bench(args = ["error", "pars*"])]
fn search_in_project(bencher: Bencher, query: &str) {
    let catalog = INPUTS.catalog.lock().unwrap();
    let cwd = catalog.projects().unwrap()[0].cwd.clone();
    let params = SearchParams { cwd: Some(cwd), ..SearchParams::new(query) };
    bencher.bench_local(|| catalog.search(&params).unwrap());
}

/// `Catalog::refresh` when no file changed: one `stat` per file.
#[divan::bench]
fn refresh_unchanged(bencher: Bencher) {
    let mut catalog = INPUTS.catalog.lock().unwrap();
    bencher.bench_local(|| {
        let report = catalog.refresh(&INPUTS.transcripts.files, &mut |_| {}).unwrap();
        assert_eq!(report.unchanged, TRANSCRIPTS);
    });
}
