//! The search catalog of every agent's sessions on this machine: where it is,
//! which files it covers, and refreshing it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use sess_catalog::{Catalog, Problem, RefreshReport, SourceFile, StoredSession};
use sess_core::FileKind;
use sess_sources::{Env, SourceKind};
use sess_store::FileStorage;

use crate::env::{environment, sources_env};
use crate::output::{Progress, warn, warn_skipped};

/// Refreshes that read fewer files than this show no progress bar.
const PROGRESS_FROM: usize = 50;

/// The catalog file: `--catalog`, else `$XDG_DATA_HOME/sess/catalog.sqlite`,
/// else `~/.local/share/sess/catalog.sqlite`.
///
/// The folders of the default catalog are made when missing; a catalog given
/// with `--catalog` must be in a folder that exists (a typo makes no folders),
/// and may not be a device or a FIFO.
pub(crate) fn path(arg: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(path) = arg {
        match sess_store::storage::regular_file(&FileStorage, path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let dir = sess_store::storage::parent_dir(path);
                if !dir.is_dir() {
                    anyhow::bail!(
                        "cannot make the catalog `{}`: the folder `{}` does not exist",
                        path.display(),
                        dir.display()
                    );
                }
            }
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!("cannot open the catalog `{}`", path.display())));
            }
        }
        return Ok(path.to_owned());
    }
    let env = environment();
    Ok(env.xdg_data_home.unwrap_or_else(|| env.home.join(".local/share")).join("sess").join("catalog.sqlite"))
}

/// Opens the catalog at `path`.
pub(crate) fn open(path: &Path) -> anyhow::Result<Catalog> {
    Catalog::open(path).with_context(|| format!("cannot open the catalog `{}`", path.display()))
}

/// The catalog (`--catalog`, else the default), brought up to date first
/// unless `refresh` is false (`--no-refresh`); sessions that could not be
/// read are counted in a warning.
pub(crate) fn open_fresh(arg: Option<&Path>, store: Option<&str>, refresh: bool) -> anyhow::Result<Catalog> {
    let mut catalog = open(&path(arg)?)?;
    if refresh {
        let refreshed = self::refresh(&mut catalog, store, Bar::Shown)?;
        let problems = refreshed.problems().count();
        if problems > 0 {
            warn(format_args!("{problems} sessions could not be read (`sess index` lists them)"));
        }
    }
    Ok(catalog)
}

/// A refresh and how long it took.
pub(crate) struct Refreshed {
    /// The agents' session files.
    pub(crate) report: RefreshReport,
    /// The sessions of the store given with `--store`.
    pub(crate) store: Option<RefreshReport>,
    pub(crate) took: Duration,
}

impl Refreshed {
    /// The sessions that could not be read, files and stored ones.
    pub(crate) fn problems(&self) -> impl Iterator<Item = &Problem> {
        self.report.problems.iter().chain(self.store.iter().flat_map(|r| &r.problems))
    }

    /// A warning for each session that could not be read.
    pub(crate) fn warn_problems(&self) {
        for problem in self.problems() {
            warn(format_args!("`{}`: {}; not in the catalog", problem.path.display(), problem.reason));
        }
    }
}

/// Whether a refresh shows a progress bar.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bar {
    /// On a terminal, when there are many files to read.
    Shown,
    /// Never (the server's refreshes).
    Hidden,
}

/// Brings `catalog` up to date with every session file on this machine, and
/// with the sessions of `store`.
pub(crate) fn refresh(catalog: &mut Catalog, store: Option<&str>, bar: Bar) -> anyhow::Result<Refreshed> {
    let started = Instant::now();
    let (found, report, _) = refresh_found(catalog, bar)?;
    for (_, skipped) in &found.skipped {
        warn_skipped(skipped);
    }
    let store = store.map(|url| refresh_store(catalog, url)).transpose()?;
    Ok(Refreshed { report, store, took: started.elapsed() })
}

/// Brings `catalog` up to date with `files`, every session file on this
/// machine.
pub(crate) fn refresh_files(catalog: &mut Catalog, files: &[SourceFile], bar: Bar) -> anyhow::Result<RefreshReport> {
    let mut shown: Option<Progress> = None;
    let report = catalog.refresh(files, &mut |progress| {
        if bar == Bar::Shown && progress.total >= PROGRESS_FROM {
            let shown = shown.get_or_insert_with(|| Progress::new(progress.total as u64, "sessions"));
            shown.set(progress.done as u64);
        }
    });
    if let Some(shown) = &shown {
        shown.finish();
    }
    report.with_context(|| format!("cannot refresh the catalog `{}`", catalog.path().display()))
}

/// Brings the catalog's sessions of the store `url` up to date: each
/// session's version is its message count, last activity and title, so a
/// session is read again when one of them changes.
pub(crate) fn refresh_store(catalog: &mut Catalog, url: &str) -> anyhow::Result<RefreshReport> {
    let backend = crate::store::open(url)?;
    let sessions: Vec<StoredSession> = backend
        .list_sessions()
        .with_context(|| format!("cannot list the sessions of `{url}`"))?
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
        .with_context(|| format!("cannot refresh the catalog's sessions of `{url}`"))
}

/// How many times a refresh looks again for sessions in the directories the
/// sessions it found name (each look can only find more).
const LOOKS: usize = 3;

/// Brings `catalog` up to date with every session file on this machine: the
/// files found in the environment whose project folders are the directories
/// the catalog's sessions name ([`sess_sources::projects`]), then, while the
/// refresh brought new directories, again with them (only the sources that
/// look there find again). The files found, the refresh's report, and that
/// environment.
pub(crate) fn refresh_found(catalog: &mut Catalog, bar: Bar) -> anyhow::Result<(Found, RefreshReport, Env)> {
    let cwds = |catalog: &Catalog| {
        catalog.session_cwds().with_context(|| format!("cannot read the catalog `{}`", catalog.path().display()))
    };
    let mut known = cwds(catalog)?;
    let mut total: Option<RefreshReport> = None;
    let mut found: Option<Found> = None;
    let mut look = 1;
    loop {
        let env = sources_env().clone().with_session_cwds(known.clone());
        let now_found = match found.take() {
            None => find_files(&env, |_| true),
            Some(before) => before.again(&env),
        };
        let report = refresh_files(catalog, &now_found.files, bar)?;
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

/// Every session file of every agent on this machine, and each source's
/// names that are not regular files (for the caller to report).
pub(crate) struct Found {
    pub(crate) files: Vec<SourceFile>,
    pub(crate) skipped: Vec<(SourceKind, Vec<(PathBuf, FileKind)>)>,
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
pub(crate) fn find_files(env: &Env, which: impl Fn(SourceKind) -> bool) -> Found {
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
