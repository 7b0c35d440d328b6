//! The archive's one error type.

use std::path::PathBuf;

/// What can go wrong archiving, reading the archive or restoring from it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The SQLite archive failed.
    #[error("the archive `{}`: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// Connecting to the PostgreSQL archive failed.
    #[error(transparent)]
    Connect(#[from] sess_postgres::Error),
    /// A statement of the PostgreSQL archive failed.
    #[error("the archive {location}: {source}")]
    Postgres {
        /// `user@host:port/database/schema`.
        location: String,
        /// What the server said.
        #[source]
        source: postgres::Error,
    },
    /// The archive was made by a newer `sess`.
    #[error("the archive {location} has schema version {found}; this sess knows up to {known}: upgrade sess")]
    TooNew {
        /// Where the archive is.
        location: String,
        /// The version in the database.
        found: i64,
        /// The newest this build knows.
        known: i64,
    },
    /// Reading or writing a file failed.
    #[error("{action} `{}`: {source}", path.display())]
    Io {
        /// What was being done: `reading`, `writing`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Reading an agent's session failed.
    #[error(transparent)]
    Source(#[from] sess_sources::Error),
    /// A search the query language refused ([`sess_catalog::Error::TooManyWords`]),
    /// or that stopped before its end ([`sess_catalog::Error::Stopped`]).
    #[error(transparent)]
    Query(sess_catalog::Error),
    /// The embedding model could not embed a text.
    #[error("embedding failed: {0}")]
    Embed(#[from] sess_embed::Error),
    /// A file of the archive's own that is not what it should be.
    #[error("`{}`: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// `sess restore` would replace a file that holds other bytes.
    #[error("`{}` exists and differs from the archived file; nothing was written (move it away, or restore with --to DIR)", path.display())]
    WouldOverwrite {
        /// The file.
        path: PathBuf,
    },
    /// A file appeared where `sess restore` was writing one: it is left as
    /// it is, and nothing of the session is written.
    #[error("`{}` appeared while the session was restored; it was left as it is and nothing was written", path.display())]
    Appeared {
        /// The file.
        path: PathBuf,
    },
    /// A symbolic link stands where `sess restore` would write a file.
    #[error("`{}` is a symbolic link (to `{}`); sess restores no file through a link: nothing was written (remove the link, or restore with --to DIR)", path.display(), points_to.display())]
    LinkAtTarget {
        /// The link.
        path: PathBuf,
        /// What it points to.
        points_to: PathBuf,
    },
    /// A folder under `--to DIR` leads out of it through a link.
    #[error("`{}` would be written in `{}`, outside `{}` (a folder on the way is a link); nothing was written", path.display(), resolved.display(), to.display())]
    OutsideTarget {
        /// The file restore would write.
        path: PathBuf,
        /// Where its folder really is.
        resolved: PathBuf,
        /// The folder the user gave.
        to: PathBuf,
    },
    /// A session kept as rows of a database cannot be written back there.
    #[error(
        "{agent} keeps session `{id}` in its database, which sess never writes; restore it with --to DIR (a database file of its own)"
    )]
    RowsInPlace {
        /// The agent's name.
        agent: String,
        /// The session id.
        id: String,
    },
    /// An archived session of an agent this build does not know.
    #[error("the archived session `{id}` is of the agent `{source_name}`, which this sess does not read")]
    UnknownSource {
        /// The session id.
        id: String,
        /// The source's name as archived.
        source_name: String,
    },
}

impl Error {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io { action, path: path.into(), source }
    }
}

/// The archive's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
