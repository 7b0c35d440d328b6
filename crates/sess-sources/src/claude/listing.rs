//! Listing sessions (formats.md §1.2 "robust lookup").

use std::fs;
use std::path::{Path, PathBuf};

use super::Part;
use super::paths::{MAX_NAME_UNITS, project_dir_name, session_files_in};
use crate::detect::detect_whole;
use crate::error::{Error, Result};
use crate::jsonl::read_file;
use crate::listing::{Catalogued, FoundFiles, Listed, Listing, Scope, SessionInfo, active_ms, modified_ms};
use crate::project_folders::{list_found, same_dir, subfolders};

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
                let mut skipped = Vec::new();
                for folder in subfolders(&projects, &mut skipped) {
                    list_folder(&folder, None, &mut listing);
                }
                listing.problems.extend(skipped.into_iter().map(|(path, kind)| Error::NotASessionFile { path, kind }));
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
    for config in config_dirs {
        for folder in subfolders(&config.join("projects"), &mut found.skipped) {
            session_files_in(&folder, &mut found);
        }
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
        subfolders(projects, &mut Vec::new())
            .into_iter()
            .filter(|f| f.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
            .collect()
    };
    let folders = if folders.is_empty() { subfolders(projects, &mut Vec::new()) } else { folders };
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
    Ok(listed(path, &bytes, id).map(|listed| listed.info(super::SOURCE, path.to_owned(), modified_ms(&metadata))))
}

/// What a listing says of the session file at `path`, whose bytes are
/// `bytes`, apart from its time; `None` when it is not a Claude Code
/// session.
pub(super) fn listed(path: &Path, bytes: &[u8], id: String) -> Option<Listed> {
    if detect_whole(path, bytes) != Some(super::SOURCE) {
        return None;
    }
    let part = super::parse_part(bytes, &id);
    Some(listed_of(id, &part))
}

/// What a listing says of a session whose file read whole gave `part`.
pub(super) fn listed_of(id: String, part: &Part) -> Listed {
    Listed {
        id,
        cwd: part.transcript.cwd.clone(),
        title: part.transcript.title.clone(),
        created: part.created.clone(),
        active_ms: active_ms(&part.transcript, part.created.as_deref()),
        message_count: part.transcript.messages.len(),
        first_message: part.first_prompt.clone(),
        ..Listed::default()
    }
}

/// [`list`] from what the catalog holds (`catalogued`): the same folders
/// and, where a folder holds several projects, the same `cwd` rule.
pub(super) fn list_catalogued(config_dirs: &[PathBuf], scope: Scope<'_>, catalogued: Catalogued) -> Listing {
    let Scope::Project(cwd) = scope else { return catalogued.into_listing(|_| true, |_| true) };
    let cwd = cwd.to_string_lossy();
    // For each project folder this cwd's sessions may be in: whether its
    // sessions' `cwd` must be the cwd.
    let mut folders: Vec<(PathBuf, bool)> = Vec::new();
    for config in config_dirs {
        let projects = config.join("projects");
        let name = project_dir_name(&cwd);
        if name.len() <= MAX_NAME_UNITS && projects.join(&name).is_dir() {
            folders.push((projects.join(&name), false));
            continue;
        }
        let mut matching = Vec::new();
        if name.len() > MAX_NAME_UNITS {
            let prefix = format!("{}-", &name[..MAX_NAME_UNITS]);
            matching = subfolders(&projects, &mut Vec::new())
                .into_iter()
                .filter(|f| f.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
                .collect();
        }
        let matching = if matching.is_empty() { subfolders(&projects, &mut Vec::new()) } else { matching };
        folders.extend(matching.into_iter().map(|folder| (folder, true)));
    }
    let folder_of = |path: &Path| folders.iter().find(|(folder, _)| path.parent() == Some(folder.as_path()));
    catalogued.into_listing(
        |info| match folder_of(&info.path) {
            Some((_, false)) => true,
            Some((_, true)) => info.cwd.as_deref().is_some_and(|found| same_dir(found, &cwd)),
            None => false,
        },
        |path| folder_of(path).is_some(),
    )
}
