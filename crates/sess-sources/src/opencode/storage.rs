//! OpenCode's JSON files (before 1.2): `storage/` in the data folder, one
//! file per session, message and part:
//!
//! - `storage/session/<project id>/<session id>.json`
//! - `storage/message/<session id>/<message id>.json`
//! - `storage/part/<message id>/<part id>.json`
//!
//! A message or part file holds the same object as the `data` of a row of
//! the database, with its own id and its session's (and message's) ids.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sess_core::FileKind;

use super::records::{RawMessage, RawMessages, RawPart, SessionRecord, object};
use crate::error::{Error, Result};
use crate::jsonl::entry_kind;

/// The folder of the files, in the data folder.
pub(crate) const STORAGE_DIR: &str = "storage";

/// The session files under `storage`, as `(session id, path)` in path order,
/// from their names (`ses_….json`) alone; names that are not regular files go
/// to `skipped`.
pub(crate) fn session_files(storage: &Path, skipped: &mut Vec<(PathBuf, FileKind)>) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    for project in sorted_entries(&storage.join("session")) {
        if !project.is_dir() {
            continue;
        }
        for entry in fs::read_dir(&project).into_iter().flatten().flatten() {
            let path = entry.path();
            let Some(id) = path.file_name().and_then(|n| n.to_str()).and_then(session_id_of) else { continue };
            match entry_kind(&entry) {
                Some(FileKind::Regular | FileKind::Symlink) | None => found.push((id.to_owned(), path)),
                Some(kind) => skipped.push((path, kind)),
            }
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// The session id in a session file's name: `ses_….json`.
pub(crate) fn session_id_of(name: &str) -> Option<&str> {
    name.strip_suffix(".json").filter(|id| id.starts_with("ses_") && id.len() > 4)
}

/// The `storage/` folder a session file belongs to
/// (`storage/session/<project>/<id>.json`).
pub(crate) fn storage_of(session_file: &Path) -> Option<&Path> {
    let storage = session_file.parent()?.parent()?;
    (storage.file_name()? == "session").then(|| storage.parent()).flatten()
}

/// The record in the session file at `path`.
pub(crate) fn read_session(path: &Path) -> Result<SessionRecord> {
    let value = object(&read_text(path)?).map_err(|message| Error::NotARecord { path: path.to_owned(), message })?;
    SessionRecord::from_json(&value)
        .ok_or_else(|| Error::NotARecord { path: path.to_owned(), message: "it has no `id`".to_owned() })
}

/// The messages of session `id` under `storage`, with their parts, in
/// OpenCode's order. A file that cannot be read or is not a JSON object is
/// skipped and reported; a missing folder is no messages.
pub(crate) fn messages(storage: &Path, id: &str) -> RawMessages {
    let mut raw = RawMessages::default();
    let mut number = 0;
    for path in sorted_entries(&storage.join("message").join(id)) {
        let Some(stem) = json_stem(&path) else { continue };
        number += 1;
        match read_object(&path) {
            Ok(data) => {
                let created = data.get("time").and_then(|t| t.get("created")).and_then(Value::as_i64);
                let id = data.get("id").and_then(Value::as_str).unwrap_or(&stem).to_owned();
                raw.messages.push(RawMessage { id, created: created.unwrap_or(0), data, parts: Vec::new() });
            }
            Err(err) => raw.skip(number, &format!("message {stem}"), err),
        }
    }
    let mut parts = Vec::new();
    for (index, message) in raw.messages.iter().enumerate() {
        for path in sorted_entries(&storage.join("part").join(&message.id)) {
            let Some(stem) = json_stem(&path) else { continue };
            number += 1;
            parts.push((index, number, stem, read_object(&path)));
        }
    }
    for (index, number, stem, read) in parts {
        match read {
            Ok(data) => {
                let id = data.get("id").and_then(Value::as_str).unwrap_or(&stem).to_owned();
                raw.messages[index].parts.push(RawPart { id, data });
            }
            Err(err) => raw.skip(number, &format!("part {stem}"), err),
        }
    }
    raw.sort();
    raw
}

/// The files under `storage` that the transcript of session `id` is read
/// from besides its own file, in no particular order: its message files, the
/// part files of each message (found by the message's `id`, as [`messages`]
/// finds them), and, for each session a tool part names as the subagent it
/// ran (`state.metadata.sessionId`), that session's file and its own such
/// files. Files that cannot be read are listed, not followed.
pub(crate) fn files_of_session(storage: &Path, id: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut sessions = vec![id.to_owned()];
    let mut at = 0;
    while let Some(session) = sessions.get(at).cloned() {
        at += 1;
        if at > 1 {
            files.extend(session_file_of(storage, &session));
        }
        for message in sorted_entries(&storage.join("message").join(&session)) {
            let Some(stem) = json_stem(&message) else { continue };
            let id = read_object(&message).ok().and_then(|data| data.get("id")?.as_str().map(ToOwned::to_owned));
            files.push(message);
            for part in sorted_entries(&storage.join("part").join(id.unwrap_or(stem))) {
                if json_stem(&part).is_none() {
                    continue;
                }
                let child = read_object(&part).ok().and_then(|data| {
                    data.get("state")?.get("metadata")?.get("sessionId")?.as_str().map(ToOwned::to_owned)
                });
                files.push(part);
                if let Some(child) = child.filter(|child| !sessions.contains(child)) {
                    sessions.push(child);
                }
            }
        }
    }
    files
}

/// The file of session `id` in any project folder of `storage`.
fn session_file_of(storage: &Path, id: &str) -> Option<PathBuf> {
    let name = format!("{id}.json");
    sorted_entries(&storage.join("session")).into_iter().map(|project| project.join(&name)).find(|p| p.is_file())
}

/// The JSON object in the file at `path`, or why there is none.
fn read_object(path: &Path) -> std::result::Result<Value, String> {
    object(&read_text(path).map_err(|err| err.to_string())?)
}

/// The name of a `.json` file without the suffix.
fn json_stem(path: &Path) -> Option<String> {
    path.file_name()?.to_str()?.strip_suffix(".json").map(ToOwned::to_owned)
}

/// The entries of `dir` in name order (none when it cannot be read).
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    entries.sort();
    entries
}

/// A file's text (bytes that are not UTF-8 replaced); only regular files are
/// opened.
fn read_text(path: &Path) -> Result<String> {
    let metadata = fs::metadata(path).map_err(|err| Error::io(path, err))?;
    if !metadata.is_file() {
        return Err(Error::NotASessionFile { path: path.to_owned(), kind: FileKind::of(metadata.file_type()) });
    }
    let bytes = fs::read(path).map_err(|err| Error::io(path, err))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
