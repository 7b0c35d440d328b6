//! Goose as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::rows::RowDump;
use crate::source::{Growth, Resumable, Source, SourceKind};
use crate::sqlite::{SQLITE_MAGIC, database};
use crate::transcript::{ToolCall, Transcript};
use crate::verify::Checked;
use sess_core::integrity::line_finding;

/// Goose.
pub struct Goose;

/// The Goose source.
pub const SOURCE: SourceKind = SourceKind::of(&Goose);

impl Source for Goose {
    fn name(&self) -> &'static str {
        "goose"
    }

    fn agent(&self) -> &'static str {
        "Goose"
    }

    fn location(&self) -> &'static str {
        "`sessions/` in `$GOOSE_PATH_ROOT/data`, `$XDG_DATA_HOME/goose` or `~/.local/share/goose` (`sessions.db`, older `.jsonl`), and `~/.goose/sessions`"
    }

    /// `goose session --resume --session-id ID`.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["goose", "session", "--resume", "--session-id", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        super::session_dirs(env)
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(env)
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(env, scope)
    }

    /// A SQLite database named `sessions.db`, or a `.jsonl` file whose first
    /// line is Goose's metadata line.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        if head.bytes.starts_with(SQLITE_MAGIC) {
            return (head.name == super::DATABASE).then_some(0);
        }
        let first = head.lines.first()?;
        let meta = first.object && first.has("working_dir") && (first.has("description") || first.has("message_count"));
        (meta && head.name.ends_with(".jsonl")).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        Ok(super::read_file(path, false)?.transcript)
    }

    /// An older session file: the lines that do not parse; the database is
    /// not checked line by line (`None`: a database is no file of lines).
    fn verify(&self, path: &Path) -> Option<Result<Checked>> {
        if crate::sqlite::is_database(path).unwrap_or(false) {
            return None;
        }
        Some(crate::jsonl::read_file(path).map(|bytes| {
            let parsed = super::legacy::parse(&bytes);
            let entries = parsed.messages.len() + usize::from(!parsed.meta.is_null());
            Checked { entries, findings: parsed.issues.iter().map(line_finding).collect() }
        }))
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

    /// The session's rows and those of the subagent sessions it ran, in
    /// `sessions` by `id` and in every table with a `session_id` column
    /// (`messages`, `usage_ledger`, …).
    fn rows(&self, database_path: &Path, id: &str) -> Result<RowDump> {
        let db = super::db::Db::open(database_path)?;
        if db.session(id)?.is_none() {
            return Err(Error::NotFound { path: database_path.join(id) });
        }
        let family = db.family(id)?;
        crate::rows::dump_family(db.connection(), "sessions", &family).map_err(|err| database(database_path, &err))
    }

    /// A session file is rewritten whole by Goose (its metadata line
    /// changes): every change is a new version.
    fn growth(&self, _path: &Path) -> Growth {
        Growth::Whole
    }

    fn index(&self, path: &Path, _bytes: &[u8]) -> std::result::Result<Indexed, String> {
        Ok(indexed(super::read_file(path, true).map_err(|err| err.to_string())?))
    }

    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        Ok(indexed(super::read_session(database, id, true).map_err(|err| err.to_string())?))
    }
}

fn indexed(read: super::Read) -> Indexed {
    let transcript = read.transcript;
    Indexed {
        session_id: transcript.id,
        title: transcript.title,
        title_explicit: read.named,
        cwd: transcript.cwd,
        created: transcript.messages.first().and_then(|m| m.timestamp.clone()),
        message_count: transcript.messages.len(),
        messages: transcript.messages,
        usage: read.usage,
        listed: None,
    }
}
