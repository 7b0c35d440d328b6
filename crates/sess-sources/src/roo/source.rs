//! Roo Code as a [`Source`].

use std::path::{Path, PathBuf};

use super::EXTENSION_ID;
use crate::cline::tasks::{self, Extension};
use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::source::{Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// Roo Code, the VS Code extension.
pub struct Roo;

/// The Roo Code source.
pub const SOURCE: SourceKind = SourceKind::of(&Roo);

/// Its tasks.
const TASKS: Extension = Extension { id: EXTENSION_ID, source: SOURCE };

impl Source for Roo {
    /// `ask_followup_question` asks the user and waits.
    fn asks_user(&self, tool: &str) -> bool {
        tool == "ask_followup_question"
    }

    fn name(&self) -> &'static str {
        "roo"
    }

    fn agent(&self) -> &'static str {
        "Roo Code"
    }

    fn location(&self) -> &'static str {
        "`globalStorage/rooveterinaryinc.roo-cline/tasks` of VS Code, Cursor, Windsurf or VSCodium"
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        TASKS.storage_dirs(env).iter().map(|dir| dir.join(tasks::TASKS)).collect()
    }

    fn find(&self, env: &Env) -> FoundFiles {
        tasks::find(&TASKS.storage_dirs(env))
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        TASKS.list(&TASKS.storage_dirs(env), scope)
    }

    /// A task's `api_conversation_history.json` whose environment details
    /// name the mode by its `<slug>`, as Roo Code's do, unless it is in Kilo
    /// Code's storage folder (Kilo Code's are alike: they are Kilo's).
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        let kilo = crate::kilo::TASKS.holds(head.path);
        (tasks::is_conversation(head) && crate::cline::roo_like(head) && !kilo).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        TASKS.load(path)
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        TASKS.index(path, bytes)
    }

    /// `ui_messages.json`, `history_item.json` and `task_metadata.json`.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        tasks::companions(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        crate::cline::edits(call)
    }
}
