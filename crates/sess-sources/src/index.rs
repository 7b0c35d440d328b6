//! What a source gives the catalog of a session: its metadata and the
//! messages to make searchable, for a whole file ([`Indexed`]) or for the
//! lines added to it since an earlier read ([`Added`]).

use crate::transcript::Message;
use crate::usage::Call;

/// What the catalog keeps of a whole session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Indexed {
    /// The session id.
    pub session_id: String,
    /// Its title: its own, else its first prompt.
    pub title: Option<String>,
    /// Whether [`title`](Self::title) is the session's own, not its first
    /// prompt.
    pub title_explicit: bool,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// When it started (ISO 8601).
    pub created: Option<String>,
    /// How many messages it has (as its listing counts them).
    pub message_count: usize,
    /// The messages to search: the session's own (history a fork inherits
    /// from another session is searched there), every branch included.
    pub messages: Vec<Message>,
    /// The model calls the session recorded, in file order (see [`Call`]).
    pub usage: Vec<Call>,
    /// What `sess list` shows of it, for a source listed from the catalog
    /// ([`Source::listed`](crate::Source::listed)); `None` when its listing
    /// leaves it out or its source is listed by reading its files.
    pub listed: Option<crate::Listed>,
}

/// What lines added to a session file give.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Added {
    /// A title of the session's own that the new lines set.
    pub title: Option<String>,
    /// How many messages the new lines add.
    pub message_count: usize,
    /// The new lines' messages.
    pub messages: Vec<Message>,
    /// Turns of subagents started by calls read before (searched as the
    /// subagents', never as the user's words).
    pub subagent_turns: Vec<Message>,
    /// Tool results whose call was read before: the transcript has no call
    /// to put them under, the catalog keeps their text on its own.
    pub late_results: Vec<LateResult>,
    /// The model calls the new lines recorded, in file order (a call whose
    /// key was read before replaces it: see [`Call::key`]).
    pub usage: Vec<Call>,
}

/// A tool result whose call was read before.
#[derive(Clone, Debug, PartialEq)]
pub struct LateResult {
    /// The entry that holds it, when it has an id of its own.
    pub entry_id: Option<String>,
    /// The text it answered.
    pub text: String,
}
