//! Cursor: the IDE's conversations (rows of `state.vscdb`), and the CLI's
//! (`cursor-agent`) agent transcripts and chat stores.
//!
//! # Where
//!
//! - **IDE:** `$XDG_CONFIG_HOME/Cursor/User/globalStorage/state.vscdb`, else
//!   `~/.config/Cursor/…` (on macOS `~/Library/Application Support/Cursor/…`,
//!   read too): a SQLite database whose table `cursorDiskKV` holds each
//!   conversation (a "composer") as rows `composerData:<id>` (its header) and
//!   `bubbleId:<id>:<bubble>` (its messages). Only those keys are read. The
//!   first chats are in each workspace's database
//!   (`workspaceStorage/<hash>/state.vscdb`), one row of `ItemTable`.
//! - **CLI:** Cursor's folder is `$CURSOR_CONFIG_DIR`, else `~/.cursor`. Its
//!   `projects/<slug>/agent-transcripts/` holds one transcript per session,
//!   `<id>.jsonl` or `<id>/<id>.jsonl`, the transcripts of the subagents a
//!   session ran in `<id>/subagents/`; `chats/<hash>/<id>/store.db` is the
//!   session's store (a SQLite database per session).
//!
//! Databases are opened read-only and never written or checkpointed
//! (`sqlite.rs`). A session kept as rows is located by its database file and
//! its id ([`SessionInfo::path`] is the database file); a transcript is its
//! file.
//!
//! The IDE writes a transcript of its agent's conversations too, and a CLI
//! session that has a transcript has a store: each session is listed once,
//! from the IDE's database first, then from its transcript, then from its
//! store.
//!
//! # Listing
//!
//! - A conversation of the IDE: its `name` (else its first prompt), the folder
//!   of its `workspaceIdentifier` (else its first tracked git repository, else
//!   the first workspace its first prompt names), created at `createdAt`,
//!   changed at `lastUpdatedAt`. Conversations without messages (Cursor makes
//!   one whenever its panel opens) and subagents' (`subComposerIds` of
//!   another) are left out; they load.
//! - A first chat: its `chatTitle` (else its first prompt), the folder of
//!   its workspace (`workspace.json`), changed at its `lastSendTime`.
//! - A transcript: its first prompt; the folder its project's slug names (the
//!   slug is lossy: it is matched against the folders that exist, and a
//!   project that is gone has no cwd); created and changed at the times of
//!   its prompts (their `<timestamp>`), else the file's.
//! - A store: its record's `name`, the workspace its tree names, created at
//!   its `createdAt`, changed when the file was.
//!
//! # From a session to a transcript
//!
//! - **IDE:** bubbles in the order of the header's
//!   `fullConversationHeadersOnly` (older headers hold them inline, in
//!   `conversation`); `type` 1 is the user's (`text`, `images`), 2 the
//!   assistant's: `thinking.text`, `text`, and `toolFormerData`, a tool call
//!   (`name`, arguments in `rawArgs` or `params`, `result`, `status`:
//!   `completed` succeeded; `error`, `cancelled`, `rejected` failed; none yet
//!   running), started at the bubble's `createdAt`. A bubble that is missing
//!   or not JSON is reported.
//! - **First chats:** `workbench.panel.aichat.view.aichat.chatdata` in
//!   `ItemTable`: `tabs`, each a chat of `bubbles` (`type` `user` or `ai`,
//!   `text`).
//! - **Transcripts:** `{"role", "message": {"content": [...]}}` lines in
//!   Anthropic's shape (`text`, `thinking`, `tool_use`, `tool_result`,
//!   `image`); a prompt's `<user_query>` is its text, its `<timestamp>` its
//!   time, what Cursor added around it context. Cursor keeps no tool results
//!   there: a call of a turn that ended is done, without a result; a
//!   `turn_ended` line with an error shows it. A `Subagent` call carries the
//!   subagent's transcript whose first prompt is the call's `prompt`; one that
//!   no call names is shown at the end as context.
//! - **Stores:** the messages under the record's `latestRootBlobId`, in the
//!   tree's order (what Cursor summarized away is no longer under the root);
//!   tool results complete their calls.
//! - Cursor records no compaction `sess` can show.
//!
//! # Usage
//!
//! One call per assistant bubble of the IDE whose `tokenCount` counts tokens
//! (`inputTokens`, `outputTokens`), with the conversation's model
//! (`modelConfig.modelName`), at the bubble's time. The CLI records none.
//!
//! # Secrets
//!
//! Headers and stores hold keys Cursor encrypts with (`blobEncryptionKey`,
//! `speculativeSummarizationEncryptionKey`): they are never read into a
//! transcript or a listing, and the rows the archive keeps are without them.

mod agent;
mod composer;
mod edits;
mod legacy;
mod prompt;
mod source;
mod store;
mod workspace;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use source::{Cursor, SOURCE};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::listing::{FoundFiles, FoundRow, Listing, Scope, SessionInfo, active_ms, modified_ms, transcript_info};
use crate::sqlite::Database;
use crate::transcript::{Block, Message, Role, Transcript};
use crate::usage::Call;
use sess_core::format_iso_millis;

/// The name of the IDE's database.
pub(crate) const IDE_DATABASE: &str = "state.vscdb";

/// Cursor's own folder: `$CURSOR_CONFIG_DIR`, else `~/.cursor`.
pub fn dot_cursor(env: &Env) -> PathBuf {
    env.path("CURSOR_CONFIG_DIR").unwrap_or_else(|| env.home().join(".cursor"))
}

/// The IDE's user folders that `env` may have (see the module docs).
fn ide_user_dirs(env: &Env) -> Vec<PathBuf> {
    let linux = env.path_or_home("XDG_CONFIG_HOME", ".config").join("Cursor/User");
    let mac = env.home().join("Library/Application Support/Cursor/User");
    vec![linux, mac]
}

/// The IDE databases of `env` that exist: the global one, then each
/// workspace's (`workspaceStorage/<hash>/state.vscdb`, which hold the first
/// chats).
pub fn ide_databases(env: &Env) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in ide_user_dirs(env) {
        let path = dir.join("globalStorage").join(IDE_DATABASE);
        if path.is_file() && !found.contains(&path) {
            found.push(path);
        }
        let Ok(workspaces) = std::fs::read_dir(dir.join("workspaceStorage")) else { continue };
        let mut workspaces: Vec<PathBuf> = workspaces.flatten().map(|e| e.path().join(IDE_DATABASE)).collect();
        workspaces.sort();
        found.extend(workspaces.into_iter().filter(|path| path.is_file()));
    }
    found
}

/// The CLI's transcripts: `(session id, path)`, by project, then by name.
pub fn transcripts(env: &Env) -> FoundFiles {
    let mut found = FoundFiles::default();
    let Ok(projects) = std::fs::read_dir(dot_cursor(env).join("projects")) else { return found };
    let mut projects: Vec<PathBuf> = projects.flatten().map(|e| e.path()).collect();
    projects.sort();
    for project in projects {
        let folder = project.join("agent-transcripts");
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        let mut nested = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let main = entry.path().join(format!("{name}.jsonl"));
            if entry.file_type().is_ok_and(|t| t.is_dir()) && main.exists() {
                nested.push((name, main));
            }
        }
        found.add_folder(&folder, agent::id_of);
        nested.sort();
        found.files.extend(nested);
    }
    found
}

/// The CLI's chat stores: `(session id, path)`, the id being the store's
/// folder's name.
pub fn stores(env: &Env) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let Ok(hashes) = std::fs::read_dir(dot_cursor(env).join("chats")) else { return found };
    for hash in hashes.flatten() {
        let Ok(sessions) = std::fs::read_dir(hash.path()) else { continue };
        for session in sessions.flatten() {
            let path = session.path().join(store::DATABASE);
            if path.is_file() {
                found.push((session.file_name().to_string_lossy().into_owned(), path));
            }
        }
    }
    found.sort();
    found
}

/// Which of Cursor's databases a file is, by its tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The IDE's `state.vscdb`.
    Ide,
    /// A CLI chat store.
    Store,
}

fn kind(db: &Database, path: &Path) -> Result<Kind> {
    let has = |table| crate::rows::has_table(db.connection(), table).map_err(|e| db.fail(&e));
    if has(composer::TABLE)? || has("ItemTable")? {
        Ok(Kind::Ide)
    } else if has("blobs")? && has("meta")? {
        Ok(Kind::Store)
    } else {
        Err(Error::NotARecord { path: path.to_owned(), message: "not a database of Cursor's".to_owned() })
    }
}

/// The sessions a listing shows (see the module docs), as files and rows.
pub(crate) fn find_session_files(env: &Env) -> FoundFiles {
    let mut found = FoundFiles::default();
    let mut seen = HashSet::new();
    for path in ide_databases(env) {
        let Ok(db) = Database::open(&path) else { continue };
        let Ok(headers) = composer::headers(&db) else { continue };
        let children: HashSet<&String> = headers.iter().flat_map(|h| &h.children).collect();
        for header in &headers {
            seen.insert(header.id.clone());
            if header.is_empty() || children.contains(&header.id) {
                continue;
            }
            let version = header.updated_ms.or(header.created_ms).unwrap_or(0);
            found.rows.push(FoundRow { id: header.id.clone(), database: path.clone(), version });
        }
        for tab in legacy::tabs(&db).unwrap_or_default() {
            if !tab.messages.is_empty() && seen.insert(tab.id.clone()) {
                let version = tab.updated_ms.or_else(|| std::fs::metadata(&path).ok().map(|m| modified_ms(&m)));
                found.rows.push(FoundRow { id: tab.id, database: path.clone(), version: version.unwrap_or(0) });
            }
        }
    }
    let files = transcripts(env);
    for (id, path) in files.files {
        if seen.insert(id.clone()) {
            found.files.push((id, path));
        }
    }
    found.skipped.extend(files.skipped);
    for (id, path) in stores(env) {
        if seen.insert(id.clone()) {
            let version = store_version(&path);
            found.rows.push(FoundRow { id, database: path, version });
        }
    }
    found
}

/// When a store last changed: the newest time of the file and its `-wal`.
fn store_version(path: &Path) -> i64 {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    [path.to_owned(), PathBuf::from(wal)]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| modified_ms(&m))
        .max()
        .unwrap_or(0)
}

/// The sessions of `env` in `scope`; a database or file that cannot be read
/// goes to [`Listing::problems`].
pub(crate) fn list(env: &Env, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    let found = find_session_files(env);
    let in_scope = |cwd: Option<&str>| match scope {
        Scope::All => true,
        Scope::Project(dir) => cwd.is_some_and(|cwd| Path::new(cwd) == dir),
    };
    let mut resolved = std::collections::HashMap::new();
    for (_, path) in &found.files {
        let slug = project_slug(path);
        let cwd = slug.map(|slug| resolved.entry(slug.clone()).or_insert_with(|| resolve(&slug)).clone());
        match read_transcript_with(path, cwd.flatten()) {
            Ok(read) if in_scope(read.transcript.cwd.as_deref()) => listing.sessions.push(read.info(path)),
            Ok(_) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    // The IDE's database is opened once for all its conversations.
    let mut ide: Option<(&Path, Database)> = None;
    for row in &found.rows {
        let database = row.database.as_path();
        if database.file_name().is_some_and(|n| n == IDE_DATABASE) && ide.as_ref().is_none_or(|(p, _)| *p != database) {
            ide = Database::open(database).ok().map(|db| (database, db));
        }
        let read = match &ide {
            Some((path, db)) if *path == database => read_composer(db, database, &row.id, false),
            _ => read_row(database, &row.id, false),
        };
        match read {
            Ok(read) if in_scope(read.transcript.cwd.as_deref()) => listing.sessions.push(read.info(&row.database)),
            Ok(_) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    for (path, kind) in found.skipped {
        listing.problems.push(Error::NotASessionFile { path, kind });
    }
    listing
}

/// A session read.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    created_ms: Option<i64>,
    updated_ms: Option<i64>,
    pub(crate) usage: Vec<Call>,
    /// Whether the title is the session's own.
    pub(crate) named: bool,
}

impl Read {
    /// When it started: its own time, else its first message's.
    pub(crate) fn created(&self) -> Option<String> {
        self.created_ms
            .map(format_iso_millis)
            .or_else(|| self.transcript.messages.iter().find_map(|m| m.timestamp.clone()))
    }

    fn info(&self, path: &Path) -> SessionInfo {
        let created = self.created();
        let file_time = || std::fs::metadata(path).ok().map(|m| modified_ms(&m));
        let modified = active_ms(&self.transcript, created.as_deref())
            .into_iter()
            .chain(self.updated_ms)
            .max()
            .or_else(file_time)
            .unwrap_or(0);
        transcript_info(SOURCE, &self.transcript, path, created, modified)
    }
}

/// The slug of the project whose transcript is at `path`
/// (`projects/<slug>/agent-transcripts/…`).
fn project_slug(path: &Path) -> Option<String> {
    let folder = path.ancestors().find(|p| p.file_name().is_some_and(|n| n == "agent-transcripts"))?;
    Some(folder.parent()?.file_name()?.to_string_lossy().into_owned())
}

fn resolve(slug: &str) -> Option<String> {
    workspace::resolve(slug).map(|p| p.to_string_lossy().into_owned())
}

/// The folder of the transcript at `path`'s subagents.
fn subagents_dir(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?;
    let parent = path.parent()?;
    if parent.file_name() == Some(stem) {
        Some(parent.join("subagents"))
    } else {
        Some(parent.join(stem).join("subagents"))
    }
}

/// The subagents' transcripts of the session at `path`, sorted.
pub(crate) fn subagent_files(path: &Path) -> Vec<PathBuf> {
    let Some(dir) = subagents_dir(path) else { return Vec::new() };
    let mut found = FoundFiles::default();
    found.add_folder(&dir, agent::id_of);
    found.files.into_iter().map(|(_, p)| p).collect()
}

/// The transcript at `path`, whose bytes are `bytes`.
pub(crate) fn read_transcript_bytes(path: &Path, bytes: &[u8], cwd: Option<String>) -> Read {
    let parsed = agent::parse(bytes);
    let id = path.file_name().and_then(|n| n.to_str()).and_then(agent::id_of).unwrap_or_default();
    let mut transcript = Transcript::new(SOURCE, id);
    transcript.messages = parsed.messages;
    transcript.issues = parsed.issues;
    link_subagents(&mut transcript.messages, path);
    transcript.cwd = cwd;
    transcript.title = transcript.first_prompt().map(ToOwned::to_owned);
    Read { transcript, created_ms: None, updated_ms: None, usage: Vec::new(), named: false }
}

/// The transcript at `path`, its cwd from its project's slug.
pub(crate) fn read_transcript(path: &Path) -> Result<Read> {
    let cwd = project_slug(path).and_then(|slug| resolve(&slug));
    read_transcript_with(path, cwd)
}

fn read_transcript_with(path: &Path, cwd: Option<String>) -> Result<Read> {
    if crate::sqlite::is_database(path)? {
        return Err(Error::NotARecord {
            path: path.to_owned(),
            message: "a database of Cursor sessions: name one of its sessions by its id".to_owned(),
        });
    }
    let bytes = crate::jsonl::read_file(path)?;
    Ok(read_transcript_bytes(path, &bytes, cwd))
}

/// Puts each subagent's transcript under the `Subagent` call whose `prompt`
/// is its first prompt; the others go at the end, as context.
fn link_subagents(messages: &mut Vec<Message>, path: &Path) {
    let mut left = Vec::new();
    for file in subagent_files(path) {
        let Ok(bytes) = crate::jsonl::read_file(&file) else { continue };
        let child = agent::parse(&bytes).messages;
        let prompt = crate::transcript::first_prompt(&child).map(|p| p.trim().to_owned());
        let call = messages.iter_mut().flat_map(|m| &mut m.blocks).find_map(|b| match b {
            Block::ToolCall(call)
                if call.subagent.is_empty()
                    && prompt.is_some()
                    && call.input.get("prompt").and_then(serde_json::Value::as_str).map(str::trim)
                        == prompt.as_deref() =>
            {
                Some(call)
            }
            _ => None,
        });
        match call {
            Some(call) => call.subagent = child,
            None => left.push((file, child)),
        }
    }
    for (file, child) in left {
        let id = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let text = child
            .iter()
            .flat_map(|m| &m.blocks)
            .filter_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n\n");
        messages.push(Message::new(Role::System).with(Block::Context { title: format!("Subagent {id}"), text }));
    }
}

/// Session `id` of the database `database` (the IDE's or a store).
pub(crate) fn read_row(database: &Path, id: &str, with_usage: bool) -> Result<Read> {
    let db = Database::open(database)?;
    let not_found = || Error::NotFound { path: database.join(id) };
    match kind(&db, database)? {
        Kind::Ide => read_composer(&db, database, id, with_usage),
        Kind::Store => {
            let read = store::read(&db)?;
            let folder = database.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
            if read.meta.id.as_deref() != Some(id) && folder.as_deref() != Some(id) {
                return Err(not_found());
            }
            let mut transcript = Transcript::new(SOURCE, id);
            transcript.messages = read.messages;
            transcript.issues = read.issues;
            transcript.cwd = read.cwd;
            let named = read.meta.name.is_some();
            transcript.title = read.meta.name.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
            let updated_ms = Some(store_version(database)).filter(|&v| v > 0);
            Ok(Read { transcript, created_ms: read.meta.created_ms, updated_ms, usage: Vec::new(), named })
        }
    }
}

/// Conversation `id` of the IDE's database `db` (at `database`).
fn read_composer(db: &Database, database: &Path, id: &str, with_usage: bool) -> Result<Read> {
    let Some(header) = composer::header_of(db, id)? else { return read_tab(db, database, id) };
    let read = composer::read(db, &header)?;
    let mut transcript = Transcript::new(SOURCE, id);
    transcript.messages = read.messages;
    transcript.issues = read.issues;
    transcript.cwd = read.cwd;
    let named = header.name.is_some();
    transcript.title = header.name.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
    let usage = if with_usage { read.usage } else { Vec::new() };
    Ok(Read { transcript, created_ms: header.created_ms, updated_ms: header.updated_ms, usage, named })
}

/// The first chat `id` of the IDE's database `db` (at `database`).
fn read_tab(db: &Database, database: &Path, id: &str) -> Result<Read> {
    let tab = legacy::tabs(db)?.into_iter().find(|tab| tab.id == id);
    let tab = tab.ok_or_else(|| Error::NotFound { path: database.join(id) })?;
    let mut transcript = Transcript::new(SOURCE, id);
    transcript.messages = tab.messages;
    transcript.cwd = legacy::folder(database);
    let named = tab.title.is_some();
    transcript.title = tab.title.or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
    Ok(Read { transcript, created_ms: None, updated_ms: tab.updated_ms, usage: Vec::new(), named })
}

/// The ids of every session of the database `database`.
pub(crate) fn row_ids(database: &Path) -> Result<Vec<String>> {
    let db = Database::open(database)?;
    match kind(&db, database)? {
        Kind::Ide => {
            let mut ids: Vec<String> = composer::headers(&db)?.into_iter().map(|h| h.id).collect();
            ids.extend(legacy::tabs(&db)?.into_iter().map(|tab| tab.id));
            Ok(ids)
        }
        Kind::Store => {
            let meta = store::meta(&db)?;
            let folder = database.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
            Ok(meta.id.or(folder).into_iter().collect())
        }
    }
}

/// The rows of session `id` of the database `database`, as stored but for
/// the secrets (see the module docs).
pub(crate) fn rows(database: &Path, id: &str) -> Result<crate::RowDump> {
    let db = Database::open(database)?;
    match kind(&db, database)? {
        Kind::Ide if composer::header_of(&db, id)?.is_none() => {
            read_tab(&db, database, id)?;
            legacy::rows(&db)
        }
        Kind::Ide => composer::rows(&db, database, id),
        Kind::Store => {
            read_row(database, id, false)?;
            store::rows(&db, database)
        }
    }
}

#[cfg(test)]
#[path = "cursor/tests.rs"]
mod tests;
