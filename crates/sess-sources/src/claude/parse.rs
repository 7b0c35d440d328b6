//! A session file's bytes to a transcript, plus what a listing needs.

use super::line::Line;
use super::messages::Conversation;
use super::sidechain::Sidechains;
use super::title::{Titles, first_prompt};
use super::usage::Calls;
use crate::jsonl::JsonLines;
use crate::transcript::Transcript;

/// A parsed session file.
#[derive(Debug)]
pub(super) struct Parsed {
    /// The whole transcript, title and cwd filled in.
    pub(super) transcript: Transcript,
    /// The first line's timestamp.
    pub(super) created: Option<String>,
    /// The first real prompt.
    pub(super) first_prompt: Option<String>,
    /// The title the lines set (`custom-title`, `ai-title`, a `summary` of one
    /// of them), without the first-prompt fallback.
    pub(super) explicit_title: Option<String>,
    /// Read as a tail: the turns of subagents whose call is in the earlier
    /// lines.
    pub(super) earlier_subagents: Vec<crate::transcript::Message>,
    /// The model calls, each response once (subagents' in the file too).
    pub(super) usage: Vec<crate::Call>,
}

/// Reads every line of `bytes`; lines that do not parse are skipped and
/// recorded in `transcript.issues`. With `tail`, the lines follow earlier ones
/// of the file: subagent turns whose call is not among them belong to an
/// earlier call.
pub(super) fn parse(bytes: &[u8], id: &str, tail: bool) -> Parsed {
    let mut transcript = Transcript::new(super::SOURCE, id);
    let mut created = None;
    let mut messages = Conversation::default();
    let mut sidechains = Sidechains::new(tail);
    let mut only_sidechains = !tail;
    let mut titles = Titles::default();
    let mut calls = Calls::default();
    for raw in JsonLines::new(bytes) {
        let line = match raw.parse_object_mended::<Line>() {
            Ok(line) => line,
            Err(issue) => {
                transcript.issues.push(issue);
                continue;
            }
        };
        if created.is_none() {
            created.clone_from(&line.timestamp);
        }
        if transcript.cwd.is_none() {
            transcript.cwd.clone_from(&line.cwd);
        }
        titles.see(&line);
        calls.see(&line);
        if line.is_sidechain {
            sidechains.take(&line, &mut messages);
            continue;
        }
        only_sidechains &= !matches!(line.kind.as_deref(), Some("user" | "assistant"));
        match line.kind.as_deref() {
            Some("user") => messages.user(&line),
            Some("assistant") => messages.assistant(&line),
            _ => {}
        }
    }
    transcript.messages = messages.finish();
    let earlier_subagents = sidechains.fold_into(&mut transcript.messages, only_sidechains);
    let first_prompt = first_prompt(&transcript.messages).map(str::to_owned);
    let explicit_title = titles.explicit();
    transcript.title = explicit_title.clone().or_else(|| first_prompt.clone());
    Parsed { transcript, created, first_prompt, explicit_title, earlier_subagents, usage: calls.finish() }
}
