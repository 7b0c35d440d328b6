//! The machine's view of sessions, opened as one [`Library`]: the search
//! catalog of every agent's sessions (refreshed as requests come) with a
//! store's sessions or the default archive's whose originals are gone; or an
//! archive, every machine's sessions, read where it is. What the page and
//! the MCP server read.

mod archive;
mod catalog;
mod pool;
mod tree;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use sess_catalog::{Progress, Stopped};

use self::archive::{Archive, ArchiveLibrary, Shown};
use self::catalog::CatalogLibrary;
pub(crate) use self::catalog::card;
use self::pool::Pool;
use crate::{Error, Host, Library, Result, Tell};

/// An opened view.
pub struct View {
    /// What it reads.
    pub library: Arc<dyn Library>,
    /// What it holds, in words: "12 sessions", "3 archived sessions from 2
    /// machines".
    pub said: String,
    /// The catalog it reads, when it reads the agents' sessions through one
    /// (not an archive): what a [`Feed`](crate::live::Feed) of its changes
    /// brings up to date.
    pub catalog: Option<std::path::PathBuf>,
}

/// Opens the view of `host`'s sessions: with `store` naming an archive,
/// that archive where it is; else the catalog (at `catalog`, a
/// `--catalog`, else in the data folder), brought up to date now with every
/// agent's files (`progress` told as they are read) and with `store`'s
/// sessions, shown with the default archive's sessions whose originals are
/// gone when there is no `store`; with an embedding model
/// ([`Host::model`]), its messages embedded after (`progress` told again, in
/// documents). Names skipped, sessions that cannot be
/// read and an archive that cannot be opened are told to `tell`, as is
/// whatever the library notices later.
///
/// # Errors
///
/// As [`archive::existing`](crate::archive::existing),
/// [`catalog::path`](crate::catalog::path),
/// [`catalog::open`](crate::catalog::open) and
/// [`catalog::refresh`](crate::catalog::refresh).
pub fn open(
    host: Host,
    store: Option<&str>,
    catalog: Option<&Path>,
    tell: Arc<dyn Tell>,
    progress: &mut dyn FnMut(Progress),
) -> Result<View> {
    // An archive is read where it is: the catalog is not involved.
    if let Some(url) = store
        && let Some(vault) = crate::archive::existing(url)?
    {
        let model = host.model.as_deref().map(crate::meaning::load_model_for_queries).transpose()?.map(Arc::new);
        let archive = Archive::new(vault, url, (false, Shown::Every), tell, model);
        let count = archive.len()?;
        let machines = archive.machines()?.len();
        let said = format!("{count} archived sessions from {machines} machine{}", if machines == 1 { "" } else { "s" });
        return Ok(View { library: Arc::new(ArchiveLibrary(archive, host)), said, catalog: None });
    }
    let path = crate::catalog::path(catalog, &host.data_dir)?;
    let mut opened = crate::catalog::open(&path)?;
    let refreshed = crate::catalog::refresh(&mut opened, &host.env, store, progress)?;
    for (_, skipped) in &refreshed.skipped {
        tell.skipped(skipped);
    }
    for problem in refreshed.problems() {
        tell.warning(&crate::catalog::problem_line(problem));
    }
    let model = host.model.as_deref().map(crate::meaning::load_model).transpose()?.map(Arc::new);
    if let Some(model) = &model {
        crate::catalog::embed(&mut opened, model, &mut |done, total| {
            progress(Progress { done, total, unit: "messages embedded" });
        })?;
    }
    let gone = if store.is_none() { default_archive(&host, &tell, model.as_ref()) } else { None };
    let count = opened.len().map_err(boxed)?;
    let said = match &gone {
        Some(gone) => format!("{count} sessions and {} the agents deleted, kept in the archive", gone.len()?),
        None => format!("{count} sessions"),
    };
    let catalog = Some(path.clone());
    let library = CatalogLibrary {
        pool: Pool::new(opened, move || crate::catalog::open(&path)),
        refreshed: Mutex::new(Instant::now()),
        store: store.map(str::to_owned),
        gone,
        host,
        tell,
        states: crate::state::States::default(),
        model,
    };
    Ok(View { library: Arc::new(library), said, catalog })
}

/// The default archive, whose sessions the agents deleted are shown beside
/// the catalog's; `None` when there is none or it cannot be read (told).
fn default_archive(host: &Host, tell: &Arc<dyn Tell>, model: Option<&Arc<sess_embed::Model>>) -> Option<Archive> {
    let url = crate::archive::default_present(&host.data_dir)?;
    match crate::archive::open(&url) {
        Ok(vault) => Some(Archive::new(vault, &url, (true, Shown::Gone), Arc::clone(tell), model.cloned())),
        Err(err) => {
            tell.warning(&format!("the sessions kept in the default archive are not shown: {}", crate::chain(&err)));
            None
        }
    }
}

/// Tells why a request failed, with every cause.
fn report(tell: &dyn Tell, error: &Error) {
    tell.warning(&format!("a request failed: {}", crate::chain(error)));
}

/// A search's error as the page's: a query it refused is a bad request; a
/// stopped one says why.
pub(crate) fn search_error(err: sess_catalog::Error) -> Error {
    match err {
        sess_catalog::Error::EmptyQuery { .. }
        | sess_catalog::Error::TooManyWords { .. }
        | sess_catalog::Error::BadQuery { .. } => Error::Invalid { reason: err.to_string() },
        sess_catalog::Error::Stopped { reason: Stopped::Cancelled } => Error::Cancelled,
        sess_catalog::Error::Stopped { reason: Stopped::OutOfTime { budget } } => Error::OutOfTime { budget },
        other => boxed(other),
    }
}

fn failed(message: &str) -> Error {
    Error::Failed(message.to_owned().into())
}

/// `err` as a failure of the library, whose text a front-end may keep from
/// the people it answers.
fn boxed(err: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Failed(Box::new(err))
}
