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
//! So a subagent's prompt is never a user message, a title or a first prompt
//! of the session that started it. A file of sidechain lines only is a
//! subagent's own transcript (Claude Code 2.x writes them to
//! `<session>/subagents/agent-*.jsonl`): its lines are the conversation.

use std::collections::HashMap;

use super::line::Line;
use super::messages::{Conversation, joined_text};
use crate::transcript::{Block, Message};

/// The text that marks a subagent whose call is not in the file.
const ORPHAN_NOTE: &str = "Subagent turns (the call that started them is not in the file):";

/// The subagents of one file, line by line.
#[derive(Debug)]
pub(super) struct Sidechains {
    /// The `uuid` of each sidechain line → its subagent.
    lines: HashMap<String, usize>,
    subagents: Vec<Subagent>,
    /// The lines follow earlier ones of the file, where a call they find
    /// no call for may be.
    tail: bool,
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
    /// A call in the lines before a tail.
    Earlier,
}

impl Sidechains {
    /// No subagents yet; `tail` when the lines follow earlier ones of the file.
    pub(super) fn new(tail: bool) -> Self {
        Self { lines: HashMap::new(), subagents: Vec::new(), tail }
    }

    /// Takes a sidechain line; `main` is the conversation so far.
    pub(super) fn take(&mut self, line: &Line, main: &mut Conversation) {
        let known = line.parent_uuid.as_ref().and_then(|parent| self.lines.get(parent)).copied();
        let index = known.unwrap_or_else(|| {
            let prompt = line.content().map(joined_text);
            let owner = match main.claim_task(prompt.as_deref().filter(|p| !p.trim().is_empty())) {
                Some(at) => Owner::Call(at),
                None if self.tail => Owner::Earlier,
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
    /// finished main conversation; when the file has no line but sidechain
    /// lines (`own`), they are the conversation. Returns the turns of
    /// subagents whose call is before a tail.
    pub(super) fn fold_into(self, messages: &mut Vec<Message>, own: bool) -> Vec<Message> {
        let mut earlier = Vec::new();
        if own {
            messages.clear();
            messages.extend(self.subagents.into_iter().flat_map(|s| s.conversation.finish()));
            return earlier;
        }
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
                Owner::Earlier => earlier.extend(turns),
            }
        }
        earlier
    }
}
