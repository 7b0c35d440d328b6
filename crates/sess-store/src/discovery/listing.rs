//! Listing the sessions of a directory or of a whole sessions tree.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::summary::{MessageText, SessionSummary, summarize};
use crate::storage::{FileKind, SessionStorage};

/// Below this many files the listing reads them on the calling thread.
const PARALLEL_THRESHOLD: usize = 32;

/// The sessions directly in `dir` (`*.jsonl`, not recursive), newest first.
///
/// Like pi-mono's `SessionManager.list`: a missing or unreadable `dir` gives an
/// empty list, a file that cannot be read or whose first value is not a session
/// header is left out. Sorted by [`SessionSummary::modified_ms`] descending,
/// then by path.
pub fn list_sessions(storage: &dyn SessionStorage, dir: &Path) -> Vec<SessionSummary> {
    list_sessions_with(storage, dir, MessageText::Collect)
}

/// [`list_sessions`], gathering the messages' text or not.
pub fn list_sessions_with(storage: &dyn SessionStorage, dir: &Path, text: MessageText) -> Vec<SessionSummary> {
    summarize_sessions(storage, &find_session_files(storage, dir, Depth::One).files, text)
}

/// Every session under `sessions_root`, at any depth (`**/*.jsonl`, as xcsh's
/// `listAll` globs), newest first; otherwise as [`list_sessions`].
/// Subdirectories that cannot be listed are skipped; symbolic links to
/// directories are not followed.
pub fn list_all(storage: &dyn SessionStorage, sessions_root: &Path) -> Vec<SessionSummary> {
    list_all_with(storage, sessions_root, MessageText::Collect)
}

/// [`list_all`], gathering the messages' text or not.
pub fn list_all_with(storage: &dyn SessionStorage, sessions_root: &Path, text: MessageText) -> Vec<SessionSummary> {
    summarize_sessions(storage, &session_files_under(storage, sessions_root), text)
}

/// The session files (`*.jsonl`) under `sessions_root` at any depth, found
/// without reading any, in no particular order. Subdirectories that cannot be
/// listed are skipped; symbolic links to directories are not followed; names
/// that are not regular files are left out (see [`find_session_files`]).
pub fn session_files_under(storage: &dyn SessionStorage, sessions_root: &Path) -> Vec<PathBuf> {
    find_session_files(storage, sessions_root, Depth::All).files
}

/// How deep [`find_session_files`] looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// The files directly in the folder.
    One,
    /// Every folder below it too.
    All,
}

/// What a walk for session files found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoundFiles {
    /// The session files (regular files named `*.jsonl`, links followed).
    pub files: Vec<PathBuf>,
    /// Paths named `*.jsonl` that are not regular files (a FIFO, a device, a
    /// folder or a dangling link), and links of any name that lead to nothing
    /// (a loop, or dangling: where a folder of sessions may be): never opened,
    /// so a FIFO cannot block the walk's readers. Callers warn about them.
    pub skipped: Vec<(PathBuf, FileKind)>,
}

/// The session files in `dir` (at the given depth), found without reading
/// any, in no particular order, and the `*.jsonl` names that are not regular
/// files and the links that lead to nothing. Folders that cannot be listed
/// are skipped; symbolic links to folders are not followed.
pub fn find_session_files(storage: &dyn SessionStorage, dir: &Path, depth: Depth) -> FoundFiles {
    let mut found = FoundFiles::default();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = storage.list_dir(&dir) else { continue };
        for entry in entries {
            if entry.is_dir {
                if depth == Depth::All {
                    pending.push(entry.path);
                }
            } else if is_session_file(&entry.path) {
                if entry.kind.is_regular() {
                    found.files.push(entry.path);
                } else {
                    found.skipped.push((entry.path, entry.kind));
                }
            } else if entry.kind == FileKind::Symlink {
                // A link to nothing (a loop, or dangling) where a project
                // folder may be: a folder that cannot be read.
                found.skipped.push((entry.path, entry.kind));
            }
        }
    }
    found
}

/// Whether the file name ends with `.jsonl`.
pub(super) fn is_session_file(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name.as_encoded_bytes().ends_with(b".jsonl"))
}

/// Newest first, then by path so the order is stable.
pub(super) fn sort_newest_first(sessions: &mut [SessionSummary]) {
    sessions.sort_by(|a, b| b.modified_ms.cmp(&a.modified_ms).then_with(|| a.path.cmp(&b.path)));
}

/// The summaries of `files` (found by [`find_session_files`]), newest first;
/// files that cannot be read or have no session header are left out.
pub fn summarize_sessions(storage: &dyn SessionStorage, files: &[PathBuf], text: MessageText) -> Vec<SessionSummary> {
    let mut sessions = summarize_all(storage, files, text);
    sort_newest_first(&mut sessions);
    sessions
}

/// Summarises `files`, on several threads when there are many: each file is
/// read once, and files are independent.
fn summarize_all(storage: &dyn SessionStorage, files: &[PathBuf], text: MessageText) -> Vec<SessionSummary> {
    let threads =
        std::thread::available_parallelism().map_or(1, NonZeroUsize::get).min(files.len() / PARALLEL_THRESHOLD);
    if threads <= 1 {
        return files.iter().filter_map(|file| summarize(storage, file, text)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut found = Vec::new();
        while let Some(file) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
            found.extend(summarize(storage, file, text));
        }
        found
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        let mut sessions = Vec::with_capacity(files.len());
        for worker in workers {
            match worker.join() {
                Ok(found) => sessions.extend(found),
                // A panic in a worker is a bug; surface it on the caller's thread.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        sessions
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;
    use rstest::rstest;

    use super::*;
    use crate::discovery::test_storage::{ClockStorage, Layout as _};

    fn session(id: &str, activity_ms: u64) -> String {
        format!(
            "{{\"type\":\"session\",\"id\":\"{id}\"}}\n{{\"type\":\"message\",\"id\":\"m\",\"message\":{{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":{activity_ms}}}}}\n"
        )
    }

    fn ids(sessions: &[SessionSummary]) -> Vec<&str> {
        sessions.iter().map(|s| s.id.as_str()).collect()
    }

    fn storage() -> ClockStorage {
        let storage = ClockStorage::new();
        storage
            .file("/root/--p--/b.jsonl", &session("b", 3_000), 1)
            .file("/root/--p--/a.jsonl", &session("a", 5_000), 1)
            .file("/root/--p--/tie-2.jsonl", &session("tie2", 4_000), 1)
            .file("/root/--p--/tie-1.jsonl", &session("tie1", 4_000), 1)
            .file("/root/--p--/bad.jsonl", "{\"type\":\"message\",\"id\":\"x\"}\n", 1)
            .file("/root/--p--/notes.txt", &session("txt", 9_000), 1)
            .file("/root/--p--/nested/deep.jsonl", &session("deep", 8_000), 1)
            .file("/root/--q--/q.jsonl", &session("q", 1_000), 1)
            .file("/root/top.jsonl", &session("top", 2_000), 1)
            .dir("/root/--p--/empty.jsonl");
        storage
    }

    #[test]
    fn lists_one_directory_newest_first() {
        let listed = list_sessions(&storage(), Path::new("/root/--p--"));
        assert_eq!(ids(&listed), ["a", "tie1", "tie2", "b"]);
    }

    #[test]
    fn lists_everything_below_a_root() {
        let listed = list_all(&storage(), Path::new("/root"));
        assert_eq!(ids(&listed), ["deep", "a", "tie1", "tie2", "b", "top", "q"]);
    }

    #[test]
    fn files_that_are_not_regular_are_skipped_and_reported() {
        let storage = storage();
        storage.add_special(Path::new("/root/--p--/pipe.jsonl"), FileKind::Fifo);
        storage.add_special(Path::new("/root/--q--/null.jsonl"), FileKind::CharDevice);
        storage.add_special(Path::new("/root/--q--/pipe.txt"), FileKind::Fifo);
        let found = find_session_files(&storage, Path::new("/root"), Depth::All);
        let mut skipped = found.skipped.clone();
        skipped.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            skipped,
            [
                (PathBuf::from("/root/--p--/pipe.jsonl"), FileKind::Fifo),
                (PathBuf::from("/root/--q--/null.jsonl"), FileKind::CharDevice)
            ]
        );
        assert!(!found.files.iter().any(|f| f.ends_with("pipe.jsonl") || f.ends_with("null.jsonl")));
        assert_eq!(ids(&list_all(&storage, Path::new("/root"))), ["deep", "a", "tie1", "tie2", "b", "top", "q"]);
        assert_eq!(ids(&list_sessions(&storage, Path::new("/root/--p--"))), ["a", "tie1", "tie2", "b"]);
        let one = find_session_files(&storage, Path::new("/root/--p--"), Depth::One);
        assert_eq!(one.skipped, [(PathBuf::from("/root/--p--/pipe.jsonl"), FileKind::Fifo)]);
    }

    #[rstest]
    #[case::missing_dir("/nowhere")]
    #[case::a_file("/root/top.jsonl")]
    fn unlistable_dirs_are_empty(#[case] dir: &str) {
        assert_eq!(list_sessions(&storage(), Path::new(dir)), []);
        assert_eq!(list_all(&storage(), Path::new(dir)), []);
    }

    #[test]
    fn many_files_give_the_same_result_in_parallel() {
        let storage = ClockStorage::new();
        for i in 0..200u64 {
            storage.file(&format!("/many/{i:03}.jsonl"), &session(&format!("s{i:03}"), 1_000 + i % 7), 1);
        }
        storage.file("/many/zzz.jsonl", "not a session\n", 1);
        let listed = list_sessions(&storage, Path::new("/many"));
        let mut expected: Vec<SessionSummary> = (0..200u64)
            .filter_map(|i| summarize(&storage, Path::new(&format!("/many/{i:03}.jsonl")), MessageText::Collect))
            .collect();
        sort_newest_first(&mut expected);
        assert_eq!(listed.len(), 200);
        assert_eq!(listed, expected);
    }

    #[rstest]
    #[case::session("/a/x.jsonl", true)]
    #[case::other_extension("/a/x.json", false)]
    #[case::temp_file("/a/.x.jsonl.abc.tmp", false)]
    #[case::bare_extension("/a/.jsonl", true)]
    fn session_file_names(#[case] path: &str, #[case] expected: bool) {
        assert_eq!(is_session_file(Path::new(path)), expected);
    }
}
