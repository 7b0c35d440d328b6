//! A request's body, read whole before a handler sees it: at most
//! [`MAX_BODY_BYTES`] (413 beyond, without reading it when `Content-Length`
//! says so), and with no gap longer than the idle timeout between two of its
//! parts (408). Both answers close the connection, so a client that stops
//! half way through a body, or sends too much, does not keep it.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::http::header::{CONNECTION, CONTENT_LENGTH};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;

use crate::Error;

/// The largest request body the server reads. The one request with a body,
/// a fork, sends an entry id.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// How a body is read.
#[derive(Debug)]
pub(crate) struct BodyLimits {
    /// The most bytes read.
    pub(crate) max: usize,
    /// The longest wait for the next part.
    pub(crate) idle: Duration,
}

/// Reads the body within `limits`, then hands the request on with it.
pub(crate) async fn read(State(limits): State<Arc<BodyLimits>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let declared = parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limits.max as u64) {
        return closing(Error::TooLarge { limit: limits.max });
    }
    match collect(body, &limits).await {
        Ok(bytes) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Err(error) => closing(error),
    }
}

/// The body's bytes, or why it was not read.
async fn collect(mut body: Body, limits: &BodyLimits) -> Result<Bytes, Error> {
    let mut bytes = Vec::new();
    loop {
        let frame = match tokio::time::timeout(limits.idle, body.frame()).await {
            Err(_) => return Err(Error::Stalled { waited: limits.idle }),
            Ok(None) => return Ok(Bytes::from(bytes)),
            Ok(Some(Err(_))) => return Err(Error::invalid("the request body could not be read")),
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > limits.max {
                return Err(Error::TooLarge { limit: limits.max });
            }
            bytes.extend_from_slice(&data);
        }
    }
}

/// `error`'s response, asking to close the connection: the rest of the body
/// is never read.
fn closing(error: Error) -> Response {
    let mut response = error.into_response();
    response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    response
}
