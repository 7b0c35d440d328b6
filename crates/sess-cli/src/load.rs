//! Opening session files for the read-only verbs, as the library reads them
//! ([`sess::load`]) in this process's environment, its warnings printed.

use std::path::Path;

use sess_core::{ReadOutcome, SessionFile};

use crate::env::environment;
use crate::output::warn;
use crate::resolve::Session;

/// A session read for the read-only verbs.
pub(crate) struct Loaded {
    pub(crate) file: SessionFile,
}

/// Reads a pi-family session (of a store, or a file) and warns about every
/// line it had to skip.
pub(crate) fn load_session(session: Session) -> anyhow::Result<Loaded> {
    let file = sess::load::load_session(session, &environment(), &mut |line| warn(format_args!("{line}")))?;
    Ok(Loaded { file })
}

/// Reads the session file at `path` and warns about every line it had to skip.
pub(crate) fn load_path(path: &Path) -> anyhow::Result<ReadOutcome> {
    Ok(sess::load::load_path(path, &environment(), &mut |line| warn(format_args!("{line}")))?)
}
