//! The error type of `sess-web`, and how it becomes an HTTP response.

use std::io;
use std::time::Duration;

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
    /// The request's body is larger than the server takes (HTTP 413).
    #[error("the request body is larger than {limit} bytes")]
    TooLarge {
        /// The most the server reads, in bytes.
        limit: usize,
    },
    /// The request's body stopped arriving (HTTP 408; the connection is closed).
    #[error("the request body stopped arriving: nothing came for {waited:?}")]
    Stalled {
        /// How long the server waited for more.
        waited: Duration,
    },
    /// The library failed (HTTP 500). The response says only that: the error
    /// can name files, and the page is not told where they are. The library
    /// hears of it through [`Library::report`](sess::Library::report).
    #[error("{0}")]
    Failed(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A search ran for its whole time budget and was stopped (HTTP 503).
    #[error("the search was stopped after {} s, its time budget: search for rarer words, or fewer", budget.as_secs_f64())]
    OutOfTime {
        /// The budget ([`ServeConfig::search_budget`](crate::ServeConfig::search_budget)).
        budget: Duration,
    },
    /// The call was cancelled ([`Cancel`](sess::Cancel)) before its end
    /// (HTTP 503; its client has usually gone).
    #[error("the request was cancelled")]
    Cancelled,
    /// Serving failed: the listener or the runtime.
    #[error("serving: {0}")]
    Io(#[source] io::Error),
}

/// A library call's error as the server answers it.
impl From<sess::Error> for Error {
    fn from(error: sess::Error) -> Self {
        match error {
            sess::Error::NotFound { what } => Self::NotFound { what },
            sess::Error::Invalid { reason } => Self::Invalid { reason },
            sess::Error::Unsupported { operation } => Self::Unsupported { operation },
            sess::Error::OutOfTime { budget } => Self::OutOfTime { budget },
            sess::Error::Cancelled => Self::Cancelled,
            sess::Error::Failed(source) => Self::Failed(source),
            // A search by meaning asked of a server with no model: it says how to give one.
            model @ sess::Error::Model { .. } => Self::Invalid { reason: sess::chain(&model) },
            // A variant a later `sess` adds: the server failed.
            other => Self::Failed(Box::new(other)),
        }
    }
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
            Self::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Stalled { .. } => StatusCode::REQUEST_TIMEOUT,
            Self::OutOfTime { .. } | Self::Cancelled => StatusCode::SERVICE_UNAVAILABLE,
            Self::Failed(_) | Self::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// The body of every 500: what failed stays in the server's terminal.
pub(crate) const FAILED_MESSAGE: &str = "the server could not answer this request (its terminal says why)";

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        match self {
            Self::Failed(_) | Self::Io(_) => error_response(self.status(), FAILED_MESSAGE),
            other => error_response(other.status(), &other.to_string()),
        }
    }
}

/// `{"error": message}` with `status`.
pub(crate) fn error_response(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}
