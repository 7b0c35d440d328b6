//! Kilo Code as a [`Source`]: the Kilo CLI's database and `storage/`, read
//! as OpenCode's ([`KILO`]), and the legacy extension's task folders, read
//! as Cline's ([`TASKS`]).

use std::path::{Path, PathBuf};

use super::{EXTENSION_ID, KILO};
use crate::cline::tasks::{self, Extension};
use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::opencode::Agent;
use crate::rows::RowDump;
use crate::source::{Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// Kilo Code.
pub struct Kilo;

/// The Kilo Code source.
pub const SOURCE: SourceKind = SourceKind::of(&Kilo);

/// The legacy extension's tasks.
pub(crate) const TASKS: Extension = Extension { id: EXTENSION_ID, source: SOURCE };

impl Source for Kilo {
    /// The CLI's `question` (OpenCode's); the extension's
    /// `ask_followup_question`.
    fn asks_user(&self, tool: &str) -> bool {
        matches!(tool, "question" | "ask_followup_question")
    }

    fn name(&self) -> &'static str {
        "kilo"
    }

    fn agent(&self) -> &'static str {
        "Kilo Code"
    }

    fn location(&self) -> &'static str {
        "`$KILO_DB`, or `kilo.db` and `storage/` in `$XDG_DATA_HOME/kilo` or `~/.local/share/kilo` (CLI); `globalStorage/kilocode.kilo-code/tasks` of VS Code, Cursor, Windsurf or VSCodium (extension)"
    }

    /// The data folder, the database `$KILO_DB` names when it is outside
    /// it, and the extension's `tasks` folders.
    /// `kilo --session ID` for a session of the CLI; the legacy extension's
    /// tasks are resumed from its history view, not a command.
    fn resume(&self, env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        let cli = KILO.roots(env).iter().any(|root| session.path.starts_with(root));
        cli.then(|| crate::source::command(&["kilo", "--session", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        let mut roots = KILO.roots(env);
        roots.extend(TASKS.storage_dirs(env).iter().map(|dir| dir.join(tasks::TASKS)));
        roots
    }

    fn find(&self, env: &Env) -> FoundFiles {
        let mut found = KILO.find(env);
        let tasks = tasks::find(&TASKS.storage_dirs(env));
        found.files.extend(tasks.files);
        found.skipped.extend(tasks.skipped);
        found
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        let mut listing = KILO.list(env, scope);
        listing.extend(TASKS.list(&TASKS.storage_dirs(env), scope));
        listing
    }

    /// A SQLite database named `kilo.db` or `kilo-<channel>.db`, or a task's
    /// `api_conversation_history.json` in the extension's storage folder
    /// (`globalStorage/kilocode.kilo-code/tasks/<id>/`). A session file of
    /// Kilo's `storage/` is named as OpenCode's are (`ses_….json`): alone,
    /// it is taken for OpenCode's; found in Kilo's data folder, it is
    /// Kilo's.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        let task = tasks::is_conversation(head) && TASKS.holds(head.path);
        (task || KILO.detect_database(head)).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        if is_task(path) { TASKS.load(path) } else { KILO.load(path) }
    }

    /// The edits of the CLI's `write` and `edit` calls, else of the
    /// extension's edit tools (Cline's and Roo Code's).
    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        let edits = Agent::edits(call);
        if edits.is_empty() { crate::cline::edits(call) } else { edits }
    }

    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        KILO.load_session(database, id)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        Agent::row_ids(database)
    }

    /// For a task, its `ui_messages.json` and `task_metadata.json`; for a
    /// session of `storage/`, the files its transcript is read from
    /// (`Agent::companions`).
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        if is_task(path) { tasks::companions(path) } else { Agent::companions(path) }
    }

    /// The rows of the session and of the subagents it ran, in every table
    /// keyed by a session.
    fn rows(&self, database: &Path, id: &str) -> Result<RowDump> {
        Agent::rows(database, id)
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        if is_task(path) { TASKS.index(path, bytes) } else { KILO.index(path) }
    }

    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        KILO.index_row(database, id)
    }
}

/// Whether `path` is a task's conversation (else the CLI's database or a
/// file of its `storage/`).
fn is_task(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == tasks::HISTORY)
}
