//! The error type of `sess-sqlite`.

use std::path::PathBuf;

/// What can go wrong in the SQLite backend. The [`Backend`](sess_store::Backend)
/// methods return [`sess_store::Error`]: the store's own variants for what
/// callers branch on (a missing session, a conflict, a corrupt blob, …), and
/// [`sess_store::Error::Backend`] holding one of these for everything else.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The database file could not be opened or configured.
    #[error("opening `{}`: {source}", path.display())]
    Open {
        /// The database file (`:memory:` for an in-memory database).
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The database file is not in WAL mode after asking for it (some file
    /// systems, such as network ones, do not support it).
    #[error("`{}` cannot use write-ahead logging: its journal mode stayed `{mode}`", path.display())]
    NotWal {
        /// The database file.
        path: PathBuf,
        /// The journal mode SQLite reported.
        mode: String,
    },
    /// A migration step failed; the database keeps the version before it.
    #[error("migrating the schema to version {version}: {source}")]
    Migration {
        /// The version the step would have reached.
        version: u32,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The database was written by a newer `sess`: its schema is newer than
    /// this code knows, so it is left untouched.
    #[error("the database has schema version {found}, newer than version {supported} that this sess knows")]
    VersionTooNew {
        /// The version in the database.
        found: i64,
        /// The newest version this code knows ([`SCHEMA_VERSION`](crate::SCHEMA_VERSION)).
        supported: u32,
    },
    /// A statement failed.
    #[error("{operation}: {source}")]
    Sql {
        /// What was being done ("appending entries", "listing sessions", …).
        operation: &'static str,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored blob whose bytes do not hash to its name.
    #[error("blob `blob:sha256:{hash}` in `{}` is corrupt: its content does not match its SHA-256", database.display())]
    CorruptBlob {
        /// The database file (`:memory:` for an in-memory database).
        database: PathBuf,
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
    /// pseudo-path `<database>#blobs/<hex>`; everything else is
    /// [`sess_store::Error::Backend`] of kind `"sqlite"` holding the error.
    fn from(error: Error) -> Self {
        match error {
            Error::CorruptBlob { database, hash } => {
                let mut path = database.into_os_string();
                path.push(format!("#blobs/{hash}"));
                Self::CorruptBlob { path: path.into() }
            }
            other => Self::Backend { kind: "sqlite", source: Box::new(other) },
        }
    }
}

/// Adds what was being done to a [`rusqlite::Error`].
pub(crate) trait Context<T> {
    /// The error as [`Error::Sql`] with `operation`.
    fn context(self, operation: &'static str) -> Result<T>;
}

impl<T> Context<T> for rusqlite::Result<T> {
    fn context(self, operation: &'static str) -> Result<T> {
        self.map_err(|source| Error::Sql { operation, source })
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
