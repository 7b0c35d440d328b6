//! The vectors of search by meaning: every document of the conversation and
//! of tools embedded with a model (`sess_embed`), in pieces, kept as int8 in
//! `doc_vectors`. Made after a refresh, for the documents that have none
//! ([`Catalog::embed`]), so a refresh costs the same with or without a model;
//! a document a refresh replaces loses its vectors with it. Vectors made with
//! another model are dropped first.

use rusqlite::params;
use sess_embed::{CHUNK_CHARS, Model, chunks, quantize};

use crate::catalog::Catalog;
use crate::error::Result;

/// Documents embedded per transaction.
const BATCH: usize = 256;

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
            tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('model', ?1)", [&id])?;
        }
        tx.commit()?;
        let pending = |catalog: &Self| -> Result<usize> {
            let count: i64 = catalog.conn.query_row(
                "SELECT count(*) FROM docs d WHERE d.role <> 'title'
                 AND NOT EXISTS (SELECT 1 FROM doc_vectors v WHERE v.doc = d.id)",
                [],
                |row| row.get(0),
            )?;
            Ok(usize::try_from(count).unwrap_or(0))
        };
        let total = pending(self)?;
        progress(0, total);
        loop {
            let batch: Vec<(i64, i64, String)> = {
                let mut select = self.conn.prepare_cached(
                    "SELECT d.id, d.session, doc_text(d.body) FROM docs d WHERE d.role <> 'title'
                     AND NOT EXISTS (SELECT 1 FROM doc_vectors v WHERE v.doc = d.id) ORDER BY d.id LIMIT ?1",
                )?;
                let rows = select.query_map([i64::try_from(BATCH).unwrap_or(i64::MAX)], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                })?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            if batch.is_empty() {
                break;
            }
            let tx = self.conn.transaction()?;
            {
                let mut insert =
                    tx.prepare_cached("INSERT INTO doc_vectors (doc, session, vectors) VALUES (?1, ?2, ?3)")?;
                for (doc, session, text) in &batch {
                    let mut vectors = Vec::new();
                    for piece in chunks(text, CHUNK_CHARS) {
                        if let Some(vector) = model.embed(piece) {
                            vectors.extend(quantize(&vector).into_iter().map(i8::cast_unsigned));
                            report.vectors += 1;
                        }
                    }
                    insert.execute(params![doc, session, vectors])?;
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
