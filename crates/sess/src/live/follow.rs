//! The feed's thread: from the paths that changed to the sessions that
//! changed.
//!
//! A path the catalog knows as a session file is read again alone (the
//! catalog reads a grown file from where it stopped). A database, a path it
//! does not know (a new session, or a file that is none) and a folder bring
//! the agent's whole listing up to date, which finds what appeared and what
//! went; a path that listing did not take is remembered as no session until
//! the next look at everything. The sessions' catalog rows before and after
//! say what changed; a session that was written is read to give its new
//! messages.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sess_catalog::{Catalog, ListParams, SessionRow, SourceFile, Within};
use sess_sources::{Env, SourceKind};

use super::Change;
use crate::resolve::Located;
use crate::watch::{Batch, Folders, Timing};
use crate::{Error, Host, Result, Tell};

pub(super) struct Follower {
    host: Host,
    /// The agents' folders, with the directories the catalog's sessions name
    /// (where agents that keep sessions in the projects are looked for).
    env: Env,
    catalog: Catalog,
    /// Each agent's folders.
    roots: Vec<(SourceKind, Vec<PathBuf>)>,
    folders: Folders,
    /// Paths an agent's listing did not take.
    not_sessions: HashSet<PathBuf>,
    /// Every session as the feed last saw it, by file and id: what a change
    /// is told against (the catalog is shared: another process may have
    /// brought it up to date first).
    seen: HashMap<(PathBuf, String), Seen>,
    /// A look at everything is owed: a batch failed (the catalog was busy),
    /// and what it would have told is told by the next look.
    owed: bool,
    tell: Arc<dyn Tell>,
}

/// A session as the feed last saw it.
struct Seen {
    row: SessionRow,
    /// How many messages its transcript had, when the feed read it.
    messages: Option<usize>,
}

impl Follower {
    /// The follower of `host`'s sessions through the catalog at `catalog`:
    /// the system's events, or with `polling`, a look at everything that
    /// often.
    pub(super) fn start(
        host: Host,
        catalog: &Path,
        polling: Option<Duration>,
        tell: Arc<dyn Tell>,
    ) -> Result<Follower> {
        let mut catalog = crate::catalog::open(catalog)?;
        let (_, _, env) = crate::catalog::refresh_found(&mut catalog, &host.env, &mut |_| {})?;
        let roots = roots_of(&env);
        let all: Vec<PathBuf> = roots.iter().flat_map(|(_, roots)| roots.iter().cloned()).collect();
        let folders = match polling {
            None => Folders::watch(&all, Timing::LIVE, tell.as_ref()),
            Some(every) => Folders::poll(Timing { poll: every, ..Timing::LIVE }),
        };
        let mut follower = Follower {
            host,
            env,
            catalog,
            roots,
            folders,
            not_sessions: HashSet::new(),
            seen: HashMap::new(),
            owed: false,
            tell,
        };
        follower.seen = follower.rows(None)?.into_iter().map(|row| (key(&row), Seen { row, messages: None })).collect();
        Ok(follower)
    }

    pub(super) fn polling(&self) -> bool {
        self.folders.polling()
    }

    /// What changed in the next batch of the folders' changes, waiting at
    /// most `within` for one. A failure is told, and the next batch tries
    /// again.
    pub(super) fn next(&mut self, within: Duration) -> Vec<Change> {
        let batch = match self.folders.next(if self.owed { RETRY } else { within }) {
            Some(batch) => Some(batch),
            None if self.owed => Some(Batch::Look),
            None => None,
        };
        let Some(batch) = batch else { return Vec::new() };
        let changes = match batch {
            Batch::Look => self.look(),
            Batch::Changed(paths) => self.changed(&paths),
        };
        match changes {
            Ok(changes) => changes,
            Err(err) => {
                self.tell.warning(&format!("{}; looking again", crate::chain(&err)));
                self.owed = true;
                Vec::new()
            }
        }
    }

    /// Every agent's sessions looked at again.
    fn look(&mut self) -> Result<Vec<Change>> {
        self.owed = false;
        self.not_sessions.clear();
        let (_, _, env) = crate::catalog::refresh_found(&mut self.catalog, &self.host.env, &mut |_| {})?;
        self.roots = roots_of(&env);
        self.env = env;
        let after = self.rows(None)?;
        Ok(self.compare(|_| true, after))
    }

    fn changed(&mut self, paths: &[PathBuf]) -> Result<Vec<Change>> {
        let mut files = Vec::new();
        let mut agents = BTreeSet::new();
        let mut candidates = Vec::new();
        for path in paths {
            let path = database_of(path);
            let kinds = self.kinds_of(&path);
            if kinds.is_empty() {
                continue;
            }
            let mut known = self.at(std::slice::from_ref(&path))?;
            if known.is_empty() {
                // Another follower of the catalog may have taken a removed
                // file's sessions out of it first: they are still this one's to tell.
                known = self.seen.values().filter(|seen| seen.row.path == path).map(|seen| seen.row.clone()).collect();
            }
            if known.iter().any(|row| row.database_row) {
                agents.extend(known.iter().map(|row| row.source));
            } else if let Some(row) = known.first() {
                files.push(SourceFile::new(row.source, path));
            } else if self.not_sessions.contains(&path) || !(path.is_dir() || path.is_file()) {
                // No session, or something unknown that is gone.
            } else {
                agents.extend(kinds);
                if path.is_file() {
                    candidates.push(path);
                }
            }
        }
        let mut changes = Vec::new();
        // A file of an agent whose listing is read anyway is read with it.
        files.retain(|file| !agents.contains(&file.source));
        if !files.is_empty() {
            let paths: Vec<PathBuf> = files.iter().map(|file| file.path.clone()).collect();
            self.refresh(&files, Within::These)?;
            let after = self.at(&paths)?;
            let paths: HashSet<PathBuf> = paths.into_iter().collect();
            changes.extend(self.compare(|row| paths.contains(&row.path), after));
        }
        for kind in agents {
            let files = crate::catalog::find_files(&self.env, |k| k == kind).files;
            self.refresh(&files, Within::Agent(kind))?;
            let listed: HashSet<&Path> = files.iter().map(|file| file.path.as_path()).collect();
            let not_sessions: Vec<PathBuf> = candidates
                .iter()
                .filter(|path| self.kinds_of(path).contains(&kind) && !listed.contains(path.as_path()))
                .cloned()
                .collect();
            self.not_sessions.extend(not_sessions);
            let after = self.rows(Some(kind))?;
            changes.extend(self.compare(|row| row.source == kind, after));
        }
        Ok(changes)
    }

    fn refresh(&mut self, files: &[SourceFile], within: Within) -> Result<()> {
        let report = self.catalog.refresh_within(files, within, &mut |_| {}).map_err(|e| {
            Error::catalog_because(format!("cannot refresh the catalog `{}`", self.catalog.path().display()), e)
        })?;
        for problem in &report.problems {
            self.tell.warning(&crate::catalog::problem_line(problem));
        }
        Ok(())
    }

    /// The agents whose folders hold `path`.
    fn kinds_of(&self, path: &Path) -> Vec<SourceKind> {
        self.roots
            .iter()
            .filter(|(_, roots)| roots.iter().any(|root| path.starts_with(root) || root.starts_with(path)))
            .map(|(kind, _)| *kind)
            .collect()
    }

    /// The catalog's sessions of the agents' files (of one agent's).
    fn rows(&self, kind: Option<SourceKind>) -> Result<Vec<SessionRow>> {
        let params = ListParams { source: kind, limit: usize::MAX, ..ListParams::default() };
        let rows = self.catalog.sessions(&params).map_err(|e| self.read_error(e))?;
        Ok(rows.into_iter().filter(|row| row.store.is_none()).collect())
    }

    /// The catalog's sessions at `paths`.
    fn at(&self, paths: &[PathBuf]) -> Result<Vec<SessionRow>> {
        self.catalog.sessions_at(paths).map_err(|e| self.read_error(e))
    }

    fn read_error(&self, e: sess_catalog::Error) -> Error {
        Error::catalog_because(format!("cannot read the catalog `{}`", self.catalog.path().display()), e)
    }

    /// The changes from what the feed saw of the sessions `within` takes to
    /// `after`, the catalog's rows of the same sessions now: new sessions
    /// first, then those written, then those gone. What it saw becomes
    /// `after`.
    fn compare(&mut self, within: impl Fn(&SessionRow) -> bool, after: Vec<SessionRow>) -> Vec<Change> {
        let keys: Vec<(PathBuf, String)> =
            self.seen.iter().filter(|(_, seen)| within(&seen.row)).map(|(k, _)| k.clone()).collect();
        let mut before: HashMap<(PathBuf, String), Seen> =
            keys.into_iter().filter_map(|k| self.seen.remove_entry(&k)).collect();
        let mut changes = Vec::new();
        let mut written = Vec::new();
        for row in after {
            let seen = match before.remove(&key(&row)) {
                None => {
                    changes.push(Change::Appeared { session: crate::view::card(&row) });
                    Seen { row, messages: None }
                }
                Some(old) if old.row.message_count != row.message_count || old.row.modified_ms != row.modified_ms => {
                    written.push((old, row.clone()));
                    continue;
                }
                Some(old) => Seen { row, messages: old.messages },
            };
            self.seen.insert(key(&seen.row), seen);
        }
        for (old, row) in written {
            let (change, messages) = self.written(&old, &row);
            changes.push(change);
            self.seen.insert(key(&row), Seen { row, messages });
        }
        let mut gone: Vec<Seen> = before.into_values().collect();
        gone.sort_by(|a, b| a.row.path.cmp(&b.row.path).then_with(|| a.row.id.cmp(&b.row.id)));
        changes.extend(gone.iter().map(|seen| Change::Gone { session: crate::view::card(&seen.row) }));
        changes
    }

    /// A session that was written, with its messages from the last it had
    /// (as many as the catalog counts new, when the feed had not read it),
    /// and how many messages it has now.
    fn written(&self, old: &Seen, row: &SessionRow) -> (Change, Option<usize>) {
        let found = Located::of_row(row);
        let mut session = crate::view::card(row);
        let counted = row.message_count.saturating_sub(old.row.message_count);
        match crate::load::transcript(&found, None, &self.host, self.tell.as_ref()) {
            Ok(transcript) => {
                session.state = Some(crate::state::of(row.source, &transcript, row.modified_ms));
                let now = transcript.messages.len();
                let had = old.messages.unwrap_or_else(|| now.saturating_sub(counted));
                let from = had.saturating_sub(1).min(now);
                let messages = transcript.messages.into_iter().skip(from).collect();
                (Change::Changed { session, from, messages, new: now.saturating_sub(had) }, Some(now))
            }
            Err(err) => {
                self.tell.warning(&crate::chain(&err));
                (Change::Changed { session, from: 0, messages: Vec::new(), new: counted }, None)
            }
        }
    }
}

/// How soon a failed batch is tried again (by looking at everything).
const RETRY: Duration = Duration::from_millis(250);

/// A session's key: its file and id.
fn key(row: &SessionRow) -> (PathBuf, String) {
    (row.path.clone(), row.id.clone())
}

/// Each agent's folders in `env`.
fn roots_of(env: &Env) -> Vec<(SourceKind, Vec<PathBuf>)> {
    sess_sources::registry().map(|kind| (kind, kind.source().roots(env))).collect()
}

/// The database a database's log or lock file belongs to; any other path
/// itself.
fn database_of(path: &Path) -> PathBuf {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else { return path.to_owned() };
    for suffix in ["-wal", "-shm", "-journal"] {
        if let Some(database) = name.strip_suffix(suffix) {
            return path.with_file_name(database);
        }
    }
    path.to_owned()
}
