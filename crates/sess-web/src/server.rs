//! The router over a [`Library`], its configuration, and serving it.

use std::fmt;
use std::io;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::middleware::from_fn_with_state;
use axum::response::Html;
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

use crate::body::{self, BodyLimits, MAX_BODY_BYTES};
use crate::guard::{self, Guard};
use sess::Library;

use crate::{Error, Result, api, assets, events};

/// How the server is reached, guarded and timed.
#[derive(Clone)]
pub struct ServeConfig {
    /// The port the page is served on. Requests must name it in `Host`
    /// (`127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT`).
    pub port: u16,
    /// The secret the page sends back with requests that change something
    /// (`X-Sess-Token`). It is written into the page, which only this server's
    /// own origin can read.
    pub token: String,
    /// How long a request's line and headers may take to arrive, counted from
    /// when the server starts waiting for them; then the connection is
    /// closed. A connection left open with no request (a fresh one, or one
    /// kept alive after an answer) is closed after it too.
    /// [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT) by default.
    pub header_read_timeout: Duration,
    /// The longest wait for the next part of a request's body; then the
    /// server answers 408 and closes the connection.
    /// [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT) by default.
    pub idle_timeout: Duration,
    /// The longest a search may run: then it is answered 503
    /// ([`Error::OutOfTime`]) and cancelled ([`Cancel`](sess::Cancel)).
    /// [`DEFAULT_SEARCH_BUDGET`](Self::DEFAULT_SEARCH_BUDGET) by default.
    pub search_budget: Duration,
    /// The change feed the page follows (`GET /api/events`); `None` (an
    /// archive's page) answers that route 422.
    pub feed: Option<Arc<sess::live::Feed>>,
}

impl ServeConfig {
    /// The default of both timeouts: 30 s.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

    /// The default time budget of a search: 10 s.
    pub const DEFAULT_SEARCH_BUDGET: Duration = Duration::from_secs(10);

    /// A configuration for `port` with a fresh random token and the default timeouts.
    pub fn new(port: u16) -> Self {
        Self {
            port,
            token: uuid::Uuid::new_v4().simple().to_string(),
            header_read_timeout: Self::DEFAULT_TIMEOUT,
            idle_timeout: Self::DEFAULT_TIMEOUT,
            search_budget: Self::DEFAULT_SEARCH_BUDGET,
            feed: None,
        }
    }
}

impl fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeConfig")
            .field("port", &self.port)
            .field("token", &"…")
            .field("header_read_timeout", &self.header_read_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("search_budget", &self.search_budget)
            .field("feed", &self.feed.as_ref().map(|feed| feed.run()))
            .finish()
    }
}

/// What the handlers share.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) library: Arc<dyn Library>,
    pub(crate) token: Arc<str>,
    /// [`ServeConfig::search_budget`].
    pub(crate) search_budget: Duration,
    /// `index.html` with the token in it.
    page: Bytes,
    /// [`ServeConfig::feed`].
    pub(crate) feed: Option<Arc<sess::live::Feed>>,
}

async fn index(State(state): State<AppState>) -> Html<Bytes> {
    Html(state.page)
}

/// The whole application: the page, its assets and the JSON API, behind the
/// `Host`/`Origin` checks and with the security headers on every response.
///
/// | route | answer |
/// |---|---|
/// | `GET /` | the page |
/// | `GET /assets/app.js`, `GET /assets/usage.js`, `GET /assets/session.css`, `GET /assets/app.css` | its scripts and style |
/// | `GET /api/projects` | `[ProjectCard]` |
/// | `GET /api/machines` | `[MachineCard]` ([`Library::machines`]) |
/// | `GET /api/sessions?source=&project=&q=&machine=&limit=&offset=` | `[SessionCard]`: `limit` (200 by default) from `offset` (0) on, newest first; how many the filters select in all in the header `X-Sess-Total` |
/// | `GET /api/sessions/{id}?leaf=` | `SessionPage`, each text block of a user or assistant message with `html`: its Markdown rendered by [`sess_export::to_html`] |
/// | `GET /api/sessions/{id}/export?format=html\|md&redact=1\|0&leaf=` | the session as a file to download ([`Library::export`]; secrets masked unless `redact=0`, and how many in `X-Sess-Masked`) |
/// | `GET /api/search?q=&source=&project=&machine=&limit=&offset=&mode=` | `[SearchHit]`: `limit` (50 by default) from `offset` (0) on, best first; a page shorter than `limit` is the last; `mode`: `lexical`, `semantic` or `hybrid` (default: the first of `/api/search/modes`) |
/// | `GET /api/search/modes` | `[mode]`: the modes the server can search by, its default first |
/// | `GET /api/usage?by=&source=&project=&machine=&since=&until=&tz=` | [`Report::to_json`](sess_usage::Report::to_json) ([`Library::usage`]) |
/// | `POST /api/sessions/{id}/fork` `{"entryId": …}`, header `X-Sess-Token` | `Forked` |
/// | `GET /api/events`, header `Last-Event-ID` | the change feed ([`ServeConfig::feed`]) as server-sent events: `event: appeared`, `changed` or `gone`, `data` the [`Event`](sess::live::Event) as JSON, `id` `RUN-N`; a client that comes back with the last id it saw goes on after it, or gets `event: reset` (read again) when those events are gone or of another run |
///
/// `limit` is at most 5000; `limit=0` is an empty page (with the total). A
/// page at an `offset` past the end is empty. Requests are answered side by
/// side (the library is called on tokio's blocking pool); a search has
/// [`ServeConfig::search_budget`] and is cancelled when its client goes away.
///
/// `by` is `daily` (the default), `monthly`, `session`, `project` or
/// `model`; `since` and `until` are days (`YYYY-MM-DD` or `YYYYMMDD`) in the
/// time zone `tz` (an IANA name; the server's when absent).
///
/// Errors are `{"error": message}` with 400 ([`Error::Invalid`], an unknown
/// source, report, day or time zone, a `limit` or `offset` that is not a
/// whole number, naming it), 403 (a foreign `Host` or `Origin`, a missing or wrong token), 404
/// ([`Error::NotFound`]), 503 (a search over its time budget,
/// [`Error::OutOfTime`]), 408 (a body that stopped arriving,
/// [`ServeConfig::idle_timeout`]), 413 (a body over
/// [`MAX_BODY_BYTES`](crate::MAX_BODY_BYTES)), 422 ([`Error::Unsupported`])
/// or 500 (the message says only that the server failed; the details go to
/// [`Library::report`]). No error names a file.
pub fn router(library: Arc<dyn Library>, config: &ServeConfig) -> Router {
    let state = AppState {
        library,
        token: Arc::from(config.token.as_str()),
        search_budget: config.search_budget,
        page: assets::page(&config.token),
        feed: config.feed.clone(),
    };
    let limits = Arc::new(BodyLimits { max: MAX_BODY_BYTES, idle: config.idle_timeout });
    Router::new()
        .route("/", get(index))
        .route("/assets/app.js", get(assets::script))
        .route("/assets/usage.js", get(assets::usage_script))
        .route("/assets/session.css", get(assets::session_style))
        .route("/assets/app.css", get(assets::style))
        .route("/api/projects", get(api::projects))
        .route("/api/machines", get(api::machines))
        .route("/api/sessions", get(api::sessions))
        .route("/api/sessions/{id}", get(api::session))
        .route("/api/sessions/{id}/export", get(api::export))
        .route("/api/sessions/{id}/fork", post(api::fork))
        .route("/api/search", get(api::search))
        .route("/api/search/modes", get(api::search_modes))
        .route("/api/usage", get(api::usage))
        .route("/api/events", get(events::events))
        .fallback(api::not_found)
        .with_state(state)
        .layer(from_fn_with_state(limits, body::read))
        .layer(from_fn_with_state(Arc::new(Guard::new(config.port)), guard::check))
}

/// Serves until the process ends; builds its own tokio runtime (the caller is sync code).
///
/// `listener` must be bound to `config.port` (bind port 0, then build the
/// config from the port the system chose), else [`Error::Invalid`].
pub fn serve(listener: TcpListener, library: Arc<dyn Library>, config: ServeConfig) -> Result<()> {
    let port = listener.local_addr().map_err(Error::Io)?.port();
    if port != config.port {
        return Err(Error::invalid(format!("the listener is on port {port} but the config says {}", config.port)));
    }
    listener.set_nonblocking(true).map_err(Error::Io)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(Error::Io)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(Error::Io)?;
        let app = router(library, &config);
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new()).header_read_timeout(config.header_read_timeout);
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                // The client gave up before it was accepted.
                Err(error) if is_connection_error(&error) => continue,
                // Out of file descriptors, or the like: try again shortly.
                Err(_) => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
            // A connection's errors (a client that went away, a header timeout) end only it.
            tokio::spawn(async move { drop(connection.await) });
        }
    })
}

fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sess::{Forked, ProjectCard, SearchHit, SearchParams, SessionList, SessionPage, SessionsParams};

    struct Nothing;

    impl Library for Nothing {
        fn projects(&self) -> sess::Result<Vec<ProjectCard>> {
            Ok(Vec::new())
        }
        fn sessions(&self, _: &SessionsParams) -> sess::Result<SessionList> {
            Ok(SessionList::default())
        }
        fn session(&self, id: &str, _: Option<&str>) -> sess::Result<SessionPage> {
            Err(sess::Error::NotFound { what: id.into() })
        }
        fn search(&self, _: &SearchParams, _: &sess::Cancel) -> sess::Result<Vec<SearchHit>> {
            Ok(Vec::new())
        }
        fn fork(&self, id: &str, _: &str) -> sess::Result<Forked> {
            Err(sess::Error::NotFound { what: id.into() })
        }
    }

    #[test]
    fn serve_refuses_a_config_for_another_port() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let config = ServeConfig::new(port.wrapping_add(1).max(1));
        let error = serve(listener, Arc::new(Nothing), config).unwrap_err();
        assert!(matches!(error, Error::Invalid { .. }), "{error}");
    }
}
