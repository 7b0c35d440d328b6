//! Where rollouts live: `<codex home>/sessions/YYYY/MM/DD/rollout-….jsonl[.zst]`,
//! the thread id in their names, and the Codex home a rollout belongs to.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use sess_core::FileKind;

use super::compression::ZST_SUFFIX;
use crate::jsonl::entry_kind;
use crate::listing::note_nowhere;

/// The folder of live sessions under the Codex home.
pub(crate) const SESSIONS_DIR: &str = "sessions";
/// The folder of archived sessions under the Codex home.
pub(crate) const ARCHIVED_SESSIONS_DIR: &str = "archived_sessions";

const PREFIX: &str = "rollout-";
const PLAIN_SUFFIX: &str = ".jsonl";

/// The rollouts under `dir`, found recursively, as `(thread id, path)` sorted
/// by path. When both `x.jsonl` and `x.jsonl.zst` exist only the plain file is
/// returned. Folders that are missing or unreadable are skipped, and so are
/// rollout names that are not regular files (a FIFO, a device): those go to
/// `skipped`.
pub(crate) fn rollouts_under(dir: &Path, skipped: &mut Vec<(PathBuf, FileKind)>) -> Vec<(String, PathBuf)> {
    // Keyed by the plain name, so a `.zst` twin lands on the same entry.
    let mut found: BTreeMap<PathBuf, (String, PathBuf)> = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(own) = entry.file_type() else { continue };
            if own.is_dir() {
                pending.push(path);
                continue;
            }
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let Some(id) = thread_id_from_name(name) else {
                // A date folder that is a link to nothing cannot be read.
                note_nowhere(&entry, skipped);
                continue;
            };
            match entry_kind(&entry) {
                Some(FileKind::Regular | FileKind::Symlink) | None => {}
                Some(kind) => {
                    skipped.push((path, kind));
                    continue;
                }
            }
            let compressed = name.ends_with(ZST_SUFFIX);
            let key =
                if compressed { path.with_file_name(&name[..name.len() - ZST_SUFFIX.len()]) } else { path.clone() };
            // The plain file wins over its compressed twin, whichever comes first.
            if !(compressed && found.contains_key(&key)) {
                found.insert(key, (id, path));
            }
        }
    }
    found.into_values().collect()
}

/// The thread id in a rollout file name,
/// `rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl` or `….jsonl.zst`: the trailing
/// UUID; else the `<id>` after the time Codex puts first (a thread id that is
/// not a UUID); else everything after `rollout-`. `None` when the name is not
/// a rollout's.
pub(crate) fn thread_id_from_name(name: &str) -> Option<String> {
    let stem = name.strip_suffix(ZST_SUFFIX).unwrap_or(name);
    let stem = stem.strip_prefix(PREFIX)?.strip_suffix(PLAIN_SUFFIX)?;
    if stem.is_empty() {
        return None;
    }
    let uuid = stem.len().checked_sub(36).and_then(|start| stem.get(start..)).filter(|tail| is_uuid(tail));
    let after_time =
        || stem.get(..TIME_PREFIX.len()).filter(|time| is_time_prefix(time)).map(|_| &stem[TIME_PREFIX.len()..]);
    Some(uuid.or_else(|| after_time().filter(|id| !id.is_empty())).unwrap_or(stem).to_owned())
}

/// The shape of the time a rollout's name starts with (digits as `0`).
const TIME_PREFIX: &str = "0000-00-00T00-00-00-";

/// Whether `text` is a time in [`TIME_PREFIX`]'s shape.
fn is_time_prefix(text: &str) -> bool {
    text.len() == TIME_PREFIX.len()
        && text
            .bytes()
            .zip(TIME_PREFIX.bytes())
            .all(|(c, shape)| if shape == b'0' { c.is_ascii_digit() } else { c == shape })
}

/// A rollout's thread id, by the one rule of every verb: the id its name
/// gives ([`thread_id_from_name`]), which names the thread even when a copied
/// or renamed rollout's `session_meta` names another, and which the resolver
/// finds it by; `None` for a file not named as a rollout.
pub(crate) fn thread_id_of(path: &std::path::Path) -> Option<String> {
    path.file_name().and_then(|n| n.to_str()).and_then(thread_id_from_name)
}

/// Whether `text` is a hyphenated UUID (8-4-4-4-12 hex digits).
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text
            .char_indices()
            .all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { c == '-' } else { c.is_ascii_hexdigit() })
}

/// The Codex home a rollout belongs to: the parent of the nearest ancestor
/// folder named `sessions` or `archived_sessions`.
pub(crate) fn home_of(rollout: &Path) -> Option<&Path> {
    rollout
        .ancestors()
        .skip(1)
        .find(|dir| dir.file_name().is_some_and(|n| n == SESSIONS_DIR || n == ARCHIVED_SESSIONS_DIR))
        .and_then(Path::parent)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use super::*;

    const UUID: &str = "0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81";

    #[test]
    fn thread_ids_come_from_the_trailing_uuid() {
        let name = format!("rollout-2026-08-20T10-02-11-{UUID}.jsonl");
        assert_eq!(thread_id_from_name(&name).as_deref(), Some(UUID));
        assert_eq!(thread_id_from_name(&format!("{name}.zst")).as_deref(), Some(UUID));
        assert_eq!(thread_id_from_name("rollout-odd.jsonl").as_deref(), Some("odd"));
        assert_eq!(thread_id_from_name("rollout-2026-11-30T09-46-17-my-thread.jsonl").as_deref(), Some("my-thread"));
        assert_eq!(thread_id_from_name("rollout-2026-11-30T09-46-17-.jsonl").as_deref(), Some("2026-11-30T09-46-17-"));
        for not_a_rollout in
            ["rollout-.jsonl", "session.jsonl", "rollout-x.json", "rollout-x.jsonl.gz", "rollout-x.zst"]
        {
            assert_eq!(thread_id_from_name(not_a_rollout), None, "{not_a_rollout}");
        }
    }

    #[test]
    fn the_plain_file_wins_over_its_compressed_twin() {
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2026/08/20");
        fs::create_dir_all(&day).unwrap();
        let both = format!("rollout-2026-08-20T10-02-11-{UUID}.jsonl");
        let only_zst = "rollout-2026-08-20T11-00-00-0199c3a1-0000-7000-8000-000000000002.jsonl.zst";
        for name in [both.clone(), format!("{both}.zst"), only_zst.to_owned(), "notes.txt".to_owned()] {
            fs::write(day.join(name), b"").unwrap();
        }
        let found = rollouts_under(&home.path().join("sessions"), &mut Vec::new());
        assert_eq!(
            found,
            vec![
                (UUID.to_owned(), day.join(&both)),
                ("0199c3a1-0000-7000-8000-000000000002".to_owned(), day.join(only_zst)),
            ]
        );
    }

    #[test]
    fn a_missing_folder_has_no_rollouts() {
        assert!(rollouts_under(Path::new("/nonexistent/sess-codex-test"), &mut Vec::new()).is_empty());
    }

    #[test]
    fn the_home_is_above_sessions_or_archived_sessions() {
        let live = Path::new("/h/.codex/sessions/2026/08/20/rollout-x.jsonl");
        assert_eq!(home_of(live), Some(Path::new("/h/.codex")));
        let archived = Path::new("/h/.codex/archived_sessions/rollout-x.jsonl");
        assert_eq!(home_of(archived), Some(Path::new("/h/.codex")));
        assert_eq!(home_of(Path::new("/tmp/rollout-x.jsonl")), None);
    }
}
