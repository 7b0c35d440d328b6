//! The task folders of Cline's VS Code extension, which its descendants keep
//! in the same shape (Roo Code, Kilo Code's legacy extension): one API,
//! parameterised by the extension, that each of their sources calls.
//!
//! An extension keeps its data in `<VS Code user dir>/globalStorage/<extension
//! id>/` (a *storage folder*): `tasks/<task id>/` per task, with
//! `api_conversation_history.json` (the conversation: the session's main
//! file), `ui_messages.json` (what the panel showed: times, errors,
//! compactions, usage), `task_metadata.json` (files in context, models) and,
//! for Roo Code, `history_item.json` (the task's entry of the history:
//! workspace, tokens, cost). Cline keeps the history of every task in
//! `state/taskHistory.json` of the storage folder. The task id is the
//! folder's name (Cline's are the start time in ms).
//!
//! ```ignore
//! const TASKS: Extension = Extension { id: "rooveterinaryinc.roo-cline", source: SOURCE };
//! let storage = TASKS.storage_dirs(env);
//! let found = find(&storage);                 // FoundFiles: (task id, …/api_conversation_history.json)
//! let listing = TASKS.list(&storage, scope);   // Listing
//! let transcript = TASKS.load(path)?;          // Transcript
//! let indexed = TASKS.index(path, bytes);      // Result<Indexed, String>
//! let companions = companions(path);           // the task's other files it reads
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sess_core::{IssueKind, LineIssue, format_iso_millis};

use super::convert;
use super::ui::{self, Ui};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::Indexed;
use crate::jsonl::read_file;
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, active_ms, modified_ms, note_nowhere};
use crate::shared_file::SharedFiles;
use crate::source::SourceKind;
use crate::transcript::{Transcript, finish_pending};
use crate::usage::{Call, Counter};

/// The conversation of a task: its main file.
pub(crate) const HISTORY: &str = "api_conversation_history.json";
/// The panel's records of a task.
pub(crate) const UI: &str = "ui_messages.json";
/// The files and models of a task.
pub(crate) const METADATA: &str = "task_metadata.json";
/// Roo Code's entry of the history, per task.
pub(crate) const ITEM: &str = "history_item.json";
/// The folder of tasks in a storage folder.
pub(crate) const TASKS: &str = "tasks";
/// Cline's history of every task, in a storage folder.
pub(crate) const INDEX: &str = "state/taskHistory.json";

/// The VS Code applications whose user folders hold extensions' storage:
/// VS Code, its Insiders build, and the forks Cursor, Windsurf and `VSCodium`.
const APPS: [&str; 5] = ["Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium"];

/// An extension whose tasks are kept in Cline's task folders.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extension {
    /// Its id, the name of its storage folder: `saoudrizwan.claude-dev`.
    pub(crate) id: &'static str,
    /// The source its sessions are listed and loaded as.
    pub(crate) source: SourceKind,
}

/// The VS Code user folders of `env`: `<config>/<app>/User` for each app
/// (`$XDG_CONFIG_HOME` or `~/.config`; on macOS `~/Library/Application
/// Support`; on Windows `%APPDATA%`), and the VS Code server's
/// `~/.vscode-server/data/User` (a remote or WSL machine), in that order.
pub(crate) fn user_dirs(env: &Env) -> Vec<PathBuf> {
    let mut configs =
        vec![env.path_or_home("XDG_CONFIG_HOME", ".config"), env.home().join("Library/Application Support")];
    configs.extend(env.path("APPDATA"));
    let mut dirs: Vec<PathBuf> =
        configs.iter().flat_map(|config| APPS.iter().map(move |app| config.join(app).join("User"))).collect();
    dirs.push(env.home().join(".vscode-server/data/User"));
    dirs.dedup();
    dirs
}

impl Extension {
    /// The extension's storage folders in `env`: `globalStorage/<id>` of
    /// every VS Code user folder ([`user_dirs`]), whether or not they exist.
    pub(crate) fn storage_dirs(self, env: &Env) -> Vec<PathBuf> {
        user_dirs(env).into_iter().map(|dir| dir.join("globalStorage").join(self.id)).collect()
    }

    /// Whether `path` is the main file of a task in one of the extension's
    /// storage folders (`globalStorage/<id>/tasks/<task id>/`
    /// `api_conversation_history.json`), from the path alone.
    pub(crate) fn holds(self, path: &Path) -> bool {
        let named =
            |at: usize, name: &str| path.ancestors().nth(at).and_then(Path::file_name).is_some_and(|n| n == name);
        named(0, HISTORY) && named(2, TASKS) && named(3, self.id) && named(4, "globalStorage")
    }

    /// The tasks in the storage folders `storage` within `scope`. A task
    /// that cannot be read goes to [`Listing::problems`].
    pub(crate) fn list(self, storage: &[PathBuf], scope: Scope<'_>) -> Listing {
        let mut listing = Listing::default();
        let found = find(storage);
        for (path, kind) in found.skipped {
            listing.problems.push(Error::NotASessionFile { path, kind });
        }
        let mut indexes: HashMap<PathBuf, HashMap<String, Value>> = HashMap::new();
        for (id, path) in found.files {
            let index = indexes.entry(storage_of(&path)).or_insert_with_key(|dir| read_index(dir));
            let entry = index.get(&id).cloned();
            match read_file(&path) {
                Ok(bytes) => {
                    let task = self.read(&path, &bytes, entry.as_ref());
                    if let Scope::Project(dir) = scope
                        && task.transcript.cwd.as_deref().is_none_or(|cwd| Path::new(cwd) != dir)
                    {
                        continue;
                    }
                    let file_ms = std::fs::metadata(&path).map_or(0, |m| modified_ms(&m));
                    listing.sessions.push(task.info(self.source, &path, file_ms));
                }
                Err(err) => listing.problems.push(err),
            }
        }
        listing
    }

    /// The task whose main file is `path`, as a whole transcript.
    pub(crate) fn load(self, path: &Path) -> Result<Transcript> {
        let bytes = read_file(path)?;
        Ok(self.read_alone(path, &bytes).transcript)
    }

    /// What the catalog keeps of the task whose main file is `path`; an
    /// error when the conversation is not a JSON array. The file is read
    /// whole from `path`, not from the complete lines `bytes` the catalog
    /// gives (the extension writes its JSON without a last newline); `bytes`
    /// only when it cannot be read.
    pub(crate) fn index(self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        let whole = read_file(path).ok();
        let bytes = whole.as_deref().unwrap_or(bytes);
        if !matches!(serde_json::from_slice::<Value>(bytes), Ok(Value::Array(_))) {
            return Err(format!(
                "not a {} task: `{HISTORY}` is not a JSON array of messages",
                self.source.agent_name()
            ));
        }
        let task = self.read_alone(path, bytes);
        let transcript = task.transcript;
        let title = transcript.title.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
        Ok(Indexed {
            session_id: transcript.id,
            title,
            title_explicit: false,
            cwd: transcript.cwd,
            created: task.created,
            message_count: transcript.messages.len(),
            messages: transcript.messages,
            usage: task.calls,
            listed: None,
        })
    }

    /// [`read`](Self::read) with the task's entry of its storage folder's
    /// history.
    fn read_alone(self, path: &Path, bytes: &[u8]) -> Task {
        static INDEXES: SharedFiles<HashMap<String, Value>> = SharedFiles::new();
        let id = task_id(path);
        let index = INDEXES.get(&storage_of(path).join(INDEX), parse_index);
        self.read(path, bytes, index.get(&id))
    }

    /// The task whose conversation `bytes` is at `path`, with the other files
    /// of its folder and `entry`, its entry of the history.
    fn read(self, path: &Path, bytes: &[u8], entry: Option<&Value>) -> Task {
        let folder = path.parent().unwrap_or(Path::new(""));
        let mut transcript = Transcript::new(self.source, task_id(path));
        let records = match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Array(records)) => records,
            Ok(_) => {
                transcript.issues.push(LineIssue { line: 1, kind: IssueKind::NotAnObject });
                Vec::new()
            }
            Err(err) => {
                transcript.issues.push(LineIssue { line: 1, kind: IssueKind::InvalidJson(err.to_string()) });
                Vec::new()
            }
        };
        let ui_records = match read_json(&folder.join(UI)) {
            Some(Ok(Value::Array(records))) => records,
            Some(Err(message)) => {
                transcript.issues.push(LineIssue { line: 1, kind: IssueKind::InvalidJson(format!("{UI}: {message}")) });
                Vec::new()
            }
            Some(Ok(_)) | None => Vec::new(),
        };
        let ui = Ui::read(&ui_records);
        let item = match read_json(&folder.join(ITEM)) {
            Some(Ok(item)) if item.is_object() => Some(item),
            _ => None,
        };
        let entry = item.as_ref().or(entry);
        let start = ui.first_ts.or_else(|| entry.and_then(|e| e.get("ts")).and_then(Value::as_i64));
        let time = |at: usize| {
            let ts = if at == 0 { start } else { ui.after_index.get(&(at - 1)).copied() };
            ts.map(format_iso_millis)
        };
        let messages = convert::messages(&records, &time);
        transcript.cwd = entry
            .and_then(|e| e.get("cwdOnTaskInitialization").or_else(|| e.get("workspace")))
            .and_then(Value::as_str)
            .filter(|cwd| !cwd.is_empty())
            .map(str::to_owned)
            .or_else(|| records.first().and_then(cwd_in));
        transcript.messages = ui::place(messages, ui.notices);
        finish_pending(&mut transcript.messages);
        let created = start
            .or_else(|| transcript.id.parse::<i64>().ok().filter(|ms| *ms > 0))
            .map(format_iso_millis)
            .or_else(|| transcript.messages.iter().find_map(|m| m.timestamp.clone()));
        let calls = if ui.calls.is_empty() { entry.and_then(entry_call).into_iter().collect() } else { ui.calls };
        Task { transcript, created, calls }
    }
}

/// The main files of the tasks in the storage folders `storage`
/// (`tasks/<id>/api_conversation_history.json`), as `(task id, path)`, found
/// from names alone; a task folder without one is not a task yet.
pub(crate) fn find(storage: &[PathBuf]) -> FoundFiles {
    let mut found = FoundFiles::default();
    for dir in storage {
        let Ok(entries) = std::fs::read_dir(dir.join(TASKS)) else { continue };
        let mut tasks = Vec::new();
        for entry in entries.flatten() {
            let Some(id) = entry.file_name().to_str().map(str::to_owned) else { continue };
            if id.starts_with('.') || note_nowhere(&entry, &mut found.skipped) {
                continue;
            }
            let file = entry.path().join(HISTORY);
            match std::fs::metadata(&file) {
                Ok(meta) if meta.is_file() => tasks.push((id, file)),
                Ok(meta) => found.skipped.push((file, sess_core::FileKind::of(meta.file_type()))),
                Err(_) if std::fs::symlink_metadata(&file).is_ok() => tasks.push((id, file)),
                Err(_) => {}
            }
        }
        tasks.sort_by(|a, b| a.1.cmp(&b.1));
        found.files.extend(tasks);
    }
    found
}

/// The other files of the task whose main file is `path` that its reader
/// reads: `ui_messages.json`, `task_metadata.json` and Roo Code's
/// `history_item.json`. The storage folder's `state/taskHistory.json` is
/// every task's, not one's.
pub(crate) fn companions(path: &Path) -> Vec<PathBuf> {
    let Some(folder) = path.parent() else { return Vec::new() };
    let files = [UI, METADATA, ITEM].iter().map(|name| folder.join(name)).collect();
    crate::companions::finish(path, files)
}

/// Whether the file named in `head` is a task's conversation: its name, and
/// a JSON array.
pub(crate) fn is_conversation(head: &crate::detect::Head<'_>) -> bool {
    head.name == HISTORY && head.bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// A task read.
struct Task {
    transcript: Transcript,
    created: Option<String>,
    calls: Vec<Call>,
}

impl Task {
    /// Its listing's item: the task at `path`, whose file changed at
    /// `file_ms`.
    fn info(self, source: SourceKind, path: &Path, file_ms: i64) -> SessionInfo {
        let modified = active_ms(&self.transcript, self.created.as_deref()).unwrap_or(file_ms);
        crate::listing::transcript_info(source, &self.transcript, path, self.created, modified)
    }
}

/// The id of the task whose main file is `path`: its folder's name.
fn task_id(path: &Path) -> String {
    path.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The storage folder of the task whose main file is `path`
/// (`<storage>/tasks/<id>/api_conversation_history.json`).
fn storage_of(path: &Path) -> PathBuf {
    path.ancestors().nth(3).map(Path::to_owned).unwrap_or_default()
}

/// The entries of the history in the storage folder `storage`
/// (`state/taskHistory.json`, an array of `{id, ts, task, tokensIn, …}`),
/// by task id; none when it is missing or does not parse.
fn read_index(storage: &Path) -> HashMap<String, Value> {
    parse_index(&storage.join(INDEX))
}

/// [`read_index`] of the file itself.
fn parse_index(file: &Path) -> HashMap<String, Value> {
    let Some(Ok(Value::Array(items))) = read_json(file) else { return HashMap::new() };
    items.into_iter().filter_map(|item| Some((item.get("id")?.as_str()?.to_owned(), item))).collect()
}

/// The JSON of the file at `path`: `None` when there is no such file, the
/// error's text when it cannot be read or parsed.
fn read_json(path: &Path) -> Option<std::result::Result<Value, String>> {
    match read_file(path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).map_err(|err| err.to_string())),
        Err(Error::NotFound { .. }) => None,
        Err(err) => Some(Err(err.to_string())),
    }
}

/// The working directory the first message's environment details name:
/// `# Current Working Directory (<path>) Files` (Cline) or `# Current
/// Workspace Directory (<path>) Files` (Roo Code).
fn cwd_in(record: &Value) -> Option<String> {
    let text = match record.get("content")? {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => return None,
    };
    text.lines().find_map(|line| {
        let rest = line
            .strip_prefix("# Current Working Directory (")
            .or_else(|| line.strip_prefix("# Current Workspace Directory ("))?;
        let rest = rest.trim_end();
        let rest = rest.strip_suffix(" Files").unwrap_or(rest);
        let path = rest.strip_suffix(')')?;
        (!path.is_empty()).then(|| path.to_owned())
    })
}

/// The usage an entry of the history records for the whole task (`tokensIn`,
/// `tokensOut`, `cacheWrites`, `cacheReads`, `totalCost`), for a task whose
/// UI records have no requests: one call, dated by the entry.
fn entry_call(entry: &Value) -> Option<Call> {
    let counter = Counter::default();
    let call = Call {
        key: None,
        timestamp: entry.get("ts").and_then(Value::as_i64).map(format_iso_millis),
        model: None,
        input: counter.count("tokensIn", entry.get("tokensIn")),
        output: counter.count("tokensOut", entry.get("tokensOut")),
        cache_creation: counter.count("cacheWrites", entry.get("cacheWrites")),
        cache_read: counter.count("cacheReads", entry.get("cacheReads")),
        reasoning: 0,
        cost: entry.get("totalCost").and_then(Value::as_f64),
        not_counts: counter.take(),
    };
    (!call.is_empty()).then_some(call)
}
