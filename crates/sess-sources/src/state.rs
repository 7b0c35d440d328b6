//! Which sessions are working now: a session's state, from the end of its
//! transcript and how long ago its agent last wrote.

use std::time::Duration;

use serde::Serialize;

use crate::{Block, Role, ToolStatus, Transcript};

/// Whether a session's agent is at work, waiting for its user, or done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionState {
    /// A turn is open: the user's message has no answer yet, or a tool the
    /// agent called has not answered.
    Working,
    /// The agent asked its user (a question, a plan to approve) and waits
    /// for the answer.
    Waiting,
    /// The agent answered: the turn is over.
    Idle,
    /// A turn is open, but the agent has not written for [`STALE_AFTER`]: it
    /// was stopped, or it is stuck.
    Stale,
}

impl SessionState {
    /// The state of a session that was in this one when its agent last
    /// wrote, `quiet` ago: an open turn quiet for [`STALE_AFTER`] is stale.
    #[must_use]
    pub fn aged(self, quiet: Duration) -> SessionState {
        match self {
            SessionState::Working if quiet >= STALE_AFTER => SessionState::Stale,
            state => state,
        }
    }

    /// `working`, `waiting`, `idle` or `stale`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::Waiting => "waiting",
            Self::Idle => "idle",
            Self::Stale => "stale",
        }
    }
}

/// How long an open turn may go without a write before it counts as stale.
pub const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// The state of a session whose transcript is `transcript`, last written
/// `quiet` ago; `asks_user` says which of its agent's tools ask the user
/// ([`Source::asks_user`](crate::Source::asks_user)).
///
/// The last message decides: the user's (a prompt, or tool results the
/// model has not seen) opens a turn; the assistant's is an answer, unless it
/// ends with a call whose result has not come, which is work in progress, or
/// waiting when the tool asks the user. A harness note (a compaction
/// summary) keeps the state of what came before it.
pub fn state(transcript: &Transcript, asks_user: &dyn Fn(&str) -> bool, quiet: Duration) -> SessionState {
    let open = transcript.messages.iter().rev().find(|m| m.role != Role::System).map(|last| match last.role {
        Role::User => Some(SessionState::Working),
        Role::System | Role::Assistant => last.blocks.iter().rev().find_map(|block| match block {
            Block::ToolCall(call) if matches!(call.status, ToolStatus::Running | ToolStatus::Pending) => {
                Some(if asks_user(&call.name) { SessionState::Waiting } else { SessionState::Working })
            }
            _ => None,
        }),
    });
    open.flatten().unwrap_or(SessionState::Idle).aged(quiet)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Message, SourceKind, ToolCall};

    fn message(role: Role, blocks: Vec<Block>) -> Message {
        Message { role, id: None, timestamp: None, blocks }
    }

    fn call(name: &str, status: ToolStatus) -> Block {
        let mut call = ToolCall::running("t1", name, json!({}));
        call.status = status;
        Block::ToolCall(call)
    }

    fn of(messages: Vec<Message>, quiet_secs: u64) -> SessionState {
        let mut transcript = Transcript::new(SourceKind::native(), "s");
        transcript.messages = messages;
        state(&transcript, &|tool| tool == "ask", Duration::from_secs(quiet_secs))
    }

    fn text(text: &str) -> Block {
        Block::Text { text: text.into() }
    }

    #[test]
    fn the_last_message_says_whether_a_turn_is_open() {
        let asked = message(Role::User, vec![text("Fix the test.")]);
        let answered = message(Role::Assistant, vec![text("Fixed.")]);
        let calling = message(Role::Assistant, vec![text("Running it."), call("bash", ToolStatus::Pending)]);
        let asking = message(Role::Assistant, vec![call("ask", ToolStatus::Pending)]);
        let done = message(Role::Assistant, vec![call("bash", ToolStatus::Succeeded), text("It passes.")]);
        let note = message(Role::System, vec![text("summary")]);

        assert_eq!(of(vec![], 0), SessionState::Idle);
        assert_eq!(of(vec![asked.clone()], 5), SessionState::Working);
        assert_eq!(of(vec![asked.clone(), answered.clone()], 5), SessionState::Idle);
        assert_eq!(of(vec![asked.clone(), calling.clone()], 5), SessionState::Working);
        assert_eq!(of(vec![asked.clone(), asking.clone()], 5), SessionState::Waiting);
        assert_eq!(of(vec![asked.clone(), done], 5), SessionState::Idle);
        assert_eq!(of(vec![asked.clone(), note], 5), SessionState::Working);

        // An open turn with no write for ten minutes is stale; a question stays asked.
        assert_eq!(of(vec![asked.clone()], 600), SessionState::Stale);
        assert_eq!(of(vec![asked.clone(), calling], 3600), SessionState::Stale);
        assert_eq!(of(vec![asked.clone(), asking], 3600), SessionState::Waiting);
        assert_eq!(of(vec![asked, answered], 3600), SessionState::Idle);
    }

    #[test]
    fn each_agent_names_its_own_asking_tools() {
        let asks = |source: crate::SourceKind, tool: &str| source.source().asks_user(tool);
        assert!(asks(crate::claude::SOURCE, "AskUserQuestion") && asks(crate::claude::SOURCE, "ExitPlanMode"));
        assert!(!asks(crate::claude::SOURCE, "Bash") && !asks(crate::claude::SOURCE, "ask_user"));
        assert!(asks(crate::copilot::SOURCE, "ask_user"));
        assert!(asks(crate::qwen::SOURCE, "ask_user_question"));
        assert!(asks(crate::opencode::SOURCE, "question"));
        assert!(!asks(crate::codex::SOURCE, "question") && !asks(crate::pi::SOURCE, "AskUserQuestion"));
    }
}
