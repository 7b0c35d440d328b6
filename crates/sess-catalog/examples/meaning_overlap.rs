//! How near the first pass of a search by meaning (the bits, then the int8
//! vectors of the documents they pass on) comes to the int8 scan of every
//! vector, over a catalog: `meaning_overlap CATALOG MODEL-DIR [QUERIES.json]`
//! runs the queries of `bench/meaning/queries.json` both ways and prints
//! how many of the exact ten best sessions the search finds, how often it
//! finds the same best one, and the time of each.
#![allow(clippy::unwrap_used, reason = "an example stops at the first problem")]
#![allow(clippy::print_stdout, reason = "an example prints its answer")]

use std::time::{Duration, Instant};

use sess_catalog::{Catalog, SearchParams};

fn main() {
    let mut args = std::env::args().skip(1);
    let catalog = Catalog::open(std::path::PathBuf::from(args.next().unwrap())).unwrap();
    let model = sess_embed::Model::load(std::path::Path::new(&args.next().unwrap())).unwrap();
    let queries = args.next().unwrap_or_else(|| "bench/meaning/queries.json".to_owned());
    let queries: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(queries).unwrap()).unwrap();
    let (mut shared, mut total, mut same_first, mut count) = (0, 0, 0, 0_u32);
    let (mut fast_time, mut exact_time) = (Duration::ZERO, Duration::ZERO);
    for query in queries["queries"].as_array().unwrap() {
        let text = query["query"].as_str().unwrap();
        let Some(vector) = model.embed(text).unwrap() else { continue };
        let vector = sess_embed::quantize(&vector);
        let params = SearchParams { limit: 10, ..SearchParams::new(text) };
        let started = Instant::now();
        let fast: Vec<i64> = catalog.search_meaning(&vector, &params).unwrap().iter().map(|h| h.session.key).collect();
        fast_time += started.elapsed();
        let started = Instant::now();
        let exact: Vec<i64> =
            catalog.search_meaning_exact(&vector, &params).unwrap().iter().map(|h| h.session.key).collect();
        exact_time += started.elapsed();
        shared += fast.iter().filter(|key| exact.contains(key)).count();
        total += exact.len();
        same_first += usize::from(fast.first() == exact.first());
        count += 1;
    }
    println!(
        "of the exact 10 best: {shared}/{total} found; the same best: {same_first}/{count}; \
         per query: {:?} (bits, then int8) vs {:?} (every int8 vector)",
        fast_time / count.max(1),
        exact_time / count.max(1)
    );
}
