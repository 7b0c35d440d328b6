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
    /// A session path that names something other than a regular file (a
    /// FIFO, a device, a directory). It was not opened, read or written.
    #[error("`{}` is {kind}, not a session file", path.display())]
    NotASessionFile {
        /// The path as given.
        path: PathBuf,
        /// What it is.
        kind: sess_core::FileKind,
    },
    /// A file opened for writing that has no valid session header and does not
    /// look like a pi-family session whose header was damaged: none of its
    /// lines is a pi entry and its first line does not begin as a pi header
    /// does (another agent's session, or any other file). It was left as it is.
    #[error(
        "`{}` is not a pi-family session: it has no session header and none of its lines is a pi entry; it was left as it is",
        path.display()
    )]
    NotAPiSession {
        /// The file.
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
    /// A blob reference that is not `blob:sha256:` followed by 64 hex digits. It
    /// is never used as a path.
    #[error("invalid blob reference `{reference}`")]
    InvalidBlobRef {
        /// The reference as found.
        reference: String,
    },
    /// A blob whose bytes do not hash to its name.
    #[error("blob `{}` is corrupt: its content does not match its SHA-256", path.display())]
    CorruptBlob {
        /// The blob file.
        path: PathBuf,
    },
    /// An entry or header that cannot be written.
    #[error("invalid entry: {reason}")]
    InvalidEntry {
        /// Why.
        reason: String,
    },
    /// An entry id that does not exist in the session.
    #[error("entry `{id}` not found")]
    EntryNotFound {
        /// The id asked for.
        id: String,
    },
    /// A session or cursor that already exists, or a write that lost a race.
    #[error("conflict: {what}")]
    Conflict {
        /// What conflicted.
        what: String,
    },
    /// A segment the session does not have.
    #[error("segment `{segment}` not found")]
    SegmentNotFound {
        /// The segment asked for.
        segment: String,
    },
    /// A write to a session opened read-only (a past state, seed 001).
    #[error("this view of the session is read-only: {reason}")]
    ReadOnly {
        /// Why.
        reason: String,
    },
    /// A store URL that is not understood.
    #[error("unsupported store `{url}`: {reason}")]
    UnsupportedStore {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// An operation that needs a session file, on an in-memory session.
    #[error("{operation} needs a persisted session")]
    NotPersisted {
        /// What was asked.
        operation: &'static str,
    },
    /// No session matches a session argument (see
    /// [`discovery::resolve_session`](crate::discovery::resolve_session)).
    #[error("no session matches `{query}`")]
    SessionNotFound {
        /// The argument as given.
        query: String,
    },
    /// A session argument matches several sessions.
    #[error("`{query}` matches {} sessions: {}", matches.len(), list_paths(matches))]
    AmbiguousSession {
        /// The argument as given.
        query: String,
        /// Every matching session file.
        matches: Vec<PathBuf>,
    },
    /// A terminal id that is not a plain file name, so it cannot name a
    /// breadcrumb file.
    #[error("invalid terminal id `{id}`: it must be a plain file name")]
    InvalidTerminalId {
        /// The id as given.
        id: String,
    },
    /// A database backend failed: an SQL error, a schema it cannot use, or a
    /// stored row it cannot read. `source` is the backend crate's own error.
    #[error("{kind} backend: {source}")]
    Backend {
        /// The backend ([`Backend::kind`](crate::Backend::kind)): `"sqlite"`, …
        kind: &'static str,
        /// What failed, with its context.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An earlier write failed; the session stopped persisting. Every later call
    /// returns this, naming the first failure.
    #[error("session `{}` stopped persisting after an earlier error: {message}", path.display())]
    Latched {
        /// The session file.
        path: PathBuf,
        /// The first error.
        message: String,
    },
}

impl Error {
    /// The error of `operation` ("reading", "writing", …) on `path`: a missing
    /// file read is [`Error::NotFound`], and the refusal of a path that is not a
    /// regular file ([`storage::not_regular`](crate::storage::not_regular)) is
    /// [`Error::NotASessionFile`].
    pub fn from_io(operation: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::io(operation, path, source)
    }

    pub(crate) fn io(operation: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        let path = path.into();
        if let Some(not_regular) = source.get_ref().and_then(|e| e.downcast_ref::<crate::storage::NotRegular>()) {
            return Self::NotASessionFile { path: not_regular.path.clone(), kind: not_regular.kind };
        }
        if source.kind() == io::ErrorKind::NotFound && operation == "reading" {
            return Self::NotFound { path };
        }
        Self::Io { operation, path, source }
    }
}

/// Paths in backticks, separated by commas.
fn list_paths(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| format!("`{}`", p.display())).collect::<Vec<_>>().join(", ")
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
