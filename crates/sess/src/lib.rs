//! The read model of every coding agent's sessions on a machine: what the
//! `sess` command, its page (`sess-web`) and its MCP server (`sess-mcp`)
//! show, behind one interface.
//!
//! [`Library`] is that interface: the projects, the sessions of every agent
//! a page at a time, one session's [`Transcript`](sess_sources::Transcript)
//! at a leaf with its branch tree, ranked search hits, machines, usage
//! reports, export and fork; one typed [`Error`]. Its calls are synchronous
//! and may wait on disk; an async front-end makes them on tokio's blocking
//! pool ([`blocking`]), and a search within a time budget, cancelled when
//! nobody waits for it any more ([`search_within`], [`Cancel`]). [`Masked`]
//! is a library whose answers have their secrets masked. [`store`] opens a
//! store by its URL, [`archive`] the archive and a session of it, and
//! [`catalog`] finds every agent's session files and brings the search
//! catalog up to date with them; [`resolve`] finds the session an argument
//! names (a file, an id or prefix of any agent's, or of a store), and
//! [`load`] reads it whole.
//!
//! ```
//! use sess::{Cancel, Error, Forked, Library, ProjectCard, Result, SearchHit, SearchParams, SessionList, SessionPage, SessionsParams};
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
//! assert!(Empty.projects().unwrap().is_empty());
//! assert!(matches!(Empty.session("abc", None), Err(Error::NotFound { .. })));
//! ```

pub mod archive;
mod call;
pub mod catalog;
mod error;
mod hint;
mod library;
pub mod load;
mod masked;
pub mod resolve;
pub mod store;

pub use call::{Cancel, blocking, search_within};
pub use error::{Error, Result};
pub use hint::Hint;
pub use library::{
    ExportFormat, ExportParams, Exported, Forked, Library, MachineCard, Original, ProjectCard, SearchHit, SearchParams,
    SessionCard, SessionList, SessionPage, SessionsParams, SnippetPart, TreeNode, UsageParams,
};
pub use masked::Masked;
