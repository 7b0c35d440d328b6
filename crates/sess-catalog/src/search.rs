//! Full-text search over the catalog.
//!
//! Hits are messages (and session titles) ranked by FTS5's BM25, a word in a
//! title counting double; each session appears once, at its best hit. What
//! tools answered (role `tool`) is searched in its own index, after the
//! conversation's words: its hits come after every hit in the conversation,
//! and a session whose messages match is never shown at its tool output.
//! Snippets are computed only for the hits returned.

use std::collections::HashSet;

use rusqlite::{OptionalExtension as _, params};
use serde::Serialize;
use sess_sources::SourceKind;

use crate::catalog::{Catalog, SESSION_COLUMNS, SessionRow, session_row};
use crate::error::{Error, Result};
use crate::extract::TOOL_ROLE;
use crate::query::to_fts;

/// How many words of context a snippet has around the hit.
const SNIPPET_TOKENS: i64 = 20;
/// Tool output matches read per session asked for (they are read newest
/// first): several hits of one session collapse into one.
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
    /// After skipping this many of the best hits: the next page. The hits
    /// are ranked as they would be for `offset + limit` hits, and snippets
    /// are computed only for those returned.
    pub offset: usize,
}

impl SearchParams {
    /// A search for `query` everywhere, with at most 20 hits.
    pub fn new(query: impl Into<String>) -> Self {
        Self { query: query.into(), source: None, cwd: None, store: None, limit: 20, offset: 0 }
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
    /// `user`, `assistant` or `title`; `tool` for what a tool answered in the
    /// message (a result, command output, an error).
    pub role: String,
    /// The text around the match, in parts; the parts that matched have `hit`.
    pub snippet: Vec<SnippetPart>,
    /// BM25 score: lower is better. Hits of role `tool` are ranked apart,
    /// after the others, and their scores compare only with each other's.
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
    /// The best hits of `params.query`, best first, one per session:
    /// `params.limit` of them from `params.offset` on.
    pub fn search(&self, params: &SearchParams) -> Result<Vec<Hit>> {
        let Some(fts) = to_fts(&params.query) else {
            return Err(Error::EmptyQuery { query: params.query.clone() });
        };
        let wanted = params.offset.saturating_add(params.limit);
        let mut seen = HashSet::new();
        let mut best = Vec::new();
        // The conversation: FTS5 ranks every match; they are taken, best
        // first, until `wanted` sessions have a hit.
        let allowed = self.allowed(Index::Conversation, params, &HashSet::new())?;
        let mut statement =
            self.conn.prepare_cached("SELECT rowid, rank FROM docs_fts WHERE docs_fts MATCH ?1 ORDER BY rank")?;
        let mut rows = statement.query([&fts])?;
        while best.len() < wanted
            && let Some(row) = rows.next()?
        {
            let doc: i64 = row.get(0)?;
            if allowed.as_ref().is_none_or(|allowed| allowed.contains(&doc)) {
                self.take(Index::Conversation, doc, row.get(1)?, &mut seen, &mut best)?;
            }
        }
        drop(rows);
        // Then what tools answered, in the sessions without a hit yet.
        if best.len() < wanted {
            let allowed = self.allowed(Index::Tools, params, &seen)?;
            let candidates = wanted.saturating_mul(CANDIDATES_PER_HIT);
            for (doc, score) in self.tool_matches(&fts, allowed.as_ref(), candidates)? {
                if best.len() == wanted {
                    break;
                }
                self.take(Index::Tools, doc, score, &mut seen, &mut best)?;
            }
        }
        let session_sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1");
        let mut session = self.conn.prepare_cached(&session_sql)?;
        let mut hits = Vec::with_capacity(best.len().saturating_sub(params.offset));
        for Best { index, doc, session: key, entry_id, role, score } in best.into_iter().skip(params.offset) {
            let table = index.table();
            let mut snippet = self.conn.prepare_cached(&format!(
                "SELECT snippet({table}, -1, char(2), char(3), '…', ?3) FROM {table} WHERE {table} MATCH ?1 AND rowid = ?2"
            ))?;
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

/// The two full-text indexes, searched in this order.
#[derive(Clone, Copy, Debug)]
enum Index {
    /// The conversation's words: messages and titles.
    Conversation,
    /// What tools answered.
    Tools,
}

impl Index {
    fn table(self) -> &'static str {
        match self {
            Self::Conversation => "docs_fts",
            Self::Tools => "tool_fts",
        }
    }
}

impl Catalog {
    /// The documents of `index` that the filters of `params` allow, outside
    /// the sessions `skip`; `None` when there are no filters. FTS5 ranks every
    /// match on its own, faster than it can once each is joined to its
    /// session: filters apply to the ranked matches, as this set.
    fn allowed(&self, index: Index, params: &SearchParams, skip: &HashSet<i64>) -> Result<Option<HashSet<i64>>> {
        let source = params.source.map(SourceKind::as_str);
        if source.is_none() && params.cwd.is_none() && params.store.is_none() {
            return Ok(None);
        }
        let mut statement = self.conn.prepare_cached(
            "SELECT d.id, d.session FROM docs d JOIN sessions s ON s.id = d.session
             WHERE (?1 IS NULL OR s.source = ?1) AND (?2 IS NULL OR s.cwd = ?2) AND (?3 IS NULL OR s.store = ?3)
             AND (d.role = ?4) = ?5",
        )?;
        let tools = matches!(index, Index::Tools);
        let rows = statement.query_map(params![source, params.cwd, params.store, TOOL_ROLE, tools], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
        })?;
        let mut allowed = HashSet::new();
        for row in rows {
            let (doc, session) = row?;
            if !skip.contains(&session) {
                allowed.insert(doc);
            }
        }
        Ok(Some(allowed))
    }

    /// Keeps document `doc` as its session's hit unless the session has one.
    fn take(&self, index: Index, doc: i64, score: f64, seen: &mut HashSet<i64>, best: &mut Vec<Best>) -> Result<()> {
        let mut statement = self.conn.prepare_cached("SELECT session, entry_id, role FROM docs WHERE id = ?1")?;
        let (session, entry_id, role) = statement.query_row([doc], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, Option<String>>(1)?, row.get::<_, String>(2)?))
        })?;
        if seen.insert(session) {
            best.push(Best { index, doc, session, entry_id, role, score });
        }
        Ok(())
    }

    /// Tool output documents that match `fts` (and are `allowed`), best first.
    ///
    /// Tool output is long and matches often: having FTS5 rank every match of
    /// a common word costs hundreds of milliseconds. So when the filters allow
    /// at most `candidates` documents (the sessions of a project that have no
    /// hit yet), each is looked up; otherwise the newest `candidates` matches
    /// (the last written) are taken as they come. Only those are ranked.
    fn tool_matches(&self, fts: &str, allowed: Option<&HashSet<i64>>, candidates: usize) -> Result<Vec<(i64, f64)>> {
        let docs: Vec<i64> = match allowed {
            Some(allowed) if allowed.len() <= candidates => allowed.iter().copied().collect(),
            _ => {
                let mut statement = self
                    .conn
                    .prepare_cached("SELECT rowid FROM tool_fts WHERE tool_fts MATCH ?1 ORDER BY rowid DESC")?;
                let mut rows = statement.query([fts])?;
                let mut docs = Vec::new();
                while docs.len() < candidates
                    && let Some(row) = rows.next()?
                {
                    let doc: i64 = row.get(0)?;
                    if allowed.is_none_or(|allowed| allowed.contains(&doc)) {
                        docs.push(doc);
                    }
                }
                docs
            }
        };
        let mut rank = self.conn.prepare_cached("SELECT rank FROM tool_fts WHERE tool_fts MATCH ?1 AND rowid = ?2")?;
        let mut ranked = Vec::with_capacity(docs.len());
        for doc in docs {
            if let Some(score) = rank.query_row(params![fts, doc], |row| row.get::<_, f64>(0)).optional()? {
                ranked.push((doc, score));
            }
        }
        // Best first; among equals, the newest.
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        Ok(ranked)
    }
}

/// A session's best hit, before its snippet.
struct Best {
    index: Index,
    doc: i64,
    session: i64,
    entry_id: Option<String>,
    role: String,
    score: f64,
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
