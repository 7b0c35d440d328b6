//! A first build of the catalog of 2,000 Claude Code transcripts, the workload
//! of DESIGN.md §7 (`cargo bench -p sess-catalog --bench build`): what
//! `sess index` does on an empty catalog.
//!
//! The transcripts (`sess_testkit::workload::claude_transcripts`, seed 1) are
//! written once; each run catalogs them into a new database. The size of the
//! database is printed once.
#![allow(clippy::unwrap_used, reason = "a benchmark whose input cannot be set up should stop")]
#![allow(clippy::print_stderr, reason = "the size of the catalog is worth a line")]

use std::sync::{LazyLock, Once};

use divan::Bencher;
use sess_catalog::Catalog;
mod workload;
use workload::TRANSCRIPTS;

static INPUTS: LazyLock<workload::Transcripts> = LazyLock::new(workload::write);

fn main() {
    divan::main();
}

/// `Catalog::open` and `Catalog::refresh` of every transcript into an empty
/// catalog.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn first_build(bencher: Bencher) {
    static SIZE: Once = Once::new();
    let files = &INPUTS.files;
    bencher.with_inputs(|| tempfile::tempdir().unwrap()).bench_local_values(|dir| {
        let path = dir.path().join("catalog.sqlite");
        let mut catalog = Catalog::open(&path).unwrap();
        let report = catalog.refresh(files, &mut |_| {}).unwrap();
        assert_eq!(report.added, TRANSCRIPTS);
        drop(catalog);
        SIZE.call_once(|| {
            let bytes: u64 =
                std::fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum();
            eprintln!("catalog of {TRANSCRIPTS} transcripts: {} documents, {} KiB", report.messages, bytes / 1024);
        });
        dir
    });
}
