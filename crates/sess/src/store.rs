//! Stores by URL: `dir:PATH` (a tree of pi-family session files),
//! `sqlite:PATH`, and libpq-style
//! `postgres://user@host:port/db?options=-csearch_path%3DNAME`.

use std::io;
use std::path::Path;
use std::sync::Arc;

use sess_core::FileKind;
use sess_store::discovery;
use sess_store::storage::regular_file;
use sess_store::{Backend, FileStorage, JsonlBackend, SessionStorage as _};

use crate::{Error, Hint, Result, Tell};

/// Whether opening a store may create it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// A store that does not exist is an error.
    Refused,
    /// A store that does not exist is made: the folder of `dir:`, the file
    /// of `sqlite:` (the target of a copy).
    Created,
}

/// Opens the store `url` names; with [`Missing::Created`] a store that does
/// not exist yet is made. The names in a `dir:` store's folder that are not
/// regular files, which the store skips, are told to `tell`.
///
/// # Errors
///
/// [`Error::Store`] when the URL names no store, the store is missing or is
/// not what its URL says, or it cannot be opened.
pub fn open(url: &str, missing: Missing, tell: &dyn Tell) -> Result<Arc<dyn Backend>> {
    if let Some(path) = url.strip_prefix("dir:") {
        if path.is_empty() {
            return Err(Error::store(format!("`{url}`: the directory is missing (dir:PATH)")));
        }
        check_dir(url, Path::new(path), missing)?;
        // The backend skips names that are not regular files; they are named here.
        let found = discovery::find_session_files(&FileStorage, Path::new(path), discovery::Depth::All);
        tell.skipped(&found.skipped);
        return Ok(Arc::new(JsonlBackend::new(Arc::new(FileStorage), path)));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        let path = path.strip_prefix("//").unwrap_or(path);
        check_file(url, Path::new(path), missing)?;
        let backend = sess_sqlite::SqliteBackend::open(path)
            .map_err(|e| Error::store_because(format!("cannot open the store `{url}`"), e))?;
        return Ok(Arc::new(backend));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let backend = sess_postgres::PostgresBackend::connect(url)
            .map_err(|e| Error::store_because("cannot open the PostgreSQL store".to_owned(), e))?;
        return Ok(Arc::new(backend));
    }
    Err(Error::store_because(
        format!("`{url}` is not a store URL"),
        Hint("a store is `dir:PATH` (pi-family session files), `sqlite:PATH` or `postgres://…`".to_owned()),
    ))
}

/// The folder of a `dir:` store: a directory, or missing when it may be made.
fn check_dir(url: &str, path: &Path, missing: Missing) -> Result<()> {
    match FileStorage.stat(path) {
        Ok(stat) if stat.kind == FileKind::Directory => Ok(()),
        Ok(stat) => {
            Err(Error::store(format!("the store `{url}`: `{}` is {}, not a directory", path.display(), stat.kind)))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && missing == Missing::Created => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(Error::store(format!("the store `{url}` does not exist: there is no directory `{}`", path.display())))
        }
        Err(e) => Err(Error::store_because(format!("cannot open the store `{url}`"), e)),
    }
}

/// The database of an `sqlite:` store: a regular file (a device or FIFO is
/// refused before SQLite opens it or makes a journal beside it), or missing
/// when it may be made.
fn check_file(url: &str, path: &Path, missing: Missing) -> Result<()> {
    match regular_file(&FileStorage, path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound && missing == Missing::Created => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Err(Error::store(format!("the store `{url}` does not exist: there is no file `{}`", path.display())))
        }
        Err(e) => Err(Error::store_because(format!("cannot open the store `{url}`"), e)),
    }
}
