//! Crush as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::rows::RowDump;
use crate::source::{Source, SourceKind};
use crate::sqlite::{SQLITE_MAGIC, database};
use crate::transcript::{ToolCall, Transcript};

/// Crush.
pub struct Crush;

/// The Crush source.
pub const SOURCE: SourceKind = SourceKind::of(&Crush);

impl Source for Crush {
    fn name(&self) -> &'static str {
        "crush"
    }

    fn agent(&self) -> &'static str {
        "Crush"
    }

    fn location(&self) -> &'static str {
        "`<project>/.crush/crush.db` of every project in `projects.json` of `$CRUSH_GLOBAL_DATA`, `$XDG_DATA_HOME/crush` or `~/.local/share/crush`"
    }

    /// The global data folder, and every project's database.
    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        let mut roots = vec![super::data_dir(env)];
        roots.extend(super::projects(env).into_iter().map(|(_, database)| database));
        roots
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(env)
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(env, scope)
    }

    /// A SQLite database named `crush.db`.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        (head.bytes.starts_with(SQLITE_MAGIC) && head.name == super::DATABASE).then_some(0)
    }

    /// Crush keeps no session in a file of its own.
    fn load(&self, path: &Path) -> Result<Transcript> {
        Err(not_a_file(path))
    }

    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        Ok(super::read_session(database, id, false)?.transcript)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        Ok(super::db::Db::open(database)?.sessions()?.into_iter().map(|row| row.id).collect())
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The session's rows and those of the sessions it ran, in `sessions`
    /// by `id` and in every table with a `session_id` column (`messages`,
    /// `files`, …).
    fn rows(&self, database_path: &Path, id: &str) -> Result<RowDump> {
        let db = super::db::Db::open(database_path)?;
        if db.session(id)?.is_none() {
            return Err(Error::NotFound { path: database_path.join(id) });
        }
        let family = db.family(id)?;
        crate::rows::dump_family(db.connection(), "sessions", &family).map_err(|err| database(database_path, &err))
    }

    fn index(&self, path: &Path, _bytes: &[u8]) -> std::result::Result<Indexed, String> {
        Err(not_a_file(path).to_string())
    }

    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        Ok(indexed(super::read_session(database, id, true).map_err(|err| err.to_string())?))
    }
}

fn not_a_file(path: &Path) -> Error {
    Error::NotARecord {
        path: path.to_owned(),
        message: "Crush keeps sessions as rows of a project's `crush.db`: name one by its id".to_owned(),
    }
}

fn indexed(read: super::Read) -> Indexed {
    let title_explicit = read.row_title();
    let transcript = read.transcript;
    Indexed {
        session_id: transcript.id,
        title: transcript.title,
        title_explicit,
        cwd: transcript.cwd,
        created: transcript.messages.first().and_then(|m| m.timestamp.clone()),
        message_count: transcript.messages.len(),
        messages: transcript.messages,
        usage: read.usage,
        listed: None,
    }
}
