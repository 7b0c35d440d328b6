//! Aider as a [`Source`].

use std::path::{Path, PathBuf};

use super::{File, HISTORY, Read};
use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::rows::{Cell, RowDump, TableRows};
use crate::source::{Resumable, Source, SourceKind};
use crate::sqlite::database;
use crate::transcript::{ToolCall, Transcript};

/// Aider.
pub struct Aider;

/// The Aider source.
pub const SOURCE: SourceKind = SourceKind::of(&Aider);

/// The table of a run's copy ([`Source::rows`]).
const RUNS: &str = "aider_runs";

impl Source for Aider {
    fn name(&self) -> &'static str {
        "aider"
    }

    fn agent(&self) -> &'static str {
        "Aider"
    }

    fn location(&self) -> &'static str {
        "`.aider.chat.history.md` in the folders every agent's sessions name (up to their git root) and in `$SESS_PROJECT_DIRS` (`sess --project-dir`)"
    }

    /// Every chat history found.
    /// `aider --restore-chat-history`, in the project folder that holds the history.
    fn resume(&self, _env: &Env, _session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["aider", "--restore-chat-history"]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        super::history_files(env)
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(env)
    }

    fn finds_in_session_cwds(&self) -> bool {
        true
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(env, scope)
    }

    /// A file named `.aider.chat.history.md`, or one whose first line with
    /// text is a run's header.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        if head.name == HISTORY {
            return Some(0);
        }
        let first = head.lines.iter().position(|line| !line.text.trim().is_empty())?;
        head.lines[first].text.starts_with(super::history::HEADER).then_some(first)
    }

    /// The history's last run.
    fn load(&self, path: &Path) -> Result<Transcript> {
        Ok(last_run(path)?.transcript)
    }

    /// The run `id` of the chat history `database`, or of a copy of the run
    /// ([`rows`](Self::rows)).
    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        Ok(read_row(database, id)?.transcript)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        Ok(File::read(database)?.ids(database))
    }

    /// The run's text as written, with its id, its file, where it starts
    /// there and the run before it: one row of a table `aider_runs`.
    fn rows(&self, database: &Path, id: &str) -> Result<RowDump> {
        let file = File::read(database)?;
        let (read, run) = file.read_one(database, id)?;
        let previous = file.ids(database).into_iter().take_while(|i| i != id).last();
        let row = vec![
            Cell::Text(read.transcript.id),
            Cell::Text(database.to_string_lossy().into_owned()),
            Cell::Integer(i64::try_from(run.offset).unwrap_or(i64::MAX)),
            previous.map_or(Cell::Null, Cell::Text),
            Cell::Text(run.text.to_owned()),
        ];
        let columns = ["id", "history", "offset", "previous", "text"].map(ToOwned::to_owned).to_vec();
        Ok(RowDump { tables: vec![TableRows { name: RUNS.to_owned(), columns, rows: vec![row] }] })
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::convert::edits(call)
    }

    /// The history's last run.
    fn index(&self, path: &Path, _bytes: &[u8]) -> std::result::Result<Indexed, String> {
        last_run(path).map(indexed).map_err(|err| err.to_string())
    }

    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        read_row(database, id).map(indexed).map_err(|err| err.to_string())
    }
}

fn last_run(path: &Path) -> Result<Read> {
    let file = File::read(path)?;
    let id = file.last_id(path).ok_or_else(|| Error::NotARecord {
        path: path.to_owned(),
        message: "no `# aider chat started at` line: Aider has not run here".to_owned(),
    })?;
    Ok(file.read_one(path, &id)?.0)
}

/// The run `id` of the history `path`, or of the copy of a run at `path`.
fn read_row(path: &Path, id: &str) -> Result<Read> {
    if crate::sqlite::is_database(path)? {
        return read_copy(path, id);
    }
    Ok(File::read(path)?.read_one(path, id)?.0)
}

/// The run `id` of a copy of runs ([`Source::rows`] written to a database).
fn read_copy(path: &Path, id: &str) -> Result<Read> {
    let conn = crate::sqlite::open_read_only(path)?;
    let fail = |err: rusqlite::Error| database(path, &err);
    let sql = format!("select history, previous, text from {RUNS} where id = ?1");
    let mut statement = conn.prepare(&sql).map_err(fail)?;
    let mut rows = statement.query([id]).map_err(fail)?;
    let row = rows.next().map_err(fail)?.ok_or_else(|| Error::NotFound { path: path.join(id) })?;
    let history: String = row.get(0).map_err(fail)?;
    let previous: Option<String> = row.get(1).map_err(fail)?;
    let text: String = row.get(2).map_err(fail)?;
    let runs = super::history::runs(&text);
    let run = runs.first().ok_or_else(|| Error::NotARecord {
        path: path.to_owned(),
        message: format!("the copy of run `{id}` has no header"),
    })?;
    Ok(super::read_run(Path::new(&history), run, id.to_owned(), previous))
}

fn indexed(read: Read) -> Indexed {
    let transcript = read.transcript;
    Indexed {
        session_id: transcript.id.clone(),
        title: transcript.first_prompt().map(ToOwned::to_owned),
        title_explicit: false,
        cwd: transcript.cwd,
        created: read.created,
        message_count: transcript.messages.len(),
        messages: transcript.messages,
        usage: read.usage,
        listed: None,
    }
}
