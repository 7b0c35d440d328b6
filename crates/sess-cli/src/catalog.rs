//! The search catalog of the library ([`sess::catalog`]) in this process's
//! environment, with a progress bar and the warnings it has for people.

use std::path::{Path, PathBuf};

use sess::catalog::{Found, Refreshed};
use sess_catalog::{Catalog, RefreshReport};
use sess_sources::Env;

use crate::env::host;
use crate::env::sources_env;
use crate::output::{Progress, warn, warn_skipped};

/// Refreshes that read fewer files than this show no progress bar.
const PROGRESS_FROM: usize = 50;

/// The catalog file: `--catalog`, else `$XDG_DATA_HOME/sess/catalog.sqlite`,
/// else `~/.local/share/sess/catalog.sqlite`.
pub(crate) fn path(arg: Option<&Path>) -> anyhow::Result<PathBuf> {
    Ok(sess::catalog::path(arg, &host().data_dir)?)
}

/// Opens the catalog at `path`.
pub(crate) fn open(path: &Path) -> anyhow::Result<Catalog> {
    Ok(sess::catalog::open(path)?)
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

/// A warning for each session that could not be read.
pub(crate) fn warn_problems(refreshed: &Refreshed) {
    for problem in refreshed.problems() {
        warn(sess::catalog::problem_line(problem));
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

/// The progress of a refresh, drawn as `bar` says; finished when dropped.
pub(crate) struct Drawn {
    bar: Bar,
    shown: Option<Progress>,
}

impl Drawn {
    pub(crate) fn new(bar: Bar) -> Self {
        Self { bar, shown: None }
    }

    /// A refresh read `progress.done` files of `progress.total`: a bar of
    /// its own for each pass over the files.
    pub(crate) fn tell(&mut self, progress: sess_catalog::Progress) {
        if self.bar == Bar::Shown && progress.total >= PROGRESS_FROM {
            let shown = self.shown.get_or_insert_with(|| Progress::new(progress.total as u64, progress.unit));
            shown.set(progress.done as u64);
            if progress.done >= progress.total {
                shown.finish();
                self.shown = None;
            }
        }
    }
}

impl Drop for Drawn {
    fn drop(&mut self) {
        if let Some(shown) = &self.shown {
            shown.finish();
        }
    }
}

/// Brings `catalog` up to date with every session file on this machine, and
/// with the sessions of `store`.
pub(crate) fn refresh(catalog: &mut Catalog, store: Option<&str>, bar: Bar) -> anyhow::Result<Refreshed> {
    let mut drawn = Drawn::new(bar);
    let refreshed = sess::catalog::refresh(catalog, sources_env(), store, &mut |p| drawn.tell(p))?;
    drop(drawn);
    for (_, skipped) in &refreshed.skipped {
        warn_skipped(skipped);
    }
    Ok(refreshed)
}

/// [`sess::catalog::refresh_found`] in this process's environment.
pub(crate) fn refresh_found(catalog: &mut Catalog, bar: Bar) -> anyhow::Result<(Found, RefreshReport, Env)> {
    let mut drawn = Drawn::new(bar);
    Ok(sess::catalog::refresh_found(catalog, sources_env(), &mut |p| drawn.tell(p))?)
}

/// The embedding model's folder: `arg` (`--model`), else the host's
/// (`$SESS_EMBED_MODEL`).
pub(crate) fn model_dir(arg: Option<&Path>) -> Option<PathBuf> {
    arg.map(Path::to_owned).or_else(|| host().model.clone())
}

/// Embeds the catalog's messages that have no vector with `model`, a
/// progress bar on a terminal.
pub(crate) fn embed(catalog: &mut Catalog, model: &sess_embed::Model) -> anyhow::Result<sess_catalog::EmbedReport> {
    let bar = Progress::new(0, "messages embedded");
    let report = sess::catalog::embed(catalog, model, &mut |done, total| {
        bar.set_len(u64::try_from(total).unwrap_or(u64::MAX));
        bar.set(u64::try_from(done).unwrap_or(u64::MAX));
    });
    bar.finish();
    Ok(report?)
}
