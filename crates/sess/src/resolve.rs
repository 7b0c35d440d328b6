//! What a session argument names: a file of any agent, an id or an
//! unambiguous id prefix of a session of any agent in an environment, or,
//! with a store, a session id or prefix in that store.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sess_sources::{Env, SourceKind};
use sess_store::{Backend, FileStorage, SessionStorage as _};

use crate::{Error, Hint, Host, Result, Tell};

/// How much of a file tells which agent wrote it: the one detection rule's.
pub const DETECT_BYTES: usize = sess_sources::DETECT_BYTES;

/// A session file and the agent that wrote it.
pub struct Located {
    /// The agent; pi-family when no agent's lines were recognised (a pi-family
    /// file whose header is damaged is still read, entry by entry).
    pub kind: SourceKind,
    /// Whether the first lines said which agent wrote the file.
    pub recognised: bool,
    /// The file.
    pub path: PathBuf,
    /// For a session that is rows of the database file `path`: its id there.
    pub row: Option<String>,
}

impl Located {
    /// The session of a file (or of database rows) the catalog lists.
    pub fn of_row(row: &sess_catalog::SessionRow) -> Self {
        Located {
            kind: row.source,
            recognised: true,
            path: row.path.clone(),
            row: row.database_row.then(|| row.id.clone()),
        }
    }
}

/// The session SESSION names.
pub enum Session {
    /// A session of a store.
    Stored {
        /// The store.
        backend: Arc<dyn Backend>,
        /// The session's id there.
        id: String,
    },
    /// A session file.
    File(Located),
}

/// The session `arg` names: in `store` when one is given, else a file or an
/// id of any agent. A path must name a file that exists.
///
/// # Errors
///
/// [`Error::Resolve`] when it names no session, or several; as
/// [`store::open`](crate::store::open).
pub fn session(arg: &str, store: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<Session> {
    match session_or_new(arg, store, host, tell)? {
        Session::File(found) => existing(found).map(Session::File),
        stored @ Session::Stored { .. } => Ok(stored),
    }
}

/// [`session`], where a path may also name a file that does not exist yet:
/// a new session (`sess append`).
///
/// # Errors
///
/// As [`session`].
pub fn session_or_new(arg: &str, store: Option<&str>, host: &Host, tell: &dyn Tell) -> Result<Session> {
    if let Some(url) = store {
        let backend = crate::store::open(url, crate::store::Missing::Refused, tell)?;
        let id = stored(backend.as_ref(), arg)?;
        return Ok(Session::Stored { backend, id });
    }
    locate_or_new(arg, &host.env, tell).map(Session::File)
}

/// The error of every verb for a session path that names no file.
pub fn missing(path: &Path) -> Error {
    Error::resolve_because(
        format!("`{}` does not exist", path.display()),
        Hint("a session is a file that exists, or an id `sess list --all-projects` shows".to_owned()),
    )
}

/// Whether nothing is at `path` (not even a dangling link); a path that
/// cannot be looked at is left to the read that follows, which says why.
pub fn is_missing(path: &Path) -> bool {
    matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// `found`, when its file exists.
fn existing(found: Located) -> Result<Located> {
    if found.row.is_none() && is_missing(&found.path) {
        return Err(missing(&found.path));
    }
    Ok(found)
}

/// Whether `arg` names a file rather than an id.
pub fn looks_like_path(arg: &str) -> bool {
    let path = PathBuf::from(arg);
    arg.contains(std::path::MAIN_SEPARATOR)
        || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("zst"))
        || path.exists()
}

/// The session file `arg` names: a path of a file that exists, or an id or
/// id prefix of a session of any agent.
///
/// # Errors
///
/// As [`session`].
pub fn locate(arg: &str, host: &Host, tell: &dyn Tell) -> Result<Located> {
    existing(locate_or_new(arg, &host.env, tell)?)
}

/// [`locate`], where a path may name a file that does not exist yet (it is
/// pi-family: a new session).
fn locate_or_new(arg: &str, env: &Env, tell: &dyn Tell) -> Result<Located> {
    if looks_like_path(arg) {
        let path = PathBuf::from(arg);
        let kind = detect(&path)?;
        return Ok(Located {
            kind: kind.unwrap_or_else(SourceKind::native),
            recognised: kind.is_some(),
            path,
            row: None,
        });
    }
    by_id(arg, env, tell)
}

/// The session file of any agent whose id (or file name) starts with `arg`;
/// an exact id wins over longer ones.
fn by_id(arg: &str, env: &Env, tell: &dyn Tell) -> Result<Located> {
    let needle = arg.to_lowercase();
    if needle.is_empty() {
        return Err(Error::resolve("an empty session id names no session".to_owned()));
    }
    let mut matches: Vec<Located> = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for kind in sess_sources::registry() {
        let found = kind.source().find(env);
        tell.skipped(&found.skipped);
        for (id, path) in found.files {
            let seen = matches.iter().any(|m| m.path == path && m.row.is_none());
            if !seen && (id.to_lowercase().starts_with(&needle) || name_matches(&path, &needle)) {
                matches.push(Located { kind, recognised: true, path, row: None });
                ids.push(id);
            }
        }
        for row in found.rows {
            if row.id.to_lowercase().starts_with(&needle) {
                matches.push(Located { kind, recognised: true, path: row.database, row: Some(row.id.clone()) });
                ids.push(row.id);
            }
        }
    }
    let exact: Vec<usize> = (0..ids.len()).filter(|&i| ids[i].to_lowercase() == needle).collect();
    if matches.len() > 1 && exact.len() == 1 {
        return Ok(matches.swap_remove(exact[0]));
    }
    match matches.len() {
        0 => Err(Error::resolve_because(
            format!("no session of any agent has an id starting with `{arg}`"),
            Hint("`sess list --all-projects` shows every session of every agent; a file path works too".to_owned()),
        )),
        1 => Ok(matches.remove(0)),
        _ => {
            let list: Vec<String> = matches
                .iter()
                .zip(&ids)
                .map(|(found, id)| format!("  {}  {id}  {}", found.kind, found.path.display()))
                .collect();
            Err(Error::resolve_because(
                format!("`{arg}` matches {} sessions:\n{}", matches.len(), list.join("\n")),
                Hint("give more of the id, or the file path".to_owned()),
            ))
        }
    }
}

/// A prefix of a session file's name names it too (pi-family files are
/// named `<time>_<id>.jsonl`).
fn name_matches(path: &Path, needle: &str) -> bool {
    path.file_name().is_some_and(|name| name.to_string_lossy().to_lowercase().starts_with(needle))
}

/// [`locate`], with the agent read from the file when its first lines did
/// not say ([`agent_of`]).
///
/// # Errors
///
/// As [`locate`] and [`agent_of`].
pub fn locate_agent(arg: &str, host: &Host, tell: &dyn Tell) -> Result<Located> {
    let mut found = locate(arg, host, tell)?;
    if !found.recognised {
        found.kind = agent_of(&found.path)?;
    }
    Ok(found)
}

/// The agent that wrote the file at `path` (`None` when none of its first
/// lines says), which must be a regular file: a FIFO or a device is refused
/// without being opened. A missing file is `None`.
///
/// # Errors
///
/// [`Error::Resolve`] when the file cannot be read.
pub fn detect(path: &Path) -> Result<Option<SourceKind>> {
    let head = match FileStorage.read_range(path, 0, DETECT_BYTES) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        read => read.map_err(|e| {
            Error::resolve_because(
                format!("cannot read `{}`", path.display()),
                sess_store::Error::from_io("reading", path, e),
            )
        })?,
    };
    Ok(sess_sources::detect(path, &head))
}

/// The agent that wrote the file at `path`, for a verb that reads it; an
/// error when no agent's lines are recognised or the file cannot be read.
///
/// # Errors
///
/// [`Error::Resolve`] when the file cannot be read or no agent's lines are
/// recognised.
pub fn agent_of(path: &Path) -> Result<SourceKind> {
    if !path.exists() {
        // The read says how the file is missing.
        FileStorage.read_range(path, 0, 1).map_err(|e| {
            Error::resolve_because(
                format!("cannot read `{}`", path.display()),
                sess_store::Error::from_io("reading", path, e),
            )
        })?;
    }
    detect(path)?.ok_or_else(|| {
        Error::resolve(format!(
            "`{}` is not a session of any agent `sess` reads ({}): none of its first lines is one",
            path.display(),
            agent_names()
        ))
    })
}

/// The agents of the registry, for messages: `pi-family, Claude Code, …`.
pub fn agent_names() -> String {
    sess_sources::registry().map(SourceKind::agent_name).collect::<Vec<_>>().join(", ")
}

/// Refuses to write to `path` when another agent wrote it (told as `sess
/// show` tells it): `sess` writes only pi-family sessions, and the file is
/// not touched. A missing file is fine: it is a new session.
///
/// # Errors
///
/// [`Error::Resolve`] when another agent wrote it, or it cannot be read.
pub fn refuse_other_agents(path: &Path) -> Result<()> {
    match detect(path)? {
        Some(kind) if !kind.is_native() => Err(Error::resolve_because(
            format!("`{}` is a {} session; sess writes only pi-family sessions", path.display(), kind.agent_name()),
            Hint(format!("`sess show {}` reads it", path.display())),
        )),
        _ => Ok(()),
    }
}

/// Refuses a verb that works on pi-family sessions only, for a session of
/// another agent.
///
/// # Errors
///
/// [`Error::Resolve`] for a session of another agent.
pub fn pi_only(verb: &str, arg: &str, found: &Located) -> Result<()> {
    if found.kind.is_native() {
        return Ok(());
    }
    Err(Error::resolve(format!(
        "`sess {verb}` works on pi-family sessions; `{arg}` is a {} session (try `sess show`)",
        found.kind.agent_name()
    )))
}

/// The id of the session `arg` names in `backend`: an id, or an unambiguous
/// prefix of one.
///
/// # Errors
///
/// [`Error::Resolve`] when it names none, or several; [`Error::Backend`]
/// when the store cannot be read.
pub fn stored(backend: &dyn Backend, arg: &str) -> Result<String> {
    // A whole id is found without listing the store.
    match backend.session(arg) {
        Ok(_) => return Ok(arg.to_owned()),
        Err(sess_store::Error::SessionNotFound { .. }) => {}
        Err(err) => return Err(err.into()),
    }
    let sessions = backend.list_sessions()?;
    let lower = arg.to_lowercase();
    let matches: Vec<&str> =
        sessions.iter().map(|s| s.id.as_str()).filter(|id| id.to_lowercase().starts_with(&lower)).collect();
    match matches.as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => Err(Error::resolve(format!("no session `{arg}` in the {} store", backend.kind()))),
        many => Err(Error::resolve(format!("`{arg}` names {} sessions: {}", many.len(), many.join(", ")))),
    }
}
