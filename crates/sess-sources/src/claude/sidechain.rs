//! Subagent turns written into the main file (Claude Code 1.0.x): lines with
//! `isSidechain: true`. They are not the user's and not the main agent's:
//!
//! - a sidechain line whose `parentUuid` is a sidechain line of the file
//!   continues that line's subagent; any other starts a subagent;
//! - a subagent belongs to the first `Task` call not yet given one whose
//!   `prompt` is the subagent's first text, else to the latest such call; its
//!   lines make a conversation of their own (the rules of
//!   [`super::messages`]), folded under the call as
//!   [`ToolCall::subagent`](crate::ToolCall::subagent);
//! - a subagent with no such call (its call's line is missing) is a system
//!   message where it started, marked as a subagent and holding its blocks.
//!
//! So a subagent's prompt is never a user message, a title or a first prompt.

use std::collections::HashMap;

use super::line::Line;
use super::messages::{Conversation, joined_text};
use crate::transcript::{Block, Message};

/// The text that marks a subagent whose call is not in the file.
const ORPHAN_NOTE: &str = "Subagent turns (the call that started them is not in the file):";

/// The subagents of one file, line by line.
#[derive(Debug, Default)]
pub(super) struct Sidechains {
    /// The `uuid` of each sidechain line → its subagent.
    lines: HashMap<String, usize>,
    subagents: Vec<Subagent>,
}

#[derive(Debug)]
struct Subagent {
    /// Where its conversation goes.
    owner: Owner,
    conversation: Conversation,
}

#[derive(Debug)]
enum Owner {
    /// The call at this (message, block) index of the main conversation.
    Call((usize, usize)),
    /// The placeholder system message at this index.
    Orphan(usize),
}

impl Sidechains {
    /// Takes a sidechain line; `main` is the conversation so far.
    pub(super) fn take(&mut self, line: &Line, main: &mut Conversation) {
        let known = line.parent_uuid.as_ref().and_then(|parent| self.lines.get(parent)).copied();
        let index = known.unwrap_or_else(|| {
            let prompt = line.content().map(joined_text);
            let owner = match main.claim_task(prompt.as_deref().filter(|p| !p.trim().is_empty())) {
                Some(at) => Owner::Call(at),
                None => Owner::Orphan(main.placeholder(line)),
            };
            self.subagents.push(Subagent { owner, conversation: Conversation::default() });
            self.subagents.len() - 1
        });
        if let Some(uuid) = &line.uuid {
            self.lines.insert(uuid.clone(), index);
        }
        let conversation = &mut self.subagents[index].conversation;
        match line.kind.as_deref() {
            Some("user") => conversation.user(line),
            Some("assistant") => conversation.assistant(line),
            _ => {}
        }
    }

    /// Puts each subagent's conversation where it belongs in `messages`, the
    /// finished main conversation.
    pub(super) fn fold_into(self, messages: &mut [Message]) {
        for subagent in self.subagents {
            let turns = subagent.conversation.finish();
            match subagent.owner {
                Owner::Call((message, block)) => {
                    if let Some(Block::ToolCall(call)) = messages[message].blocks.get_mut(block) {
                        call.subagent.extend(turns);
                    }
                }
                Owner::Orphan(message) => {
                    let blocks = &mut messages[message].blocks;
                    blocks.push(Block::text(ORPHAN_NOTE));
                    blocks.extend(turns.into_iter().flat_map(|turn| turn.blocks));
                }
            }
        }
    }
}
