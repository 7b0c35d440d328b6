//! The vectors of search by meaning: every document of the conversation and
//! of tools embedded with a model (`sess_embed`), in pieces, kept as int8 in
//! `doc_vectors`. Made after a refresh, for the documents that have none
//! ([`Catalog::embed`]), so a refresh costs the same with or without a model;
//! a document a refresh replaces loses its vectors with it. Vectors made with
//! another model are dropped first.

use std::collections::HashMap;

use rusqlite::params;
use sess_embed::{CHUNK_CHARS, Model, chunks, quantize, similarity_stored};

use crate::catalog::{Catalog, SESSION_COLUMNS, session_row};
use crate::error::Result;
use crate::search::{Hit, SearchParams, SnippetPart};

/// How many words a hit's snippet has.
const SNIPPET_WORDS: usize = 40;

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

    /// The sessions whose messages are nearest in meaning to the query whose
    /// vector (quantized, of the model the catalog's vectors were made with)
    /// is `query`, best first, one per session at its nearest message:
    /// `params.limit` of them from `params.offset` on, within `params`'s
    /// source, directory and store (its query's words are not used). A hit's
    /// `score` is the similarity, negated so that lower is better as for
    /// words; its snippet is the message's first words. Every vector in
    /// scope is compared.
    pub fn search_meaning(&self, query: &[i8], params: &SearchParams) -> Result<Vec<Hit>> {
        let source = params.source.map(sess_sources::SourceKind::as_str);
        let mut scan = self.conn.prepare_cached(
            "SELECT v.doc, v.session, v.vectors FROM doc_vectors v JOIN sessions s ON s.id = v.session
             WHERE length(v.vectors) > 0 AND (?1 IS NULL OR s.source = ?1) AND (?2 IS NULL OR s.cwd = ?2)
             AND (?3 IS NULL OR s.store = ?3)",
        )?;
        let mut best: HashMap<i64, (f32, i64)> = HashMap::new();
        let mut rows = scan.query(params![source, params.cwd, params.store])?;
        while let Some(row) = rows.next()? {
            let (doc, session): (i64, i64) = (row.get(0)?, row.get(1)?);
            let bytes = row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            let score = bytes
                .chunks_exact(query.len().max(1))
                .map(|piece| similarity_stored(query, piece))
                .fold(f32::MIN, f32::max);
            let entry = best.entry(session).or_insert((f32::MIN, doc));
            if score > entry.0 {
                *entry = (score, doc);
            }
        }
        let mut ranked: Vec<(i64, f32, i64)> =
            best.into_iter().map(|(session, (score, doc))| (session, score, doc)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut hits = Vec::new();
        for (session, score, doc) in ranked.into_iter().skip(params.offset).take(params.limit) {
            let row = self.conn.query_row(
                &format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1"),
                [session],
                session_row,
            )?;
            let (entry_id, role, text): (Option<String>, String, String) =
                self.conn.query_row("SELECT entry_id, role, doc_text(body) FROM docs WHERE id = ?1", [doc], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?;
            let words: Vec<&str> = text.split_whitespace().take(SNIPPET_WORDS).collect();
            let snippet = vec![SnippetPart { text: words.join(" "), hit: false }];
            hits.push(Hit { session: row, entry_id, role, snippet, score: f64::from(-score) });
        }
        Ok(hits)
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

/// How far down a list a hit still counts in [`fuse`] (reciprocal rank
/// fusion's constant).
const FUSION_K: f64 = 60.0;

/// A hit of a search by words and meaning, with the sides that found it.
#[derive(Clone, Debug, PartialEq)]
pub struct Fused {
    /// The hit: the words' one when both sides found the session (its
    /// snippet marks the words).
    pub hit: Hit,
    /// Whether the words found the session.
    pub words: bool,
    /// Whether the meaning found it.
    pub meaning: bool,
}

/// The hits of both sides as one list, one per session, by reciprocal rank
/// fusion: a session's score is the sum over the sides that found it of
/// 1 / (60 + its rank there); the best `limit`, best first. A hit's `score`
/// becomes the fused one, negated (lower is better).
pub fn fuse(words: Vec<Hit>, meaning: Vec<Hit>, limit: usize) -> Vec<Fused> {
    let mut fused: Vec<(f64, Fused)> = Vec::new();
    let rank_score = |rank: usize| {
        #[allow(clippy::cast_precision_loss, reason = "ranks are small")]
        let rank = rank as f64;
        1.0 / (FUSION_K + rank + 1.0)
    };
    for (rank, hit) in words.into_iter().enumerate() {
        fused.push((rank_score(rank), Fused { hit, words: true, meaning: false }));
    }
    for (rank, hit) in meaning.into_iter().enumerate() {
        match fused.iter_mut().find(|(_, f)| f.hit.session.key == hit.session.key) {
            Some((score, found)) => {
                *score += rank_score(rank);
                found.meaning = true;
            }
            None => fused.push((rank_score(rank), Fused { hit, words: false, meaning: true })),
        }
    }
    fused.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.hit.session.key.cmp(&b.1.hit.session.key)));
    fused
        .into_iter()
        .take(limit)
        .map(|(score, mut f)| {
            f.hit.score = -score;
            f
        })
        .collect()
}
