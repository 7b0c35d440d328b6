//! The error type of `sess-sources`.

use std::io;
use std::path::PathBuf;

/// What can go wrong reading another agent's session.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session file does not exist.
    #[error("`{}` does not exist", path.display())]
    NotFound {
        /// The missing file.
        path: PathBuf,
    },
    /// A session path that is not a regular file (a FIFO, a device, a
    /// directory, a link to no file). It was not opened.
    #[error("`{}` is {}, not a session file", path.display(), kind.describe_skipped())]
    NotASessionFile {
        /// The path.
        path: PathBuf,
        /// What it is.
        kind: sess_core::FileKind,
    },
    /// Reading a file failed.
    #[error("reading `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// A database that cannot be read: not SQLite, damaged, locked by a
    /// writer for longer than a reader waits, or without the tables expected.
    #[error("reading the database `{}`: {message}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        message: String,
    },
    /// A file that should hold a session's record and does not (not a JSON
    /// object, or one without an id).
    #[error("`{}` is not a session record: {message}", path.display())]
    NotARecord {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file `sess` was to make and that is there already (it writes only
    /// new files there).
    #[error("`{}` exists already", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// A file an earlier read could not read (the search catalog keeps what
    /// that read said), and that has not changed since.
    #[error("{message}")]
    Unread {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        message: String,
    },
    /// A session that cannot be handed to an agent where it was asked to go
    /// (the agent keeps no sessions for that directory yet).
    #[error("{message}")]
    NoPlace {
        /// The agent's file that says so.
        path: PathBuf,
        /// Why, and what to do.
        message: String,
    },
    /// A compressed file that does not decompress.
    #[error("decompressing `{}`: {message}", path.display())]
    Decompress {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl Error {
    /// An I/O error on `path`, `NotFound` when the file is missing.
    pub fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        let path = path.into();
        if source.kind() == io::ErrorKind::NotFound { Self::NotFound { path } } else { Self::Io { path, source } }
    }
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
