//! Where Qwen Code keeps sessions: the runtime folder (`$QWEN_RUNTIME_DIR`,
//! else `$QWEN_HOME`, else `~/.qwen`), a folder per project named after its
//! root, `chats/<session id>.jsonl` in it (`chats/archive/` for archived
//! sessions) and `subagents/<session id>/agent-*.jsonl` beside.

use std::fs;
use std::path::{Path, PathBuf};

use sess_core::FileKind;

use crate::env::Env;
use crate::jsonl::entry_kind;
use crate::listing::FoundFiles;

/// The folders that may hold sessions, each with a `projects` folder:
/// `$QWEN_RUNTIME_DIR` when set (where the CLI writes while it is set), and
/// `$QWEN_HOME` or `~/.qwen` (where it writes otherwise). A value starting
/// with `~/` is taken from the home folder, as the CLI does.
pub fn runtime_dirs(env: &Env) -> Vec<PathBuf> {
    let expand = |name: &str| {
        env.var(name).map(|value| {
            let value = value.to_string_lossy();
            match value.strip_prefix("~/").or_else(|| value.strip_prefix("~\\")) {
                Some(rest) => env.home().join(rest),
                None if value == "~" => env.home().to_owned(),
                None => PathBuf::from(value.as_ref()),
            }
        })
    };
    let home = expand("QWEN_HOME").unwrap_or_else(|| env.home().join(".qwen"));
    let mut dirs: Vec<PathBuf> = expand("QWEN_RUNTIME_DIR").into_iter().collect();
    if !dirs.contains(&home) {
        dirs.push(home);
    }
    dirs
}

/// The project folder name for a project root: every UTF-16 code unit outside
/// ASCII `[A-Za-z0-9]` becomes `-` (the CLI's `replace(/[^a-zA-Z0-9]/g, "-")`;
/// an emoji gives two dashes), with no length limit.
pub fn project_dir_name(root: &str) -> String {
    crate::project_folders::folder_name(root)
}

/// Whether `stem` names a session as the CLI reads them: 32 to 36 hex digits
/// and dashes (a UUID).
fn is_session_stem(stem: &str) -> bool {
    (32..=36).contains(&stem.len()) && stem.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// The session id in a file name of a `chats` folder: `<id>.jsonl`.
fn session_stem(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl").filter(|s| is_session_stem(s))
}

/// The project folders under `dir/projects`, sorted; none when it is missing
/// or unreadable. Links there that lead to nothing go to `skipped`.
pub(super) fn project_folders(dir: &Path, skipped: &mut Vec<(PathBuf, FileKind)>) -> Vec<PathBuf> {
    crate::project_folders::subfolders(&dir.join("projects"), skipped)
}

/// Every session file of every runtime folder: `(session id, path)`, sorted by
/// path within each project; a session both active and archived is listed once
/// (the active file).
pub fn find_session_files(dirs: &[PathBuf]) -> FoundFiles {
    let mut found = FoundFiles::default();
    for dir in dirs {
        for folder in project_folders(dir, &mut found.skipped) {
            session_files_in(&folder, &mut found);
        }
    }
    found
}

/// The session files of one project folder, added to `found`: `chats/*.jsonl`,
/// then the archived ones not also active. A name that cannot be inspected (a
/// dangling link) is kept, so that reading it reports the problem; other files
/// that are not regular (a FIFO, a device) go to `found.skipped`.
pub(super) fn session_files_in(project: &Path, found: &mut FoundFiles) {
    let chats = project.join("chats");
    let active_from = found.files.len();
    found.add_folder(&chats, session_stem);
    let active: Vec<String> = found.files[active_from..].iter().map(|(id, _)| id.clone()).collect();
    found.add_folder(&chats.join("archive"), |name| session_stem(name).filter(|id| !active.iter().any(|a| a == id)));
}

/// The subagent transcripts of the session file at `path`
/// (`<project>/subagents/<session id>/agent-*.jsonl`), sorted; none when the
/// file is not in a project's `chats` folder or the session has none.
pub(super) fn subagent_files(path: &Path, session_id: &str) -> Vec<PathBuf> {
    let mut chats = path.parent();
    if chats.and_then(Path::file_name).is_some_and(|n| n == "archive") {
        chats = chats.and_then(Path::parent);
    }
    let Some(project) = chats.filter(|c| c.file_name().is_some_and(|n| n == "chats")).and_then(Path::parent) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(project.join("subagents").join(session_id)) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("agent-") && name.ends_with(".jsonl") && entry_kind(e) == Some(FileKind::Regular)
        })
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env::new("/home/u", vars.iter().map(|(k, v)| ((*k).to_owned(), OsString::from(v))))
    }

    #[test]
    fn runtime_folders_follow_the_variables() {
        assert_eq!(runtime_dirs(&env(&[])), [PathBuf::from("/home/u/.qwen")]);
        assert_eq!(runtime_dirs(&env(&[("QWEN_HOME", "~/q")])), [PathBuf::from("/home/u/q")]);
        assert_eq!(
            runtime_dirs(&env(&[("QWEN_HOME", "/q"), ("QWEN_RUNTIME_DIR", "/r")])),
            [PathBuf::from("/r"), PathBuf::from("/q")]
        );
        assert_eq!(runtime_dirs(&env(&[("QWEN_RUNTIME_DIR", "/home/u/.qwen")])), [PathBuf::from("/home/u/.qwen")]);
    }

    #[test]
    fn project_folder_names() {
        assert_eq!(project_dir_name("/home/dev/projects/alpha"), "-home-dev-projects-alpha");
        assert_eq!(project_dir_name("/home/dev/projects/Über 项目 🚀"), "-home-dev-projects--ber------");
        let long = format!("/{}", "a".repeat(300));
        assert_eq!(project_dir_name(&long).len(), 301);
    }

    #[test]
    fn session_names() {
        assert!(is_session_stem("8d18b7bf-66bb-4ae3-871d-ef918259230d"));
        assert!(is_session_stem("8d18b7bf66bb4ae3871def918259230d"));
        assert!(!is_session_stem("8d18b7bf-66bb-4ae3-871d-ef918259230d.ledger"));
        assert!(!is_session_stem("notes"));
    }

    #[test]
    fn active_archived_and_subagent_files() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("projects").join("-p");
        let (a, b) = ("aaaaaaaa-0000-0000-0000-000000000000", "bbbbbbbb-0000-0000-0000-000000000000");
        for file in [
            format!("chats/{a}.jsonl"),
            format!("chats/{a}.runtime.json"),
            format!("chats/archive/{a}.jsonl"),
            format!("chats/archive/{b}.jsonl"),
            format!("subagents/{a}/agent-x.jsonl"),
            format!("subagents/{a}/agent-x.meta.json"),
            "chats/journal.jsonl".to_owned(),
        ] {
            let path = project.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::File::options().create_new(true).write(true).open(path).unwrap();
        }
        let found = find_session_files(&[dir.path().to_owned()]);
        let ids: Vec<&str> = found.files.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, [a, b]);
        assert!(found.files[1].1.ends_with(format!("chats/archive/{b}.jsonl")));
        assert_eq!(subagent_files(&found.files[0].1, a), [project.join(format!("subagents/{a}/agent-x.jsonl"))]);
        assert!(subagent_files(&found.files[1].1, b).is_empty());
        assert!(subagent_files(Path::new("/elsewhere/x.jsonl"), a).is_empty());
    }
}
