//! Zed as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::rows::{Cell, RowDump, TableRows};
use crate::source::{Source, SourceKind};
use crate::sqlite::{SQLITE_MAGIC, database};
use crate::transcript::Transcript;

/// Zed's agent.
pub struct Zed;

/// The Zed source.
pub const SOURCE: SourceKind = SourceKind::of(&Zed);

impl Source for Zed {
    fn name(&self) -> &'static str {
        "zed"
    }

    fn agent(&self) -> &'static str {
        "Zed"
    }

    fn location(&self) -> &'static str {
        "`zed/threads/threads.db` in `$XDG_DATA_HOME` or `~/.local/share` (macOS: `~/Library/Application Support/Zed/threads`)"
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        vec![env.path_or_home("XDG_DATA_HOME", ".local/share").join("zed/threads")]
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(env)
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(env, scope)
    }

    /// A SQLite database named `threads.db`.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        (head.bytes.starts_with(SQLITE_MAGIC) && head.name == super::DATABASE).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        Err(Error::NotARecord {
            path: path.to_owned(),
            message: "Zed keeps threads as rows of `threads.db`: name one by its id".to_owned(),
        })
    }

    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        Ok(super::read_thread(database, id)?.transcript)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        Ok(super::rows(database, " order by rowid", &[])?.into_iter().map(|thread| thread.id).collect())
    }

    /// The thread's row of `threads`, every column as stored.
    fn rows(&self, database_path: &Path, id: &str) -> Result<RowDump> {
        let conn = crate::sqlite::open_read_only(database_path)?;
        let fail = |err: rusqlite::Error| database(database_path, &err);
        let mut statement = conn.prepare("select * from threads where id = ?1").map_err(fail)?;
        let columns: Vec<String> = statement.column_names().map(ToOwned::to_owned).collect();
        let width = columns.len();
        let mut rows = Vec::new();
        let mut cursor = statement.query([id]).map_err(fail)?;
        while let Some(row) = cursor.next().map_err(fail)? {
            rows.push(
                (0..width).map(|at| row.get_ref(at).map(Cell::of)).collect::<rusqlite::Result<_>>().map_err(fail)?,
            );
        }
        if rows.is_empty() {
            return Err(Error::NotFound { path: database_path.join(id) });
        }
        Ok(RowDump { tables: vec![TableRows { name: "threads".to_owned(), columns, rows }] })
    }

    fn index(&self, path: &Path, _bytes: &[u8]) -> std::result::Result<Indexed, String> {
        Err(self.load(path).err().map(|e| e.to_string()).unwrap_or_default())
    }

    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        let read = super::read_thread(database, id).map_err(|err| err.to_string())?;
        let created = read.created();
        let transcript = read.transcript;
        Ok(Indexed {
            session_id: transcript.id,
            title: transcript.title,
            title_explicit: read.named,
            cwd: transcript.cwd,
            created,
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage: read.usage,
            listed: None,
        })
    }
}
