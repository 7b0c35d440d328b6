//! Sessions of stores (`sess --store URL`: a directory of pi-family files,
//! SQLite, PostgreSQL) in the catalog.
//!
//! The catalog does not open stores: the caller lists a store's sessions
//! ([`StoredSession`], each with a version that changes when its messages or
//! title do) and reads the entries of those the catalog asks for. A session
//! whose version is unchanged is not read; one the store no longer lists is
//! removed. Sessions of other stores, and session files, are left alone.

use std::collections::HashMap;

use rusqlite::params;
use sess_core::Entry;
use sess_sources::SourceKind;

use crate::catalog::{Catalog, stored_count};
use crate::error::Result;
use crate::extract::entry_docs;
use crate::refresh::{Problem, RefreshReport, delete_session, fill_docs, row_to_fill};

/// One session of a store, as its listing gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredSession {
    /// The session id.
    pub id: String,
    /// Changes whenever what the catalog keeps of the session changes (its
    /// message count, last activity and title, say).
    pub version: String,
    /// Its title, or its first prompt.
    pub title: Option<String>,
    /// Whether `title` is the session's own, not its first prompt.
    pub title_explicit: bool,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// When it started (ISO 8601).
    pub created: Option<String>,
    /// Last activity, in ms since the Unix epoch.
    pub modified_ms: i64,
    /// How many messages it has.
    pub message_count: usize,
}

impl Catalog {
    /// Brings the catalog's sessions of the store `url` up to date with
    /// `sessions`, every session the store holds. `read` gives the entries of
    /// a session the catalog needs to read, or why it cannot.
    pub fn refresh_store(
        &mut self,
        url: &str,
        sessions: &[StoredSession],
        read: &mut dyn FnMut(&StoredSession) -> Result<Vec<Entry>, String>,
    ) -> Result<RefreshReport> {
        let mut report = RefreshReport { files: sessions.len(), ..RefreshReport::default() };
        let known: HashMap<String, (i64, Option<String>)> = {
            let mut statement = self.conn.prepare("SELECT session_id, id, version FROM sessions WHERE store = ?1")?;
            let rows = statement.query_map([url], |row| Ok((row.get(0)?, (row.get(1)?, row.get(2)?))))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let listed: std::collections::HashSet<&str> = sessions.iter().map(|s| s.id.as_str()).collect();
        for (id, (key, _)) in &known {
            if !listed.contains(id.as_str()) {
                delete_session(&tx, *key)?;
                report.removed += 1;
            }
        }
        for session in sessions {
            let old = known.get(&session.id);
            if old.is_some_and(|(_, version)| version.as_deref() == Some(session.version.as_str())) {
                report.unchanged += 1;
                continue;
            }
            let entries = match read(session) {
                Ok(entries) => entries,
                Err(reason) => {
                    if let Some((key, _)) = old {
                        delete_session(&tx, *key)?;
                    }
                    report.problems.push(Problem { path: format!("{url}#{}", session.id).into(), reason });
                    continue;
                }
            };
            let key = row_to_fill(&tx, old.map(|(key, _)| *key), &mut report, || {
                tx.execute(
                    "INSERT INTO sessions (source, path, session_id, title_explicit, modified_ms, message_count,
                     file_size, file_mtime_ns, indexed_bytes, head_hash, store)
                     VALUES (?1, ?2, ?3, 0, 0, 0, -1, -1, 0, 0, ?4)",
                    params![SourceKind::native().as_str(), format!("{url}#{}", session.id), session.id, url],
                )
            })?;
            tx.execute(
                "UPDATE sessions SET title = ?2, title_explicit = ?3, cwd = ?4, created = ?5, modified_ms = ?6,
                 message_count = ?7, version = ?8 WHERE id = ?1",
                params![
                    key,
                    session.title,
                    session.title_explicit,
                    session.cwd,
                    session.created,
                    session.modified_ms,
                    stored_count(session.message_count),
                    session.version
                ],
            )?;
            let title = session.title.as_deref().filter(|_| session.title_explicit);
            fill_docs(&tx, key, title, &entry_docs(&entries), None, &mut report)?;
            crate::usage::replace_main(&tx, key, &sess_sources::pi::entry_calls(&entries), session.modified_ms)?;
        }
        tx.commit()?;
        Ok(report)
    }
}
