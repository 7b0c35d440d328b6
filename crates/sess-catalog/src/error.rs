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
    /// The embedding model failed to embed a text (its table could not be
    /// read).
    #[error("embedding failed: {0}")]
    Embed(#[from] sess_embed::Error),
    /// A search query that says nothing to search for.
    #[error("the search query `{query}` has no words to search for")]
    EmptyQuery {
        /// The query as given.
        query: String,
    },
    /// A search query with more different words than a search takes.
    #[error("the search query has {words} words; a search takes at most {max}: leave out the common ones")]
    TooManyWords {
        /// How many different words it has.
        words: usize,
        /// The most a search takes.
        max: usize,
    },
    /// A search stopped before its end: it ran out of time, or its caller
    /// cancelled it.
    #[error("{}", match reason {
        crate::Stopped::OutOfTime { budget } => format!(
            "the search was stopped after {} s, its time budget: search for rarer words, or fewer", budget.as_secs_f64()
        ),
        crate::Stopped::Cancelled => "the search was cancelled".to_owned(),
    })]
    Stopped {
        /// Why.
        reason: crate::Stopped,
    },
    /// A search query FTS5 could not read.
    #[error("the search query `{query}` cannot be read: {reason}")]
    BadQuery {
        /// The query as given.
        query: String,
        /// What FTS5 said.
        reason: String,
    },
}

/// A `Result` with the catalog's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
