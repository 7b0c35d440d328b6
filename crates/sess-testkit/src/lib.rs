//! Test tools for `sess`.
//!
//! - [`FaultStorage`] wraps any storage and fails the Nth write, sync or rename.
//! - [`conformance`] is the suite every storage backend runs; [`backends`] has
//!   small sessions and a step-by-step copy for backend tests.
//! - [`CrashStorage`] keeps what was written apart from what was synced, and can
//!   "crash": every file and directory falls back to its last synced state.
//! - [`workload`] generates benchmark inputs from a seed: big pi-family
//!   sessions, trees of many sessions, Claude Code transcripts.
//!
//! ```
//! use std::path::Path;
//! use std::sync::Arc;
//! use sess_store::storage::{write_atomic, MemoryStorage, SessionStorage};
//! use sess_testkit::{FaultStorage, Op};
//!
//! let storage = FaultStorage::new(Arc::new(MemoryStorage::new()));
//! storage.fail_on(Op::Rename, 1);
//! assert!(write_atomic(&storage, Path::new("/s.jsonl"), b"x\n").is_err());
//! assert!(!storage.exists(Path::new("/s.jsonl")));
//! ```

pub mod backends;
pub mod conformance;
mod crash;
pub mod embed;
mod fault;
pub mod workload;

pub use crash::CrashStorage;
pub use fault::{FaultStorage, Op};
