//! Search by meaning over the catalog's vectors ([`crate::vectors`]): the
//! sessions whose messages are nearest a query's vector, and [`fuse`], which
//! ranks them together with the hits of the words.
//!
//! A search reads the sign bits of every piece in scope (32 bytes for 256
//! numbers), keeps the [`CANDIDATES`] nearest documents by the bits that
//! differ, and ranks those again by their int8 vectors: the int8 scan of
//! every vector ([`Catalog::search_meaning_exact`]) reads eight times the
//! bytes for about the same hits.

use std::collections::{BinaryHeap, HashMap, HashSet};

use rusqlite::params;
use sess_embed::{binarize, hamming, similarity_stored};

use crate::catalog::{Catalog, SESSION_COLUMNS, session_row};
use crate::error::Result;
use crate::search::{Hit, SearchParams, SnippetPart};

/// How many words a hit's snippet has.
const SNIPPET_WORDS: usize = 40;

/// How many documents the sign bits pass on to be ranked by their int8
/// vectors, at least (twenty for each session asked for, when more).
pub const CANDIDATES: usize = 2000;

impl Catalog {
    /// The sessions whose messages are nearest in meaning to the query whose
    /// vector (quantized, of the model the catalog's vectors were made with)
    /// is `query`, best first, one per session at its nearest message:
    /// `params.limit` of them from `params.offset` on, within `params`'s
    /// source, directory and store (its query's words are not used).
    ///
    /// The documents whose pieces' signs are nearest the query's are ranked
    /// again by their int8 vectors. A hit's `score` is that similarity,
    /// negated so that lower is better as for words; its snippet is the
    /// message's first words.
    pub fn search_meaning(&self, query: &[i8], params: &SearchParams) -> Result<Vec<Hit>> {
        let code = binarize(query);
        let width = code.len().max(1);
        let allowed = self.sessions_in_scope(params)?;
        let wanted = (params.offset + params.limit).saturating_mul(20).max(CANDIDATES);
        // The nearest `wanted` documents so far, the farthest on top.
        let mut nearest: BinaryHeap<(u32, i64)> = BinaryHeap::with_capacity(wanted + 1);
        let mut scan = self.conn.prepare_cached("SELECT doc, session, bits FROM doc_bits WHERE length(bits) > 0")?;
        let mut rows = scan.query([])?;
        while let Some(row) = rows.next()? {
            let session: i64 = row.get(1)?;
            if allowed.as_ref().is_some_and(|set| !set.contains(&session)) {
                continue;
            }
            let bits = row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            let distance = bits.chunks_exact(width).map(|piece| hamming(&code, piece)).min().unwrap_or(u32::MAX);
            if nearest.len() < wanted || nearest.peek().is_some_and(|(far, _)| distance < *far) {
                nearest.push((distance, row.get(0)?));
                if nearest.len() > wanted {
                    nearest.pop();
                }
            }
        }
        drop(rows);
        let mut best: HashMap<i64, (f32, i64)> = HashMap::new();
        let mut vectors = self.conn.prepare_cached("SELECT session, vectors FROM doc_vectors WHERE doc = ?1")?;
        for (_, doc) in nearest {
            let mut rows = vectors.query([doc])?;
            if let Some(row) = rows.next()? {
                let bytes = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
                keep_best(&mut best, row.get(0)?, doc, nearest_piece(query, bytes));
            }
        }
        self.ranked_hits(best, params)
    }

    /// [`Catalog::search_meaning`] by the int8 vector of every piece in
    /// scope, with no first pass: what the sign bits are measured against.
    pub fn search_meaning_exact(&self, query: &[i8], params: &SearchParams) -> Result<Vec<Hit>> {
        let allowed = self.sessions_in_scope(params)?;
        let mut scan =
            self.conn.prepare_cached("SELECT doc, session, vectors FROM doc_vectors WHERE length(vectors) > 0")?;
        let mut best: HashMap<i64, (f32, i64)> = HashMap::new();
        let mut rows = scan.query([])?;
        while let Some(row) = rows.next()? {
            let (doc, session): (i64, i64) = (row.get(0)?, row.get(1)?);
            if allowed.as_ref().is_some_and(|set| !set.contains(&session)) {
                continue;
            }
            let bytes = row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            keep_best(&mut best, session, doc, nearest_piece(query, bytes));
        }
        drop(rows);
        self.ranked_hits(best, params)
    }

    /// The sessions of `params`'s source, directory and store; `None` when
    /// it names none (every session).
    fn sessions_in_scope(&self, params: &SearchParams) -> Result<Option<HashSet<i64>>> {
        if params.source.is_none() && params.cwd.is_none() && params.store.is_none() {
            return Ok(None);
        }
        let source = params.source.map(sess_sources::SourceKind::as_str);
        let mut select = self.conn.prepare_cached(
            "SELECT id FROM sessions WHERE (?1 IS NULL OR source = ?1) AND (?2 IS NULL OR cwd = ?2)
             AND (?3 IS NULL OR store = ?3)",
        )?;
        let ids = select.query_map(params![source, params.cwd, params.store], |row| row.get(0))?;
        Ok(Some(ids.collect::<rusqlite::Result<_>>()?))
    }

    /// The hits of each session's best document, by similarity, best first:
    /// `params`'s page of them.
    fn ranked_hits(&self, best: HashMap<i64, (f32, i64)>, params: &SearchParams) -> Result<Vec<Hit>> {
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
}

/// The similarity of `query` and the nearest of the int8 vectors stored one
/// after another in `bytes`.
fn nearest_piece(query: &[i8], bytes: &[u8]) -> f32 {
    bytes.chunks_exact(query.len().max(1)).map(|piece| similarity_stored(query, piece)).fold(f32::MIN, f32::max)
}

/// Keeps `doc` as `session`'s best document when its `score` beats the one
/// kept.
fn keep_best(best: &mut HashMap<i64, (f32, i64)>, session: i64, doc: i64, score: f32) {
    let entry = best.entry(session).or_insert((f32::MIN, doc));
    if score > entry.0 {
        *entry = (score, doc);
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
