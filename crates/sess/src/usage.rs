//! The model calls a usage report sums: the catalog's, and those of the
//! archive's sessions (the sessions the agents deleted, or every session of
//! an archive); and the reports made of them, priced with the bundled table
//! where the agents recorded no cost.

use std::sync::Arc;

use sess_archive::{ArchivedSession, Filter, StoredFile, Vault};
use sess_catalog::Catalog;
use sess_sources::SourceKind;
use sess_usage::{By, Options, Prices, Report, Row, Sum, TimeZone};

use crate::{Error, Host, Result, Tell, UsageParams};

/// Whose calls.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// These agents' (every agent's when empty).
    pub sources: Vec<SourceKind>,
    /// Of sessions in this directory.
    pub cwd: Option<String>,
    /// Of sessions an archive holds from the machine of this name (the
    /// catalog's sessions are this machine's own, of no archived machine).
    pub machine: Option<String>,
}

impl Scope {
    /// Whose calls a [`Library`](crate::Library)'s report sums.
    pub fn of(params: &UsageParams) -> Self {
        Self {
            sources: params.source.into_iter().collect(),
            cwd: params.project.clone(),
            machine: params.machine.clone(),
        }
    }
}

/// The calls of the catalog's sessions (with those of the store `store`,
/// when it is a store of sessions), then those of this machine's sessions
/// in `host`'s default archive that the catalog no longer has (their agent
/// deleted them, whether or not an archive run has noticed yet): each
/// session once. `progress` is told how many of the archived sessions were
/// read, of how many; a session that cannot be read is told as a warning.
///
/// # Errors
///
/// [`Error::Catalog`] when the catalog cannot be read; as
/// [`archive::open`](crate::archive::open) and [`archived`].
pub fn rows(
    catalog: &Catalog,
    store: Option<&str>,
    scope: &Scope,
    host: &Host,
    tell: &dyn Tell,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Row>> {
    let mut rows = catalog_rows(catalog, store, scope)?;
    if store.is_none()
        && let Some(url) = crate::archive::default_present(&host.data_dir)
    {
        let mut vault = crate::archive::open(&url)?;
        let present =
            catalog.session_paths().map_err(|e| Error::catalog_because("cannot read the catalog".to_owned(), e))?;
        let machine = host.machine()?.id;
        let gone = |s: &ArchivedSession| s.machine_id == machine && !present.contains(&s.path);
        rows.extend(archived(vault.as_mut(), scope, &gone, tell, progress)?);
    }
    Ok(rows)
}

/// The calls of the catalog's sessions (with those of the store `store`,
/// when it is a store of sessions); none when `scope` names a machine.
///
/// # Errors
///
/// [`Error::Catalog`] when the catalog cannot be read.
pub fn catalog_rows(catalog: &Catalog, store: Option<&str>, scope: &Scope) -> Result<Vec<Row>> {
    if scope.machine.is_some() {
        return Ok(Vec::new());
    }
    let params = sess_catalog::UsageParams {
        sources: scope.sources.clone(),
        cwd: scope.cwd.clone(),
        store: store.map(str::to_owned),
        session: None,
    };
    catalog.usage(&params).map_err(|e| Error::catalog_because("cannot read the catalog's usage".to_owned(), e))
}

/// The calls of the sessions of the archive `vault` that `keep` keeps and
/// `scope` selects. Every session's files are read; `progress` is told how
/// many of how many, and a session that cannot be read is named in a
/// warning and left out.
///
/// # Errors
///
/// [`Error::Vault`] when the archive's sessions cannot be listed.
pub fn archived(
    vault: &mut dyn Vault,
    scope: &Scope,
    keep: &dyn Fn(&ArchivedSession) -> bool,
    tell: &dyn Tell,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Row>> {
    let source = match scope.sources.as_slice() {
        [one] => Some(one.as_str().to_owned()),
        _ => None,
    };
    let filter = Filter { source, machine: scope.machine.clone(), ..Filter::default() };
    let mut sessions = vault.sessions(&filter)?;
    sessions.retain(|s| {
        let agent = scope.sources.is_empty() || scope.sources.iter().any(|k| k.as_str() == s.source);
        agent && scope.cwd.as_ref().is_none_or(|cwd| s.meta.cwd.as_ref() == Some(cwd)) && keep(s)
    });
    // The sessions that began first count a response they share.
    sessions.sort_by(|a, b| a.meta.created.cmp(&b.meta.created).then(a.key.cmp(&b.key)));
    progress(0, sessions.len());
    let mut rows = Vec::new();
    for (done, session) in sessions.iter().enumerate() {
        let calls = vault.files(session.key).map_err(Error::from).and_then(|files| session_rows(session, &files));
        match calls {
            Ok(calls) => rows.extend(calls),
            Err(err) => tell.warning(&format!(
                "the archived session `{}` ({}) could not be read for its usage: {}",
                session.meta.session_id,
                session.path,
                crate::chain(&err)
            )),
        }
        progress(done + 1, sessions.len());
    }
    Ok(rows)
}

/// The calls of the archived session `session`, whose files are `files`.
///
/// # Errors
///
/// [`Error::Archive`] when no scratch folder can be made; [`Error::Vault`]
/// when the session's files cannot be read for their calls.
pub fn session_rows(session: &ArchivedSession, files: &[StoredFile]) -> Result<Vec<Row>> {
    let scratch = tempfile::Builder::new()
        .prefix("sess-usage-")
        .tempdir()
        .map_err(|e| Error::archive_because("cannot make a scratch folder".to_owned(), e))?;
    let calls = sess_archive::usage(session, files, scratch.path())?;
    let of = Arc::new(sess_usage::SessionOf {
        source: session.source.clone(),
        session_id: session.meta.session_id.clone(),
        path: session.path.clone(),
        project: session.meta.cwd.clone(),
        title: session.meta.title.clone(),
    });
    Ok(calls
        .into_iter()
        .map(|call| Row {
            session: of.clone(),
            key: call.key.as_deref().map(sess_usage::key_hash),
            at_ms: call.timestamp.as_deref().and_then(sess_core::parse_iso_millis).unwrap_or(session.meta.modified_ms),
            model: call.model.map(Into::into),
            tokens: sess_usage::Tokens {
                input: call.input,
                output: call.output,
                cache_creation: call.cache_creation,
                cache_read: call.cache_read,
                reasoning: call.reasoning,
            },
            cost: call.cost,
            not_counts: (!call.not_counts.is_empty()).then(|| call.not_counts.join("; ")),
        })
        .collect())
}

/// `rows` summed as `params` say, priced with the bundled table where their
/// agents recorded no cost.
pub fn report(rows: Vec<Row>, params: &UsageParams) -> Report {
    let prices = Prices::bundled();
    let options =
        Options { by: params.by, zone: params.zone.clone(), since: params.since, until: params.until, prices: &prices };
    Report::build(rows, &options)
}

/// What the calls of the session whose file is `path` come to, among `rows`
/// (its own, and those of the sessions that share a response with it: a
/// response counts in the session that began first); `None` when it has
/// no call of its own.
pub fn session_sum(rows: Vec<Row>, path: &str) -> Option<Sum> {
    let prices = Prices::bundled();
    let options = Options { by: By::Session, zone: TimeZone::UTC, since: None, until: None, prices: &prices };
    let report = Report::build(rows, &options);
    report.groups.into_iter().find(|g| g.session.as_ref().is_some_and(|s| s.path == path)).map(|g| g.sum)
}
