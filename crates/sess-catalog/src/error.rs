//! The catalog's error type.

use std::path::PathBuf;

/// What can go wrong with a catalog.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The catalog database could not be opened or set up.
    #[error("opening the catalog `{}`: {source}", path.display())]
    Open {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: rusqlite::Error,
    },
    /// Creating the catalog's folder failed.
    #[error("creating `{}`: {source}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The catalog was written by a newer `sess`.
    #[error("the catalog `{}` has schema version {found}; this sess knows up to {supported} (delete it: it is a cache)", path.display())]
    VersionTooNew {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// A query of the catalog database failed.
    #[error("catalog query failed: {0}")]
    Sql(#[from] rusqlite::Error),
    /// A search query that says nothing to search for.
    #[error("the search query `{query}` has no words to search for")]
    EmptyQuery {
        /// The query as given.
        query: String,
    },
}

/// A `Result` with the catalog's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
