//! Auggie as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::source::{Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// Augment's command-line agent, `auggie`.
pub struct Auggie;

/// The Auggie source.
pub const SOURCE: SourceKind = SourceKind::of(&Auggie);

impl Source for Auggie {
    fn name(&self) -> &'static str {
        "auggie"
    }

    fn agent(&self) -> &'static str {
        "Auggie"
    }

    fn location(&self) -> &'static str {
        "`~/.augment/sessions` (`$SESS_AUGGIE_CACHE_DIR/sessions` for a CLI run with `--augment-cache-dir`)"
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
    /// (`{` alone on the first) whose head has the session file's keys
    /// `sessionId` and `chatHistory`.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        crate::document::starts(head, &[br#""sessionId""#, br#""chatHistory""#]).then_some(0)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The session file read whole: the CLI ends it without a newline, so
    /// the complete lines the caller gives (`bytes`) lack its closing brace.
    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        if crate::detect::detect_whole(path, bytes) != Some(SOURCE) {
            return Err("not an Auggie session: no `sessionId` and `chatHistory`".to_owned());
        }
        let read = crate::document::read_whole(path, bytes, super::read)?;
        let usage = read.calls();
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
    super::augment_dir(env.path("SESS_AUGGIE_CACHE_DIR").as_deref(), env.home()).join("sessions")
}
