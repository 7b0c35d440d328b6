//! A pi-family session as the verbs that read only those take it (`sess
//! context`, `sess segments`, the MCP server's `session_context`): found,
//! refused when it is another agent's, read whole; and its model context at
//! an entry.

use sess_core::{EntryIndex, Leaf, SessionContext, SessionFile, context};

use crate::resolve::Session;
use crate::{Host, Result, Tell};

/// The pi-family session `arg` names (in `store`, or a file or id), read
/// whole; `verb` names what refuses another agent's session.
///
/// # Errors
///
/// As [`resolve::session`](crate::resolve::session),
/// [`resolve::pi_only`](crate::resolve::pi_only) and
/// [`load::load_session`](crate::load::load_session).
pub fn read(verb: &str, arg: &str, store: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<SessionFile> {
    let session = crate::resolve::session(arg, store, host, tell)?;
    if let Session::File(found) = &session {
        crate::resolve::pi_only(verb, arg, found)?;
    }
    crate::load::load_session(session, host, tell)
}

/// The model context of `file` at the entry `leaf` (its last entry when
/// `None`), as the agent rebuilds it; `None` when `leaf` is not an entry of
/// it.
pub fn context_at(file: &SessionFile, leaf: Option<&str>) -> Option<SessionContext> {
    let entries = file.entries();
    let index = EntryIndex::new(entries);
    let leaf = match leaf {
        Some(id) if !index.contains(id) => return None,
        Some(id) => Leaf::Id(id),
        None => Leaf::Last,
    };
    Some(context::build(entries, &index, leaf))
}
