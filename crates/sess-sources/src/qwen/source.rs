//! Qwen Code as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::{Head, HeadLine};
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::{Added, Indexed};
use crate::listing::{FoundFiles, Listing, Scope};
use crate::source::{HandOff, Outline, Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};
use crate::verify::Checked;

/// Qwen Code.
pub struct Qwen;

/// The Qwen Code source.
pub const SOURCE: SourceKind = SourceKind::of(&Qwen);

impl Source for Qwen {
    /// `ask_user_question` asks the user and waits (Qwen Code 0.24's `--help`
    /// names it).
    fn asks_user(&self, tool: &str) -> bool {
        tool == "ask_user_question"
    }

    fn name(&self) -> &'static str {
        "qwen"
    }

    fn agent(&self) -> &'static str {
        "Qwen Code"
    }

    fn location(&self) -> &'static str {
        "`$QWEN_RUNTIME_DIR`, `$QWEN_HOME` or `~/.qwen`"
    }

    /// A new session in the runtime folder the CLI writes to
    /// (`$QWEN_RUNTIME_DIR`, else `$QWEN_HOME` or `~/.qwen`), in the project
    /// folder of the handoff's directory.
    fn hand_off(&self) -> Option<HandOff> {
        Some(|env, handoff| {
            let dir = super::runtime_dirs(env).into_iter().next().unwrap_or_else(|| env.home().join(".qwen"));
            super::handoff::write(&dir, handoff)
        })
    }

    /// `qwen --resume ID`.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["qwen", "--resume", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        super::runtime_dirs(env)
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(&super::runtime_dirs(env))
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(&super::runtime_dirs(env), scope)
    }

    /// A record: a line with a `uuid` and a `sessionId` that only Qwen Code
    /// writes so — of type `tool_result`, or with a `systemPayload` or a
    /// `provenance`, or whose first keys are `uuid` then `parentUuid` (Claude
    /// Code's lines, which share the fields, start otherwise). Comes before
    /// Claude Code in the registry.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        head.first(is_record)
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The subagents' transcripts the reader folds into the session
    /// (`<project>/subagents/<session id>/agent-*.jsonl`), each with the
    /// `.meta.json` beside it that names its call.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for transcript in super::paths::subagent_files(path, &super::session_id(path)) {
            if let Some(meta) = super::subagents::meta_file(&transcript) {
                files.push(meta);
            }
            files.push(transcript);
        }
        crate::companions::finish(path, files)
    }

    fn verify(&self, path: &Path) -> Option<Result<Checked>> {
        Some(super::verify_file(path))
    }

    fn outline(&self, path: &Path) -> Option<Result<Outline>> {
        Some(super::tree(path).map(Outline::Lines))
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        // The rule of `sess show` and of the listing.
        if crate::detect::detect_whole(path, bytes) != Some(SOURCE) {
            return Err("not a Qwen Code session: none of its first lines is one of its records".to_owned());
        }
        let id = super::session_id(path);
        let mut parsed = super::parse::parse(bytes, &id, false);
        super::subagents::attach(path, &id, &mut parsed.transcript.messages, false);
        let mut transcript = parsed.transcript;
        let message_count = transcript.messages.len();
        // A fork's copied history is searched in the session that wrote it.
        transcript.messages.drain(..parsed.inherited.min(message_count));
        Ok(Indexed {
            session_id: id,
            title_explicit: parsed.explicit_title.is_some(),
            title: transcript.title,
            cwd: transcript.cwd,
            created: parsed.created,
            message_count,
            messages: transcript.messages,
            usage: super::usage::calls(bytes),
            listed: None,
        })
    }

    /// Subagents are in files of their own, which the added lines do not
    /// name: a subagent started by a call among them is searched once the
    /// file is read whole again.
    fn index_added(&self, session_id: &str, bytes: &[u8], _lines_before: usize) -> Option<Added> {
        let parsed = super::parse::parse(bytes, session_id, true);
        Some(Added {
            title: parsed.explicit_title,
            message_count: parsed.transcript.messages.len(),
            messages: parsed.transcript.messages,
            subagent_turns: Vec::new(),
            late_results: parsed.late,
            usage: super::usage::calls(bytes),
        })
    }

    /// The calls of a subagent's transcript that the session's file has no
    /// telemetry event of (`qwen/usage.rs`).
    fn usage(&self, path: &Path, bytes: &[u8]) -> Vec<crate::Call> {
        super::usage::subagent_calls(path, bytes)
    }
}

/// Whether a first line is a Qwen Code record ([`Qwen::detect`]).
fn is_record(line: &HeadLine<'_>) -> bool {
    line.has("uuid")
        && line.has("sessionId")
        && (line.kind_in(&["tool_result"])
            || line.has("systemPayload")
            || line.has("provenance")
            || (line.keys.first().is_some_and(|k| k == "uuid") && line.keys.get(1).is_some_and(|k| k == "parentUuid")))
}
