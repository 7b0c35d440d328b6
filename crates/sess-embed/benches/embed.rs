//! Embedding throughput (`cargo bench -p sess-embed`): the repository's
//! README and docs (technical English, as agents' messages are), in pieces
//! of at most `CHUNK_CHARS`, embedded with the model of
//! `SESS_TEST_EMBED_MODEL` (`scripts/embed-model` fetches `wordllama`'s) on
//! one thread. The MB/s of the first run is printed once; without a model
//! the benchmark says so and measures nothing.
#![allow(clippy::unwrap_used, reason = "a benchmark whose input cannot be set up should stop")]
#![allow(clippy::print_stderr, reason = "the throughput is worth a line")]

use std::sync::{LazyLock, Once};
use std::time::Instant;

use divan::Bencher;
use sess_embed::{CHUNK_CHARS, Model, chunks, quantize};

/// The model, when one is set.
static MODEL: LazyLock<Option<Model>> = LazyLock::new(|| {
    let dir = std::env::var_os("SESS_TEST_EMBED_MODEL")?;
    Some(Model::load(std::path::Path::new(&dir)).unwrap())
});

/// The text: README.md and docs/*.md.
static TEXT: LazyLock<String> = LazyLock::new(|| {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut text = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs")).unwrap().flatten().map(|e| e.path()).collect();
    docs.sort();
    for doc in docs.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        text.push_str(&std::fs::read_to_string(doc).unwrap());
    }
    text
});

fn main() {
    divan::main();
}

/// Every piece of the text embedded and quantized.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn embed_docs(bencher: Bencher) {
    static SAID: Once = Once::new();
    let Some(model) = MODEL.as_ref() else {
        SAID.call_once(|| eprintln!("sess-embed bench: SESS_TEST_EMBED_MODEL is not set (run scripts/embed-model)"));
        return;
    };
    let pieces = chunks(&TEXT, CHUNK_CHARS);
    bencher.bench_local(|| {
        let started = Instant::now();
        let vectors: usize = pieces.iter().filter_map(|piece| model.embed(piece).unwrap()).map(|v| quantize(&v).len()).sum();
        SAID.call_once(|| {
            #[allow(clippy::cast_precision_loss, reason = "a rate to print")]
            let megabytes = TEXT.len() as f64 / 1e6;
            let seconds = started.elapsed().as_secs_f64();
            eprintln!(
                "sess-embed: {} pieces, {megabytes:.2} MB of text in {seconds:.3} s: {:.1} MB/s on one thread ({vectors} bytes of vectors)",
                pieces.len(),
                megabytes / seconds
            );
        });
        divan::black_box(vectors)
    });
}
