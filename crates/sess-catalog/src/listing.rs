//! What the catalog holds for `sess list`: each session as the listing of
//! its source shows it, and the files that could not be read.

use std::collections::HashSet;
use std::path::PathBuf;

use rusqlite::params;
use sess_sources::{Listed, SessionInfo, SourceKind};

use crate::catalog::{Catalog, count};
use crate::error::Result;
use crate::refresh::{self, SourceFile};

/// One source's sessions as its listing shows them, from the catalog.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListedSessions {
    /// Each session the listing shows, and how many messages `sess show
    /// --all` shows of it when the catalog knows (pi-family).
    pub sessions: Vec<(SessionInfo, Option<usize>)>,
    /// The files that could not be read, and what reading them said.
    pub unreadable: Vec<(PathBuf, String)>,
    /// Every file of the source the catalog holds (listed or not, failed or
    /// not): a file given to the last refresh and not among them could not
    /// be looked at (a dangling link).
    pub known: HashSet<PathBuf>,
}

impl Catalog {
    /// What the catalog holds of `source`'s session files for its listing
    /// ([`sess_sources::Indexed::listed`]): the sessions it shows, with the
    /// files' modification times, and the files that could not be read.
    /// The files a refresh read only the added lines of are read whole first
    /// for it ([`Source::listed`](sess_sources::Source::listed)): a
    /// listing's counts and titles are the whole file's.
    pub fn listed(&mut self, source: SourceKind) -> Result<ListedSessions> {
        self.relist_grown(source)?;
        let mut statement = self.conn.prepare_cached(
            "SELECT path, modified_ms, list_id, list_title, list_cwd, list_created, active_ms, list_count,
             first_message, parent_session, shown_messages
             FROM sessions WHERE source = ?1 AND store IS NULL AND listed",
        )?;
        let rows = statement.query_map([source.as_str()], |row| {
            let path: String = row.get(0)?;
            let shown: Option<i64> = row.get(10)?;
            let listed = Listed {
                id: row.get(2)?,
                title: row.get(3)?,
                cwd: row.get(4)?,
                created: row.get(5)?,
                active_ms: row.get(6)?,
                message_count: count(row, 7)?,
                first_message: row.get(8)?,
                parent_session: row.get(9)?,
                shown_messages: shown.and_then(|n| usize::try_from(n).ok()),
            };
            let shown = listed.shown_messages;
            Ok((listed.info(source, PathBuf::from(path), row.get(1)?), shown))
        })?;
        let sessions = rows.collect::<rusqlite::Result<_>>()?;
        let mut statement =
            self.conn.prepare_cached("SELECT path, reason FROM failures WHERE source = ?1 AND unreadable")?;
        let rows = statement.query_map(params![source.as_str()], |row| {
            Ok((PathBuf::from(row.get::<_, String>(0)?), row.get::<_, String>(1)?))
        })?;
        let unreadable = rows.collect::<rusqlite::Result<_>>()?;
        let mut statement = self.conn.prepare_cached(
            "SELECT path FROM sessions WHERE source = ?1 AND store IS NULL UNION ALL SELECT path FROM failures WHERE source = ?1",
        )?;
        let rows = statement.query_map(params![source.as_str()], |row| Ok(PathBuf::from(row.get::<_, String>(0)?)))?;
        let known = rows.collect::<rusqlite::Result<_>>()?;
        Ok(ListedSessions { sessions, unreadable, known })
    }

    /// Reads again, whole, the files of `source` that grew since the catalog
    /// last read them whole, for what their listing says. A file that cannot
    /// be read now keeps what was read before; a listing read while a refresh
    /// changed the file's row is not written (the next listing reads it).
    fn relist_grown(&mut self, source: SourceKind) -> Result<()> {
        let mut statement = self.conn.prepare_cached(
            "SELECT id, path, file_size, file_mtime_ns FROM sessions
             WHERE source = ?1 AND store IS NULL AND list_stale",
        )?;
        let rows = statement.query_map([source.as_str()], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, i64>(2)?, row.get::<_, i64>(3)?))
        })?;
        let grown: Vec<(i64, String, i64, i64)> = rows.collect::<rusqlite::Result<_>>()?;
        drop(statement);
        if grown.is_empty() {
            return Ok(());
        }
        let read: Vec<(i64, i64, i64, Option<Listed>)> = grown
            .into_iter()
            .filter_map(|(key, path, size, mtime_ns)| {
                let listed = refresh::read_whole_listed(&SourceFile::new(source, PathBuf::from(path))).ok()?;
                Some((key, size, mtime_ns, listed))
            })
            .collect();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for (key, size, mtime_ns, listed) in &read {
            let unchanged: bool = tx.query_row(
                "SELECT count(*) > 0 FROM sessions WHERE id = ?1 AND file_size = ?2 AND file_mtime_ns = ?3",
                params![key, size, mtime_ns],
                |row| row.get(0),
            )?;
            if unchanged {
                refresh::write_listed(&tx, *key, listed.as_ref())?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
