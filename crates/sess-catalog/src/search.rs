//! Full-text search over the catalog.
//!
//! Hits are messages (and session titles) ranked by FTS5's BM25, a word in a
//! title counting double; each session appears once, at its best hit. What
//! tools answered (role `tool`) is searched in its own index, after the
//! conversation's words: its hits come after every hit in the conversation,
//! and a session whose messages match is never shown at its tool output.
//! A word that matches more than a window of messages is ranked among its
//! newest matches (enough of them to fill the hits asked for), not among all:
//! see `Catalog::ranked`. Snippets are computed only for the hits returned,
//! in time that grows with their matches, not with its square (`snippet`).
//!
//! A query's cost is bounded whatever its shape: a term given twice is sent
//! once, a query has at most [`MAX_WORDS`](crate::MAX_WORDS) words, and a
//! search stops when its [`Stop`] says so.

use std::collections::HashSet;

use rusqlite::{OptionalExtension as _, params};
use serde::Serialize;
use sess_sources::SourceKind;

use crate::catalog::{Catalog, SESSION_COLUMNS, SessionRow, session_row, stored_count};
use crate::error::{Error, Result};
use crate::query::{check_words, to_fts, to_fts_words};
use crate::stop::{Stop, stopped};

/// How many words of context a snippet has around the hit.
const SNIPPET_TOKENS: usize = 20;
/// Matches read at a time, newest first, before they are ranked (see
/// `Catalog::ranked`).
const WINDOW: usize = 1_000;

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
    /// When the search gives up ([`Error::Stopped`]): never by default.
    pub stop: Stop,
}

impl SearchParams {
    /// A search for `query` everywhere, with at most 20 hits, run to its end.
    pub fn new(query: impl Into<String>) -> Self {
        Self { query: query.into(), source: None, cwd: None, store: None, limit: 20, offset: 0, stop: Stop::never() }
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
    ///
    /// [`Error::TooManyWords`] for a query of more than
    /// [`MAX_WORDS`](crate::MAX_WORDS) words; [`Error::Stopped`] when
    /// `params.stop` says so before the search is done.
    pub fn search(&self, params: &SearchParams) -> Result<Vec<Hit>> {
        check_words(&params.query)?;
        let (Some(fts), Some(words)) = (to_fts(&params.query), to_fts_words(&params.query)) else {
            return Err(Error::EmptyQuery { query: params.query.clone() });
        };
        let held = self.stop.hold(&params.stop);
        let hits = self.search_queries(params, &fts, &words).map_err(|error| {
            let error = stopped(&params.stop, error);
            match error {
                Error::Sql(rusqlite::Error::SqliteFailure(_, Some(message))) if message.starts_with("fts5:") => {
                    Error::BadQuery { query: params.query.clone(), reason: message }
                }
                other => other,
            }
        });
        drop(held);
        hits
    }

    /// [`search`](Self::search) of `fts` in the conversation and `words`
    /// in what tools answered.
    fn search_queries(&self, params: &SearchParams, fts: &str, words: &str) -> Result<Vec<Hit>> {
        let wanted = params.offset.saturating_add(params.limit);
        let allowed = self.allowed_sessions(params)?;
        let mut seen = HashSet::new();
        // The conversation first; then what tools answered, in the sessions
        // without a hit yet.
        let stop = &params.stop;
        let mut best = self.ranked(Index::Conversation, fts, allowed.as_ref(), &mut seen, (wanted, stop))?;
        if best.len() < wanted {
            let more = self.ranked(Index::Tools, words, allowed.as_ref(), &mut seen, (wanted - best.len(), stop))?;
            best.extend(more);
        }
        let session_sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1");
        let mut session = self.conn.prepare_cached(&session_sql)?;
        let best: Vec<Best> = best.into_iter().skip(params.offset).collect();
        let snippets = self.snippets(&best, fts, words)?;
        let mut hits = Vec::with_capacity(best.len());
        for (Best { session: key, entry_id, role, score, .. }, snippet) in best.into_iter().zip(snippets) {
            hits.push(Hit { session: session.query_row([key], session_row)?, entry_id, role, snippet, score });
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
    /// The sessions the filters of `params` allow; `None` when there are no
    /// filters.
    fn allowed_sessions(&self, params: &SearchParams) -> Result<Option<HashSet<i64>>> {
        let source = params.source.map(SourceKind::as_str);
        if source.is_none() && params.cwd.is_none() && params.store.is_none() {
            return Ok(None);
        }
        let mut statement = self.conn.prepare_cached(
            "SELECT id FROM sessions
             WHERE (?1 IS NULL OR source = ?1) AND (?2 IS NULL OR cwd = ?2) AND (?3 IS NULL OR store = ?3)",
        )?;
        let rows = statement.query_map(params![source, params.cwd, params.store], |row| row.get::<_, i64>(0))?;
        Ok(Some(rows.collect::<rusqlite::Result<_>>()?))
    }

    /// The best hit of up to `limit` sessions in `index`, best first: the
    /// sessions `allowed` (all when `None`) not `seen` yet, which are then
    /// seen; `Err` when `stop` says so.
    ///
    /// Ranking every match of a common word costs hundreds of milliseconds
    /// over a million messages, so the matches are read newest first, a
    /// [`WINDOW`] at a time, until they hold at least `limit` sessions (or
    /// there are no more), and only those are ranked by BM25. A word rarer
    /// than that is ranked over all its matches.
    fn ranked(
        &self,
        index: Index,
        fts: &str,
        allowed: Option<&HashSet<i64>>,
        seen: &mut HashSet<i64>,
        (limit, stop): (usize, &Stop),
    ) -> Result<Vec<Best>> {
        let table = index.table();
        let mut matches = self.conn.prepare_cached(&format!(
            "SELECT rowid, rank FROM {table} WHERE {table} MATCH ?1 AND rowid < ?2 ORDER BY rowid DESC LIMIT ?3"
        ))?;
        let mut doc_of = self.conn.prepare_cached("SELECT session, entry_id, role FROM docs WHERE id = ?1")?;
        let mut candidates: Vec<Best> = Vec::new();
        let mut sessions = HashSet::new();
        let mut before = i64::MAX;
        loop {
            stop.check()?;
            let mut read = 0;
            let mut rows = matches.query(params![fts, before, stored_count(WINDOW)])?;
            while let Some(row) = rows.next()? {
                read += 1;
                let doc: i64 = row.get(0)?;
                before = doc;
                let (session, entry_id, role) = doc_of.query_row([doc], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, Option<String>>(1)?, row.get::<_, String>(2)?))
                })?;
                if seen.contains(&session) || allowed.is_some_and(|allowed| !allowed.contains(&session)) {
                    continue;
                }
                sessions.insert(session);
                candidates.push(Best { index, doc, session, entry_id, role, score: row.get(1)? });
            }
            if read < WINDOW || sessions.len() >= limit {
                break;
            }
        }
        // Best first; among equals, the newest.
        candidates.sort_by(|a, b| a.score.total_cmp(&b.score).then(b.doc.cmp(&a.doc)));
        let mut best = Vec::with_capacity(limit.min(candidates.len()));
        for candidate in candidates {
            if best.len() == limit {
                break;
            }
            if seen.insert(candidate.session) {
                best.push(candidate);
            }
        }
        Ok(best)
    }
}

impl Catalog {
    /// The snippet of each hit in `best`.
    ///
    /// FTS5's `snippet()` over the whole index would look the query up again
    /// for every hit: a prefix (`pars*`) gathers every word it covers each
    /// time. So the hits' texts are copied into a small index of their own
    /// (in the connection's temporary database, emptied for each search) and
    /// their matches marked there, by the same tokenizer, with
    /// `highlight()`. `snippet()` is not used: it scores a window at every
    /// match against every other match, so a message that repeats the word
    /// 8,000 times took seconds; [`snippet_window`] picks the words shown in one pass.
    /// A tool hit matched its phrase's words (its index keeps no
    /// positions); it shows the phrase where the text has it, else the words.
    fn snippets(&self, best: &[Best], fts: &str, words: &str) -> Result<Vec<Vec<SnippetPart>>> {
        self.conn.execute_batch(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.shown USING fts5 (
                 body, title, tokenize = 'unicode61 remove_diacritics 2'
             );
             DELETE FROM temp.shown;",
        )?;
        let mut copy = self.conn.prepare_cached(
            "INSERT INTO temp.shown (rowid, body, title) SELECT id, doc_text(body), title FROM docs WHERE id = ?1",
        )?;
        for hit in best {
            copy.execute([hit.doc])?;
        }
        let mut marked = self.conn.prepare_cached(
            "SELECT highlight(shown, 0, char(2), char(3)), highlight(shown, 1, char(2), char(3))
             FROM temp.shown WHERE shown MATCH ?1 AND rowid = ?2",
        )?;
        let mut snippets = Vec::with_capacity(best.len());
        for hit in best {
            let mut read = |query: &str| {
                marked
                    .query_row(params![query, hit.doc], |row| {
                        Ok((row.get::<_, Option<String>>(0)?, row.get::<_, Option<String>>(1)?))
                    })
                    .optional()
            };
            let mut columns = read(fts)?;
            if columns.is_none() && matches!(hit.index, Index::Tools) {
                columns = read(words)?;
            }
            let text = columns.map(|(body, title)| {
                let (body, title) = (body.unwrap_or_default(), title.unwrap_or_default());
                // The column with more matches, the body among equals.
                let hits = |text: &str| text.matches('\u{2}').count();
                snippet_window(if hits(&title) > hits(&body) { &title } else { &body }, MARKS, SNIPPET_TOKENS)
            });
            snippets.push(snippet_parts(text.as_deref().unwrap_or_default()));
        }
        Ok(snippets)
    }
}

/// The marks `highlight()` puts around the catalog's matches.
const MARKS: (char, char) = ('\u{2}', '\u{3}');

/// How many words the snippet of a hit found by meaning has.
const LEAD_WORDS: usize = 40;

/// The snippet of a hit found by meaning: the first words of its text,
/// nothing marked (no word of the query need be in it).
pub fn lead_snippet(text: &str) -> Vec<SnippetPart> {
    let words: Vec<&str> = text.split_whitespace().take(LEAD_WORDS).collect();
    vec![SnippetPart { text: words.join(" "), hit: false }]
}

/// About `size` words of `marked` (a text whose matches are between the two
/// `marks`, as FTS5's `highlight()` gives it) where its matches are
/// densest, the first such place; `…` where it is cut. In one pass over the
/// text, however many matches it has: FTS5's `snippet()` compares every
/// match with every other.
pub fn snippet_window(marked: &str, marks: (char, char), size: usize) -> String {
    let (open, close) = marks;
    // Each word's byte range, and whether a match starts in it.
    let mut words: Vec<(usize, usize, bool)> = Vec::new();
    let mut start = None;
    let mut starts_match = false;
    for (at, c) in marked.char_indices() {
        if c.is_whitespace() {
            if let Some(from) = start.take() {
                words.push((from, at, starts_match));
                starts_match = false;
            }
        } else {
            start.get_or_insert(at);
            starts_match |= c == open;
        }
    }
    if let Some(from) = start {
        words.push((from, marked.len(), starts_match));
    }
    let size = size.max(1);
    if words.len() <= size {
        return marked.trim().to_owned();
    }
    let matches: Vec<usize> = words.iter().enumerate().filter(|(_, w)| w.2).map(|(i, _)| i).collect();
    // The window of `size` words from a match that holds the most matches.
    let (mut first, mut last, mut most) = (0, 0, 0);
    let mut end = 0;
    for (i, &at) in matches.iter().enumerate() {
        while end < matches.len() && matches[end] < at + size {
            end += 1;
        }
        if end - i > most {
            (first, last, most) = (at, matches[end - 1], end - i);
        }
    }
    // Its matches in the middle, as far as the text allows.
    let slack = size - (last - first + 1);
    let from = first.saturating_sub(slack / 2).min(words.len() - size);
    let to = from + size;
    let mut text = String::new();
    if from > 0 {
        text.push('…');
    }
    let before = &marked[..words[from].0];
    let inside_match = before.rfind(open) > before.rfind(close);
    if inside_match {
        text.push(open);
    }
    let shown = &marked[words[from].0..words[to - 1].1];
    text.push_str(shown);
    if shown.rfind(open) > shown.rfind(close) || (inside_match && !shown.contains(close)) {
        text.push(close);
    }
    if to < words.len() {
        text.push('…');
    }
    text
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

    #[test]
    fn windows_show_the_densest_matches() {
        let text = "one two three \u{2}four\u{3} five six seven eight nine ten \u{2}x\u{3} \u{2}y\u{3} z end";
        assert_eq!(snippet_window(text, MARKS, 5), "…ten \u{2}x\u{3} \u{2}y\u{3} z end");
        assert_eq!(snippet_window(text, MARKS, 3), "…\u{2}x\u{3} \u{2}y\u{3} z…");
        assert_eq!(snippet_window(text, MARKS, 100), text);
        assert_eq!(snippet_window("a b c d e", MARKS, 2), "a b…", "no match: the start");
        // A match cut by the window is closed, or opened.
        assert_eq!(snippet_window("a b \u{2}c d e f\u{3} g h i", MARKS, 2), "…\u{2}c d\u{3}…");
        let long = "w ".repeat(10_000) + "\u{2}hit\u{3}";
        assert_eq!(snippet_window(&long, MARKS, 3), "…w w \u{2}hit\u{3}");
    }
}
