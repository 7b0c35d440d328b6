//! Kilo Code as a [`Source`]: the Kilo CLI's database and `storage/`, read
//! as OpenCode's ([`KILO`]). The extension's task folders are to join here
//! (see the module docs of `kilo.rs`).

use std::path::{Path, PathBuf};

use super::KILO;
use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::opencode::Agent;
use crate::rows::RowDump;
use crate::source::{Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// Kilo Code.
pub struct Kilo;

/// The Kilo Code source.
pub const SOURCE: SourceKind = SourceKind::of(&Kilo);

impl Source for Kilo {
    fn name(&self) -> &'static str {
        "kilo"
    }

    fn agent(&self) -> &'static str {
        "Kilo Code"
    }

    fn location(&self) -> &'static str {
        "`$KILO_DB`, or `kilo.db` and `storage/` in `$XDG_DATA_HOME/kilo` or `~/.local/share/kilo`"
    }

    /// The data folder, and the database `$KILO_DB` names when it is outside
    /// it.
    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        KILO.roots(env)
    }

    fn find(&self, env: &Env) -> FoundFiles {
        KILO.find(env)
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        KILO.list(env, scope)
    }

    /// A SQLite database named `kilo.db` or `kilo-<channel>.db`. A session
    /// file of Kilo's `storage/` is named as OpenCode's are (`ses_….json`):
    /// alone, it is taken for OpenCode's; found in Kilo's data folder, it is
    /// Kilo's.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        KILO.detect_database(head).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        KILO.load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        Agent::edits(call)
    }

    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        KILO.load_session(database, id)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        Agent::row_ids(database)
    }

    /// For a session of `storage/`, the files its transcript is read from
    /// (`Agent::companions`).
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        Agent::companions(path)
    }

    /// The rows of the session and of the subagents it ran, in every table
    /// keyed by a session.
    fn rows(&self, database: &Path, id: &str) -> Result<RowDump> {
        Agent::rows(database, id)
    }

    fn index(&self, path: &Path, _bytes: &[u8]) -> std::result::Result<Indexed, String> {
        KILO.index(path)
    }

    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        KILO.index_row(database, id)
    }
}
