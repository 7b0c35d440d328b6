//! The GitHub Copilot CLI as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::source::{Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};
use crate::verify::Checked;

/// Event types of a Copilot session log (the ones nearly every log has).
const TYPES: [&str; 12] = [
    "session.start",
    "session.resume",
    "session.shutdown",
    "session.model_change",
    "session.usage_record",
    "user.message",
    "system.message",
    "assistant.turn_start",
    "assistant.message",
    "assistant.turn_end",
    "tool.execution_start",
    "tool.execution_complete",
];

/// The GitHub Copilot CLI.
pub struct Copilot;

/// The Copilot CLI source.
pub const SOURCE: SourceKind = SourceKind::of(&Copilot);

impl Source for Copilot {
    /// `ask_user` offers the user choices and waits.
    fn asks_user(&self, tool: &str) -> bool {
        tool == "ask_user"
    }

    fn name(&self) -> &'static str {
        "copilot"
    }

    fn agent(&self) -> &'static str {
        "Copilot CLI"
    }

    fn location(&self) -> &'static str {
        "`$COPILOT_HOME` or `~/.copilot`"
    }

    /// `copilot --resume ID`.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["copilot", "--resume", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        vec![home_of(env)]
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(&home_of(env))
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(&home_of(env), scope)
    }

    /// A line of one of the event types every Copilot log has
    /// (`session.start`, `user.message`, `assistant.message`, …) with `data`
    /// and `id` fields.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        head.first(|line| line.kind_in(&TYPES) && line.has("data") && line.has("id"))
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// `workspace.yaml`, where Copilot keeps the session's cwd and name: in
    /// the session's folder, or in the folder `<id>/` beside a flat
    /// `<id>.jsonl`. The folder's other files (checkpoints, its SQLite
    /// database, rewind snapshots) are not read, and not kept. The events
    /// grow by appended lines (a `/rewind` rewrites them, which the archive
    /// keeps as a new version): the default [`growth`](Source::growth).
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        let workspace = super::files::workspace_dir(path).map(|dir| dir.join(super::workspace::FILE));
        crate::companions::finish(path, workspace.into_iter().collect())
    }

    fn verify(&self, path: &Path) -> Option<Result<Checked>> {
        Some(super::verify_file(path))
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        // The rule of `sess show` and of the listing.
        if crate::detect::detect_whole(path, bytes) != Some(SOURCE) {
            return Err("not a Copilot CLI session: none of its first lines is one of its events".to_owned());
        }
        let (transcript, created, user_named) = super::read(path, bytes);
        let title_explicit = user_named && transcript.title.is_some();
        let title = transcript.title.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
        Ok(Indexed {
            session_id: transcript.id,
            title,
            title_explicit,
            cwd: transcript.cwd,
            created,
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage: super::usage::calls(bytes),
            listed: None,
        })
    }
}

/// The Copilot home in `env`.
fn home_of(env: &Env) -> PathBuf {
    let dir = env.var("COPILOT_HOME").map(|v| v.to_string_lossy().into_owned());
    super::home_dir(dir.as_deref(), env.home())
}
