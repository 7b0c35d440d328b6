//! Claude Code as a [`Source`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::index::{Added, Indexed, LateResult};
use crate::listing::{Catalogued, FoundFiles, Listed, Listing, Scope};
use crate::source::{HandOff, Outline, Resumable, Source, SourceKind};
use crate::transcript::{Block, Message, ToolCall, Transcript, content_text};
use crate::verify::Checked;

/// Line types only Claude Code writes; `file-history-snapshot` lines carry
/// none of [`KEYS`].
const TYPES: [&str; 7] =
    ["user", "assistant", "system", "summary", "attachment", "file-history-snapshot", "queue-operation"];

/// Fields of Claude Code lines (pi-family entries have `id` and `parentId`).
const KEYS: [&str; 4] = ["uuid", "parentUuid", "leafUuid", "sessionId"];

/// Claude Code.
pub struct Claude;

/// The Claude Code source.
pub const SOURCE: SourceKind = SourceKind::of(&Claude);

impl Source for Claude {
    /// `AskUserQuestion` asks the user to choose; `ExitPlanMode` asks them to
    /// approve the plan.
    fn asks_user(&self, tool: &str) -> bool {
        matches!(tool, "AskUserQuestion" | "ExitPlanMode")
    }

    fn name(&self) -> &'static str {
        "claude"
    }

    fn agent(&self) -> &'static str {
        "Claude Code"
    }

    fn location(&self) -> &'static str {
        "`$CLAUDE_CONFIG_DIR` (comma-separated) or `~/.claude`"
    }

    /// A new session in the first config folder (`$CLAUDE_CONFIG_DIR`'s, or
    /// `~/.claude`), in the project folder of the handoff's directory.
    fn hand_off(&self) -> Option<HandOff> {
        Some(|env, handoff| {
            let dir = config_dirs_of(env).into_iter().next().unwrap_or_else(|| env.home().join(".claude"));
            super::handoff::write(&dir, handoff)
        })
    }

    /// `claude --resume ID`.
    fn resume(&self, _env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        Some(crate::source::command(&["claude", "--resume", session.id]))
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        config_dirs_of(env)
    }

    fn find(&self, env: &Env) -> FoundFiles {
        super::find_session_files(&config_dirs_of(env))
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        super::list(&config_dirs_of(env), scope)
    }

    fn listed(&self, path: &Path, bytes: &[u8]) -> Option<Listed> {
        super::listing::listed(path, bytes, session_id(path))
    }

    fn list_catalogued(&self, env: &Env, scope: Scope<'_>, catalogued: Catalogued) -> Option<Listing> {
        Some(super::listing::list_catalogued(&config_dirs_of(env), scope, catalogued))
    }

    /// A line of a type only Claude Code writes (`user`, `assistant`,
    /// `summary`, `file-history-snapshot`, …), or with a `uuid`,
    /// `parentUuid`, `leafUuid` or `sessionId`. Agents whose lines look alike
    /// come before this one in the registry.
    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        head.first(|line| line.kind_in(&TYPES) || KEYS.iter().any(|key| line.has(key)))
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

    /// The transcripts of the subagents the session ran (Claude Code 2.x):
    /// `<session>/subagents/agent-*.jsonl` beside the main file, each with
    /// its `agent-*.meta.json`. The reader reads none of them (the main file
    /// holds each subagent's report), but the session is made of them.
    /// Other files of that folder (`tool-results/`) are not kept.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        let subagents = path.with_extension("").join("subagents");
        let subagent = |name: &str| {
            let rest = name.strip_prefix("agent-").unwrap_or_default();
            rest.strip_suffix(".jsonl").or_else(|| rest.strip_suffix(".meta.json")).is_some_and(|id| !id.is_empty())
        };
        crate::companions::finish(path, crate::companions::files_in(&subagents, subagent))
    }

    fn outline(&self, path: &Path) -> Option<Result<Outline>> {
        Some(super::tree(path).map(Outline::Lines))
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        // The rule of `sess show` and of the listing.
        if crate::detect::detect_whole(path, bytes) != Some(SOURCE) {
            return Err("not a Claude Code session: none of its first lines is one".to_owned());
        }
        let id = session_id(path);
        let part = super::parse_part(bytes, &id);
        let listed = super::listing::listed_of(id.clone(), &part);
        let transcript = part.transcript;
        Ok(Indexed {
            listed: Some(listed),
            session_id: id,
            title_explicit: part.explicit_title.is_some(),
            title: transcript.title,
            cwd: transcript.cwd,
            created: part.created,
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage: part.usage,
        })
    }

    fn index_added(&self, session_id: &str, bytes: &[u8], _lines_before: usize) -> Option<Added> {
        let part = super::parse_tail(bytes, session_id);
        let late_results = late_results(bytes, &part.transcript.messages, &part.earlier_subagents);
        Some(Added {
            title: part.explicit_title,
            message_count: part.transcript.messages.len(),
            messages: part.transcript.messages,
            subagent_turns: part.earlier_subagents,
            late_results,
            usage: part.usage,
        })
    }

    /// The subagents' transcripts (`subagents/agent-*.jsonl`).
    fn usage_files(&self, path: &Path) -> Vec<PathBuf> {
        let mut files = self.companions(path);
        files.retain(|file| file.extension().is_some_and(|e| e == "jsonl") && crate::companions::is_regular(file));
        files
    }

    /// The calls of a subagent's transcript.
    fn usage(&self, _path: &Path, bytes: &[u8]) -> Vec<crate::Call> {
        super::usage::of_bytes(bytes)
    }
}

/// A session's id: its file's name without `.jsonl`.
fn session_id(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn config_dirs_of(env: &Env) -> Vec<PathBuf> {
    let dirs = env.var("CLAUDE_CONFIG_DIR").map(|v| v.to_string_lossy().into_owned());
    super::config_dirs(dirs.as_deref(), env.home())
}

// A file read from where the catalog stopped may begin with the result of a
// call read before (the agent wrote the call, a refresh ran, the tool
// answered). The transcript drops such a result, having no call to put it
// under; the catalog keeps it on its own.

/// The `tool_result` blocks among the lines `bytes` whose call is neither in
/// `messages` nor in the turns of subagents started before
/// (`earlier_subagents`), with no id (the message that shows them was read
/// before).
fn late_results(bytes: &[u8], messages: &[Message], earlier_subagents: &[Message]) -> Vec<LateResult> {
    let mut calls = HashSet::new();
    add_calls(messages, &mut calls);
    add_calls(earlier_subagents, &mut calls);
    let mut late = Vec::new();
    // Only the lines that can hold a result are parsed.
    for line in bytes.split(|&b| b == b'\n').filter(|line| memchr::memmem::find(line, b"tool_result").is_some()) {
        let Ok(value) = serde_json::from_slice::<Value>(line) else { continue };
        let Some(Value::Array(parts)) = value.pointer("/message/content") else { continue };
        for part in parts {
            if part.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let call = part.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
            if !calls.contains(call)
                && let Some(content) = part.get("content")
            {
                late.push(LateResult { entry_id: None, text: content_text(content) });
            }
        }
    }
    late
}

/// The ids of the tool calls among `messages`, those of the subagents they
/// started included.
fn add_calls<'a>(messages: &'a [Message], ids: &mut HashSet<&'a str>) {
    for block in messages.iter().flat_map(|m| &m.blocks) {
        if let Block::ToolCall(call) = block {
            ids.insert(call.id.as_str());
            add_calls(&call.subagent, ids);
        }
    }
}
