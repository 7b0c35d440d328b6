//! A session's title (formats.md §1.8): the last `custom-title`, else the last
//! `ai-title`, else the last `summary` whose `leafUuid` is a line of this file
//! (other summaries describe other sessions, claude-code#2597), else the first
//! real prompt. Blank titles are skipped.

use std::collections::HashSet;

use super::line::Line;
use super::text::is_real_prompt;
use crate::transcript::{Block, Message, Role};

/// The title candidates seen so far in a file.
#[derive(Debug, Default)]
pub(super) struct Titles {
    custom: Option<String>,
    ai: Option<String>,
    /// `(leafUuid, summary)` in file order.
    summaries: Vec<(String, String)>,
    /// Every line `uuid` of the file.
    uuids: HashSet<String>,
}

impl Titles {
    /// Takes any line.
    pub(super) fn see(&mut self, line: &Line) {
        if let Some(uuid) = &line.uuid {
            self.uuids.insert(uuid.clone());
        }
        let non_blank =
            |text: &Option<String>| text.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned);
        match line.kind.as_deref() {
            Some("custom-title") => {
                if let Some(title) = non_blank(&line.custom_title) {
                    self.custom = Some(title);
                }
            }
            Some("ai-title") => {
                if let Some(title) = non_blank(&line.ai_title) {
                    self.ai = Some(title);
                }
            }
            Some("summary") => {
                if let (Some(leaf), Some(summary)) = (&line.leaf_uuid, non_blank(&line.summary)) {
                    self.summaries.push((leaf.clone(), summary));
                }
            }
            _ => {}
        }
    }

    /// The title the lines set, without the first-prompt fallback.
    pub(super) fn explicit(&self) -> Option<String> {
        let Self { custom, ai, summaries, uuids } = self;
        custom.clone().or_else(|| ai.clone()).or_else(|| {
            summaries.iter().rev().find(|(leaf, _)| uuids.contains(leaf)).map(|(_, summary)| summary.clone())
        })
    }
}

/// The first text a user typed: the first text block of a user message that is
/// not harness text ([`is_real_prompt`]), trimmed. Meta lines, command echoes,
/// interrupt markers and compact summaries never make user messages.
pub(super) fn first_prompt(messages: &[Message]) -> Option<&str> {
    messages.iter().filter(|m| m.role == Role::User).flat_map(|m| &m.blocks).find_map(|block| match block {
        Block::Text { text } if is_real_prompt(text) => Some(text.trim()),
        _ => None,
    })
}
