//! Opening a session for the writing verbs, as the library opens it
//! ([`sess::session`]) in this process's environment, what it noticed
//! printed.

use sess_store::SessionManager;

use crate::env::host;
use crate::output::{warn, warn_skipped};

/// Opens the session named by `arg` (in `store`, or a file that exists) for
/// writing.
pub(crate) fn open(arg: &str, store: Option<&str>) -> anyhow::Result<SessionManager> {
    Ok(sess::session::open(arg, store, &host(), &mut |s| warn_skipped(s), &mut |line| warn(line))?)
}

/// [`open`], or starts a new session when `arg` is the path of a file that
/// does not exist yet.
pub(crate) fn open_or_start(arg: &str, store: Option<&str>) -> anyhow::Result<SessionManager> {
    Ok(sess::session::open_or_start(arg, store, &host(), &mut |s| warn_skipped(s), &mut |line| warn(line))?)
}

/// Prints the manager's notices as warnings.
pub(crate) fn report(manager: &mut SessionManager) {
    for line in sess::session::notices(manager) {
        warn(line);
    }
}
