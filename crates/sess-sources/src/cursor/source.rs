//! Cursor as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::rows::RowDump;
use crate::source::{Resumable, Source, SourceKind};
use crate::sqlite::SQLITE_MAGIC;
use crate::transcript::{ToolCall, Transcript};

/// Cursor: the IDE and the CLI (`cursor-agent`).
pub struct Cursor;

/// The Cursor source.
pub const SOURCE: SourceKind = SourceKind::of(&Cursor);

impl Source for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn agent(&self) -> &'static str {
        "Cursor"
    }

    fn location(&self) -> &'static str {
        "`Cursor/User/globalStorage/state.vscdb` (and each `workspaceStorage/*/state.vscdb`) in `$XDG_CONFIG_HOME` or `~/.config` (macOS: `~/Library/Application Support`), and `projects/*/agent-transcripts` and `chats/*/*/store.db` in `$CURSOR_CONFIG_DIR` or `~/.cursor`"
    }

    /// The IDE's global and workspace storage folders, and Cursor's own
    /// folder.
    /// `cursor-agent --resume ID` for a chat of the CLI (under `~/.cursor`);
    /// the IDE's chats are resumed in the IDE, not by a command.
    fn resume(&self, env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        session
            .path
            .starts_with(super::dot_cursor(env))
            .then(|| crate::source::command(&["cursor-agent", "--resume", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        let dirs = super::ide_user_dirs(env);
        let mut roots: Vec<PathBuf> =
            dirs.iter().flat_map(|d| [d.join("globalStorage"), d.join("workspaceStorage")]).collect();
        roots.push(super::dot_cursor(env));
        roots
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(env)
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(env, scope)
    }

    /// A SQLite database named `state.vscdb` or `store.db`, or a `.jsonl`
    /// file whose lines are `{"role", "message"}` objects (without the
    /// `type` and ids of Claude Code's lines) or `turn_ended` lines.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        if head.bytes.starts_with(SQLITE_MAGIC) {
            let name = head.name.as_ref();
            return (name == super::IDE_DATABASE || name == super::store::DATABASE).then_some(0);
        }
        if !head.name.ends_with(".jsonl") {
            return None;
        }
        head.first(|line| {
            let message = line.has("role") && line.has("message") && line.kind.is_none() && !line.has("uuid");
            line.object && (message || line.kind_in(&["turn_ended"]))
        })
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        Ok(super::read_transcript(path)?.transcript)
    }

    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        Ok(super::read_row(database, id, false)?.transcript)
    }

    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        super::row_ids(database)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The subagents' transcripts of a transcript.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        super::subagent_files(path)
    }

    /// A conversation's header (without the keys it holds) and its messages;
    /// a store's rows (its record without the keys it holds).
    fn rows(&self, database: &Path, id: &str) -> Result<RowDump> {
        super::rows(database, id)
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        if crate::sqlite::is_database(path).unwrap_or(false) {
            return Err(super::read_transcript(path).err().map(|e| e.to_string()).unwrap_or_default());
        }
        let cwd = super::project_slug(path).and_then(|slug| super::resolve(&slug));
        Ok(indexed(super::read_transcript_bytes(path, bytes, cwd)))
    }

    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        Ok(indexed(super::read_row(database, id, true).map_err(|err| err.to_string())?))
    }
}

fn indexed(read: super::Read) -> Indexed {
    let created = read.created();
    let transcript = read.transcript;
    Indexed {
        session_id: transcript.id,
        title: transcript.title,
        title_explicit: read.named,
        cwd: transcript.cwd,
        created,
        message_count: transcript.messages.len(),
        messages: transcript.messages,
        usage: read.usage,
        listed: None,
    }
}
