//! Opening session files for the read-only verbs.

use std::path::Path;

use anyhow::Context as _;
use sess_core::ReadOutcome;
use sess_store::{RandomIds, read_session_file};

use crate::output::warn;

/// Reads the session `arg` names and warns about every line it had to skip.
pub(crate) fn load(arg: &str) -> anyhow::Result<ReadOutcome> {
    let path = crate::session::resolve(arg)?;
    load_path(&path)
}

/// Reads the session file at `path` and warns about every line it had to skip.
pub(crate) fn load_path(path: &Path) -> anyhow::Result<ReadOutcome> {
    let outcome =
        read_session_file(path, &mut RandomIds).with_context(|| format!("cannot read `{}`", path.display()))?;
    crate::output::warn_issues(path, &outcome.issues);
    if outcome.file.header().is_none() && outcome.file.entries().is_empty() {
        anyhow::bail!("`{}` is not a session file: it has no session header and no entries", path.display());
    }
    if outcome.file.header().is_none() {
        warn(format_args!("`{}` has no valid session header; reading its entries anyway", path.display()));
    }
    if let Some(from) = outcome.migrated_from {
        warn(format_args!(
            "`{}` is format version {}; it was migrated in memory with new entry ids (run `sess migrate` to keep them)",
            path.display(),
            from.0
        ));
    }
    Ok(outcome)
}
