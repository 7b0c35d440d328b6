//! Codex as a [`Source`].

use std::path::{Path, PathBuf};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::{Added, Indexed};
use crate::listing::{Catalogued, FoundFiles, Listed, Listing, Scope};
use crate::source::{HandOff, Outline, Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};
use crate::verify::Checked;

/// The zstd frame magic number: Codex compresses old rollouts.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The line types of a Codex rollout.
const TYPES: [&str; 5] = ["session_meta", "response_item", "event_msg", "turn_context", "compacted"];

/// The `OpenAI` Codex CLI.
pub struct Codex;

/// The Codex source.
pub const SOURCE: SourceKind = SourceKind::of(&Codex);

impl Source for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn agent(&self) -> &'static str {
        "Codex"
    }

    fn location(&self) -> &'static str {
        "`$CODEX_HOME` or `~/.codex`"
    }

    /// A new rollout under the Codex home (`$CODEX_HOME` or `~/.codex`).
    fn hand_off(&self) -> Option<HandOff> {
        Some(|env, handoff| super::handoff::write(&home_of(env), handoff))
    }

    /// `codex resume ID`.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["codex", "resume", session.id]))
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

    fn listed(&self, path: &Path, bytes: &[u8]) -> Option<Listed> {
        Some(super::listed_file(path, bytes))
    }

    fn list_catalogued(&self, env: &Env, scope: Scope<'_>, catalogued: Catalogued) -> Option<Listing> {
        Some(super::list_catalogued(&home_of(env), scope, catalogued))
    }

    /// A file named `rollout-*` or compressed with zstd, or a line of a
    /// rollout's types (`session_meta`, `response_item`, `event_msg`,
    /// `turn_context`, `compacted`).
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        if head.name.starts_with("rollout-") || head.bytes.starts_with(&ZSTD_MAGIC) {
            return Some(0);
        }
        head.first(|line| line.kind_in(&TYPES))
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        super::load(path)
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    fn verify(&self, path: &Path) -> Option<Result<Checked>> {
        Some(super::verify_file(path))
    }

    fn outline(&self, path: &Path) -> Option<Result<Outline>> {
        Some(super::turns(path).map(Outline::Turns))
    }

    /// For a fork by reference (Codex 0.171 and later), the rollouts whose
    /// lines its history continues, which the reader reads before its own:
    /// its base, the base's base, and so on. `session_index.jsonl`, where the
    /// reader finds thread names, is every thread's: not a companion.
    /// A rollout's `.jsonl` grows by appended lines and its `.jsonl.zst`
    /// (the same thread, compressed by Codex) is written whole: the default
    /// [`growth`](Source::growth).
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        crate::companions::finish(path, super::lineage::base_files(path))
    }

    fn read_whole(&self, path: &Path) -> Result<Vec<u8>> {
        super::read_rollout(path)
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        let listed = Some(super::listed_file(path, bytes));
        let (mut transcript, inherited) = super::read_counting_inherited(path, bytes);
        let title_explicit = transcript.title.is_some() && transcript.title.as_deref() != transcript.first_prompt();
        let message_count = transcript.messages.len();
        let created = transcript.messages.first().and_then(|m| m.timestamp.clone());
        // A fork's inherited history is searched in the sessions that wrote it.
        transcript.messages.drain(..inherited.min(message_count));
        let usage = super::usage::of_rollout(path, bytes, &transcript.id);
        Ok(Indexed {
            session_id: transcript.id,
            title: transcript.title,
            title_explicit,
            cwd: transcript.cwd,
            created,
            message_count,
            messages: transcript.messages,
            usage,
            listed,
        })
    }

    /// The calls of the added lines are read without the lines before them
    /// (`codex/usage.rs` says what that leaves unknown).
    fn index_added(&self, session_id: &str, bytes: &[u8], lines_before: usize) -> Option<Added> {
        let transcript = super::parse_after(bytes, lines_before);
        Some(Added {
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage: super::usage::of_added(bytes, session_id),
            ..Added::default()
        })
    }
}

fn home_of(env: &Env) -> PathBuf {
    let dir = env.var("CODEX_HOME").map(|v| v.to_string_lossy().into_owned());
    super::home_dir(dir.as_deref(), env.home())
}
