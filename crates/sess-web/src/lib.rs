//! A local web history browser over the sessions of coding agents.
//!
//! [`router`] answers a JSON API and a page (vanilla script and style built
//! into the binary) over a [`Library`](sess::Library), the read model of the `sess` crate: the projects, the sessions of each
//! agent, one session's [`Transcript`](sess_sources::Transcript) with its
//! branch tree, ranked search hits (sessions and hits a page at a time:
//! `limit` and `offset`, with the sessions' total in `X-Sess-Total`), and forking a session at one of its
//! entries, and exporting one as a file to download ([`Library::export`](sess::Library::export):
//! HTML or Markdown, secrets masked by default); the Markdown of user and
//! assistant messages is rendered as safe HTML by [`sess_export::to_html`];
//! with an archive, each session's machine and whether its agent
//! deleted it ([`Original`](sess::Original)), and a machine filter; and the tokens and cost
//! of the model calls, as `sess usage` reports them ([`Library::usage`](sess::Library::usage)),
//! drawn as bars by day or month, and each session's own. [`serve`] runs it on a
//! listener the caller bound on a loopback address. The server answers only to `127.0.0.1`, `localhost` and `[::1]` on
//! its port, refuses writes from other origins and wants the page's token
//! ([`ServeConfig::token`]) on every write; see [`router`] for the routes.
//! A request whose headers do not arrive within
//! [`ServeConfig::header_read_timeout`], or whose body stops arriving for
//! [`ServeConfig::idle_timeout`], loses its connection; a body over
//! [`MAX_BODY_BYTES`] is answered 413; errors never name a file. Requests
//! are answered side by side; a search that runs longer than
//! [`ServeConfig::search_budget`] is answered 503, and is cancelled then, or
//! as soon as its client goes away ([`Cancel`](sess::Cancel)).
//!
//! The library trait is synchronous, like the rest of the workspace: the
//! handlers call it on tokio's blocking pool, so it may read files.
//!
//! ```
//! use std::sync::Arc;
//!
//! use sess::{
//!     Cancel, Error, Forked, Library, ProjectCard, Result, SearchHit, SearchParams, SessionList, SessionPage,
//!     SessionsParams,
//! };
//! use sess_web::ServeConfig;
//!
//! /// A library with no sessions.
//! struct Empty;
//!
//! impl Library for Empty {
//!     fn projects(&self) -> Result<Vec<ProjectCard>> {
//!         Ok(Vec::new())
//!     }
//!     fn sessions(&self, _: &SessionsParams) -> Result<SessionList> {
//!         Ok(SessionList::default())
//!     }
//!     fn session(&self, id: &str, _: Option<&str>) -> Result<SessionPage> {
//!         Err(Error::NotFound { what: format!("session `{id}`") })
//!     }
//!     fn search(&self, _: &SearchParams, _: &Cancel) -> Result<Vec<SearchHit>> {
//!         Ok(Vec::new())
//!     }
//!     fn fork(&self, id: &str, _: &str) -> Result<Forked> {
//!         Err(Error::NotFound { what: format!("session `{id}`") })
//!     }
//! }
//!
//! let config = ServeConfig::new(8765);
//! let app: axum::Router = sess_web::router(Arc::new(Empty), &config);
//! # drop(app);
//!
//! // `sess serve` binds a loopback port and serves until it is stopped:
//! # fn run() -> sess_web::Result<()> {
//! let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(sess_web::Error::Io)?;
//! let config = ServeConfig::new(listener.local_addr().map_err(sess_web::Error::Io)?.port());
//! sess_web::serve(listener, Arc::new(Empty), config)?;
//! # Ok(())
//! # }
//! # Ok::<(), sess_web::Error>(())
//! ```

mod api;
mod assets;
mod body;
mod error;
mod events;
mod guard;
mod rendered;
mod server;

pub use body::MAX_BODY_BYTES;
pub use error::{Error, Result};
pub use server::{ServeConfig, router, serve};
