//! Where sessions live: `<copilot home>/session-state/<id>/events.jsonl`, and
//! the flat `<copilot home>/session-state/<id>.jsonl` of older releases.

use std::fs;
use std::path::{Path, PathBuf};

use sess_core::FileKind;

use crate::jsonl::entry_kind;
use crate::listing::note_nowhere;

/// The folder of sessions under the Copilot home.
pub(crate) const STATE_DIR: &str = "session-state";
/// The events file in a session's folder.
pub(crate) const EVENTS: &str = "events.jsonl";

/// The sessions under `<home>/session-state/`, as `(session id, path)` sorted
/// by path: each folder's `events.jsonl` (the id is the folder's name) and
/// each `<id>.jsonl` beside them. Names that are not regular files (a FIFO,
/// a device) go to `skipped`; a missing or unreadable folder has none.
pub(crate) fn sessions_under(home: &Path, skipped: &mut Vec<(PathBuf, FileKind)>) -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(home.join(STATE_DIR)) else { return Vec::new() };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
        if name.starts_with('.') {
            continue;
        }
        let Ok(own) = entry.file_type() else { continue };
        let (id, file) = if own.is_dir() {
            let file = path.join(EVENTS);
            // Links followed; a dangling link is listed (reading it reports it).
            match fs::metadata(&file).map(|meta| FileKind::of(meta.file_type())) {
                Ok(FileKind::Regular) => {}
                Ok(kind) => {
                    skipped.push((file, kind));
                    continue;
                }
                Err(_) if fs::symlink_metadata(&file).is_ok() => {}
                Err(_) => continue,
            }
            (name, file)
        } else if let Some(id) = name.strip_suffix(".jsonl").filter(|id| !id.is_empty()) {
            match entry_kind(&entry) {
                Some(FileKind::Regular | FileKind::Symlink) | None => {}
                Some(kind) => {
                    skipped.push((path, kind));
                    continue;
                }
            }
            (id.to_owned(), path)
        } else {
            // A session folder that is a link to nothing cannot be read.
            note_nowhere(&entry, skipped);
            continue;
        };
        found.push((id, file));
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// The session id a session file's path gives: the folder's name for an
/// `events.jsonl`, else the file's stem.
pub(crate) fn id_from_path(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let id = if name == EVENTS { path.parent()?.file_name()?.to_str()? } else { name.strip_suffix(".jsonl")? };
    (!id.is_empty()).then(|| id.to_owned())
}

/// The folder whose `workspace.yaml` belongs to the session file at `path`:
/// its own folder for an `events.jsonl`, the folder named by its id beside a
/// flat `<id>.jsonl`.
pub(crate) fn workspace_dir(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    if name == EVENTS { path.parent().map(Path::to_owned) } else { Some(path.with_extension("")) }
}
