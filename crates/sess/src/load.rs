//! Reading a session whole: a pi-family session (of a store, or a file,
//! with the images its agent moved to a blob store put back), any agent's
//! session as a transcript, or an archived one. What a reader had to skip is
//! told to the caller as warnings, one line each.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sess_core::{Leaf, LineIssue, ReadOutcome, SessionFile};
use sess_sources::Transcript;
use sess_store::discovery::{self, Environment, PiAgent};
use sess_store::{BlobStore, Blobs, FileStorage, read_session_file, resolve_entries};

use crate::resolve::{Located, Session};
use crate::{Error, Host, Result, Tell};

/// How many of a file's line issues are told one by one.
const ISSUES_SHOWN: usize = 20;

/// The warnings for the lines of `path` a reader skipped or repaired: the
/// first twenty, then how many more.
pub fn issue_lines(path: &Path, issues: &[LineIssue]) -> Vec<String> {
    let mut lines: Vec<String> =
        issues.iter().take(ISSUES_SHOWN).map(|issue| format!("`{}`: {issue}", path.display())).collect();
    if issues.len() > ISSUES_SHOWN {
        lines.push(format!(
            "`{}`: {} more lines with problems (run `sess verify`)",
            path.display(),
            issues.len() - ISSUES_SHOWN
        ));
    }
    lines
}

/// Reads a pi-family session (of a store, or a file).
///
/// # Errors
///
/// [`Error::Backend`] when a store cannot be read; as [`load_path`].
pub fn load_session(session: Session, host: &Host, tell: &dyn Tell) -> Result<SessionFile> {
    match session {
        Session::Stored { backend, id } => {
            let stored = backend.session(&id)?;
            let mut entries = backend.read_session(&id)?;
            let resolution = resolve_entries(&mut entries, backend.as_ref() as &dyn Blobs)?;
            for warning in resolution.warnings {
                tell.warning(&format!("session {id}: {warning}"));
            }
            Ok(SessionFile::from_entries(Some(stored.header), stored.title_line.as_deref(), entries))
        }
        Session::File(found) => Ok(load_path(&found.path, host, tell)?.file),
    }
}

/// Reads the pi-family session file at `path`.
///
/// # Errors
///
/// [`Error::Resolve`] when there is no file; [`Error::Read`] when it cannot
/// be read or is not a session file.
pub fn load_path(path: &Path, host: &Host, tell: &dyn Tell) -> Result<ReadOutcome> {
    if crate::resolve::is_missing(path) {
        return Err(crate::resolve::missing(path));
    }
    let mut outcome =
        read_session_file(path).map_err(|e| Error::read_because(format!("cannot read `{}`", path.display()), e))?;
    // Images an agent moved to its blob store are put back, as the agent does.
    if let Some(dir) = blobs_dir_for(path, &host.environment).filter(|d| d.is_dir()) {
        let blobs = BlobStore::new(Arc::new(FileStorage), dir);
        let resolution = resolve_entries(outcome.file.entries_mut(), &blobs)
            .map_err(|e| Error::read_because(format!("cannot read the images of `{}`", path.display()), e))?;
        for warning in resolution.warnings {
            tell.warning(&format!("`{}`: {warning}", path.display()));
        }
    }
    for line in issue_lines(path, &outcome.issues) {
        tell.warning(&line);
    }
    if outcome.file.header().is_none() && outcome.file.entries().is_empty() {
        return Err(Error::read(format!(
            "`{}` is not a session file: it has no session header and no entries",
            path.display()
        )));
    }
    if outcome.file.header().is_none() {
        tell.warning(&format!("`{}` has no valid session header; reading its entries anyway", path.display()));
    }
    if let Some(from) = outcome.migrated_from {
        tell.warning(&format!(
            "`{}` is format version {}; it was migrated in memory (run `sess migrate` to write it as version 3)",
            path.display(),
            from.0
        ));
    }
    Ok(outcome)
}

/// The blob store of the agent whose sessions directory holds `path`. xcsh and
/// oh-my-pi keep large images there; pi-mono has no blob store and reads images
/// inline, so its sessions (and files outside any agent's directory) get none.
pub fn blobs_dir_for(path: &Path, environment: &Environment) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    PiAgent::ALL
        .into_iter()
        .filter(|agent| !matches!(agent, PiAgent::PiMono | PiAgent::Prime))
        .map(|agent| discovery::agent_dirs(agent, environment, &FileStorage))
        .find(|dirs| absolute.starts_with(&dirs.sessions))
        .map(|dirs| dirs.blobs)
}

/// A session read whole for a verb that shows or writes it, and the file it
/// was read from, when it is a file.
pub struct Read {
    /// The session.
    pub transcript: Transcript,
    /// Its file.
    pub file: Option<PathBuf>,
}

/// The session `arg` names, read whole: in the archive `store` holds, in the
/// store `store` names, or a file or id of any agent; at `leaf` for a
/// pi-family one (not an archived one).
///
/// # Errors
///
/// As [`resolve::session`](crate::resolve::session), [`load_path`] and
/// [`transcript`]; [`Error::Read`] for a leaf that does not apply.
pub fn read(arg: &str, leaf: Option<&str>, store: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<Read> {
    let archived = store.map(crate::archive::existing).transpose()?.flatten();
    if let (Some(url), Some(mut vault)) = (store, archived) {
        if leaf.is_some() {
            return Err(Error::read(
                "--leaf does not apply to an archived session; `sess restore` writes it back".to_owned(),
            ));
        }
        let session = crate::archive::find(vault.as_mut(), url, arg, None)?;
        let transcript = crate::archive::load(vault.as_mut(), &session)?;
        return Ok(Read { transcript, file: None });
    }
    if let Some(url) = store {
        let session = crate::resolve::session(arg, Some(url), host, tell)?;
        let file = load_session(session, host, tell)?;
        return Ok(Read { transcript: pi_transcript(&file, leaf, arg)?, file: None });
    }
    let found: Located = crate::resolve::locate_agent(arg, host, tell)?;
    if leaf.is_some() && !found.kind.is_native() {
        return Err(Error::read(format!("--leaf works on pi-family sessions; `{arg}` is a {} session", found.kind)));
    }
    let transcript = transcript(&found, leaf, host, tell)?;
    for line in issue_lines(&found.path, &transcript.issues) {
        tell.warning(&line);
    }
    Ok(Read { transcript, file: Some(found.path) })
}

/// The transcript of a located session, at `leaf` for a pi-family one.
///
/// # Errors
///
/// [`Error::Read`] when it cannot be read; as [`load_path`].
pub fn transcript(found: &Located, leaf: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<Transcript> {
    let path = &found.path;
    if found.kind.is_native() {
        let outcome = load_path(path, host, tell)?;
        return pi_transcript(&outcome.file, leaf, &path.display().to_string());
    }
    let loaded = match &found.row {
        Some(id) => found.kind.source().load_row(path, id),
        None => found.kind.source().load(path),
    };
    loaded.map_err(|e| Error::read_because(format!("cannot read `{}`", path.display()), e))
}

/// A pi-family transcript at `leaf`, which must be an entry of the session.
///
/// # Errors
///
/// [`Error::Read`] when `leaf` is not an entry of it.
pub fn pi_transcript(file: &SessionFile, leaf: Option<&str>, name: &str) -> Result<Transcript> {
    let leaf = match leaf {
        Some(id) if !file.entries().iter().any(|e| e.id().as_str() == id) => {
            return Err(Error::read(format!("`{name}` has no entry `{id}`")));
        }
        Some(id) => Leaf::Id(id),
        None => Leaf::Last,
    };
    Ok(sess_sources::pi::transcript(file, leaf))
}
