//! Opening a session for the writing verbs.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sess_store::{FileStorage, Notice, SessionManager, SessionStorage as _};

use crate::output::warn;
use crate::resolve::{self, Session, refuse_other_agents};

/// Opens the session named by `arg` (in `store`, or a file that exists) for
/// writing.
pub(crate) fn open(arg: &str, store: Option<&str>) -> anyhow::Result<SessionManager> {
    open_resolved(resolve::session(arg, store)?, store)
}

/// [`open`], or starts a new session when `arg` is the path of a file that
/// does not exist yet.
pub(crate) fn open_or_start(arg: &str, store: Option<&str>) -> anyhow::Result<SessionManager> {
    open_resolved(resolve::session_or_new(arg, store)?, store)
}

fn open_resolved(session: Session, store: Option<&str>) -> anyhow::Result<SessionManager> {
    let found = match session {
        Session::File(found) => found,
        Session::Stored { backend, id } => {
            let url = store.unwrap_or_default();
            let mut manager = SessionManager::builder()
                .backend(backend)
                .open_in(&id, None)
                .with_context(|| format!("cannot open session {id} in `{url}`"))?;
            report(&mut manager);
            return Ok(manager);
        }
    };
    let path = found.path;
    check_folder(&path)?;
    refuse_other_agents(&path)?;
    let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let mut builder = SessionManager::builder().cwd(cwd);
    if let Some(blobs) = blobs_dir_for(&path) {
        builder = builder.blobs(blobs);
    }
    let mut manager = builder.open(&path).with_context(|| format!("cannot open `{}`", path.display()))?;
    report(&mut manager);
    Ok(manager)
}

/// A session file that does not exist yet is started in a folder that does:
/// a typo in the path must not make folders.
fn check_folder(path: &Path) -> anyhow::Result<()> {
    match FileStorage.stat(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = sess_store::storage::parent_dir(path);
            if !dir.is_dir() {
                bail!("cannot start a session at `{}`: the folder `{}` does not exist", path.display(), dir.display());
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The blob store of the agent whose sessions directory holds `path`
/// ([`sess::load::blobs_dir_for`]).
pub(crate) fn blobs_dir_for(path: &Path) -> Option<PathBuf> {
    sess::load::blobs_dir_for(path, &crate::env::environment())
}

/// Prints the manager's notices as warnings.
pub(crate) fn report(manager: &mut SessionManager) {
    let file = manager.session_file().map(|f| f.display().to_string()).unwrap_or_default();
    for notice in manager.drain_notices() {
        match notice {
            Notice::ConcurrentAppend { foreign, continued_from } => warn(format_args!(
                "`{file}`: another writer appended {} entries; this append continues from {} so the tree branched there",
                foreign.len(),
                continued_from.map_or_else(|| "the root".to_owned(), |id| id.to_string())
            )),
            Notice::TornTailRemoved { bytes, .. } => {
                warn(format_args!("`{file}`: removed a {bytes}-byte last line left by an interrupted write"));
            }
            Notice::CorruptFileMoved { moved_to } => warn(format_args!(
                "`{file}` had no valid session header; its bytes were moved to `{}` and a new session was started",
                moved_to.display()
            )),
            Notice::OriginalKept { copy } => {
                warn(format_args!(
                    "`{file}`: its original bytes (unreadable lines or bytes that are not UTF-8) were kept in `{}` \
                     before rewriting",
                    copy.display()
                ));
            }
            Notice::SkippedLines { lines } => {
                let shown: Vec<String> = lines.iter().take(10).map(ToString::to_string).collect();
                warn(format_args!("`{file}`: skipped unreadable lines {} (run `sess verify`)", shown.join(", ")));
            }
            Notice::InvalidUtf8 { lines } => {
                let shown: Vec<String> = lines.iter().take(10).map(ToString::to_string).collect();
                let (line, hold) = if lines.len() == 1 { ("line", "holds") } else { ("lines", "hold") };
                warn(format_args!(
                    "`{file}`: {line} {} {hold} bytes that are not UTF-8, read as U+FFFD (run `sess verify`)",
                    shown.join(", ")
                ));
            }
            Notice::UnresolvedBlob { warning } => warn(format_args!("`{file}`: {warning}")),
            Notice::AutoForked { segment, from, at } => warn(format_args!(
                "another writer appended to segment {from} first; these entries went to a new segment {segment} \
                 branching at seq {at}"
            )),
        }
    }
}
