//! The model calls a usage report sums: the catalog's, and those of the
//! archive's sessions (the sessions the agents deleted, or every session of
//! an archive given with `--store`).

use anyhow::Context as _;
use sess_archive::{ArchivedSession, Filter, StoredFile, Vault};
use sess_catalog::{Catalog, UsageParams};
use sess_sources::SourceKind;
use sess_usage::Row;

use crate::catalog::Bar;
use crate::output::{Progress, warn};

/// Archived sessions read for their calls with fewer than this show no bar.
const PROGRESS_FROM: usize = 20;

/// Whose calls.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    /// These agents' (every agent's when empty).
    pub(crate) sources: Vec<SourceKind>,
    /// Of sessions in this directory.
    pub(crate) cwd: Option<String>,
    /// Of sessions an archive holds from the machine of this name (the
    /// catalog's sessions are this machine's own, of no archived machine).
    pub(crate) machine: Option<String>,
}

/// The calls of the catalog's sessions (with those of the store `store`,
/// when it is a store of sessions), then those of this machine's sessions
/// in the default archive that the catalog no longer has (their agent
/// deleted them, whether or not an archive run has noticed yet): each
/// session once.
pub(crate) fn rows(catalog: &Catalog, store: Option<&str>, scope: &Scope) -> anyhow::Result<Vec<Row>> {
    let mut rows = catalog_rows(catalog, store, scope)?;
    if store.is_none()
        && let Some(url) = crate::archive::default_present()
    {
        let mut vault = crate::archive::open(&url)?;
        let present = catalog.session_paths().context("cannot read the catalog")?;
        let machine = crate::archive::machine()?.id;
        let gone = |s: &ArchivedSession| s.machine_id == machine && !present.contains(&s.path);
        rows.extend(archived(vault.as_mut(), scope, &gone, Bar::Shown)?);
    }
    Ok(rows)
}

/// The calls of the catalog's sessions (with those of the store `store`,
/// when it is a store of sessions); none when `scope` names a machine.
pub(crate) fn catalog_rows(catalog: &Catalog, store: Option<&str>, scope: &Scope) -> anyhow::Result<Vec<Row>> {
    if scope.machine.is_some() {
        return Ok(Vec::new());
    }
    let params = UsageParams {
        sources: scope.sources.clone(),
        cwd: scope.cwd.clone(),
        store: store.map(str::to_owned),
        session: None,
    };
    catalog.usage(&params).context("cannot read the catalog's usage")
}

/// The calls of the sessions of the archive `vault` that `keep` keeps. A
/// session that cannot be read is named in a warning and left out. Every
/// session's files are read.
pub(crate) fn archived(
    vault: &mut dyn Vault,
    scope: &Scope,
    keep: &dyn Fn(&ArchivedSession) -> bool,
    bar: Bar,
) -> anyhow::Result<Vec<Row>> {
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
    let shown = bar == Bar::Shown && sessions.len() >= PROGRESS_FROM;
    let bar = shown.then(|| Progress::new(sessions.len() as u64, "archived sessions"));
    let mut rows = Vec::new();
    for session in &sessions {
        let calls =
            vault.files(session.key).map_err(anyhow::Error::from).and_then(|files| session_rows(session, &files));
        match calls {
            Ok(calls) => rows.extend(calls),
            Err(err) => warn(format_args!(
                "the archived session `{}` ({}) could not be read for its usage: {err:#}",
                session.meta.session_id, session.path
            )),
        }
        if let Some(bar) = &bar {
            bar.add(1);
        }
    }
    if let Some(bar) = &bar {
        bar.finish();
    }
    Ok(rows)
}

/// The calls of the archived session `session`, whose files are `files`.
pub(crate) fn session_rows(session: &ArchivedSession, files: &[StoredFile]) -> anyhow::Result<Vec<Row>> {
    let scratch = tempfile::Builder::new().prefix("sess-usage-").tempdir().context("cannot make a scratch folder")?;
    let calls = sess_archive::usage(session, files, scratch.path())?;
    let of = std::sync::Arc::new(sess_usage::SessionOf {
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
