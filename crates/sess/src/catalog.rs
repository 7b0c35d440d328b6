//! The search catalog of every agent's sessions on a machine: where it is,
//! which files it covers, and bringing it up to date.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sess_catalog::{Catalog, Problem, Progress, RefreshReport, SourceFile, StoredSession};
use sess_core::FileKind;
use sess_sources::{Env, SourceKind};
use sess_store::FileStorage;

use crate::{Error, Result};

/// The catalog file: `arg` (a `--catalog`), else `catalog.sqlite` in the
/// data folder `data_dir`.
///
/// A catalog named by `arg` must be in a folder that exists (a typo makes no
/// folders), and may not be a device or a FIFO; the default one's folders
/// are made when it is opened.
///
/// # Errors
///
/// [`Error::Catalog`] when `arg` names no file that a catalog can be.
pub fn path(arg: Option<&Path>, data_dir: &Path) -> Result<PathBuf> {
    let Some(path) = arg else { return Ok(data_dir.join("catalog.sqlite")) };
    match sess_store::storage::regular_file(&FileStorage, path) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = sess_store::storage::parent_dir(path);
            if !dir.is_dir() {
                return Err(Error::catalog(format!(
                    "cannot make the catalog `{}`: the folder `{}` does not exist",
                    path.display(),
                    dir.display()
                )));
            }
        }
        Err(e) => return Err(Error::catalog_because(format!("cannot open the catalog `{}`", path.display()), e)),
    }
    Ok(path.to_owned())
}

/// Opens the catalog at `path`.
///
/// # Errors
///
/// [`Error::Catalog`] when it cannot be opened or made.
pub fn open(path: &Path) -> Result<Catalog> {
    Catalog::open(path).map_err(|e| Error::catalog_because(format!("cannot open the catalog `{}`", path.display()), e))
}

/// A refresh and how long it took.
pub struct Refreshed {
    /// The agents' session files.
    pub report: RefreshReport,
    /// The sessions of the store given, if any.
    pub store: Option<RefreshReport>,
    /// Each source's names that are not regular files, which it skipped.
    pub skipped: Vec<(SourceKind, Vec<(PathBuf, FileKind)>)>,
    /// How long the refresh took.
    pub took: Duration,
}

impl Refreshed {
    /// The sessions that could not be read, files and stored ones.
    pub fn problems(&self) -> impl Iterator<Item = &Problem> {
        self.report.problems.iter().chain(self.store.iter().flat_map(|r| &r.problems))
    }
}

/// The warning for a session that could not be read into the catalog.
pub fn problem_line(problem: &Problem) -> String {
    format!("`{}`: {}; not in the catalog", problem.path.display(), problem.reason)
}

/// Brings `catalog` up to date with every session file in `env`, and with
/// the sessions of `store`; `progress` is told as files are read.
///
/// # Errors
///
/// [`Error::Catalog`] when the catalog cannot be read or written; as
/// [`store::open`](crate::store::open) for `store`.
pub fn refresh(
    catalog: &mut Catalog,
    env: &Env,
    store: Option<&str>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Refreshed> {
    let started = Instant::now();
    let (found, report, _) = refresh_found(catalog, env, progress)?;
    let store = store.map(|url| refresh_store(catalog, url)).transpose()?;
    Ok(Refreshed { report, store, skipped: found.skipped, took: started.elapsed() })
}

/// Embeds with `model` the catalog's messages that have no vector yet
/// (after a refresh: those it added), telling `progress` the documents done
/// and those in all; the vectors of another model are dropped first.
///
/// # Errors
///
/// [`Error::Catalog`] when the catalog cannot be read or written.
pub fn embed(
    catalog: &mut Catalog,
    model: &sess_embed::Model,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<sess_catalog::EmbedReport> {
    catalog
        .embed(model, progress)
        .map_err(|e| Error::catalog_because(format!("cannot embed the messages of `{}`", catalog.path().display()), e))
}

/// Brings `catalog` up to date with `files`, every session file there is.
///
/// # Errors
///
/// [`Error::Catalog`] when the catalog cannot be read or written.
pub fn refresh_files(
    catalog: &mut Catalog,
    files: &[SourceFile],
    progress: &mut dyn FnMut(Progress),
) -> Result<RefreshReport> {
    catalog
        .refresh(files, progress)
        .map_err(|e| Error::catalog_because(format!("cannot refresh the catalog `{}`", catalog.path().display()), e))
}

/// Brings the catalog's sessions of the store `url` up to date: each
/// session's version is its message count, last activity and title, so a
/// session is read again when one of them changes.
///
/// # Errors
///
/// As [`store::open`](crate::store::open); [`Error::Catalog`] when the
/// store's sessions cannot be listed or the catalog written.
pub fn refresh_store(catalog: &mut Catalog, url: &str) -> Result<RefreshReport> {
    let backend = crate::store::open(url, crate::store::Missing::Refused, &crate::Quiet)?;
    let sessions: Vec<StoredSession> = backend
        .list_sessions()
        .map_err(|e| Error::catalog_because(format!("cannot list the sessions of `{url}`"), e))?
        .into_iter()
        .map(|s| StoredSession {
            version: format!("{}:{}:{}", s.message_count, s.modified_ms, s.title.as_deref().unwrap_or_default()),
            title_explicit: s.title.is_some(),
            title: s.title.or(Some(s.first_message)),
            cwd: Some(s.cwd).filter(|c| !c.is_empty()),
            created: s.created,
            modified_ms: s.modified_ms,
            message_count: s.message_count,
            id: s.id,
        })
        .collect();
    catalog
        .refresh_store(url, &sessions, &mut |session| backend.read_session(&session.id).map_err(|e| e.to_string()))
        .map_err(|e| Error::catalog_because(format!("cannot refresh the catalog's sessions of `{url}`"), e))
}

/// How many times a refresh looks again for sessions in the directories the
/// sessions it found name (each look can only find more).
const LOOKS: usize = 3;

/// Brings `catalog` up to date with every session file in `env`: the files
/// found where the project folders are the directories the catalog's
/// sessions name ([`sess_sources::projects`]), then, while the refresh
/// brought new directories, again with them (only the sources that look
/// there find again). The files found, the refresh's report, and that
/// environment.
///
/// # Errors
///
/// [`Error::Catalog`] when the catalog cannot be read or written.
pub fn refresh_found(
    catalog: &mut Catalog,
    env: &Env,
    progress: &mut dyn FnMut(Progress),
) -> Result<(Found, RefreshReport, Env)> {
    let cwds = |catalog: &Catalog| {
        catalog
            .session_cwds()
            .map_err(|e| Error::catalog_because(format!("cannot read the catalog `{}`", catalog.path().display()), e))
    };
    let mut known = cwds(catalog)?;
    let mut total: Option<RefreshReport> = None;
    let mut found: Option<Found> = None;
    let mut look = 1;
    loop {
        let env = env.clone().with_session_cwds(known.clone());
        let now_found = match found.take() {
            None => find_files(&env, |_| true),
            Some(before) => before.again(&env),
        };
        let report = refresh_files(catalog, &now_found.files, progress)?;
        let report = match total.take() {
            Some(before) => merged(&before, report),
            None => report,
        };
        let now = cwds(catalog)?;
        if look == LOOKS || now.iter().all(|cwd| known.binary_search(cwd).is_ok()) {
            return Ok((now_found, report, env));
        }
        total = Some(report);
        found = Some(now_found);
        known = now;
        look += 1;
    }
}

/// One report of two refreshes, `second` after `first`.
fn merged(first: &RefreshReport, second: RefreshReport) -> RefreshReport {
    let read_first = first.added + first.grown + first.reread;
    RefreshReport {
        unchanged: second.unchanged.saturating_sub(read_first),
        added: first.added + second.added,
        grown: first.grown + second.grown,
        reread: first.reread + second.reread,
        removed: first.removed + second.removed,
        messages: first.messages + second.messages,
        ..second
    }
}

/// Every session file of every agent on a machine, and each source's names
/// that are not regular files (for the caller to report).
pub struct Found {
    /// The files.
    pub files: Vec<SourceFile>,
    /// The names skipped, by source.
    pub skipped: Vec<(SourceKind, Vec<(PathBuf, FileKind)>)>,
}

impl Found {
    /// These files, with those of the sources that look in the sessions'
    /// directories found again in `env`.
    fn again(mut self, env: &Env) -> Found {
        let again = |kind: SourceKind| kind.source().finds_in_session_cwds();
        self.files.retain(|file| !again(file.source));
        self.skipped.retain(|(kind, _)| !again(*kind));
        let more = find_files(env, again);
        self.files.extend(more.files);
        self.skipped.extend(more.skipped);
        self
    }
}

/// Every session file of the agents in `env` that `which` takes, found
/// without reading any, each source's in turn, and the names that are not
/// regular files (a FIFO, a device), for the caller to warn about.
pub fn find_files(env: &Env, which: impl Fn(SourceKind) -> bool) -> Found {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for kind in sess_sources::registry().filter(|kind| which(*kind)) {
        let found = kind.source().files(env);
        skipped.push((kind, found.skipped));
        files.extend(found.files.into_iter().map(|(_, path)| SourceFile::new(kind, path)));
        files.extend(found.rows.into_iter().map(|row| SourceFile::row(kind, row)));
    }
    Found { files, skipped }
}
