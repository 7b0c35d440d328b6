//! `sess mcp`: a Model Context Protocol server over stdio, through which
//! agents search, list and read the sessions of every agent `sess` reads
//! (the archive included), read-only.
//!
//! It is built on the official Rust SDK (`rmcp`) over the same read model as
//! the web page, [`sess::Library`], plus the model context of a
//! pi-family session. Four tools ([`tools`]): `search_sessions`,
//! `list_sessions`, `read_session` (a window of a transcript, with a cursor)
//! and `session_context`. Every answer is compact text under a size budget
//! (`max_chars`, default [`DEFAULT_MAX_CHARS`]) that says what it left out
//! and how to get it; a bad argument or a session that cannot be read is a
//! tool error with a message, never a crash.

mod error;
mod params;
mod render;
pub mod tools;
mod transport;

pub use error::{Error, Result};
pub use params::{ContextArgs, ListArgs, ReadArgs, SearchArgs};
pub use render::DEFAULT_MAX_CHARS;
pub use tools::{ContextFn, Sess};

/// How long a tool's work may go on once the client has gone (stdin
/// closed): then the server returns, and what is left is cancelled.
const AFTER_CLOSE: std::time::Duration = std::time::Duration::from_secs(1);

/// Serves `sess` on stdin and stdout until the client closes stdin.
///
/// Tools run on tokio's blocking pool, so stdin is read while they work:
/// requests are answered side by side, a search is cancelled when its
/// budget ([`tools::SEARCH_BUDGET`]) runs out or its client cancels its
/// request (`notifications/cancelled`), and the server returns soon
/// after stdin closes, whatever it was doing (the tools' work is cancelled).
/// A line that is not JSON is answered `-32700`, a request whose `params`
/// is not an object `-32602`.
pub fn run_stdio(server: Sess) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(Error::Runtime)?;
    let outcome = runtime.block_on(async move {
        use rmcp::ServiceExt as _;
        let io = transport::filtered(tokio::io::stdin(), tokio::io::stdout());
        let service = server.serve(io).await.map_err(|e| Error::Protocol(e.to_string()))?;
        service.waiting().await.map_err(|e| Error::Protocol(e.to_string()))?;
        Ok(())
    });
    // Dropping the runtime would wait for every blocking task to end.
    runtime.shutdown_timeout(AFTER_CLOSE);
    outcome
}
