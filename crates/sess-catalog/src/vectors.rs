//! The vectors of search by meaning: every document of the conversation and
//! of tools embedded with a model (`sess_embed`), in pieces, kept as int8 in
//! `doc_vectors` and as sign bits in `doc_bits` (the first pass of a search,
//! [`Catalog::search_meaning`]). Made after a refresh, for the documents that
//! have none ([`Catalog::embed`]), so a refresh costs the same with or
//! without a model; a document a refresh replaces loses its vectors with it.
//! Vectors made with another model are dropped first.

use std::num::NonZeroUsize;

use rusqlite::params;
use sess_embed::{CHUNK_CHARS, Model, binarize, chunks, quantize};

use crate::catalog::Catalog;
use crate::error::Result;

/// The documents with no vector yet: those past the last one embedded.
/// Documents are embedded in the order of their ids, and a refresh gives
/// the documents it writes ids past every other (SQLite's rowids: one past
/// the largest), so every document up to the last with a vector has one;
/// this is a range of the primary key, not a scan of every document.
const PENDING: &str = "d.id > (SELECT coalesce(max(doc), 0) FROM doc_vectors) AND d.role <> 'title'";

/// Documents embedded per transaction.
const BATCH: usize = 512;

/// What [`Catalog::embed`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmbedReport {
    /// Documents embedded.
    pub documents: usize,
    /// Vectors made (a long document has several).
    pub vectors: usize,
    /// Bytes of text embedded.
    pub bytes: usize,
    /// Whether the vectors of another model were dropped first.
    pub dropped: bool,
}

impl Catalog {
    /// Embeds with `model` every document that has no vector yet, a batch at
    /// a time, telling `progress` the documents done and those in all; drops
    /// the vectors another model made first.
    pub fn embed(&mut self, model: &Model, progress: &mut dyn FnMut(usize, usize)) -> Result<EmbedReport> {
        let mut report = EmbedReport::default();
        let id = model.id();
        let tx = self.conn.transaction()?;
        let made_with: Option<String> =
            tx.query_row("SELECT value FROM meta WHERE key = 'model'", [], |row| row.get(0)).ok();
        if made_with.as_deref() != Some(id.as_str()) {
            report.dropped = tx.execute("DELETE FROM doc_vectors", [])? > 0;
            tx.execute("DELETE FROM doc_bits", [])?;
            tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('model', ?1)", [&id])?;
        }
        tx.commit()?;
        let pending = |catalog: &Self| -> Result<usize> {
            let count: i64 =
                catalog
                    .conn
                    .query_row(&format!("SELECT count(*) FROM docs d WHERE {PENDING}"), [], |row| row.get(0))?;
            Ok(usize::try_from(count).unwrap_or(0))
        };
        let total = pending(self)?;
        progress(0, total);
        loop {
            let batch: Vec<(i64, i64, String)> = {
                let mut select = self.conn.prepare_cached(&format!(
                    "SELECT d.id, d.session, doc_text(d.body) FROM docs d WHERE {PENDING} ORDER BY d.id LIMIT ?1"
                ))?;
                let rows = select.query_map([i64::try_from(BATCH).unwrap_or(i64::MAX)], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                })?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            if batch.is_empty() {
                break;
            }
            let embedded = embed_all(model, &batch);
            let tx = self.conn.transaction()?;
            {
                let mut vectors_row =
                    tx.prepare_cached("INSERT INTO doc_vectors (doc, session, vectors) VALUES (?1, ?2, ?3)")?;
                let mut bits_row =
                    tx.prepare_cached("INSERT INTO doc_bits (doc, session, bits) VALUES (?1, ?2, ?3)")?;
                for ((doc, session, text), (vectors, bits, count)) in batch.iter().zip(embedded) {
                    vectors_row.execute(params![doc, session, vectors])?;
                    bits_row.execute(params![doc, session, bits])?;
                    report.vectors += count;
                    report.bytes += text.len();
                }
            }
            tx.commit()?;
            report.documents += batch.len();
            progress(report.documents, total);
        }
        Ok(report)
    }

    /// How many documents have vectors, and the bytes those take.
    pub fn vector_count(&self) -> Result<(usize, usize)> {
        let (documents, bytes): (i64, i64) =
            self.conn.query_row("SELECT count(*), coalesce(sum(length(vectors)), 0) FROM doc_vectors", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?;
        Ok((usize::try_from(documents).unwrap_or(0), usize::try_from(bytes).unwrap_or(0)))
    }
}

/// The vectors of each `(doc, session, text)` of `batch`, in order: its
/// pieces' int8 vectors one after another, their sign bits, and how many
/// there are. The batch is shared among the machine's cores.
fn embed_all(model: &Model, batch: &[(i64, i64, String)]) -> Vec<(Vec<u8>, Vec<u8>, usize)> {
    let one = |text: &str| {
        let (mut vectors, mut bits, mut count) = (Vec::new(), Vec::new(), 0);
        for piece in chunks(text, CHUNK_CHARS) {
            if let Some(vector) = model.embed(piece) {
                let quantized = quantize(&vector);
                bits.extend(binarize(&quantized));
                vectors.extend(quantized.into_iter().map(i8::cast_unsigned));
                count += 1;
            }
        }
        (vectors, bits, count)
    };
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    if threads < 2 || batch.len() < 2 {
        return batch.iter().map(|(_, _, text)| one(text)).collect();
    }
    let share = batch.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = batch
            .chunks(share)
            .map(|part| scope.spawn(move || part.iter().map(|(_, _, text)| one(text)).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}
