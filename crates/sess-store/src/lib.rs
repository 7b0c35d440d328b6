//! Storage for `sess` sessions.
//!
//! This crate owns every byte `sess` writes: [`durable::write_atomic`] replaces
//! a file with temp + fsync + rename + directory fsync, and
//! [`read_session_file`] streams a session file through the lenient reader of
//! `sess-core`.
//!
//! ```
//! use sess_store::{durable, read_session_file};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("s.jsonl");
//! durable::write_atomic(&path, br#"{"type":"session","version":3,"id":"s","cwd":"/p"}
//! {"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}
//! "#)?;
//! let outcome = read_session_file(&path)?;
//! assert_eq!(outcome.file.entries().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod backend;
pub mod blob;
mod clock;
pub mod discovery;
pub mod durable;
mod error;
mod ids;
mod manager;
mod prepare;
mod session_file;
pub mod storage;

pub use backend::{
    Appended, Backend, Cursor, JsonlBackend, NewSegment, Placed, ReplayStep, SegmentInfo, StoredSession,
    append_or_fork, check_chain, check_cursor_name, check_fork_point, check_new_root, check_segment_entries, is_leaf,
    replay_moved, replay_rest, replay_session, replay_steps,
};
pub use blob::{BlobStore, Blobs, blob_hash, blob_ref, parse_blob_ref};
pub use clock::{Clock, SteppingClock, SystemClock};
pub use discovery::{AgentDirs, Environment, PiAgent, RecentSession, SessionSummary};
pub use error::{Error, Result};
pub use ids::RandomIds;
pub use manager::{
    At, Breadcrumbs, CompactionParams, CustomMessageParams, Durability, Notice, SessionInitParams, SessionManager,
    SessionManagerBuilder, TitleSource,
};
pub use prepare::{
    BLOB_EXTERNALIZE_THRESHOLD, MAX_PERSIST_CHARS, Resolution, Resolved, TRUNCATION_NOTICE, prepare_for_persistence,
    resolve_blob_refs, resolve_entries,
};
pub use session_file::{read_session, read_session_file};
pub use storage::{FileStorage, MemoryStorage, SessionStorage, write_atomic};
