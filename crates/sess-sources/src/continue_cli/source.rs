//! The Continue CLI as a [`Source`].

use std::path::{Path, PathBuf};

use sess_core::format_iso_millis;

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope, modified_ms};
use crate::source::{Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// Continue's command-line agent, `cn`.
pub struct Continue;

/// The Continue CLI source.
pub const SOURCE: SourceKind = SourceKind::of(&Continue);

impl Source for Continue {
    fn name(&self) -> &'static str {
        "continue"
    }

    fn agent(&self) -> &'static str {
        "Continue CLI"
    }

    fn location(&self) -> &'static str {
        "`$CONTINUE_GLOBAL_DIR/sessions` or `~/.continue/sessions`"
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        vec![sessions_of(env)]
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(&sessions_of(env))
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(&sessions_of(env), scope)
    }

    /// A JSON document written over several lines as the CLI writes it
    /// (`{` alone on the first) whose head has the session file's first
    /// keys, `sessionId` and `workspaceDirectory`.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        crate::document::starts(head, &[br#""sessionId""#, br#""workspaceDirectory""#]).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The session file read whole (`bytes` are its complete lines, and the
    /// CLI ends it without a newline).
    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        if crate::detect::detect_whole(path, bytes) != Some(SOURCE) {
            return Err("not a Continue CLI session: no `sessionId` and `workspaceDirectory`".to_owned());
        }
        let read = crate::document::read_whole(path, bytes, super::read)?;
        let written = std::fs::metadata(path).ok().map(|m| format_iso_millis(modified_ms(&m)));
        let usage = read.calls(written.as_deref());
        let transcript = read.transcript;
        Ok(Indexed {
            session_id: transcript.id.clone(),
            title_explicit: read.named,
            title: transcript.title.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned)),
            cwd: transcript.cwd,
            created: read.created,
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage,
            listed: None,
        })
    }
}

fn sessions_of(env: &Env) -> PathBuf {
    super::continue_dir(env.path("CONTINUE_GLOBAL_DIR").as_deref(), env.home()).join("sessions")
}
