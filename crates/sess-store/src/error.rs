//! The error type of `sess-store`.

use std::io;
use std::path::PathBuf;

/// What can go wrong in storage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The session file does not exist.
    #[error("`{}` does not exist", path.display())]
    NotFound {
        /// The missing file.
        path: PathBuf,
    },
    /// Reading or writing a file failed.
    #[error("{operation} `{}`: {source}", path.display())]
    Io {
        /// What was being done ("reading", "writing", …).
        operation: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

impl Error {
    pub(crate) fn io(operation: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        let path = path.into();
        if source.kind() == io::ErrorKind::NotFound && operation == "reading" {
            return Self::NotFound { path };
        }
        Self::Io { operation, path, source }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
