//! Forks by reference (Codex 0.171 and later).
//!
//! A forked rollout no longer copies its parent's lines: its `session_meta`
//! has a `history_base` naming the rollout its history continues (by the UUID
//! in that file's name) and where that history ends in it
//! (`end_ordinal_exclusive`, `end_byte_offset`). Its own lines go on
//! numbering the `ordinal`s from there. The base may itself continue another
//! rollout, so a thread's history is a chain of rollouts, oldest first.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::HEAD_LIMIT;
use super::compression::{read_first_line, read_rollout};
use super::files::{self, ARCHIVED_SESSIONS_DIR, SESSIONS_DIR};
use super::line::HistoryBase;
use super::rollout::{self, Ancestor, Inherited};

/// The rollouts of a Codex home, live and archived, by the id in their file
/// names (a fork's base may have been archived since).
#[derive(Debug, Default)]
pub(crate) struct Rollouts(HashMap<String, PathBuf>);

impl Rollouts {
    /// The rollouts under `home`.
    pub(crate) fn of_home(home: &Path) -> Self {
        let mut found = HashMap::new();
        for dir in [ARCHIVED_SESSIONS_DIR, SESSIONS_DIR] {
            // Live ones win over archived copies of the same id.
            found.extend(files::rollouts_under(&home.join(dir), &mut Vec::new()));
        }
        Self(found)
    }

    fn get(&self, id: &str) -> Option<&Path> {
        self.0.get(id).map(PathBuf::as_path)
    }
}

/// The rollout of thread `id` in the Codex home `home`, live or archived.
pub(crate) fn find(home: &Path, id: &str) -> Option<PathBuf> {
    Rollouts::of_home(home).get(id).map(Path::to_owned)
}

/// The rollouts whose lines the history of the rollout at `path` continues,
/// newest first, found as [`inherited`] finds them: none for a rollout that
/// is not a fork by reference (and then only its first line is read).
pub(crate) fn base_files(path: &Path) -> Vec<PathBuf> {
    let Some(base) = history_base(path) else { return Vec::new() };
    let Some(home) = files::home_of(path) else { return Vec::new() };
    let rollouts = Rollouts::of_home(home);
    let own_id = path.file_name().and_then(|n| n.to_str()).and_then(files::thread_id_from_name);
    let mut seen: HashSet<String> = own_id.into_iter().collect();
    let mut found = Vec::new();
    let mut next = Some(base);
    while let Some(end) = next {
        let Some(file) = rollouts.get(&end.thread_id).filter(|_| seen.insert(end.thread_id.clone())) else { break };
        next = history_base(file);
        found.push(file.to_owned());
    }
    found
}

/// The `history_base` of the rollout at `path`, from its first line (the
/// whole file when that line is longer than a listing reads of it).
fn history_base(path: &Path) -> Option<HistoryBase> {
    let head = read_first_line(path, HEAD_LIMIT).ok()?;
    let meta = rollout::meta(&head).or_else(|| rollout::meta(&read_rollout(path).ok()?))?;
    meta.history_base
}

/// The history that a rollout whose `session_meta.history_base` is `base`
/// continues, read from `rollouts`. `own_id` is the id in the rollout's own
/// file name, so that a chain that leads back to it stops. The chain stops at
/// an ancestor that cannot be found or read, or that leads back into the
/// chain: that one is [`Inherited::missing`], and the history is what was
/// read after it.
pub(crate) fn inherited(own_id: Option<&str>, base: HistoryBase, rollouts: &Rollouts) -> Inherited {
    let mut seen: HashSet<String> = own_id.into_iter().map(ToOwned::to_owned).collect();
    let mut inherited = Inherited::default();
    let mut next = Some(base);
    while let Some(end) = next {
        let bytes = match rollouts.get(&end.thread_id) {
            Some(path) if seen.insert(end.thread_id.clone()) => read_rollout(path).ok(),
            _ => None,
        };
        let Some(bytes) = bytes else {
            inherited.missing = Some(end.thread_id);
            break;
        };
        next = rollout::meta(&bytes).and_then(|meta| meta.history_base);
        inherited.ancestors.push(Ancestor { bytes, end });
    }
    inherited.ancestors.reverse();
    inherited
}
