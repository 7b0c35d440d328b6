//! The error type of `sess`.

use std::time::Duration;

/// What can go wrong reading the sessions.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No such session, entry or leaf.
    #[error("{what} not found")]
    NotFound {
        /// What was asked for, e.g. "session `abc`".
        what: String,
    },
    /// The request does not make sense.
    #[error("{reason}")]
    Invalid {
        /// Why.
        reason: String,
    },
    /// The library cannot do this for this session, e.g. fork a Claude Code
    /// session.
    #[error("{operation} is not supported")]
    Unsupported {
        /// What was asked, e.g. "forking a Codex session".
        operation: String,
    },
    /// The library failed: reading a file or a database. Its text can name
    /// files, which a front-end may keep from the people it answers.
    #[error("{0}")]
    Failed(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A search ran for its whole time budget and was stopped
    /// ([`search_within`](crate::search_within)).
    #[error("the search was stopped after {} s, its time budget: search for rarer words, or fewer", budget.as_secs_f64())]
    OutOfTime {
        /// The budget.
        budget: Duration,
    },
    /// The call was cancelled ([`Cancel`](crate::Cancel)) before its end.
    #[error("the request was cancelled")]
    Cancelled,
    /// A store URL that names no store, a store that is missing or is not
    /// what its URL says, or one that cannot be opened
    /// ([`store::open`](crate::store::open)).
    #[error("{message}")]
    Store {
        /// What went wrong, naming the URL.
        message: String,
        /// Why, when something below said: an I/O or database error, or a
        /// [`Hint`](crate::Hint).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// An archive that cannot be opened, is not there, or has no session by
    /// the id asked for ([`archive`](crate::archive)).
    #[error("{message}")]
    Archive {
        /// What went wrong.
        message: String,
        /// Why, when something below said, or a [`Hint`](crate::Hint).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The search catalog cannot be found, opened, read or written
    /// ([`catalog`](crate::catalog)).
    #[error("{message}")]
    Catalog {
        /// What went wrong, naming the catalog.
        message: String,
        /// Why, when something below said.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A session argument that names no session, or several; a file that
    /// cannot be read or is another agent's ([`resolve`](crate::resolve)).
    #[error("{message}")]
    Resolve {
        /// What went wrong, naming the argument or the file.
        message: String,
        /// Why, when something below said, or a [`Hint`](crate::Hint).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A session that cannot be read, or not as asked ([`load`](crate::load)).
    #[error("{message}")]
    Read {
        /// What went wrong, naming the session.
        message: String,
        /// Why, when something below said.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The embedding model of search by meaning cannot be loaded, or a
    /// search by meaning has none ([`meaning`](crate::meaning)).
    #[error("{message}")]
    Model {
        /// What went wrong, naming the model's folder.
        message: String,
        /// Why: the model's error, or a [`Hint`](crate::Hint).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// Reading a store failed.
    #[error(transparent)]
    Backend(#[from] sess_store::Error),
    /// Reading or writing an archive failed.
    #[error(transparent)]
    Vault(#[from] sess_archive::Error),
}

impl Error {
    pub(crate) fn read(message: String) -> Self {
        Self::Read { message, source: None }
    }

    pub(crate) fn read_because(message: String, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Read { message, source: Some(Box::new(source)) }
    }

    pub(crate) fn resolve(message: String) -> Self {
        Self::Resolve { message, source: None }
    }

    pub(crate) fn resolve_because(message: String, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Resolve { message, source: Some(Box::new(source)) }
    }

    pub(crate) fn catalog(message: String) -> Self {
        Self::Catalog { message, source: None }
    }

    pub(crate) fn catalog_because(message: String, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Catalog { message, source: Some(Box::new(source)) }
    }

    pub(crate) fn archive(message: String) -> Self {
        Self::Archive { message, source: None }
    }

    pub(crate) fn archive_because(message: String, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Archive { message, source: Some(Box::new(source)) }
    }

    pub(crate) fn store(message: String) -> Self {
        Self::Store { message, source: None }
    }

    pub(crate) fn store_because(message: String, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Store { message, source: Some(Box::new(source)) }
    }
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
