//! A Codex thread as its line of turns, for `sess tree`.
//!
//! Codex keeps no tree: a thread is a line of turns, each opened by a user
//! prompt. A turn is the k-th user message of the transcript ([`super::load`]:
//! echoes paired, injected context hidden), so turn numbers agree with
//! `sess show`. `thread_rolled_back` undoes the last `num_turns` turns still
//! in the thread: they stay in the file and are marked rolled back. A turn
//! that ended with `turn_aborted` is marked aborted. A compaction is placed
//! after the turns that came before it. A fork says which thread it was forked
//! from; the turns of the history it continues (read from that thread's
//! rollout, for a fork by reference, or copied into the file by older builds)
//! are marked inherited for a fork by reference. Rollbacks are read from the
//! rollout's own lines.

use std::collections::HashMap;
use std::path::Path;

use super::line::{Envelope, Event, LineKind};
use super::{compression, read_counting_inherited, rollout};
use crate::error::Result;
use crate::jsonl::JsonLines;
use crate::transcript::{Block, Role};

/// One turn; it serializes with camelCase names.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// 1-based, in thread order.
    pub number: usize,
    /// The id of its prompt in `sess show --json` (the line, or `ordinal` + 1).
    pub id: Option<String>,
    /// When the prompt was written.
    pub timestamp: Option<String>,
    /// The prompt's first line (`[image]` for a prompt of images only).
    pub prompt: String,
    /// Part of the history a fork by reference continues.
    pub inherited: bool,
    /// Undone by a later `thread_rolled_back`.
    pub rolled_back: bool,
    /// Stopped by `turn_aborted`.
    pub aborted: bool,
}

/// A compaction of the thread's context.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    /// How many turns came before it (it was during the last of them, or
    /// before the next one).
    pub after_turn: usize,
    /// The id of its notice in `sess show --json`.
    pub id: Option<String>,
}

/// A thread's line of turns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Turns {
    /// The thread id.
    pub id: String,
    /// The thread it was forked from.
    pub forked_from: Option<String>,
    /// The turns, oldest first.
    pub turns: Vec<Turn>,
    /// The compactions, oldest first.
    pub compactions: Vec<Compaction>,
    /// The turn the thread continues from: the last one not rolled back.
    pub leaf: Option<usize>,
    /// The rollout's lines that were skipped because they do not parse.
    pub issues: Vec<sess_core::LineIssue>,
}

/// The line of turns of the rollout at `path` (plain or zstd).
pub fn turns(path: &Path) -> Result<Turns> {
    let bytes = compression::read_rollout(path)?;
    Ok(turns_of(path, &bytes))
}

/// [`turns`] of the rollout's (decompressed) `bytes`.
pub fn turns_of(path: &Path, bytes: &[u8]) -> Turns {
    let meta = rollout::meta(bytes);
    let forked_from = meta
        .as_ref()
        .and_then(|m| m.forked_from_id.clone().or_else(|| m.history_base.as_ref().map(|base| base.thread_id.clone())));
    let (transcript, inherited) = read_counting_inherited(path, bytes);
    let events = own_events(bytes);
    let mut turns: Vec<Turn> = Vec::new();
    let mut compactions = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        match message.role {
            Role::User => turns.push(Turn {
                number: turns.len() + 1,
                id: message.id.clone(),
                timestamp: message.timestamp.clone(),
                prompt: prompt(&message.blocks),
                inherited: index < inherited,
                rolled_back: false,
                aborted: false,
            }),
            Role::System => {
                if message.blocks.iter().any(|b| matches!(b, Block::Summary { .. })) {
                    compactions.push(Compaction { after_turn: turns.len(), id: message.id.clone() });
                }
                match message.id.as_ref().and_then(|id| events.get(id)) {
                    Some(Marker::RolledBack(count)) => {
                        let live = turns.iter_mut().rev().filter(|t| !t.rolled_back);
                        for turn in live.take(usize::try_from(*count).unwrap_or(usize::MAX)) {
                            turn.rolled_back = true;
                        }
                    }
                    Some(Marker::Aborted) => {
                        if let Some(turn) = turns.last_mut() {
                            turn.aborted = true;
                        }
                    }
                    None => {}
                }
            }
            Role::Assistant => {}
        }
    }
    let leaf = turns.iter().rposition(|t| !t.rolled_back);
    Turns { id: transcript.id, forked_from, turns, compactions, leaf, issues: transcript.issues }
}

/// What a system notice of the rollout's own lines was.
enum Marker {
    RolledBack(u64),
    Aborted,
}

/// The rollbacks and aborts of the rollout's own lines, by the id the
/// transcript gives their notices.
fn own_events(bytes: &[u8]) -> HashMap<String, Marker> {
    let mut found = HashMap::new();
    for line in JsonLines::new(bytes) {
        let Ok(envelope) = line.parse::<Envelope<'_>>() else { continue };
        if envelope.kind != LineKind::EventMsg {
            continue;
        }
        let Some(event) = envelope.payload.and_then(|p| serde_json::from_str::<Event>(p.get()).ok()) else { continue };
        let marker = match event {
            Event::ThreadRolledBack { num_turns } => Marker::RolledBack(num_turns),
            Event::TurnAborted { .. } => Marker::Aborted,
            _ => continue,
        };
        // As the transcript numbers messages: `ordinal` + 1, else the line number.
        let id = envelope.ordinal.and_then(|o| usize::try_from(o).ok()).map_or(line.number, |o| o.saturating_add(1));
        found.insert(id.to_string(), marker);
    }
    found
}

/// The first line of a prompt's text.
fn prompt(blocks: &[Block]) -> String {
    let text = blocks.iter().find_map(|b| match b {
        Block::Text { text } if !text.trim().is_empty() => Some(text.trim()),
        _ => None,
    });
    match text {
        Some(text) => text.lines().next().unwrap_or_default().to_owned(),
        None if blocks.iter().any(|b| matches!(b, Block::Image(_))) => "[image]".to_owned(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex").join(name);
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    #[test]
    fn a_rollback_marks_the_turns_it_undid() {
        let (path, bytes) = fixture("codex-fork-rollback-compact.jsonl");
        let turns = turns_of(&path, &bytes);
        assert_eq!(turns.forked_from.as_deref(), Some("0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81"));
        let marks: Vec<(&str, bool, bool)> =
            turns.turns.iter().map(|t| (t.prompt.as_str(), t.rolled_back, t.aborted)).collect();
        assert_eq!(
            marks,
            [
                ("Why is test_parse_dates failing?", false, false),
                ("Instead, auto-detect day-first vs month-first.", true, false),
                ("Add a --day-first CLI flag.", false, false),
                ("Also update the README", false, true),
            ]
        );
        assert_eq!(turns.compactions.iter().map(|c| c.after_turn).collect::<Vec<_>>(), [3]);
        assert_eq!(turns.leaf, Some(3));
    }
}
