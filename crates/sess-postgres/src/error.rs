//! The error type of `sess-postgres`.

use std::time::Duration;

/// What can go wrong in the PostgreSQL backend. The [`Backend`](sess_store::Backend)
/// methods return [`sess_store::Error`]: the store's own variants for what
/// callers branch on (a missing session, a conflict, a corrupt blob, …), and
/// [`sess_store::Error::Backend`] holding one of these for everything else.
///
/// No variant carries the connection URL: it may hold a password. They name
/// the server as `user@host:port/database`, and the schema.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The URL is not a PostgreSQL connection string this backend can use.
    #[error("invalid PostgreSQL URL: {reason}")]
    InvalidUrl {
        /// What is wrong with it.
        reason: String,
    },
    /// A connection could not be opened or set up.
    #[error("connecting to {server}: {source}")]
    Connect {
        /// `user@host:port/database`.
        server: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// The server did not finish opening a connection within the URL's
    /// `connect_timeout` (10 s without one): it accepted and never answered,
    /// or answered too slowly.
    #[error("connecting to {server}: no answer within {waited:?} (the URL's connect_timeout)")]
    ConnectTimeout {
        /// `user@host:port/database`.
        server: String,
        /// How long the connect was given.
        waited: Duration,
    },
    /// The thread that opens a connection could not be started, or stopped
    /// without an answer.
    #[error("connecting to {server}: the connecting thread: {source}")]
    ConnectThread {
        /// `user@host:port/database`.
        server: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// Every connection of the pool stayed busy for the whole wait.
    #[error("no connection of the pool of {size} came free within {waited:?}")]
    PoolTimeout {
        /// The pool's size.
        size: usize,
        /// How long the call waited.
        waited: Duration,
    },
    /// A migration step failed; the schema keeps the version before it.
    #[error("migrating schema `{schema}` to version {version}: {source}")]
    Migration {
        /// The schema.
        schema: String,
        /// The version the step would have reached.
        version: u32,
        /// The server's error.
        #[source]
        source: postgres::Error,
    },
    /// The schema was written by a newer `sess`: its version is newer than
    /// this code knows, so it is left untouched.
    #[error("schema `{schema}` has version {found}, newer than version {supported} that this sess knows")]
    VersionTooNew {
        /// The schema.
        schema: String,
        /// The version in the schema.
        found: i64,
        /// The newest version this code knows ([`SCHEMA_VERSION`](crate::SCHEMA_VERSION)).
        supported: u32,
    },
    /// A statement failed.
    #[error("{operation}: {source}")]
    Sql {
        /// What was being done ("appending entries", "listing sessions", …).
        operation: &'static str,
        /// The server's or the client's error.
        #[source]
        source: postgres::Error,
    },
    /// A stored blob whose bytes do not hash to its name.
    #[error("blob `blob:sha256:{hash}` in {location} is corrupt: its content does not match its SHA-256")]
    CorruptBlob {
        /// The store: `user@host:port/database/schema`.
        location: String,
        /// The hex digest it is stored under.
        hash: String,
    },
    /// A stored row that cannot be read back: an entry or header whose JSON no
    /// longer parses, an unknown origin, a negative count, …
    #[error("corrupt row in table `{table}`: {reason}")]
    CorruptRow {
        /// The table.
        table: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

impl From<Error> for sess_store::Error {
    /// A corrupt blob becomes [`sess_store::Error::CorruptBlob`] with the
    /// pseudo-path `<location>#blobs/<hex>`; everything else is
    /// [`sess_store::Error::Backend`] of kind `"postgres"` holding the error.
    fn from(error: Error) -> Self {
        match error {
            Error::CorruptBlob { location, hash } => {
                Self::CorruptBlob { path: format!("{location}#blobs/{hash}").into() }
            }
            other => Self::Backend { kind: "postgres", source: Box::new(other) },
        }
    }
}

/// Adds what was being done to a [`postgres::Error`].
pub(crate) trait Context<T> {
    /// The error as [`Error::Sql`] with `operation`.
    fn context(self, operation: &'static str) -> Result<T>;
}

impl<T> Context<T> for Result<T, postgres::Error> {
    fn context(self, operation: &'static str) -> Result<T> {
        self.map_err(|source| Error::Sql { operation, source })
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
