//! Listing sessions (formats.md §1.2 "robust lookup").

use std::fs;
use std::path::{Path, PathBuf};

use super::parse::parse;
use super::paths::{MAX_NAME_UNITS, project_dir_name, session_files_in};
use crate::detect::detect_whole;
use crate::error::{Error, Result};
use crate::jsonl::read_file;
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, modified_ms};
use crate::project_folders::{list_found, subfolders};

/// Sessions in `<config>/projects/*/` for each config folder.
///
/// - [`Scope::All`]: every project folder.
/// - [`Scope::Project`]: the folder named by [`project_dir_name`] of the cwd,
///   every session in it. When that name is over 200 UTF-16 units, the folders
///   whose names start with its first 200 units and `-`, keeping the sessions
///   whose `cwd` (the first line that has one) is the cwd. When the folder is
///   missing (or no folder has the prefix), every project folder, keeping the
///   sessions whose `cwd` is the cwd.
///
/// Missing or unreadable folders list as empty. Files that cannot be read are
/// in [`Listing::problems`]; files that are no Claude Code session by
/// [`detect`](crate::detect) (the rule of `sess show`) are not listed. Each
/// listed file is parsed whole, for its message count.
pub fn list(config_dirs: &[PathBuf], scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    for config in config_dirs {
        let projects = config.join("projects");
        match scope {
            Scope::All => {
                for folder in subfolders(&projects) {
                    list_folder(&folder, None, &mut listing);
                }
            }
            Scope::Project(cwd) => list_project(&projects, &cwd.to_string_lossy(), &mut listing),
        }
    }
    listing
}

/// Session files only, cheaply (no parsing): `(session id = file stem, path)`,
/// for resolving an id or prefix. Sorted by path within each config folder.
pub fn session_files(config_dirs: &[PathBuf]) -> Vec<(String, PathBuf)> {
    find_session_files(config_dirs).files
}

/// [`session_files`], and the names that are not regular files (skipped).
pub fn find_session_files(config_dirs: &[PathBuf]) -> FoundFiles {
    let mut found = FoundFiles::default();
    for folder in config_dirs.iter().flat_map(|config| subfolders(&config.join("projects"))) {
        session_files_in(&folder, &mut found);
    }
    found
}

/// The sessions of one cwd under one `projects` folder.
fn list_project(projects: &Path, cwd: &str, listing: &mut Listing) {
    let name = project_dir_name(cwd);
    // The name is ASCII: bytes are UTF-16 units, and any byte index is a boundary.
    let folders = if name.len() <= MAX_NAME_UNITS {
        let folder = projects.join(&name);
        if folder.is_dir() {
            list_folder(&folder, None, listing);
            return;
        }
        Vec::new()
    } else {
        let prefix = format!("{}-", &name[..MAX_NAME_UNITS]);
        subfolders(projects)
            .into_iter()
            .filter(|f| f.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
            .collect()
    };
    let folders = if folders.is_empty() { subfolders(projects) } else { folders };
    for folder in folders {
        list_folder(&folder, Some(cwd), listing);
    }
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
fn session_info(path: &Path, id: String) -> Result<Option<SessionInfo>> {
    let metadata = fs::metadata(path).map_err(|err| Error::io(path, err))?;
    let bytes = read_file(path)?;
    if detect_whole(path, &bytes) != Some(super::SOURCE) {
        return Ok(None);
    }
    let parsed = parse(&bytes, &id, false);
    Ok(Some(SessionInfo {
        source: super::SOURCE,
        flavor: None,
        id,
        path: path.to_owned(),
        cwd: parsed.transcript.cwd,
        title: parsed.transcript.title,
        created: parsed.created,
        modified_ms: modified_ms(&metadata),
        message_count: parsed.transcript.messages.len(),
        first_message: parsed.first_prompt,
        parent_session: None,
    }))
}
