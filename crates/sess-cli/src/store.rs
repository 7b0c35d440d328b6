//! Store URLs: `dir:PATH` (a tree of pi-family session files), `sqlite:PATH`,
//! and libpq-style `postgres://user@host:port/db?options=-csearch_path%3DNAME`.

use std::io;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use sess_store::discovery;
use sess_store::storage::{FileKind, regular_file};
use sess_store::{Backend, FileStorage, JsonlBackend, SessionStorage as _};

/// Whether opening a store may create it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    /// A store that does not exist is an error (every verb but `sess copy`'s target).
    Refused,
    /// `sess copy` makes its target: the folder of `dir:`, the file of `sqlite:`.
    Created,
}

/// Opens the store `url` names, which must exist.
pub(crate) fn open(url: &str) -> anyhow::Result<Arc<dyn Backend>> {
    open_with(url, Missing::Refused)
}

/// Opens the store `url` names; with [`Missing::Created`] a store that does
/// not exist yet is made.
pub(crate) fn open_with(url: &str, missing: Missing) -> anyhow::Result<Arc<dyn Backend>> {
    if let Some(path) = url.strip_prefix("dir:") {
        if path.is_empty() {
            bail!("`{url}`: the directory is missing (dir:PATH)");
        }
        check_dir(url, Path::new(path), missing)?;
        // The backend skips names that are not regular files; they are named here.
        let found = discovery::find_session_files(&FileStorage, Path::new(path), discovery::Depth::All);
        crate::output::warn_skipped(&found.skipped);
        return Ok(Arc::new(JsonlBackend::new(Arc::new(FileStorage), path)));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        let path = path.strip_prefix("//").unwrap_or(path);
        check_file(url, Path::new(path), missing)?;
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

/// The folder of a `dir:` store: a directory, or missing when it may be made.
fn check_dir(url: &str, path: &Path, missing: Missing) -> anyhow::Result<()> {
    match FileStorage.stat(path) {
        Ok(stat) if stat.kind == FileKind::Directory => Ok(()),
        Ok(stat) => bail!("the store `{url}`: `{}` is {}, not a directory", path.display(), stat.kind),
        Err(e) if e.kind() == io::ErrorKind::NotFound && missing == Missing::Created => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            bail!("the store `{url}` does not exist: there is no directory `{}`", path.display())
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("cannot open the store `{url}`"))),
    }
}

/// The database of an `sqlite:` store: a regular file (a device or FIFO is
/// refused before SQLite opens it or makes a journal beside it), or missing
/// when it may be made.
fn check_file(url: &str, path: &Path, missing: Missing) -> anyhow::Result<()> {
    match regular_file(&FileStorage, path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound && missing == Missing::Created => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            bail!("the store `{url}` does not exist: there is no file `{}`", path.display())
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("cannot open the store `{url}`"))),
    }
}
