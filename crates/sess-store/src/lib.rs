//! Storage for `sess` sessions.
//!
//! This crate owns every byte `sess` writes: [`durable::write_atomic`] replaces
//! a file with temp + fsync + rename + directory fsync, and
//! [`read_session_file`] streams a session file through the lenient reader of
//! `sess-core`.
//!
//! ```
//! use sess_store::{durable, read_session_file, RandomIds};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("s.jsonl");
//! durable::write_atomic(&path, br#"{"type":"session","version":3,"id":"s","cwd":"/p"}
//! {"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}
//! "#)?;
//! let outcome = read_session_file(&path, &mut RandomIds)?;
//! assert_eq!(outcome.file.entries().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod discovery;
pub mod durable;
mod error;
mod ids;
mod session_file;
pub mod storage;

pub use discovery::{AgentDirs, Environment, PiAgent, RecentSession, SessionSummary};
pub use error::{Error, Result};
pub use ids::RandomIds;
pub use session_file::{read_session, read_session_file};
pub use storage::{FileStorage, MemoryStorage, SessionStorage, write_atomic};
