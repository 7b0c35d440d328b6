//! Finding sessions: where each pi-family agent keeps them, listing them with
//! the metadata `sess list` prints, the most recent one, terminal breadcrumbs,
//! and resolving a session argument.
//!
//! Every file access goes through a [`SessionStorage`](crate::SessionStorage),
//! and everything the process environment would supply comes in as an
//! [`Environment`] (and a `canonical` function for `realpath`), so the same code
//! runs on the real file system and in memory.
//!
//! - [`agent_dirs`], [`project_session_dir`], [`all_session_roots`]: directories
//!   of pi-mono (`~/.pi/agent`), oh-my-pi (`~/.omp/agent`) and xcsh
//!   (`~/.xcsh/agent`), with `PI_CODING_AGENT_DIR` and the XDG rule.
//! - [`session_dir_name`], [`candidate_dir_names`], [`session_file_name`]: the
//!   names the agents give a project's directory and a session file.
//! - [`list_sessions`], [`list_all`]: [`SessionSummary`] per file, as pi-mono's
//!   `SessionManager.list` computes it, newest first.
//! - [`recent_sessions`], [`most_recent`]: from a 4 KiB prefix of each file,
//!   by modification time.
//! - [`write_breadcrumb`], [`read_breadcrumb`], [`continue_recent_path`]: what
//!   `--continue` resumes.
//! - [`resolve_session`]: a path, an id prefix or a file name prefix.
//!
//! ```
//! use std::path::{Path, PathBuf};
//! use sess_store::discovery::{self, Environment, PiAgent};
//! use sess_store::{MemoryStorage, SessionStorage, write_atomic};
//!
//! let storage = MemoryStorage::new();
//! let env = Environment { home: "/home/u".into(), tmp_dir: "/tmp".into(), ..Environment::default() };
//! let dirs = discovery::agent_dirs(PiAgent::Xcsh, &env, &storage);
//! let cwd = Path::new("/home/u/project");
//! let dir = discovery::project_session_dir(&dirs, cwd, &env, &|p: &Path| p.to_path_buf());
//! assert_eq!(dir, Path::new("/home/u/.xcsh/agent/sessions/-project"));
//!
//! let file = dir.join(discovery::session_file_name("2026-01-01T00:00:00.000Z", "0123abcd"));
//! storage.create_dir_all(&dir)?;
//! write_atomic(&storage, &file, concat!(
//!     r#"{"type":"session","version":3,"id":"0123abcd","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/u/project"}"#, "\n",
//!     r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hello","timestamp":1767225601000}}"#, "\n",
//! ).as_bytes())?;
//!
//! let sessions = discovery::list_sessions(&storage, &dir);
//! assert_eq!(sessions[0].first_message, "hello");
//! assert_eq!(sessions[0].modified_ms, 1_767_225_601_000);
//! assert_eq!(discovery::resolve_session(&storage, "0123", &sessions)?, file);
//! assert_eq!(discovery::continue_recent_path(&storage, &dirs, &env, cwd, &dir), Some(file));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod breadcrumb;
mod dirs;
mod encoding;
mod line;
mod listing;
mod recent;
mod resolve;
mod summary;
#[cfg(test)]
mod test_storage;

pub use breadcrumb::{breadcrumb_path, continue_recent_path, read_breadcrumb, write_breadcrumb};
pub use dirs::{AgentDirs, Environment, PiAgent, agent_dirs, all_session_roots, project_session_dir};
pub use encoding::{candidate_dir_names, legacy_dir_name, session_dir_name, session_file_name};
pub use listing::{
    Depth, FoundFiles, find_session_files, list_all, list_all_with, list_sessions, list_sessions_with,
    session_files_under, summarize_sessions,
};
pub use recent::{RECENT_PREFIX_BYTES, RecentSession, most_recent, recent_sessions};
pub use resolve::resolve_session;
pub use summary::{MessageText, NO_MESSAGES, SessionSummary, SummaryTally, summarize_bytes};
