//! Search by meaning over the catalog's vectors ([`crate::vectors`]): the
//! sessions whose messages are nearest a query's vector, and [`fuse`], which
//! ranks them together with the hits of the words.
//!
//! A search reads the bits of every piece in scope (which side of the
//! vectors' mean each number is on: 32 bytes for 256 numbers, a row per
//! session), keeps the [`CANDIDATES`] nearest pieces by the bits that differ, and ranks their documents again by their int8
//! vectors: the int8 scan of
//! every vector ([`Catalog::search_meaning_exact`]) reads eight times the
//! bytes for about the same hits.

use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};

use rusqlite::params;
use sess_embed::{binarize, hamming, nearest_piece};

use crate::catalog::{Catalog, SESSION_COLUMNS, session_row};
use crate::error::Result;
use crate::search::{Hit, SearchParams, lead_snippet};
use crate::stop::stopped;

/// How many pieces the sign bits pass on for their documents to be ranked by
/// their int8 vectors, at least (twenty for each session asked for, when
/// more).
pub const CANDIDATES: usize = 2000;

/// The bits of the pieces a search by meaning reads first
/// ([`Catalog::bits`]): a piece's bits, and the document it is of.
#[derive(Clone, Debug, Default)]
pub struct Bits {
    center: Vec<i8>,
    docs: Vec<i64>,
    codes: Vec<u8>,
    /// Bytes of bits a piece.
    width: usize,
}

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
    /// message's first words. When `params.stop` says so, the search stops
    /// with [`Error::Stopped`](crate::Error::Stopped).
    pub fn search_meaning(&self, query: &[i8], params: &SearchParams) -> Result<Vec<Hit>> {
        self.search_meaning_in(&self.bits(params)?, query, params)
    }

    /// The bits of every piece within `params`'s source, directory and
    /// store, read into memory: the first pass of
    /// [`Catalog::search_meaning_in`], which can be read while the query is
    /// being embedded.
    pub fn bits(&self, params: &SearchParams) -> Result<Bits> {
        self.stoppable(params, || self.read_bits(params))
    }

    fn read_bits(&self, params: &SearchParams) -> Result<Bits> {
        let allowed = self.sessions_in_scope(params)?;
        let mut read = Bits { center: crate::vectors::read_center(&self.conn)?, ..Bits::default() };
        let mut scan = self.conn.prepare_cached("SELECT session, docs, bits FROM session_bits")?;
        let mut rows = scan.query([])?;
        while let Some(row) = rows.next()? {
            let session: i64 = row.get(0)?;
            if allowed.as_ref().is_some_and(|set| !set.contains(&session)) {
                continue;
            }
            let docs = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            let bits = row.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            let pieces = docs.len() / 8;
            if pieces == 0 || bits.len() % pieces != 0 {
                continue;
            }
            read.width = bits.len() / pieces;
            read.docs.extend(docs.chunks_exact(8).map(|doc| i64::from_le_bytes(doc.try_into().unwrap_or_default())));
            read.codes.extend_from_slice(bits);
        }
        Ok(read)
    }

    /// [`Catalog::search_meaning`] with the bits [`Catalog::bits`] read for
    /// the same `params`.
    pub fn search_meaning_in(&self, bits: &Bits, query: &[i8], params: &SearchParams) -> Result<Vec<Hit>> {
        let code = binarize(query, &bits.center);
        let wanted = (params.offset + params.limit).saturating_mul(20).max(CANDIDATES);
        // The nearest `wanted` pieces so far, the farthest on top.
        let mut nearest: BinaryHeap<(u32, i64)> = BinaryHeap::with_capacity(wanted + 1);
        if bits.width == code.len() {
            for (piece, doc) in bits.codes.chunks_exact(bits.width.max(1)).zip(&bits.docs) {
                let distance = hamming(&code, piece);
                if nearest.len() < wanted || nearest.peek().is_some_and(|(far, _)| distance < *far) {
                    nearest.push((distance, *doc));
                    if nearest.len() > wanted {
                        nearest.pop();
                    }
                }
            }
        }
        // A document several of whose pieces are near is ranked once.
        let nearest: BTreeSet<i64> = nearest.into_iter().map(|(_, doc)| doc).collect();
        let mut best: HashMap<i64, (f32, i64)> = HashMap::new();
        let mut vectors = self.conn.prepare_cached("SELECT session, vectors FROM doc_vectors WHERE doc = ?1")?;
        for doc in nearest {
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
        self.stoppable(params, || self.scan_every_vector(query, params))
    }

    fn scan_every_vector(&self, query: &[i8], params: &SearchParams) -> Result<Vec<Hit>> {
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

    /// `search` with `params.stop` held over the connection, as a search by
    /// words holds it: SQLite stops the statement running when it says so,
    /// which is then [`Error::Stopped`](crate::Error::Stopped).
    fn stoppable<T>(&self, params: &SearchParams, search: impl FnOnce() -> Result<T>) -> Result<T> {
        let held = self.stop.hold(&params.stop);
        let result = search().map_err(|error| stopped(&params.stop, error));
        drop(held);
        result
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
        let mut sessions =
            self.conn.prepare_cached(&format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1"))?;
        let mut docs = self.conn.prepare_cached("SELECT entry_id, role, doc_text(body) FROM docs WHERE id = ?1")?;
        for (session, score, doc) in ranked.into_iter().skip(params.offset).take(params.limit) {
            let row = sessions.query_row([session], session_row)?;
            let (entry_id, role, text): (Option<String>, String, String) =
                docs.query_row([doc], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            let snippet = lead_snippet(&text);
            hits.push(Hit { session: row, entry_id, role, snippet, score: f64::from(-score) });
        }
        Ok(hits)
    }
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

/// A hit that [`fuse`] ranks: the session it is of, and where the fused
/// score goes.
pub trait Ranked {
    /// The key of its session: two hits of one session are ranked once.
    fn session_key(&self) -> i64;
    /// Takes the fused score (higher is better).
    fn set_fused_score(&mut self, score: f64);
}

impl Ranked for Hit {
    fn session_key(&self) -> i64 {
        self.session.key
    }

    /// Negated, as lower is better for the catalog's scores.
    fn set_fused_score(&mut self, score: f64) {
        self.score = -score;
    }
}

/// A hit of a search by words and meaning, with the sides that found it.
#[derive(Clone, Debug, PartialEq)]
pub struct Fused<H = Hit> {
    /// The hit: the words' one when both sides found the session (its
    /// snippet marks the words).
    pub hit: H,
    /// Whether the words found the session.
    pub words: bool,
    /// Whether the meaning found it.
    pub meaning: bool,
}

/// The hits of both sides as one list, one per session, by reciprocal rank
/// fusion: a session's score is the sum over the sides that found it of
/// 1 / (60 + its rank there); the best `limit`, best first, each given its
/// fused score ([`Ranked::set_fused_score`]).
pub fn fuse<H: Ranked>(words: Vec<H>, meaning: Vec<H>, limit: usize) -> Vec<Fused<H>> {
    let mut fused: Vec<(f64, Fused<H>)> = Vec::new();
    let rank_score = |rank: usize| {
        #[allow(clippy::cast_precision_loss, reason = "ranks are small")]
        let rank = rank as f64;
        1.0 / (FUSION_K + rank + 1.0)
    };
    for (rank, hit) in words.into_iter().enumerate() {
        fused.push((rank_score(rank), Fused { hit, words: true, meaning: false }));
    }
    for (rank, hit) in meaning.into_iter().enumerate() {
        match fused.iter_mut().find(|(_, f)| f.hit.session_key() == hit.session_key()) {
            Some((score, found)) => {
                *score += rank_score(rank);
                found.meaning = true;
            }
            None => fused.push((rank_score(rank), Fused { hit, words: false, meaning: true })),
        }
    }
    fused.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.hit.session_key().cmp(&b.1.hit.session_key())));
    fused
        .into_iter()
        .take(limit)
        .map(|(score, mut f)| {
            f.hit.set_fused_score(score);
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::SessionRow;

    fn hit(key: i64) -> Hit {
        let session = SessionRow {
            key,
            source: sess_sources::pi::SOURCE,
            id: format!("s{key}"),
            path: format!("/s{key}.jsonl").into(),
            store: None,
            database_row: false,
            title: None,
            cwd: None,
            created: None,
            modified_ms: 0,
            message_count: 1,
        };
        Hit { session, entry_id: None, role: "user".to_owned(), snippet: Vec::new(), score: 0.0 }
    }

    #[test]
    fn fusion_adds_the_reciprocal_ranks_of_both_sides() {
        // Words rank 1, 2, 3; meaning ranks 3, 4, 1.
        let fused = fuse(vec![hit(1), hit(2), hit(3)], vec![hit(3), hit(4), hit(1)], 10);
        let keys: Vec<i64> = fused.iter().map(|f| f.hit.session.key).collect();
        // 1: 1/61 + 1/63; 3: 1/63 + 1/61 (a tie, broken by the key); 2: 1/62; 4: 1/62 (a tie).
        assert_eq!(keys, [1, 3, 2, 4]);
        let sides: Vec<(bool, bool)> = fused.iter().map(|f| (f.words, f.meaning)).collect();
        assert_eq!(sides, [(true, true), (true, true), (true, false), (false, true)]);
        let expected = 1.0 / 61.0 + 1.0 / 63.0;
        assert!((fused[0].hit.score + expected).abs() < 1e-12, "{}", fused[0].hit.score);
        // A session both sides found beats one only one side ranked first.
        let fused = fuse(vec![hit(5), hit(6)], vec![hit(7), hit(6)], 1);
        assert_eq!(fused.len(), 1);
        assert_eq!(fused[0].hit.session.key, 6);
        // Nothing on either side: nothing.
        assert!(fuse::<Hit>(Vec::new(), Vec::new(), 5).is_empty());
    }
}
