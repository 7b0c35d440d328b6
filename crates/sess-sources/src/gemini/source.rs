//! The Gemini CLI as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::Indexed;
use crate::listing::{FoundFiles, Listing, Scope};
use crate::source::{HandOff, Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};
use crate::verify::Checked;

/// Google's Gemini CLI.
pub struct Gemini;

/// The Gemini CLI source.
pub const SOURCE: SourceKind = SourceKind::of(&Gemini);

impl Source for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn agent(&self) -> &'static str {
        "Gemini CLI"
    }

    fn location(&self) -> &'static str {
        "`$GEMINI_CLI_HOME/.gemini` or `~/.gemini`"
    }

    /// A new session in the folder the CLI keeps for the handoff's directory
    /// (under `$GEMINI_CLI_HOME/.gemini` or `~/.gemini`), which the CLI must
    /// have run in.
    fn hand_off(&self) -> Option<HandOff> {
        Some(|env, handoff| super::handoff::write(&dir_of(env), handoff))
    }

    /// `gemini --resume ID`: 0.61 takes a session's UUID as well as `latest`
    /// or an index, in the project of the directory it runs in.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["gemini", "--resume", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        vec![dir_of(env)]
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(&dir_of(env))
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(&dir_of(env), scope)
    }

    /// A line with both `sessionId` and `projectHash` (the metadata a session
    /// file starts with; an older CLI's one-line document), a `$set` or
    /// `$rewindTo` record, or a message of type `gemini`; or an older CLI's
    /// document written over several lines (`{` alone on the first, its
    /// `sessionId` and `projectHash` keys in the head). Claude Code's lines
    /// have a `sessionId` too, so this source comes before it.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        if crate::document::starts(head, &[br#""projectHash""#, br#""sessionId""#]) {
            return Some(0);
        }
        head.first(|line| {
            (line.has("sessionId") && line.has("projectHash"))
                || line.has("$set")
                || line.has("$rewindTo")
                || line.kind.as_deref() == Some("gemini")
        })
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The files of the subagents' sessions its tool calls ran, which the
    /// reader folds under those calls (`chats/<session id>/<agent id>.jsonl`),
    /// and the other files of `chats/` with its session id (the empty file a
    /// resume in a later minute leaves, the older CLI's `.json` a resume
    /// continued), which the listing reads to pick the session's file.
    /// `projects.json` and the project's `.project_root`, which give the cwd,
    /// are every session's of the Gemini dir or of the project: not a
    /// session's companions.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        crate::companions::finish(path, super::files::companion_files(path, super::SUBAGENT_DEPTH))
    }

    fn verify(&self, path: &Path) -> Option<Result<Checked>> {
        Some(super::verify_file(path))
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        if crate::detect::detect_whole(path, bytes) != Some(SOURCE) {
            return Err("not a Gemini CLI session: none of its first lines is one".to_owned());
        }
        let read = super::read(path, bytes);
        let transcript = read.transcript;
        // The session's own calls: its subagents' are in their files.
        let usage = super::usage::calls(bytes);
        Ok(Indexed {
            session_id: transcript.id.clone(),
            title_explicit: transcript.title.is_some(),
            title: transcript.title.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned)),
            cwd: transcript.cwd,
            created: read.created,
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage,
            listed: None,
        })
    }

    /// The calls of a subagent's session (`chats/<session id>/<agent
    /// id>.jsonl`), or of another file of the session's id (whose messages,
    /// keyed by their ids, count once with the session's own).
    fn usage(&self, _path: &Path, bytes: &[u8]) -> Vec<crate::Call> {
        super::usage::calls(bytes)
    }
}

fn dir_of(env: &Env) -> PathBuf {
    super::gemini_dir(env.path("GEMINI_CLI_HOME").as_deref(), env.home())
}
