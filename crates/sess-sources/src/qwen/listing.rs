//! Listing Qwen Code sessions.

use std::fs;
use std::path::{Path, PathBuf};

use super::paths::{project_dir_name, project_folders, session_files_in};
use crate::detect::detect_whole;
use crate::error::{Error, Result};
use crate::jsonl::read_file;
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, active_ms, modified_ms};
use crate::project_folders::list_found;

/// Sessions in `<dir>/projects/*/chats/` for each runtime folder.
///
/// - [`Scope::All`]: every project folder.
/// - [`Scope::Project`]: the folder named by [`project_dir_name`] of the cwd,
///   keeping the sessions whose `cwd` (the first record that has one) is the
///   cwd (two roots can give one name: `/a/b-c` and `/a/b/c`).
///
/// Missing or unreadable folders list as empty. Files that cannot be read are
/// in [`Listing::problems`]; files that are no Qwen Code session by
/// [`detect`](crate::detect) (the rule of `sess show`) are not listed. Each listed file is
/// parsed whole, for its message count.
pub fn list(dirs: &[PathBuf], scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    for dir in dirs {
        match scope {
            Scope::All => {
                let mut skipped = Vec::new();
                for folder in project_folders(dir, &mut skipped) {
                    list_folder(&folder, None, &mut listing);
                }
                listing.problems.extend(skipped.into_iter().map(|(path, kind)| Error::NotASessionFile { path, kind }));
            }
            Scope::Project(cwd) => {
                let cwd = cwd.to_string_lossy();
                let folder = dir.join("projects").join(project_dir_name(&cwd));
                list_folder(&folder, Some(&cwd), &mut listing);
            }
        }
    }
    listing
}

/// The sessions in one project folder; with `cwd`, only those whose `cwd` is
/// that directory.
fn list_folder(folder: &Path, cwd: Option<&str>, listing: &mut Listing) {
    let mut found = FoundFiles::default();
    session_files_in(folder, &mut found);
    list_found(found, cwd, listing, session_info);
}

/// What a listing says about one session file; `None` when it is not one
/// (by [`detect`](crate::detect), as `sess show` tells).
pub(super) fn session_info(path: &Path, id: String) -> Result<Option<SessionInfo>> {
    let metadata = fs::metadata(path).map_err(|err| Error::io(path, err))?;
    let bytes = read_file(path)?;
    if detect_whole(path, &bytes) != Some(super::SOURCE) {
        return Ok(None);
    }
    let mut parsed = super::parse::parse(&bytes, &id, false);
    super::subagents::attach(path, &id, &mut parsed.transcript.messages, false);
    let modified_ms =
        active_ms(&parsed.transcript, parsed.created.as_deref()).unwrap_or_else(|| modified_ms(&metadata));
    Ok(Some(SessionInfo {
        source: super::SOURCE,
        flavor: None,
        id,
        path: path.to_owned(),
        cwd: parsed.transcript.cwd,
        title: parsed.transcript.title,
        modified_ms,
        created: parsed.created,
        message_count: parsed.transcript.messages.len(),
        first_message: parsed.first_prompt,
        parent_session: parsed.parent_session,
    }))
}
