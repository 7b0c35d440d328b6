//! What SESSION names, for every verb, as the library resolves it
//! ([`sess::resolve`]) in this process's environment; the names a source
//! skips are warned about here.

use std::path::Path;

pub(crate) use sess::resolve::{DETECT_BYTES, Located, Session, agent_names};

use crate::env::sources_env;
use crate::output::warn_skipped;

/// The session `arg` names: in `store` when one is given, else a file or an
/// id of any agent. A path must name a file that exists.
pub(crate) fn session(arg: &str, store: Option<&str>) -> anyhow::Result<Session> {
    Ok(sess::resolve::session(arg, store, sources_env(), &mut |skipped| warn_skipped(skipped))?)
}

/// The agent that wrote the file at `path` (`None` when none of its first
/// lines says).
pub(crate) fn detect(path: &Path) -> anyhow::Result<Option<sess_sources::SourceKind>> {
    Ok(sess::resolve::detect(path)?)
}

/// Refuses to write to `path` when another agent wrote it.
pub(crate) fn refuse_other_agents(path: &Path) -> anyhow::Result<()> {
    Ok(sess::resolve::refuse_other_agents(path)?)
}

/// Refuses a verb that works on pi-family sessions only, for a session of
/// another agent.
pub(crate) fn pi_only(verb: &str, arg: &str, found: &Located) -> anyhow::Result<()> {
    Ok(sess::resolve::pi_only(verb, arg, found)?)
}
