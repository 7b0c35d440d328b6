//! The read model of every coding agent's sessions on a machine: what the
//! `sess` command, its page (`sess-web`) and its MCP server (`sess-mcp`)
//! show, behind one interface.
//!
//! The library reads no environment variable and prints nothing: its
//! caller describes the machine in a [`Host`] (the agents' folders, sess's
//! data folder, the host name, the working directory), and what it notices on
//! the way (a line it skipped, a name that is not a session file, a request
//! that failed) it tells to a [`Tell`]. One typed [`Error`].
//!
//! [`Library`] is the interface of a front-end: the projects, the sessions
//! of every agent a page at a time, one session's
//! [`Transcript`](sess_sources::Transcript) at a leaf with its branch tree,
//! ranked search hits, machines, usage reports, export and fork.
//! [`view::open`] opens the machine's view as one: the search catalog of
//! every agent's sessions, with a store's or with the default archive's
//! sessions whose originals are gone; or an archive, every machine's
//! sessions. Its calls are synchronous and may wait on disk; an async
//! front-end makes them on tokio's blocking pool ([`blocking`]), and a search
//! within a time budget, cancelled when nobody waits for it any more
//! ([`search_within`], [`Cancel`]). [`Masked`] is a library whose answers have
//! their secrets masked.
//!
//! Below it, each a module of calls: [`resolve`] finds the session an
//! argument names (a file, an id or prefix of any agent's, or of a store),
//! [`load`] reads it whole, [`pi`] a pi-family one with its model context,
//! [`session`] opens a pi-family one for writing and
//! forks it; [`live`] follows every session as the agents write them (a
//! [`Feed`](live::Feed) of changes, over the folders [`watch`] watches);
//! [`store`] opens a store by its URL, [`archive`] the archive and
//! a session of it, [`catalog`] finds every agent's session files and brings
//! the search catalog up to date with them; [`usage`] gathers the model calls
//! a report sums, [`export`] writes a transcript to leave the machine, and
//! [`describe`] says an entry in a line.
//!
//! Listing every agent's sessions in a folder taken as the home folder, and
//! reading the newest whole (`examples/every_session.rs` is the same
//! program):
//!
//! ```
//! use sess::Host;
//! use sess::load::read;
//! use sess_sources::{Block, Scope, registry};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let home = tempfile::tempdir()?;
//! # let project = home.path().join(".claude/projects/-home-alice-src-todo-api");
//! # std::fs::create_dir_all(&project)?;
//! # let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/claude-code/claude-basic-toolcall.jsonl");
//! # std::fs::copy(fixture, project.join("3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c01.jsonl"))?;
//! # let home = home.path().to_owned();
//! // The library reads no environment variable: the caller says where the
//! // agents keep their sessions (here, where they do by default under `home`).
//! let host = Host::at_home(&home);
//!
//! let mut sessions = Vec::new();
//! for kind in registry() {
//!     sessions.extend(kind.source().list(&host.env, Scope::All).sessions);
//! }
//! sessions.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
//! for s in &sessions {
//!     println!("{:<12} {:>4} messages  {}", s.source, s.message_count, s.title.as_deref().unwrap_or(&s.id));
//! }
//! # assert_eq!(sessions.len(), 1);
//!
//! let newest = &sessions[0];
//! let path = newest.path.to_string_lossy();
//! let warn = |line: &str| eprintln!("warning: {line}");
//! let session = read(&path, None, None, &host, &warn)?;
//! for message in &session.transcript.messages {
//!     for block in &message.blocks {
//!         if let Block::Text { text } = block {
//!             println!("{:?}: {text}", message.role);
//!         }
//!     }
//! }
//! # assert!(!session.transcript.messages.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! A [`Library`] is implemented by the front-end's reader of the machine, or
//! by a test over a few values:
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
pub mod describe;
mod error;
pub mod export;
pub mod handoff;
mod hint;
mod host;
mod library;
pub mod live;
pub mod load;
mod masked;
pub mod meaning;
pub mod pi;
pub mod resolve;
pub mod session;
mod shell;
pub mod state;
pub mod store;
pub mod usage;
pub mod view;
pub mod watch;

pub use call::{Cancel, blocking, search_within};
pub use error::{Error, Result};
pub use hint::Hint;
pub use host::{Host, Quiet, Tell, chain, skipped_line};
pub use library::{
    ExportFormat, ExportParams, Exported, Forked, Library, MachineCard, Original, ProjectCard, SearchHit, SearchParams,
    SessionCard, SessionList, SessionPage, SessionsParams, SnippetPart, TreeNode, UsageParams,
};
pub use masked::Masked;
pub use shell::shell_word;
