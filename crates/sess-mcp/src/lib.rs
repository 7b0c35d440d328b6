//! `sess mcp`: a Model Context Protocol server over stdio, through which
//! agents search, list and read the sessions of every agent `sess` reads
//! (the archive included), read-only.
//!
//! It is built on the official Rust SDK (`rmcp`) over the same read model as
//! the web page, [`sess_web::Library`], plus the model context of a
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

pub use error::{Error, Result};
pub use params::{ContextArgs, ListArgs, ReadArgs, SearchArgs};
pub use render::DEFAULT_MAX_CHARS;
pub use tools::{ContextFn, Sess};

/// Serves `sess` on stdin and stdout until the client closes them.
pub fn run_stdio(server: Sess) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(Error::Runtime)?;
    runtime.block_on(async move {
        use rmcp::ServiceExt as _;
        let service = server.serve(rmcp::transport::stdio()).await.map_err(|e| Error::Protocol(e.to_string()))?;
        service.waiting().await.map_err(|e| Error::Protocol(e.to_string()))?;
        Ok(())
    })
}
