//! Store URLs: `dir:PATH` (a tree of pi-family session files), `sqlite:PATH`,
//! and libpq-style `postgres://user@host:port/db?options=-csearch_path%3DNAME`.

use std::sync::Arc;

use anyhow::{Context as _, bail};
use sess_store::{Backend, FileStorage, JsonlBackend};

/// Opens the store `url` names.
pub(crate) fn open(url: &str) -> anyhow::Result<Arc<dyn Backend>> {
    if let Some(path) = url.strip_prefix("dir:") {
        if path.is_empty() {
            bail!("`{url}`: the directory is missing (dir:PATH)");
        }
        return Ok(Arc::new(JsonlBackend::new(Arc::new(FileStorage), path)));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        let path = path.strip_prefix("//").unwrap_or(path);
        let backend =
            sess_sqlite::SqliteBackend::open(path).with_context(|| format!("cannot open the store `{url}`"))?;
        return Ok(Arc::new(backend));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let backend = sess_postgres::PostgresBackend::connect(url).context("cannot open the PostgreSQL store")?;
        return Ok(Arc::new(backend));
    }
    Err(anyhow::Error::new(crate::output::Hint(
        "a store is `dir:PATH` (pi-family session files), `sqlite:PATH` or `postgres://…`".to_owned(),
    ))
    .context(format!("`{url}` is not a store URL")))
}

/// The id of the session `arg` names in `backend`: an id, or an unambiguous
/// prefix of one.
pub(crate) fn resolve(backend: &dyn Backend, arg: &str) -> anyhow::Result<String> {
    // A whole id is found without listing the store.
    match backend.session(arg) {
        Ok(_) => return Ok(arg.to_owned()),
        Err(sess_store::Error::SessionNotFound { .. }) => {}
        Err(err) => return Err(err.into()),
    }
    let sessions = backend.list_sessions()?;
    let lower = arg.to_lowercase();
    let matches: Vec<&str> =
        sessions.iter().map(|s| s.id.as_str()).filter(|id| id.to_lowercase().starts_with(&lower)).collect();
    match matches.as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => bail!("no session `{arg}` in the {} store", backend.kind()),
        many => bail!("`{arg}` names {} sessions: {}", many.len(), many.join(", ")),
    }
}
