//! The error type of `sess-web`, and how it becomes an HTTP response.

use std::io;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// What can go wrong answering a request or serving.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No such session, entry or leaf (HTTP 404).
    #[error("{what} not found")]
    NotFound {
        /// What was asked for, e.g. "session `abc`".
        what: String,
    },
    /// The request does not make sense (HTTP 400).
    #[error("{reason}")]
    Invalid {
        /// Why.
        reason: String,
    },
    /// The library cannot do this for this session (HTTP 422), e.g. fork a
    /// Claude Code session.
    #[error("{operation} is not supported")]
    Unsupported {
        /// What was asked, e.g. "forking a Codex session".
        operation: String,
    },
    /// The library failed (HTTP 500).
    #[error("{0}")]
    Failed(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Serving failed: the listener or the runtime.
    #[error("serving: {0}")]
    Io(#[source] io::Error),
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Invalid`].
    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        Self::Invalid { reason: reason.into() }
    }

    fn status(&self) -> StatusCode {
        match self {
            Self::NotFound { .. } => StatusCode::NOT_FOUND,
            Self::Invalid { .. } => StatusCode::BAD_REQUEST,
            Self::Unsupported { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Self::Failed(_) | Self::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        error_response(self.status(), &self.to_string())
    }
}

/// `{"error": message}` with `status`.
pub(crate) fn error_response(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}
