//! The native half of the Node binding: a `sess_store::SessionManager` held
//! for JavaScript (`NativeSession`), and the free functions that read files.
//! Entries cross as JSON text, each entry's line exactly as it is on disk;
//! `index.js` parses them once and gives pi's `SessionManager` API over them.

mod context;

use std::path::{Path, PathBuf};

use napi::{Error, Result};
use napi_derive::napi;
use sess_store::SessionManager;

/// A `sess_store` error as a JavaScript `Error` with its message.
fn js(err: impl std::fmt::Display) -> Error {
    Error::from_reason(err.to_string())
}

/// `[line,line,…]`: entries' lines as one JSON array.
fn array<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::from("[");
    for (i, line) in lines.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(line);
    }
    out.push(']');
    out
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// A session held by sess: its entries, leaf and file.
#[napi]
pub struct NativeSession {
    inner: SessionManager,
}

#[napi]
impl NativeSession {
    /// A new session for `cwd`, its file in `session_dir` (written at its first
    /// assistant message).
    #[napi(factory)]
    pub fn create(cwd: String, session_dir: String) -> Result<Self> {
        Ok(Self { inner: SessionManager::create(&cwd, Path::new(&session_dir)).map_err(js)? })
    }

    /// The session in the file `path` (a new one there when it does not
    /// exist); `cwd` for a new one.
    #[napi(factory)]
    pub fn open(path: String, cwd: String) -> Result<Self> {
        Ok(Self { inner: SessionManager::builder().cwd(cwd).open(Path::new(&path)).map_err(js)? })
    }

    /// A session for `cwd` that is never written.
    #[napi(factory)]
    pub fn in_memory(cwd: String) -> Self {
        Self { inner: SessionManager::in_memory(&cwd) }
    }

    /// The most recent session of `session_dir`, or a new one.
    #[napi(factory)]
    pub fn continue_recent(cwd: String, session_dir: String) -> Result<Self> {
        let inner = SessionManager::builder().continue_recent(&cwd, Path::new(&session_dir)).map_err(js)?;
        Ok(Self { inner })
    }

    /// A new session in `session_dir` for `cwd` with every entry of the file
    /// `source`, which its header names as its parent (`session_dir` is made
    /// then). A source that is missing or has no session header is pi's error.
    #[napi(factory)]
    pub fn fork_from(source: String, cwd: String, session_dir: String) -> Result<Self> {
        let forked = SessionManager::builder().fork_from_naming(
            Path::new(&source),
            &cwd,
            Path::new(&session_dir),
            Some(&source),
        );
        match forked {
            Ok(inner) => Ok(Self { inner }),
            Err(sess_store::Error::InvalidEntry { .. } | sess_store::Error::NotFound { .. }) => {
                Err(js(format!("Cannot fork: source session file is empty or invalid: {source}")))
            }
            Err(sess_store::Error::Io { source: err, .. }) if err.kind() == std::io::ErrorKind::NotFound => {
                Err(js(format!("Cannot fork: source session file is empty or invalid: {source}")))
            }
            Err(err) => Err(js(err)),
        }
    }

    /// Every entry, as a JSON array of their lines.
    #[napi]
    pub fn entries_json(&self) -> String {
        array(self.inner.entries().iter().map(sess_core::Entry::json))
    }

    /// The line of the entry `id`.
    #[napi]
    pub fn entry_json(&self, id: String) -> Option<String> {
        self.inner.entry(&id).map(|entry| entry.json().to_owned())
    }

    /// Whether there is an entry `id`.
    #[napi]
    pub fn has_entry(&self, id: String) -> bool {
        self.inner.index().contains(&id)
    }

    /// The label of the entry `id`.
    #[napi]
    pub fn label(&self, id: String) -> Option<String> {
        self.inner.label(&id).map(str::to_owned)
    }

    /// The name of the newest `session_info` entry, trimmed (`None` when it
    /// is blank: an empty name clears it).
    #[napi]
    pub fn session_name(&self) -> Option<String> {
        self.inner.entries().iter().rev().find_map(|entry| match entry.kind() {
            sess_core::EntryKind::SessionInfo(info) => {
                Some(info.name.as_deref().map(str::trim).filter(|name| !name.is_empty()).map(str::to_owned))
            }
            _ => None,
        })?
    }

    /// pi-mono's context at the leaf, as JSON text ([`context::build`]).
    #[napi]
    pub fn context_json(&self) -> String {
        let leaf = self.inner.leaf_id().map(|id| id.as_str());
        context::build(self.inner.entries(), self.inner.index(), leaf)
    }

    /// The header's line.
    #[napi]
    pub fn header_json(&self) -> String {
        self.inner.header().json().to_owned()
    }

    /// Appends a message given as JSON text; returns the entry's id.
    #[napi]
    pub fn append_message(&mut self, message: String) -> Result<String> {
        let message = sess_core::JsonText::parse_with(message, |_| {}).map_err(js)?;
        Ok(self.inner.append_message_json(&message).map_err(js)?.as_str().to_owned())
    }

    /// Appends an entry of `entry_type` whose own fields are the JSON object
    /// `fields` (as `JSON.stringify` wrote it), with `id`, `parentId` and
    /// `timestamp` where pi puts them. Returns the entry's id.
    #[napi]
    pub fn append_fields(&mut self, entry_type: String, fields: String) -> Result<String> {
        Ok(self.inner.append_fields_json(&entry_type, &fields).map_err(js)?.as_str().to_owned())
    }

    /// Moves the leaf to the entry `id`.
    #[napi]
    pub fn branch(&mut self, id: String) -> Result<()> {
        self.inner.branch(&id).map_err(js)
    }

    /// Moves the leaf before the first entry.
    #[napi]
    pub fn reset_leaf(&mut self) {
        self.inner.reset_leaf();
    }

    /// The leaf's id.
    #[napi]
    pub fn leaf_id(&self) -> Option<String> {
        self.inner.leaf_id().map(|id| id.as_str().to_owned())
    }

    /// The session's id.
    #[napi]
    pub fn session_id(&self) -> String {
        self.inner.session_id().to_owned()
    }

    /// The session's file; none in memory.
    #[napi]
    pub fn session_file(&self) -> Option<String> {
        self.inner.session_file().map(path_text)
    }

    /// Whether it is written to a file.
    #[napi]
    pub fn is_persisted(&self) -> bool {
        self.inner.is_persisted()
    }

    /// Switches to the session in the file `path`.
    #[napi]
    pub fn set_session_file(&mut self, path: String) -> Result<()> {
        self.inner.set_session_file(Path::new(&path)).map_err(js)
    }

    /// Starts a new session in `session_dir` (none in memory), its id `id`
    /// when given; returns its file.
    #[napi]
    pub fn new_session(
        &mut self,
        session_dir: Option<String>,
        id: Option<String>,
        parent_session: Option<String>,
    ) -> Result<Option<String>> {
        let dir = session_dir.map(PathBuf::from);
        self.inner.start_session(dir.as_deref(), id.as_deref(), parent_session.as_deref()).map_err(js)?;
        Ok(self.inner.session_file().map(path_text))
    }

    /// A new session holding the path from the root to `leaf_id`, its file in
    /// `session_dir`; returns that file (none in memory).
    #[napi]
    pub fn create_branched_session(&mut self, leaf_id: String, session_dir: Option<String>) -> Result<Option<String>> {
        let dir = session_dir.map(PathBuf::from);
        let file = self.inner.create_branched_session_in(&leaf_id, dir.as_deref()).map_err(js)?;
        Ok(file.as_deref().map(path_text))
    }
}

/// The entries of the session file `path` (its header first, legacy
/// versions migrated), as a JSON array of their lines; empty when it does
/// not exist or has no valid header.
#[napi]
pub fn load_entries_json(path: String) -> Result<String> {
    let path = Path::new(&path);
    if !path.exists() {
        return Ok("[]".to_owned());
    }
    let outcome = sess_store::read_session(&sess_store::FileStorage, path).map_err(js)?;
    let Some(header) = outcome.file.header() else { return Ok("[]".to_owned()) };
    Ok(array(std::iter::once(header.json()).chain(outcome.file.entries().iter().map(sess_core::Entry::json))))
}

/// The name of the folder pi-mono keeps `cwd`'s sessions in:
/// `--<cwd with separators as dashes>--`.
#[napi]
pub fn session_dir_name(cwd: String) -> String {
    sess_store::discovery::legacy_dir_name(&cwd)
}

/// The most recently modified session file of `session_dir`.
#[napi]
pub fn find_most_recent_session(session_dir: String) -> Option<String> {
    sess_store::discovery::most_recent(&sess_store::FileStorage, Path::new(&session_dir)).map(|p| path_text(&p))
}

/// `entries` (a JSON array, the header first) brought to the current version:
/// legacy entries get ids (derived from their place and text, as sess gives
/// them on reading) and parents, and the roles and fields renamed since.
#[napi]
pub fn migrate_entries_json(entries: String) -> Result<String> {
    let mut values: Vec<serde_json::Value> = serde_json::from_str(&entries).map_err(js)?;
    let texts: Vec<String> = values.iter().map(serde_json::Value::to_string).collect();
    let origins: Vec<sess_core::migrate::Origin<'_>> =
        texts.iter().enumerate().map(|(at, text)| sess_core::migrate::Origin { line: at + 1, text }).collect();
    sess_core::migrate::migrate_values(&mut values, &origins);
    serde_json::to_string(&values).map_err(js)
}
