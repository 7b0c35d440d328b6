//! OpenCode as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::rows::RowDump;
use crate::source::{Source, SourceKind};
use crate::sqlite::SQLITE_MAGIC;
use crate::transcript::{ToolCall, Transcript};

/// OpenCode.
pub struct OpenCode;

/// The OpenCode source.
pub const SOURCE: SourceKind = SourceKind::of(&OpenCode);

impl Source for OpenCode {
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
    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        let data = super::data_dir(env);
        let mut roots: Vec<PathBuf> = super::databases(env).into_iter().filter(|db| !db.starts_with(&data)).collect();
        roots.insert(0, data);
        roots
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(env)
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(env, scope)
    }

    /// A SQLite database named `opencode.db` or `opencode-<channel>.db`, or a session file of
    /// `storage/` (`ses_….json` holding a JSON object).
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        let name = head.name.as_ref();
        if head.bytes.starts_with(SQLITE_MAGIC) && super::paths::is_database_name(Path::new(name)) {
            return Some(0);
        }
        let object = head.bytes.trim_ascii_start().starts_with(b"{");
        (object && super::storage::session_id_of(name).is_some()).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        super::load_session(database, id)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        Ok(super::db::Db::open(database)?.sessions()?.into_iter().map(|record| record.id).collect())
    }

    /// For a session of `storage/` (`storage/session/<project>/<id>.json`):
    /// the message and part files its transcript is read from, and those of
    /// the subagents its `task` calls ran, with their session files
    /// (`opencode/storage.rs`). A session of the database has none: its rows
    /// are [`rows`](Source::rows). The messages are those of the id the
    /// record inside names (where `load` reads them), whatever the file's name.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        let named = path.file_name().and_then(|n| n.to_str()).and_then(super::storage::session_id_of);
        let (Some(named), Some(storage)) = (named, super::storage::storage_of(path)) else { return Vec::new() };
        let id = super::storage::read_session(path).map_or_else(|_| named.to_owned(), |record| record.id);
        crate::companions::finish(path, super::storage::files_of_session(storage, &id))
    }

    /// The rows of the session and of the subagents it ran, in every table
    /// keyed by a session (`opencode/dump.rs`).
    fn rows(&self, database: &Path, id: &str) -> Result<RowDump> {
        super::db::Db::open(database)?.rows(id)
    }

    /// What the catalog keeps of a session of `storage/`; its calls are
    /// its subagents' too (their sessions are not listed on their own).
    fn index(&self, path: &Path, _bytes: &[u8]) -> std::result::Result<Indexed, String> {
        Ok(indexed(super::load_with_usage(path).map_err(|err| err.to_string())?))
    }

    /// What the catalog keeps of a session of the database; its calls are
    /// its subagents' too.
    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        Ok(indexed(super::load_session_with_usage(database, id).map_err(|err| err.to_string())?))
    }
}

/// What the catalog keeps of a loaded session and its calls. Its title is
/// its own unless it is its first prompt; its creation time is its first
/// message's.
fn indexed((transcript, usage): (Transcript, Vec<crate::Call>)) -> Indexed {
    let title_explicit = transcript.title.is_some() && transcript.title.as_deref() != transcript.first_prompt();
    Indexed {
        session_id: transcript.id,
        title: transcript.title,
        title_explicit,
        cwd: transcript.cwd,
        created: transcript.messages.first().and_then(|m| m.timestamp.clone()),
        message_count: transcript.messages.len(),
        messages: transcript.messages,
        usage,
        listed: None,
    }
}
