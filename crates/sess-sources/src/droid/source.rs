//! Factory Droid as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::{Head, HeadLine};
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::{Added, Indexed};
use crate::listing::{FoundFiles, Listing, Scope};
use crate::source::{Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// Factory Droid.
pub struct Droid;

/// The Factory Droid source.
pub const SOURCE: SourceKind = SourceKind::of(&Droid);

impl Source for Droid {
    fn name(&self) -> &'static str {
        "droid"
    }

    fn agent(&self) -> &'static str {
        "Factory Droid"
    }

    fn location(&self) -> &'static str {
        "`$FACTORY_HOME_OVERRIDE/.factory/sessions` or `~/.factory/sessions`"
    }

    /// `droid --resume ID`.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["droid", "--resume", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        vec![super::sessions_dir(env)]
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(&super::sessions_dir(env))
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(&super::sessions_dir(env), scope)
    }

    /// The first line: `session_start` with an `id` and one of the fields
    /// only Droid writes there (`owner`, `sessionTitle`,
    /// `isSessionTitleManuallySet`).
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        head.first(is_start)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The settings file beside it (model and token totals) and its
    /// subagents' sessions, which the reader folds into it.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        let mut files = vec![super::settings_file(path)];
        files.extend(super::subagents::files(path, &super::session_id(path)).into_iter().map(|(_, file)| file));
        crate::companions::finish(path, files)
    }

    fn verify(&self, path: &Path) -> Option<Result<crate::Checked>> {
        Some(super::verify_file(path))
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        // The rule of `sess show` and of the listing.
        if crate::detect::detect_whole(path, bytes) != Some(SOURCE) {
            return Err("not a Factory Droid session: its first line is not Droid's `session_start`".to_owned());
        }
        let parsed = super::parse::parse(bytes, &super::session_id(path), 0, true);
        let mut transcript = parsed.transcript;
        super::subagents::attach(path, &mut transcript.messages);
        let title = transcript.title.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
        Ok(Indexed {
            session_id: transcript.id,
            title,
            title_explicit: parsed.explicit_title.is_some(),
            cwd: transcript.cwd,
            created: parsed.created,
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage: Vec::new(),
            listed: None,
        })
    }

    /// A subagent started by a call among the added lines is in a file of
    /// its own, which they do not name: it is searched once the file is read
    /// whole again.
    fn index_added(&self, session_id: &str, bytes: &[u8], lines_before: usize) -> Option<Added> {
        let parsed = super::parse::parse(bytes, session_id, lines_before, false);
        Some(Added {
            title: parsed.explicit_title,
            message_count: parsed.transcript.messages.len(),
            messages: parsed.transcript.messages,
            subagent_turns: Vec::new(),
            late_results: parsed.late,
            usage: Vec::new(),
        })
    }

    /// The settings file, with the session's token totals.
    fn usage_files(&self, path: &Path) -> Vec<PathBuf> {
        let settings = super::settings_file(path);
        if crate::companions::is_regular(&settings) { vec![settings] } else { Vec::new() }
    }

    /// The settings file's totals. Droid writes it without a final newline,
    /// and a reader is handed the complete lines only: when those are not
    /// the whole object, the file is read again.
    fn usage(&self, path: &Path, bytes: &[u8]) -> Vec<crate::Call> {
        let calls = super::usage::calls(bytes);
        if !calls.is_empty() {
            return calls;
        }
        crate::jsonl::read_file(path).map(|bytes| super::usage::calls(&bytes)).unwrap_or_default()
    }
}

/// Whether a first line is Droid's `session_start` ([`Droid::detect`]).
fn is_start(line: &HeadLine<'_>) -> bool {
    line.kind_in(&["session_start"])
        && line.has("id")
        && (line.has("owner") || line.has("sessionTitle") || line.has("isSessionTitleManuallySet"))
}
