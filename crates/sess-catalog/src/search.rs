//! Full-text search over the catalog.
//!
//! Hits are messages (and session titles) ranked by FTS5's BM25, a word in a
//! title counting double; each session appears once, at its best hit.
//! Snippets are computed only for the hits returned.

use std::collections::HashSet;

use rusqlite::params;
use serde::Serialize;
use sess_sources::SourceKind;

use crate::catalog::{Catalog, SESSION_COLUMNS, SessionRow, session_row};
use crate::error::{Error, Result};
use crate::query::to_fts;

/// How many words of context a snippet has around the hit.
const SNIPPET_TOKENS: i64 = 20;
/// Candidate hits read per session asked for: several hits of one session
/// collapse into one.
const CANDIDATES_PER_HIT: usize = 8;

/// What to search for.
#[derive(Clone, Debug)]
pub struct SearchParams {
    /// The query as typed (see the crate docs for its syntax).
    pub query: String,
    /// Only this agent's sessions.
    pub source: Option<SourceKind>,
    /// Only sessions whose agent worked in this directory.
    pub cwd: Option<String>,
    /// Only sessions of the store with this URL.
    pub store: Option<String>,
    /// At most this many hits (one per session).
    pub limit: usize,
}

impl SearchParams {
    /// A search for `query` everywhere, with at most 20 hits.
    pub fn new(query: impl Into<String>) -> Self {
        Self { query: query.into(), source: None, cwd: None, store: None, limit: 20 }
    }
}

/// One hit: the session, the message and the words that matched.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// The session.
    pub session: SessionRow,
    /// The message's id, as `sess show --json` gives it: the entry (pi), line
    /// `uuid` (Claude Code) or line number (Codex) that opened it; `None` for a
    /// title.
    pub entry_id: Option<String>,
    /// `user`, `assistant` or `title`.
    pub role: String,
    /// The text around the match, in parts; the parts that matched have `hit`.
    pub snippet: Vec<SnippetPart>,
    /// BM25 score: lower is better.
    pub score: f64,
}

/// A piece of a snippet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// Whether it is what the query matched.
    pub hit: bool,
}

impl Hit {
    /// The snippet as plain text.
    pub fn snippet_text(&self) -> String {
        self.snippet.iter().map(|p| p.text.as_str()).collect()
    }
}

impl Catalog {
    /// The best hits of `params.query`, best first, one per session.
    pub fn search(&self, params: &SearchParams) -> Result<Vec<Hit>> {
        let Some(fts) = to_fts(&params.query) else {
            return Err(Error::EmptyQuery { query: params.query.clone() });
        };
        let candidates = params.limit.saturating_mul(CANDIDATES_PER_HIT);
        let source = params.source.map(SourceKind::as_str);
        // FTS5 ranks every match on its own, faster than it can once each is
        // joined to its session: filters apply to the ranked matches, as a
        // set of the documents they allow.
        let allowed: Option<HashSet<i64>> = if source.is_none() && params.cwd.is_none() && params.store.is_none() {
            None
        } else {
            let mut statement = self.conn.prepare_cached(
                "SELECT d.id FROM docs d JOIN sessions s ON s.id = d.session
                 WHERE (?1 IS NULL OR s.source = ?1) AND (?2 IS NULL OR s.cwd = ?2) AND (?3 IS NULL OR s.store = ?3)",
            )?;
            let rows = statement.query_map(params![source, params.cwd, params.store], |row| row.get(0))?;
            Some(rows.collect::<rusqlite::Result<_>>()?)
        };
        let mut statement =
            self.conn.prepare_cached("SELECT rowid, rank FROM docs_fts WHERE docs_fts MATCH ?1 ORDER BY rank")?;
        let mut rows = statement.query([&fts])?;
        let mut ranked: Vec<(i64, f64)> = Vec::new();
        while ranked.len() < candidates
            && let Some(row) = rows.next()?
        {
            let id: i64 = row.get(0)?;
            if allowed.as_ref().is_none_or(|allowed| allowed.contains(&id)) {
                ranked.push((id, row.get(1)?));
            }
        }
        drop(rows);
        let mut doc = self.conn.prepare_cached("SELECT session, entry_id, role FROM docs WHERE id = ?1")?;
        let candidates = ranked.into_iter().map(|(id, score)| {
            doc.query_row([id], |row| {
                Ok((id, row.get::<_, i64>(0)?, row.get::<_, Option<String>>(1)?, row.get::<_, String>(2)?, score))
            })
        });
        let mut seen = HashSet::new();
        let mut best = Vec::new();
        for candidate in candidates {
            let candidate = candidate?;
            if best.len() == params.limit {
                break;
            }
            if seen.insert(candidate.1) {
                best.push(candidate);
            }
        }
        let mut snippet = self.conn.prepare_cached(
            "SELECT snippet(docs_fts, -1, char(2), char(3), '…', ?3) FROM docs_fts WHERE docs_fts MATCH ?1 AND rowid = ?2",
        )?;
        let session_sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1");
        let mut session = self.conn.prepare_cached(&session_sql)?;
        let mut hits = Vec::with_capacity(best.len());
        for (doc, key, entry_id, role, score) in best {
            let text: String = snippet.query_row(params![fts, doc, SNIPPET_TOKENS], |row| row.get(0))?;
            hits.push(Hit {
                session: session.query_row([key], session_row)?,
                entry_id,
                role,
                snippet: snippet_parts(&text),
                score,
            });
        }
        Ok(hits)
    }
}

/// The parts of a snippet whose hits are between `\u{2}` and `\u{3}`.
fn snippet_parts(text: &str) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let Some(start) = rest.find('\u{2}') else {
            parts.push(SnippetPart { text: rest.to_owned(), hit: false });
            break;
        };
        if start > 0 {
            parts.push(SnippetPart { text: rest[..start].to_owned(), hit: false });
        }
        let after = &rest[start + 1..];
        let end = after.find('\u{3}').unwrap_or(after.len());
        parts.push(SnippetPart { text: after[..end].to_owned(), hit: true });
        rest = after.get(end + 1..).unwrap_or("");
    }
    // Neighbouring parts of the same kind read as one.
    let mut merged: Vec<SnippetPart> = Vec::with_capacity(parts.len());
    for part in parts {
        match merged.last_mut() {
            Some(last) if last.hit == part.hit => last.text.push_str(&part.text),
            _ => merged.push(part),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_split_into_parts() {
        let parts = snippet_parts("…we fixed the \u{2}login\u{3} \u{2}form\u{3} today…");
        let texts: Vec<(&str, bool)> = parts.iter().map(|p| (p.text.as_str(), p.hit)).collect();
        assert_eq!(
            texts,
            [("…we fixed the ", false), ("login", true), (" ", false), ("form", true), (" today…", false)]
        );
        assert_eq!(snippet_parts("\u{2}all\u{3}"), [SnippetPart { text: "all".into(), hit: true }]);
        assert!(snippet_parts("").is_empty());
    }
}
