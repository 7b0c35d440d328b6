//! The checks every request passes before a handler sees it, and the headers
//! every response carries.
//!
//! The server listens on a loopback address, but a web page elsewhere can
//! still reach it through the browser: by DNS rebinding (a name of the
//! attacker's that resolves to 127.0.0.1, so the request carries the
//! attacker's `Host`) or by a cross-site form post (which carries the
//! attacker's `Origin`). So a request must name this server in `Host`, and a
//! request that changes something must not come from another origin. Writes
//! also need the page's token ([`token_matches`]). A read of the API that
//! the browser says another site made (`Sec-Fetch-Site`: an `<img>` whose
//! `src` is `/api/search?q=…` on any page) is refused too: only this
//! server's page reads the API, and a search costs CPU whoever asked.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, HOST, ORIGIN, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use crate::error::error_response;

/// The page loads only its own script, style and images (and `data:` images
/// from transcripts), and cannot be framed.
const CSP: &str =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'";

/// The header a browser says which site made a request in: `same-origin`
/// (this server's page), `none` (the user typed the address), `same-site`
/// or `cross-site`.
const FETCH_SITE: &str = "sec-fetch-site";

/// The header a write request carries the page's token in.
pub(crate) const TOKEN_HEADER: &str = "x-sess-token";

/// The hosts this server answers to.
#[derive(Debug)]
pub(crate) struct Guard {
    /// `127.0.0.1:PORT`, `localhost:PORT` and `[::1]:PORT`.
    hosts: [String; 3],
}

impl Guard {
    pub(crate) fn new(port: u16) -> Self {
        Self { hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")] }
    }

    fn allows_host(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    fn allows_origin(&self, origin: &str) -> bool {
        origin.strip_prefix("http://").is_some_and(|host| self.allows_host(host))
    }

    /// Why the request is refused, if it is, and with which status.
    fn refusal(&self, request: &Request) -> Option<(StatusCode, &'static str)> {
        // Two `Host` headers name two servers: which one a proxy or cache
        // on the way read is anybody's guess.
        if request.headers().get_all(HOST).iter().nth(1).is_some() {
            return Some((StatusCode::BAD_REQUEST, "a request names one Host; this one names several"));
        }
        self.foreign(request).map(|reason| (StatusCode::FORBIDDEN, reason))
    }

    /// Why a request for another host, or a cross-origin write, is refused.
    fn foreign(&self, request: &Request) -> Option<&'static str> {
        let host = request.headers().get(HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(|h| self.allows_host(h)) {
            return Some("this server answers only to 127.0.0.1, localhost and [::1] on its port");
        }
        if let Some(authority) = request.uri().authority()
            && !self.allows_host(authority.as_str())
        {
            return Some("this server answers only to 127.0.0.1, localhost and [::1] on its port");
        }
        if request.uri().path().starts_with("/api/")
            && let Some(site) = request.headers().get(FETCH_SITE)
            && !(site.as_bytes().eq_ignore_ascii_case(b"same-origin") || site.as_bytes().eq_ignore_ascii_case(b"none"))
        {
            return Some("the API answers this server's own page, not a request another site made");
        }
        let reads = [Method::GET, Method::HEAD, Method::OPTIONS].contains(request.method());
        if !reads && let Some(origin) = request.headers().get(ORIGIN) {
            let allowed = origin.to_str().is_ok_and(|o| self.allows_origin(o));
            if !allowed {
                return Some("requests that change something must come from this server's own page");
            }
        }
        None
    }
}

/// Refuses requests for other hosts and cross-origin writes, and adds the
/// security headers to every response, refusals included.
pub(crate) async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let mut response = match guard.refusal(&request) {
        Some((status, reason)) => error_response(status, reason),
        None => next.run(request).await,
    };
    let headers = response.headers_mut();
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    // The page holds the token and the API returns session text: neither
    // belongs in a disk cache.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Whether the request carries `token` in [`TOKEN_HEADER`]. The comparison
/// takes the same time wherever the first difference is.
pub(crate) fn token_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers.get(TOKEN_HEADER) else { return false };
    let (given, token) = (given.as_bytes(), token.as_bytes());
    !token.is_empty()
        && given.len() == token.len()
        && given.iter().zip(token).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        let guard = Guard::new(8080);
        assert!(guard.allows_host("127.0.0.1:8080"));
        assert!(guard.allows_host("localhost:8080"));
        assert!(guard.allows_host("[::1]:8080"));
        assert!(!guard.allows_host("127.0.0.1"));
        assert!(!guard.allows_host("127.0.0.1:8081"));
        assert!(!guard.allows_host("evil.example:8080"));
        assert!(guard.allows_origin("http://localhost:8080"));
        assert!(!guard.allows_origin("https://localhost:8080"));
        assert!(!guard.allows_origin("null"));
        assert!(!guard.allows_origin("http://evil.example:8080"));
    }

    #[test]
    fn tokens() {
        let mut headers = HeaderMap::new();
        assert!(!token_matches(&headers, "abc"));
        headers.insert(TOKEN_HEADER, HeaderValue::from_static("abd"));
        assert!(!token_matches(&headers, "abc"));
        assert!(!token_matches(&headers, "abcd"));
        headers.insert(TOKEN_HEADER, HeaderValue::from_static("abc"));
        assert!(token_matches(&headers, "abc"));
        headers.insert(TOKEN_HEADER, HeaderValue::from_static(""));
        assert!(!token_matches(&headers, ""));
    }
}
