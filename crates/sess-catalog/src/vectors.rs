//! The vectors of search by meaning: every document of the conversation and
//! of tools embedded with a model (`sess_embed`), in pieces, kept as int8 in
//! `doc_vectors`, and as sign bits, a row of every piece of a session in
//! `session_bits` (the first pass of a search, [`Catalog::search_meaning`]). Made after a refresh, for the documents that
//! have none ([`Catalog::embed`]), so a refresh costs the same with or
//! without a model; a document a refresh replaces loses its vectors with it.
//! Vectors made with another model are dropped first.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rusqlite::{OptionalExtension as _, Transaction, params};
use sess_embed::{Model, binarize};

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
        if meta(&tx, "model")?.as_deref() != Some(id.as_str()) {
            report.dropped = tx.execute("DELETE FROM doc_vectors", [])? > 0;
            tx.execute("DELETE FROM session_bits", [])?;
            tx.execute("DELETE FROM meta WHERE key IN ('center', 'center_at', 'embedded')", [])?;
            set_meta(&tx, "model", &id)?;
        }
        tx.commit()?;
        let total = self.to_embed(model)?;
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
            let texts: Vec<&str> = batch.iter().map(|(_, _, text)| text.as_str()).collect();
            let embedded = sess_embed::embed_documents(model, &texts)?;
            let tx = self.conn.transaction()?;
            {
                let mut vectors_row =
                    tx.prepare_cached("INSERT INTO doc_vectors (doc, session, vectors) VALUES (?1, ?2, ?3)")?;
                for ((doc, session, text), (vectors, count)) in batch.iter().zip(embedded) {
                    vectors_row.execute(params![doc, session, vectors])?;
                    report.vectors += count;
                    report.bytes += text.len();
                }
            }
            let sessions: BTreeSet<i64> = batch.iter().map(|(_, session, _)| *session).collect();
            let center = read_center(&tx)?;
            for session in sessions {
                write_session_bits(&tx, session, model.dims(), &center)?;
            }
            tx.commit()?;
            report.documents += batch.len();
            progress(report.documents, total);
        }
        if report.documents > 0 {
            let tx = self.conn.transaction()?;
            let before: usize = meta(&tx, "embedded")?.and_then(|n| n.parse().ok()).unwrap_or(0);
            let embedded = before + report.vectors;
            set_meta(&tx, "embedded", &embedded.to_string())?;
            recenter_when_grown(&tx, model.dims(), embedded)?;
            tx.commit()?;
        }
        Ok(report)
    }

    /// How many documents [`Catalog::embed`] would embed with `model`: those
    /// with no vector, or every one when the vectors are another model's.
    pub fn to_embed(&self, model: &Model) -> Result<usize> {
        let pending = if meta(&self.conn, "model")?.as_deref() == Some(model.id().as_str()) {
            format!("SELECT count(*) FROM docs d WHERE {PENDING}")
        } else {
            "SELECT count(*) FROM docs WHERE role <> 'title'".to_owned()
        };
        let count: i64 = self.conn.query_row(&pending, [], |row| row.get(0))?;
        Ok(usize::try_from(count).unwrap_or(0))
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

/// The center the bits of `session_bits` are taken around (`meta`'s
/// `center`: the mean of the vectors when it was taken); empty before the
/// first.
pub(crate) fn read_center(conn: &rusqlite::Connection) -> Result<Vec<i8>> {
    Ok(meta(conn, "center")?
        .as_deref()
        .unwrap_or_default()
        .as_bytes()
        .chunks_exact(2)
        .filter_map(|pair| std::str::from_utf8(pair).ok().and_then(|h| u8::from_str_radix(h, 16).ok()))
        .map(u8::cast_signed)
        .collect())
}

/// Takes the center again, and writes every session's bits around it, when
/// there is none yet or the pieces embedded (`embedded`, counted in `meta`
/// as they are made) have doubled since it was taken: the mean of the
/// vectors moves as they grow, and is taken again each time they double
/// (every piece's bits rewritten, a few times in all).
fn recenter_when_grown(tx: &Transaction<'_>, dims: usize, embedded: usize) -> Result<()> {
    let taken_at: Option<usize> = meta(tx, "center_at")?.and_then(|n| n.parse().ok());
    if embedded == 0 || taken_at.is_some_and(|at| embedded < at.saturating_mul(2)) {
        return Ok(());
    }
    let (mut sums, mut pieces) = (vec![0_i64; dims], 0_i64);
    {
        let mut select = tx.prepare("SELECT vectors FROM doc_vectors")?;
        let mut rows = select.query([])?;
        while let Some(row) = rows.next()? {
            for piece in row.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?.chunks_exact(dims.max(1)) {
                for (sum, x) in sums.iter_mut().zip(piece) {
                    *sum += i64::from(x.cast_signed());
                }
                pieces += 1;
            }
        }
    }
    let count = pieces.max(1);
    // A mean of int8s is within their range.
    let center: Vec<i8> =
        sums.iter().map(|sum| i8::try_from((sum + count / 2).div_euclid(count)).unwrap_or(0)).collect();
    let hex = center.iter().fold(String::new(), |mut hex, mean| {
        let _ = write!(hex, "{:02x}", mean.cast_unsigned());
        hex
    });
    set_meta(tx, "center", &hex)?;
    set_meta(tx, "center_at", &embedded.to_string())?;
    let sessions: Vec<i64> = {
        let mut select = tx.prepare("SELECT DISTINCT session FROM doc_vectors")?;
        let ids = select.query_map([], |row| row.get(0))?;
        ids.collect::<rusqlite::Result<_>>()?
    };
    for session in sessions {
        write_session_bits(tx, session, dims, &center)?;
    }
    Ok(())
}

/// The value of `key` in the catalog's `meta`, if it has one.
fn meta(conn: &rusqlite::Connection, key: &str) -> Result<Option<String>> {
    Ok(conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get(0)).optional()?)
}

/// Sets `key` in the catalog's `meta` to `value`.
fn set_meta(conn: &rusqlite::Connection, key: &str, value: &str) -> Result<()> {
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", [key, value])?;
    Ok(())
}

/// Writes `session`'s row of `session_bits` anew from its int8 vectors (of
/// `dims` numbers): the bits of every piece around `center`, and the
/// document each is of; no row when it has no vector.
fn write_session_bits(tx: &Transaction<'_>, session: i64, dims: usize, center: &[i8]) -> Result<()> {
    let (mut docs, mut bits) = (Vec::new(), Vec::new());
    {
        let mut select = tx.prepare_cached("SELECT doc, vectors FROM doc_vectors WHERE session = ?1 ORDER BY doc")?;
        let mut rows = select.query([session])?;
        while let Some(row) = rows.next()? {
            let doc: i64 = row.get(0)?;
            let bytes = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            for piece in bytes.chunks_exact(dims.max(1)) {
                let piece: Vec<i8> = piece.iter().map(|b| b.cast_signed()).collect();
                docs.extend(doc.to_le_bytes());
                bits.extend(binarize(&piece, center));
            }
        }
    }
    if bits.is_empty() {
        tx.execute("DELETE FROM session_bits WHERE session = ?1", [session])?;
    } else {
        tx.execute(
            "INSERT OR REPLACE INTO session_bits (session, docs, bits) VALUES (?1, ?2, ?3)",
            params![session, docs, bits],
        )?;
    }
    Ok(())
}
