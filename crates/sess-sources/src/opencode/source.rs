//! OpenCode as a [`Source`]: what its agent of OpenCode's family
//! ([`OPENCODE`]) reads.

use std::path::{Path, PathBuf};

use super::{Agent, OPENCODE};
use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::rows::RowDump;
use crate::source::{Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// OpenCode.
pub struct OpenCode;

/// The OpenCode source.
pub const SOURCE: SourceKind = SourceKind::of(&OpenCode);

impl Source for OpenCode {
    /// `question` asks the user and waits.
    fn asks_user(&self, tool: &str) -> bool {
        tool == "question"
    }

    fn name(&self) -> &'static str {
        "opencode"
    }

    fn agent(&self) -> &'static str {
        "OpenCode"
    }

    fn location(&self) -> &'static str {
        "`$OPENCODE_DB`, or `opencode.db` and `storage/` in `$XDG_DATA_HOME/opencode` or `~/.local/share/opencode`"
    }

    /// The data folder, and the database `$OPENCODE_DB` names when it is
    /// outside it.
    /// `opencode --session ID`.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["opencode", "--session", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        OPENCODE.roots(env)
    }

    fn find(&self, env: &Env) -> FoundFiles {
        OPENCODE.find(env)
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        OPENCODE.list(env, scope)
    }

    /// A SQLite database named `opencode.db` or `opencode-<channel>.db`, or a session file of
    /// `storage/` (`ses_….json` holding a JSON object).
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        if OPENCODE.detect_database(head) {
            return Some(0);
        }
        let object = head.bytes.trim_ascii_start().starts_with(b"{");
        (object && super::storage::session_id_of(head.name.as_ref()).is_some()).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        OPENCODE.load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        Agent::edits(call)
    }

    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        OPENCODE.load_session(database, id)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        Agent::row_ids(database)
    }

    /// For a session of `storage/`, the files its transcript is read from
    /// (`Agent::companions`); a session of the database has none: its rows
    /// are [`rows`](Source::rows).
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        Agent::companions(path)
    }

    /// The rows of the session and of the subagents it ran, in every table
    /// keyed by a session (`opencode/dump.rs`).
    fn rows(&self, database: &Path, id: &str) -> Result<RowDump> {
        Agent::rows(database, id)
    }

    /// What the catalog keeps of a session of `storage/`; its calls are
    /// its subagents' too (their sessions are not listed on their own).
    fn index(&self, path: &Path, _bytes: &[u8]) -> std::result::Result<Indexed, String> {
        OPENCODE.index(path)
    }

    /// What the catalog keeps of a session of the database; its calls are
    /// its subagents' too.
    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        OPENCODE.index_row(database, id)
    }
}
