//! Cline as a [`Source`]: the CLI's sessions and the extension's tasks.

use std::path::{Path, PathBuf};

use super::tasks::{self, Extension};
use super::{EXTENSION_ID, cli};
use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::source::{Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// Cline: the CLI and the VS Code extension.
pub struct Cline;

/// The Cline source.
pub const SOURCE: SourceKind = SourceKind::of(&Cline);

/// The extension's tasks.
const TASKS: Extension = Extension { id: EXTENSION_ID, source: SOURCE };

impl Source for Cline {
    /// `ask_followup_question` asks the user; `plan_mode_respond` waits for
    /// them to answer the plan.
    fn asks_user(&self, tool: &str) -> bool {
        matches!(tool, "ask_followup_question" | "plan_mode_respond")
    }

    fn name(&self) -> &'static str {
        "cline"
    }

    fn agent(&self) -> &'static str {
        "Cline"
    }

    fn location(&self) -> &'static str {
        "`$CLINE_SESSION_DATA_DIR`, `$CLINE_DATA_DIR/sessions` or `~/.cline/data/sessions` (CLI); `globalStorage/saoudrizwan.claude-dev/tasks` of VS Code, Cursor, Windsurf or VSCodium (extension)"
    }

    /// `cline --id ID` for a session of the CLI; the VS Code extension's tasks
    /// are resumed from its history view, not a command.
    fn resume(&self, env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        session.path.starts_with(cli::sessions_dir(env)).then(|| crate::source::command(&["cline", "--id", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        let mut roots = vec![cli::sessions_dir(env)];
        roots.extend(storage(env).iter().map(|dir| dir.join(tasks::TASKS)));
        roots
    }

    fn find(&self, env: &Env) -> FoundFiles {
        let mut found = cli::find(&cli::sessions_dir(env));
        let tasks = tasks::find(&storage(env));
        found.files.extend(tasks.files);
        found.skipped.extend(tasks.skipped);
        found
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        let mut listing = cli::list(&cli::sessions_dir(env), scope);
        listing.extend(TASKS.list(&storage(env), scope));
        listing
    }

    /// A CLI conversation (`<id>.messages.json` with a `sessionId`), or a
    /// task's `api_conversation_history.json` that is not Roo Code's (whose
    /// environment details name the mode by its `<slug>`) nor in Kilo Code's
    /// storage folder.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        let task = tasks::is_conversation(head) && !super::roo_like(head) && !crate::kilo::TASKS.holds(head.path);
        (cli::is_conversation(head) || task).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        if is_task(path) { TASKS.load(path) } else { cli::load(path) }
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        if is_task(path) { TASKS.index(path, bytes) } else { cli::index(path, bytes) }
    }

    /// A task's `ui_messages.json` and `task_metadata.json`; a CLI session's
    /// manifest `<id>.json` and `<id>.compaction.json`. The task history
    /// (`state/taskHistory.json`) is every task's, not one's.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        if is_task(path) { tasks::companions(path) } else { cli::companions(path) }
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }
}

/// The storage folders of `env`: the extension's in every VS Code user
/// folder, then the CLI's data folder, where the CLI before 3.0 kept tasks
/// in the extension's shape.
fn storage(env: &Env) -> Vec<PathBuf> {
    let mut dirs = TASKS.storage_dirs(env);
    dirs.push(cli::data_dir(env));
    dirs
}

/// Whether `path` is a task's conversation (else a CLI session's).
fn is_task(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == tasks::HISTORY)
}
