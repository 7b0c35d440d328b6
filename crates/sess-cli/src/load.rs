//! Opening session files for the read-only verbs.

use std::path::Path;

use anyhow::Context as _;
use sess_core::{ReadOutcome, SessionFile};
use std::sync::Arc;

use sess_store::{BlobStore, Blobs, FileStorage, read_session_file, resolve_entries};

use crate::output::warn;
use crate::resolve::Session;

/// A session read for the read-only verbs.
pub(crate) struct Loaded {
    pub(crate) file: SessionFile,
}

/// Reads the session `arg` names (in `store`, or a file) and warns about every
/// line it had to skip.
pub(crate) fn load(arg: &str, store: Option<&str>) -> anyhow::Result<Loaded> {
    load_session(crate::resolve::session(arg, store)?)
}

/// Reads a pi-family session (of a store, or a file) and warns about every
/// line it had to skip.
pub(crate) fn load_session(session: Session) -> anyhow::Result<Loaded> {
    match session {
        Session::Stored { backend, id } => {
            let stored = backend.session(&id)?;
            let mut entries = backend.read_session(&id)?;
            let resolution = resolve_entries(&mut entries, backend.as_ref() as &dyn Blobs)?;
            for warning in resolution.warnings {
                warn(format_args!("session {id}: {warning}"));
            }
            let file = SessionFile::from_entries(Some(stored.header), stored.title_line.as_deref(), entries);
            Ok(Loaded { file })
        }
        Session::File(found) => Ok(Loaded { file: load_path(&found.path)?.file }),
    }
}

/// Reads the session file at `path` and warns about every line it had to skip.
pub(crate) fn load_path(path: &Path) -> anyhow::Result<ReadOutcome> {
    if crate::resolve::is_missing(path) {
        return Err(crate::resolve::missing(path).into());
    }
    let mut outcome = read_session_file(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    // Images an agent moved to its blob store are put back, as the agent does.
    if let Some(dir) = crate::session::blobs_dir_for(path).filter(|d| d.is_dir()) {
        let blobs = BlobStore::new(Arc::new(FileStorage), dir);
        let resolution = resolve_entries(outcome.file.entries_mut(), &blobs)
            .with_context(|| format!("cannot read the images of `{}`", path.display()))?;
        for warning in resolution.warnings {
            warn(format_args!("`{}`: {warning}", path.display()));
        }
    }
    crate::output::warn_issues(path, &outcome.issues);
    if outcome.file.header().is_none() && outcome.file.entries().is_empty() {
        anyhow::bail!("`{}` is not a session file: it has no session header and no entries", path.display());
    }
    if outcome.file.header().is_none() {
        warn(format_args!("`{}` has no valid session header; reading its entries anyway", path.display()));
    }
    if let Some(from) = outcome.migrated_from {
        warn(format_args!(
            "`{}` is format version {}; it was migrated in memory (run `sess migrate` to write it as version 3)",
            path.display(),
            from.0
        ));
    }
    Ok(outcome)
}
