//! Opening a pi-family session for writing (of a store, or a file, or a new
//! file), and what its manager noticed, in words.

use std::path::{Path, PathBuf};

use sess_store::{FileStorage, Notice, SessionManager, SessionStorage as _};

use crate::resolve::{self, Session};
use crate::{Error, Host, Result, Tell};

/// Opens the session `arg` names (in `store`, or a file that exists) for
/// writing; what its manager noticed opening it is told.
///
/// # Errors
///
/// As [`resolve::session`]; [`Error::Store`] when it cannot be opened;
/// [`Error::Resolve`] when another agent wrote the file.
pub fn open(arg: &str, store: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<SessionManager> {
    open_resolved(resolve::session(arg, store, host, tell)?, store, host, tell)
}

/// [`open`], or starts a new session when `arg` is the path of a file that
/// does not exist yet, in a folder that does.
///
/// # Errors
///
/// As [`open`]; [`Error::Invalid`] when the new file's folder does not exist.
pub fn open_or_start(arg: &str, store: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<SessionManager> {
    open_resolved(resolve::session_or_new(arg, store, host, tell)?, store, host, tell)
}

fn open_resolved(session: Session, store: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<SessionManager> {
    let found = match session {
        Session::File(found) => found,
        Session::Stored { backend, id } => {
            let url = store.unwrap_or_default();
            let mut manager = SessionManager::builder()
                .backend(backend)
                .open_in(&id, None)
                .map_err(|e| Error::store_because(format!("cannot open session {id} in `{url}`"), e))?;
            tell_notices(&mut manager, tell);
            return Ok(manager);
        }
    };
    let path = found.path;
    check_folder(&path)?;
    resolve::refuse_other_agents(&path)?;
    let mut builder = SessionManager::builder().cwd(host.cwd.display().to_string());
    if let Some(blobs) = blobs_dir_for(&path, host) {
        builder = builder.blobs(blobs);
    }
    let mut manager =
        builder.open(&path).map_err(|e| Error::store_because(format!("cannot open `{}`", path.display()), e))?;
    tell_notices(&mut manager, tell);
    Ok(manager)
}

/// A session file that does not exist yet is started in a folder that does:
/// a typo in the path must not make folders.
fn check_folder(path: &Path) -> Result<()> {
    match FileStorage.stat(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = sess_store::storage::parent_dir(path);
            if !dir.is_dir() {
                return Err(Error::Invalid {
                    reason: format!(
                        "cannot start a session at `{}`: the folder `{}` does not exist",
                        path.display(),
                        dir.display()
                    ),
                });
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The blob store of the agent whose sessions directory holds `path`
/// ([`load::blobs_dir_for`](crate::load::blobs_dir_for)).
pub fn blobs_dir_for(path: &Path, host: &Host) -> Option<PathBuf> {
    crate::load::blobs_dir_for(path, &host.environment)
}

/// Tells what `manager` noticed since it was last asked ([`notices`]).
pub fn tell_notices(manager: &mut SessionManager, tell: &dyn Tell) {
    for line in notices(manager) {
        tell.warning(&line);
    }
}

/// What `manager` noticed since it was last asked, a warning each: another
/// writer's entries, a torn last line removed, a file moved aside, lines
/// skipped.
pub fn notices(manager: &mut SessionManager) -> Vec<String> {
    let file = manager.session_file().map(|f| f.display().to_string()).unwrap_or_default();
    manager
        .drain_notices()
        .into_iter()
        .map(|notice| match notice {
            Notice::ConcurrentAppend { foreign, continued_from } => format!(
                "`{file}`: another writer appended {} entries; this append continues from {} so the tree branched there",
                foreign.len(),
                continued_from.map_or_else(|| "the root".to_owned(), |id| id.to_string())
            ),
            Notice::TornTailRemoved { bytes, .. } => {
                format!("`{file}`: removed a {bytes}-byte last line left by an interrupted write")
            }
            Notice::CorruptFileMoved { moved_to } => format!(
                "`{file}` had no valid session header; its bytes were moved to `{}` and a new session was started",
                moved_to.display()
            ),
            Notice::OriginalKept { copy } => format!(
                "`{file}`: its original bytes (unreadable lines or bytes that are not UTF-8) were kept in `{}` \
                 before rewriting",
                copy.display()
            ),
            Notice::SkippedLines { lines } => {
                let shown: Vec<String> = lines.iter().take(10).map(ToString::to_string).collect();
                format!("`{file}`: skipped unreadable lines {} (run `sess verify`)", shown.join(", "))
            }
            Notice::InvalidUtf8 { lines } => {
                let shown: Vec<String> = lines.iter().take(10).map(ToString::to_string).collect();
                let (line, hold) = if lines.len() == 1 { ("line", "holds") } else { ("lines", "hold") };
                format!(
                    "`{file}`: {line} {} {hold} bytes that are not UTF-8, read as U+FFFD (run `sess verify`)",
                    shown.join(", ")
                )
            }
            Notice::UnresolvedBlob { warning } => format!("`{file}`: {warning}"),
            Notice::AutoForked { segment, from, at } => format!(
                "another writer appended to segment {from} first; these entries went to a new segment {segment} \
                 branching at seq {at}"
            ),
        })
        .collect()
}

/// A session written by [`fork_new_session`].
#[derive(Clone, Debug)]
pub struct NewSession {
    /// Its id.
    pub id: String,
    /// Its file; `None` in a store.
    pub path: Option<PathBuf>,
}

/// Writes a new session holding the path from the root to `entry` of
/// `manager`'s session (`name`, as the caller named it), beside it (in
/// `dir`, when given); its file, or `None` in a store.
///
/// # Errors
///
/// [`Error::Invalid`] when there is no entry to copy; [`Error::Store`]
/// when it cannot be written.
pub fn branch_into_new_session(
    manager: &mut SessionManager,
    name: &str,
    at: Option<&str>,
    dir: Option<&Path>,
) -> Result<Option<PathBuf>> {
    let Some(at) = at else {
        return Err(Error::Invalid { reason: format!("turn 0 of `{name}` has no entries to copy into a new session") });
    };
    let path = manager
        .create_branched_session_in(at, dir)
        .map_err(|e| Error::store_because(format!("cannot fork `{name}` at `{at}`"), e))?;
    manager.close()?;
    Ok(path)
}

/// Writes a new session holding the path from the root to `entry` of the
/// session `arg` names (a pi-family file, or an id in `store`), beside it:
/// the page's fork.
///
/// # Errors
///
/// [`Error::NotFound`] when the session has no entry `entry`; as [`open`]
/// and [`branch_into_new_session`].
pub fn fork_new_session(
    arg: &str,
    store: Option<&str>,
    entry: &str,
    host: &Host,
    tell: &dyn Tell,
) -> Result<NewSession> {
    let mut manager = open(arg, store, host, tell)?;
    if manager.entry(entry).is_none() {
        return Err(Error::NotFound { what: format!("entry `{entry}` of `{arg}`") });
    }
    let path = branch_into_new_session(&mut manager, arg, Some(entry), None)?;
    Ok(NewSession { id: manager.session_id().to_owned(), path })
}
