//! Ranks texts by meaning: `nearest MODEL-DIR TEXTS.jsonl QUERY...` reads
//! `{"id", "text"}` lines, embeds each text in pieces, and prints for each
//! query the three ids whose best piece is nearest, with their similarity.
#![allow(clippy::unwrap_used, reason = "an example stops at the first problem")]
#![allow(clippy::print_stdout, reason = "an example prints its answer")]

use std::collections::BTreeMap;

use sess_embed::{CHUNK_CHARS, Model, chunks, quantize, similarity};

fn main() {
    let mut args = std::env::args().skip(1);
    let model = Model::load(std::path::Path::new(&args.next().unwrap())).unwrap();
    let texts = std::fs::read_to_string(args.next().unwrap()).unwrap();
    let mut vectors: Vec<(String, Vec<i8>)> = Vec::new();
    for line in texts.lines().filter(|l| !l.trim().is_empty()) {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let (id, text) = (value["id"].as_str().unwrap(), value["text"].as_str().unwrap());
        for piece in chunks(text, CHUNK_CHARS) {
            if let Some(vector) = model.embed(piece).unwrap() {
                vectors.push((id.to_owned(), quantize(&vector)));
            }
        }
    }
    for query in args {
        let Some(q) = model.embed(&query).unwrap().map(|v| quantize(&v)) else { continue };
        let mut best: BTreeMap<&str, f32> = BTreeMap::new();
        for (id, vector) in &vectors {
            let score = similarity(&q, vector);
            let entry = best.entry(id).or_insert(f32::MIN);
            *entry = entry.max(score);
        }
        let mut ranked: Vec<(&str, f32)> = best.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let top: Vec<String> = ranked.iter().take(3).map(|(id, s)| format!("{id} {s:.2}")).collect();
        println!("{query}\t{}", top.join("\t"));
    }
}
