//! Where Gemini CLI sessions live, and which project each belongs to.
//!
//! `<gemini dir>/tmp/<project>/chats/session-<minute>-<id prefix>.jsonl`
//! (`.json` from older CLIs); `<project>` is a slug of the project folder's
//! name that `<gemini dir>/projects.json` maps the folder to and
//! `<project>/.project_root` names, or, from older CLIs, the SHA-256 of the
//! folder's path. Subagents' sessions are `chats/<session id>/<id>.jsonl`.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sess_core::FileKind;
use sha2::{Digest, Sha256};

use crate::jsonl::{entry_kind, open_regular};
use crate::listing::note_nowhere;

/// The folder of projects under the Gemini dir.
pub(crate) const TMP_DIR: &str = "tmp";
/// The folder of sessions under a project's folder.
pub(crate) const CHATS_DIR: &str = "chats";
/// The file in a project's folder that names the project's path.
const PROJECT_ROOT_FILE: &str = ".project_root";
/// The Gemini dir's map of project paths to their folders' names.
const REGISTRY_FILE: &str = "projects.json";
const PREFIX: &str = "session-";

/// How much of a file is read for its session id.
const ID_BYTES: usize = 4096;

/// The SHA-256 of `text`, in hex: how the CLI names a project by its path.
pub(crate) fn sha256_hex(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    Sha256::digest(text.as_bytes())
        .iter()
        .flat_map(|b| [char::from(HEX[usize::from(b >> 4)]), char::from(HEX[usize::from(b & 15)])])
        .collect()
}

/// Whether a file name is a session's: `session-*.jsonl` or `session-*.json`
/// (as the CLI compares them, case included).
pub(crate) fn is_session_name(name: &str) -> bool {
    name.starts_with(PREFIX) && Path::new(name).extension().is_some_and(|e| e == "jsonl" || e == "json")
}

/// The project folders under `<gemini dir>/tmp`, in name order.
pub(crate) fn project_dirs(gemini_dir: &Path, skipped: &mut Vec<(PathBuf, FileKind)>) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(gemini_dir.join(TMP_DIR)) else { return Vec::new() };
    let mut dirs = Vec::new();
    for entry in entries.flatten() {
        if !note_nowhere(&entry, skipped) && entry.path().join(CHATS_DIR).is_dir() {
            dirs.push(entry.path());
        }
    }
    dirs.sort();
    dirs
}

/// The session files of a project folder, as `(id, path)` (one per id; see
/// [`pick`]), and the session names that are not regular files.
pub(crate) fn sessions_in(project: &Path, skipped: &mut Vec<(PathBuf, FileKind)>) -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(project.join(CHATS_DIR)) else { return Vec::new() };
    let mut by_id: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        if !is_session_name(name) {
            continue;
        }
        match entry_kind(&entry) {
            Some(FileKind::Regular) | None => {}
            Some(kind) => {
                skipped.push((path, kind));
                continue;
            }
        }
        let id =
            session_id(&path).unwrap_or_else(|| name.trim_end_matches(".jsonl").trim_end_matches(".json").to_owned());
        by_id.entry(id).or_default().push(path);
    }
    let mut found: Vec<(String, PathBuf)> = by_id.into_iter().map(|(id, paths)| (id, pick(paths))).collect();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// The file to read of several with one session id: a resume in a later
/// minute than the session's file leaves a file named for that minute that
/// holds no conversation, and resuming an older CLI's `.json` writes a
/// `.jsonl` beside it. The `.jsonl` with a conversation wins, then the
/// largest.
fn pick(mut paths: Vec<PathBuf>) -> PathBuf {
    if paths.len() > 1 {
        // The `.jsonl`s first, then the larger, then by name; the first of
        // them that holds a conversation, read in that order (most often the
        // first), else the first.
        let mut ranked: Vec<_> = paths
            .drain(..)
            .map(|path| {
                let jsonl = path.extension().is_some_and(|e| e == "jsonl");
                let size = fs::metadata(&path).map_or(0, |m| m.len());
                ((jsonl, size), path)
            })
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let talks = |path: &PathBuf| super::read_file_transcript(path).is_ok_and(|t| !t.messages.is_empty());
        let at = ranked.iter().position(|(_, path)| talks(path)).unwrap_or(0);
        return ranked.swap_remove(at).1;
    }
    paths.swap_remove(0)
}

/// The `sessionId` of a session file, from its first bytes.
pub(crate) fn session_id(path: &Path) -> Option<String> {
    let mut head = Vec::with_capacity(ID_BYTES);
    open_regular(path).ok()?.take(ID_BYTES as u64).read_to_end(&mut head).ok()?;
    id_in(&head)
}

/// The value of the first `"sessionId"` key in `bytes`.
fn id_in(bytes: &[u8]) -> Option<String> {
    let key = br#""sessionId""#;
    let at = memchr::memmem::find(bytes, key)? + key.len();
    string_at(&bytes[at..])
}

/// The string after a key that ends where `rest` starts (`: "…"`); `None`
/// when there is none, it is empty, or it holds an escape.
fn string_at(rest: &[u8]) -> Option<String> {
    let rest = rest.trim_ascii_start().strip_prefix(b":")?.trim_ascii_start().strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    let id = std::str::from_utf8(&rest[..end]).ok()?;
    (!id.is_empty()).then(|| id.to_owned())
}

/// The other files of the session whose file is `path`
/// ([`Source::companions`](crate::Source::companions)): the files of the subagents'
/// sessions its tool calls ran (each call's `agentId`, found where
/// [`subagent_file`] finds it, and theirs in turn, `depth` levels deep), and
/// the other files of `chats/` with its id (found by the first characters of
/// the id in their names).
pub(crate) fn companion_files(path: &Path, depth: usize) -> Vec<PathBuf> {
    let Some(id) = session_id(path) else { return Vec::new() };
    let mut files = same_session(path, &id);
    let mut pending = vec![(path.to_owned(), id, 0)];
    while let Some((file, id, level)) = pending.pop() {
        if level >= depth {
            continue;
        }
        let Ok(bytes) = crate::jsonl::read_file(&file) else { continue };
        let key = br#""agentId""#;
        for at in memchr::memmem::find_iter(&bytes, key) {
            let Some(agent) = string_at(&bytes[at + key.len()..]) else { continue };
            let Some(subagent) = subagent_file(&file, &id, &agent) else { continue };
            if subagent != path && !files.contains(&subagent) {
                let sub_id = session_id(&subagent).unwrap_or(agent);
                files.push(subagent.clone());
                pending.push((subagent, sub_id, level + 1));
            }
        }
    }
    files
}

/// The session files beside `path` whose session id is `id`, `path` left
/// out: a file's name carries the first 8 characters of its id, and only
/// those names are opened.
fn same_session(path: &Path, id: &str) -> Vec<PathBuf> {
    let (Some(dir), Some(prefix)) = (path.parent(), id.get(..8)) else { return Vec::new() };
    let named = |name: &str| {
        let stem = name.strip_suffix(".jsonl").or_else(|| name.strip_suffix(".json")).unwrap_or(name);
        is_session_name(name) && stem.ends_with(&format!("-{prefix}"))
    };
    let mut files = crate::companions::files_in(dir, named);
    files.retain(|file| file != path && session_id(file).as_deref() == Some(id));
    files
}

/// The project folders' paths the Gemini dir's `projects.json` names, by
/// folder name.
#[derive(Debug, Default)]
pub(crate) struct Registry(HashMap<String, String>);

impl Registry {
    pub(crate) fn read(gemini_dir: &Path) -> Self {
        let Ok(bytes) = fs::read(gemini_dir.join(REGISTRY_FILE)) else { return Self::default() };
        let Ok(Value::Object(mut registry)) = serde_json::from_slice::<Value>(&bytes) else { return Self::default() };
        let Some(Value::Object(projects)) = registry.remove("projects") else { return Self::default() };
        Self(projects.into_iter().filter_map(|(path, slug)| Some((slug.as_str()?.to_owned(), path))).collect())
    }

    /// The name of the folder the registry gives the project at `path`.
    pub(crate) fn folder_of(&self, path: &str) -> Option<&str> {
        self.0.iter().find(|(_, project)| project.as_str() == path).map(|(folder, _)| folder.as_str())
    }

    /// The path of the project whose folder is named `folder`: the one the
    /// registry maps to it, or whose SHA-256 it is (an older CLI's folder).
    fn path_of(&self, folder: &str) -> Option<&str> {
        if let Some(path) = self.0.get(folder) {
            return Some(path);
        }
        let hashed = folder.len() == 64 && folder.bytes().all(|b| b.is_ascii_hexdigit());
        hashed.then(|| self.0.values().find(|path| sha256_hex(path) == folder)).flatten().map(String::as_str)
    }
}

/// The path of the project whose folder is `project`: its `.project_root`,
/// else what the registry says.
pub(crate) fn project_root(project: &Path, registry: &Registry) -> Option<String> {
    if let Ok(text) = fs::read_to_string(project.join(PROJECT_ROOT_FILE)) {
        let root = text.trim_end_matches(['\n', '\r']);
        if !root.is_empty() {
            return Some(root.to_owned());
        }
    }
    registry.path_of(project.file_name()?.to_str()?).map(ToOwned::to_owned)
}

/// The project folder a session file is in: the folder above its `chats`
/// ancestor.
pub(crate) fn project_of(path: &Path) -> Option<&Path> {
    path.ancestors().find(|a| a.file_name().is_some_and(|n| n == CHATS_DIR))?.parent()
}

/// The Gemini dir a project folder is in (`<gemini dir>/tmp/<project>`).
pub(crate) fn gemini_dir_of(project: &Path) -> Option<&Path> {
    let tmp = project.parent()?;
    (tmp.file_name()? == TMP_DIR).then_some(tmp.parent()?)
}

/// The file of the subagent session `agent` that a session of `session_id`
/// in `path` started: `chats/<session id>/<agent>.jsonl`, else beside `path`.
pub(crate) fn subagent_file(path: &Path, session_id: &str, agent: &str) -> Option<PathBuf> {
    let safe = |part: &str| !part.is_empty() && !part.contains(['/', '\\']) && part != "." && part != "..";
    if !safe(agent) {
        return None;
    }
    let name = format!("{agent}.jsonl");
    let chats = path.ancestors().find(|a| a.file_name().is_some_and(|n| n == CHATS_DIR));
    let nested = chats.filter(|_| safe(session_id)).map(|c| c.join(session_id).join(&name));
    let beside = path.parent().map(|p| p.join(&name));
    nested.into_iter().chain(beside).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_id_is_read_from_either_format() {
        assert_eq!(id_in(br#"{"sessionId":"abc-1","projectHash":"h"}"#).as_deref(), Some("abc-1"));
        assert_eq!(id_in(b"{\n  \"sessionId\" : \"abc-2\",\n").as_deref(), Some("abc-2"));
        assert_eq!(id_in(br#"{"id":"x"}"#), None);
        assert_eq!(id_in(br#"{"sessionId":""}"#), None);
    }

    #[test]
    fn names_and_folders() {
        assert!(is_session_name("session-2026-12-01T08-55-cd688143.jsonl"));
        assert!(is_session_name("session-2025-09-30T14-11-3bacc8a0.json"));
        assert!(!is_session_name("checkpoint-x.json") && !is_session_name("logs.json"));
        let path = Path::new("/h/.gemini/tmp/alpha/chats/p/a.jsonl");
        assert_eq!(project_of(path), Some(Path::new("/h/.gemini/tmp/alpha")));
        assert_eq!(gemini_dir_of(Path::new("/h/.gemini/tmp/alpha")), Some(Path::new("/h/.gemini")));
        assert_eq!(
            sha256_hex("/home/dev/projects/alpha"),
            "5b0ca1eb8975e26b9712cec1d509c112d9b15c3bc82f94a14aaf87a5825df208"
        );
    }

    #[test]
    fn a_hashed_folder_is_found_in_the_registry_by_its_hash() {
        let registry = Registry(HashMap::from([("alpha".to_owned(), "/home/dev/projects/alpha".to_owned())]));
        assert_eq!(registry.path_of("alpha"), Some("/home/dev/projects/alpha"));
        let hashed = sha256_hex("/home/dev/projects/alpha");
        assert_eq!(registry.path_of(&hashed), Some("/home/dev/projects/alpha"));
        assert_eq!(registry.path_of("beta"), None);
    }
}
