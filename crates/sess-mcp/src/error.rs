//! The MCP server's one error type.

/// What can stop the server (a tool's failure is an answer, not this).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The async runtime could not start.
    #[error("cannot start the MCP server: {0}")]
    Runtime(#[source] std::io::Error),
    /// The client and the server could not talk (a closed pipe at start, a
    /// client that is not MCP).
    #[error("MCP: {0}")]
    Protocol(String),
}

/// The MCP server's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
