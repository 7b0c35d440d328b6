//! The archive `sess archive` writes and the read verbs read: where the
//! default one is (in sess's data folder, which the caller names), this
//! machine, and a session of it by id.

use std::path::{Path, PathBuf};

use sess_archive::{ArchivedSession, Filter, Machine, PostgresVault, SqliteVault, StoredFile, Vault};
use sess_sources::Transcript;

use crate::{Error, Hint, Result};

/// The default archive in the data folder `data_dir`:
/// `sqlite:DATA_DIR/archive.sqlite`.
pub fn default_url(data_dir: &Path) -> String {
    format!("sqlite:{}", data_dir.join("archive.sqlite").display())
}

/// The default archive's URL when it exists (for the verbs that include it
/// without a store named).
pub fn default_present(data_dir: &Path) -> Option<String> {
    let path = data_dir.join("archive.sqlite");
    (path.is_file() && SqliteVault::holds_archive(&path)).then(|| format!("sqlite:{}", path.display()))
}

/// The database file of an `sqlite:` URL.
fn sqlite_path(url: &str) -> Option<&Path> {
    url.strip_prefix("sqlite:").map(|path| Path::new(path.strip_prefix("//").unwrap_or(path)))
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Opens the archive `url` names, making it when missing (`sess archive`).
///
/// # Errors
///
/// [`Error::Archive`] when `url` cannot hold an archive or the archive
/// cannot be opened.
pub fn open(url: &str) -> Result<Box<dyn Vault>> {
    if let Some(path) = sqlite_path(url) {
        if path.as_os_str().is_empty() {
            return Err(Error::archive(format!("`{url}`: the file is missing (sqlite:PATH)")));
        }
        match sess_store::storage::regular_file(&sess_store::FileStorage, path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::archive_because(format!("cannot open the archive `{url}`"), e)),
        }
        let vault = SqliteVault::open(path)
            .map_err(|e| Error::archive_because(format!("cannot open the archive `{url}`"), e))?;
        return Ok(Box::new(vault));
    }
    if is_postgres(url) {
        let vault = PostgresVault::connect(url)
            .map_err(|e| Error::archive_because("cannot open the PostgreSQL archive".to_owned(), e))?;
        return Ok(Box::new(vault));
    }
    Err(Error::archive_because(
        format!("`{url}` cannot hold an archive"),
        Hint("an archive is `sqlite:PATH` or `postgres://…` (a `dir:` store holds pi-family sessions only)".to_owned()),
    ))
}

/// The archive `url` names when it holds one; `None` when it is a store
/// without one (or not a store an archive can be in).
///
/// # Errors
///
/// An `sqlite:` file that does not exist, or a store that cannot be opened
/// ([`Error::Store`]); an archive that cannot be opened ([`Error::Archive`]).
pub fn existing(url: &str) -> Result<Option<Box<dyn Vault>>> {
    if let Some(path) = sqlite_path(url) {
        // A device or FIFO is refused before SQLite opens it.
        match sess_store::storage::regular_file(&sess_store::FileStorage, path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::store(format!(
                    "the store `{url}` does not exist: there is no file `{}`",
                    path.display()
                )));
            }
            Err(e) => return Err(Error::store_because(format!("cannot open the store `{url}`"), e)),
        }
        return if SqliteVault::holds_archive(path) { open(url).map(Some) } else { Ok(None) };
    }
    if is_postgres(url) {
        let holds = PostgresVault::holds_archive(url)
            .map_err(|e| Error::store_because("cannot open the PostgreSQL store".to_owned(), e))?;
        return if holds { open(url).map(Some) } else { Ok(None) };
    }
    Ok(None)
}

/// The archive `url` names, which must hold one (`sess restore`).
///
/// # Errors
///
/// [`Error::Archive`] when it holds none; as [`existing`].
pub fn required(url: &str) -> Result<Box<dyn Vault>> {
    let missing = || {
        Error::archive_because(format!("there is no archive in `{url}`"), Hint("`sess archive` makes it".to_owned()))
    };
    if sqlite_path(url).is_some_and(|path| !path.exists()) {
        return Err(missing());
    }
    existing(url)?.ok_or_else(missing)
}

/// This machine, made once in the data folder `data_dir`; `host` is the
/// host name the environment gives, if any.
///
/// # Errors
///
/// [`Error::Vault`] when the machine file cannot be read or made.
pub fn machine(data_dir: &Path, host: Option<&str>) -> Result<Machine> {
    let host = sess_archive::host_name(host);
    Ok(Machine::load_or_make(data_dir, &host)?)
}

/// The one archived session `arg` (an id or id prefix) names, of the
/// machine `machine` when given.
///
/// # Errors
///
/// [`Error::Archive`] when `arg` names no session or several (the error
/// lists them); [`Error::Vault`] when the archive cannot be read.
pub fn find(vault: &mut dyn Vault, url: &str, arg: &str, machine: Option<&str>) -> Result<ArchivedSession> {
    // An empty prefix is every session's: never a choice.
    if arg.trim().is_empty() {
        return Err(Error::archive_because(
            "the session id is empty: give an archived session's id (or the start of it)".to_owned(),
            Hint("`sess --store URL list --all-projects` lists them".to_owned()),
        ));
    }
    let filter = Filter { machine: machine.map(str::to_owned), id_prefix: Some(arg.to_owned()), ..Filter::default() };
    let mut found = vault.sessions(&filter)?;
    if found.iter().any(|s| s.meta.session_id == arg) {
        found.retain(|s| s.meta.session_id == arg);
    }
    match found.len() {
        0 => Err(Error::archive_because(
            format!("no archived session `{arg}` in `{url}`"),
            Hint("`sess --store URL list --all-projects` lists them".to_owned()),
        )),
        1 => Ok(found.remove(0)),
        n => {
            let list: Vec<String> = found
                .iter()
                .map(|s| format!("  {}  {} on {}: {}", s.meta.session_id, s.source, s.machine, s.path))
                .collect();
            Err(Error::archive_because(
                format!("`{arg}` names {n} archived sessions:\n{}", list.join("\n")),
                Hint("give more of the id, or --machine NAME".to_owned()),
            ))
        }
    }
}

/// The archived session `session` as a transcript, read with its agent's
/// own reader from a private copy of its files.
///
/// # Errors
///
/// [`Error::Vault`] when its files cannot be read; as [`read`].
pub fn load(vault: &mut dyn Vault, session: &ArchivedSession) -> Result<Transcript> {
    let files = vault.files(session.key)?;
    read(session, &files)
}

/// The archived session `session` whose files are `files`, as a transcript
/// (see [`load`]).
///
/// # Errors
///
/// [`Error::Archive`] when no scratch folder can be made or the session
/// cannot be read back.
pub fn read(session: &ArchivedSession, files: &[StoredFile]) -> Result<Transcript> {
    let scratch = tempfile::Builder::new()
        .prefix("sess-archived-")
        .tempdir()
        .map_err(|e| Error::archive_because("cannot make a scratch folder".to_owned(), e))?;
    sess_archive::load(session, files, scratch.path()).map_err(|e| {
        Error::archive_because(format!("cannot read the archived session `{}`", session.meta.session_id), e)
    })
}

/// Whether an archived session's original is still where it was.
pub fn original(session: &ArchivedSession) -> &'static str {
    if session.deleted_ms.is_some() { "deleted" } else { "present" }
}

/// Where sess keeps its own data when the environment names no other:
/// `$XDG_DATA_HOME/sess`, else `HOME/.local/share/sess`.
pub fn data_dir(xdg_data_home: Option<PathBuf>, home: &Path) -> PathBuf {
    xdg_data_home.unwrap_or_else(|| home.join(".local/share")).join("sess")
}
