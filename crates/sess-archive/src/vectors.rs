//! Search by meaning in the archive: its documents embedded with a model
//! ([`embed`], which `sess archive --model` runs after archiving) and the
//! sessions nearest a query ([`search_meaning`]). Every vector in scope is
//! compared with the query's (the catalog's first pass by sign bits is its
//! own): an archive is searched less often than the catalog, and a fleet's
//! vectors are read from its server.

use std::collections::HashMap;

use sess_catalog::{EmbedReport, Stop, lead_snippet};
use sess_embed::Model;

use crate::error::{Error, Result};
use crate::vault::{DocKey, Filter, Hit, Vault, Vectors};

/// Documents embedded per batch (and per transaction).
const BATCH: usize = 256;

/// Embeds with `model` every document of the archive that has no vectors,
/// a batch at a time, telling `progress` the documents done and those in
/// all; drops the vectors another model made first. A document stored
/// again while it was embedded keeps no vectors of its old text, and is
/// embedded the next time.
///
/// # Errors
///
/// The vault's errors; [`Error::Embed`] when the model's table cannot be
/// read.
pub fn embed(vault: &mut dyn Vault, model: &Model, progress: &mut dyn FnMut(usize, usize)) -> Result<EmbedReport> {
    let mut report = EmbedReport { dropped: vault.vectors_for(&model.id())?, ..EmbedReport::default() };
    let total = vault.unembedded_count()?;
    progress(0, total);
    let mut after = None;
    loop {
        let batch = vault.unembedded(after, BATCH)?;
        let Some((last, _)) = batch.last() else { break };
        after = Some(*last);
        let texts: Vec<&str> = batch.iter().map(|(_, text)| text.as_str()).collect();
        let embedded = sess_embed::embed_documents(model, &texts)?;
        let mut vectors = Vec::with_capacity(batch.len());
        for ((doc, text), (bytes, count)) in batch.into_iter().zip(embedded) {
            report.vectors += count;
            report.bytes += text.len();
            vectors.push(Vectors { doc, text, bytes });
        }
        report.documents += vault.put_vectors(&vectors)?;
        progress(report.documents.min(total), total);
    }
    Ok(report)
}

/// The sessions `filter` selects whose messages are nearest in meaning to
/// the query whose vector (quantized, of the model the archive's vectors
/// were made with) is `query`, best first, one per session at its nearest
/// message, at most `limit`. A hit's snippet is the message's first words.
///
/// # Errors
///
/// The vault's errors; [`Error::Query`] holding
/// [`sess_catalog::Error::Stopped`] when `stop` says so.
pub fn search_meaning(
    vault: &mut dyn Vault,
    query: &[i8],
    filter: &Filter,
    limit: usize,
    stop: &Stop,
) -> Result<Vec<Hit>> {
    let mut sessions: HashMap<i64, _> = vault.sessions(filter)?.into_iter().map(|s| (s.key, s)).collect();
    let mut best: HashMap<i64, (f32, DocKey)> = HashMap::new();
    vault.scan_vectors(stop, &mut |doc, bytes| {
        if !sessions.contains_key(&doc.session) {
            return;
        }
        let score = sess_embed::nearest_piece(query, bytes);
        let kept = best.entry(doc.session).or_insert((f32::MIN, doc));
        if score.total_cmp(&kept.0).then(kept.1.cmp(&doc)).is_gt() {
            *kept = (score, doc);
        }
    })?;
    let mut ranked: Vec<(f32, DocKey)> = best.into_values().collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.session.cmp(&b.1.session)));
    let mut hits = Vec::new();
    for (_, key) in ranked.into_iter().take(limit) {
        if let Some(reason) = stop.reason() {
            return Err(Error::Query(sess_catalog::Error::Stopped { reason }));
        }
        let (Some(doc), Some(session)) = (vault.doc(key)?, sessions.remove(&key.session)) else { continue };
        let snippet = lead_snippet(&doc.body);
        hits.push(Hit { session, entry_id: doc.entry_id, role: doc.role, snippet });
    }
    Ok(hits)
}
