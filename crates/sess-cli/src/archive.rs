//! The archive `sess archive` writes and the read verbs read: which store
//! (`--store`, else the default in the data folder), this machine, and a
//! session of it by id.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sess_archive::{ArchivedSession, Filter, Machine, PostgresVault, SqliteVault, StoredFile, Vault};
use sess_sources::Transcript;

use crate::env::environment;
use crate::output::Hint;

/// `$XDG_DATA_HOME/sess` (`~/.local/share/sess`): the archive, the machine
/// file and the catalog.
pub(crate) fn data_dir() -> PathBuf {
    let env = environment();
    env.xdg_data_home.unwrap_or_else(|| env.home.join(".local/share")).join("sess")
}

/// The default archive: `sqlite:$XDG_DATA_HOME/sess/archive.sqlite`.
pub(crate) fn default_url() -> String {
    format!("sqlite:{}", data_dir().join("archive.sqlite").display())
}

/// The default archive's URL when it exists (for the verbs that include it
/// without `--store`).
pub(crate) fn default_present() -> Option<String> {
    let path = data_dir().join("archive.sqlite");
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
pub(crate) fn open(url: &str) -> anyhow::Result<Box<dyn Vault>> {
    if let Some(path) = sqlite_path(url) {
        if path.as_os_str().is_empty() {
            bail!("`{url}`: the file is missing (sqlite:PATH)");
        }
        match sess_store::storage::regular_file(&sess_store::FileStorage, path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot open the archive `{url}`"))),
        }
        return Ok(Box::new(SqliteVault::open(path).with_context(|| format!("cannot open the archive `{url}`"))?));
    }
    if is_postgres(url) {
        return Ok(Box::new(PostgresVault::connect(url).context("cannot open the PostgreSQL archive")?));
    }
    Err(anyhow::Error::new(Hint(
        "an archive is `sqlite:PATH` or `postgres://…` (a `dir:` store holds pi-family sessions only)".to_owned(),
    ))
    .context(format!("`{url}` cannot hold an archive")))
}

/// The archive `url` names when it holds one; `None` when it is a store
/// without one (or not a store an archive can be in). An `sqlite:` file that
/// does not exist is an error.
pub(crate) fn existing(url: &str) -> anyhow::Result<Option<Box<dyn Vault>>> {
    if let Some(path) = sqlite_path(url) {
        // A device or FIFO is refused before SQLite opens it.
        match sess_store::storage::regular_file(&sess_store::FileStorage, path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                bail!("the store `{url}` does not exist: there is no file `{}`", path.display());
            }
            Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot open the store `{url}`"))),
        }
        return if SqliteVault::holds_archive(path) { open(url).map(Some) } else { Ok(None) };
    }
    if is_postgres(url) {
        let holds = PostgresVault::holds_archive(url).context("cannot open the PostgreSQL store")?;
        return if holds { open(url).map(Some) } else { Ok(None) };
    }
    Ok(None)
}

/// The archive `url` names, which must hold one (`sess restore`).
pub(crate) fn required(url: &str) -> anyhow::Result<Box<dyn Vault>> {
    let missing = || {
        anyhow::Error::new(Hint("`sess archive` makes it".to_owned()))
            .context(format!("there is no archive in `{url}`"))
    };
    if sqlite_path(url).is_some_and(|path| !path.exists()) {
        return Err(missing());
    }
    existing(url)?.ok_or_else(missing)
}

/// This machine: made once in the data folder.
pub(crate) fn machine() -> anyhow::Result<Machine> {
    let host = sess_archive::host_name(std::env::var("HOSTNAME").ok().as_deref());
    Ok(Machine::load_or_make(&data_dir(), &host)?)
}

/// The one archived session `arg` (an id or id prefix) names, of the
/// machine `machine` when given.
pub(crate) fn find(
    vault: &mut dyn Vault,
    url: &str,
    arg: &str,
    machine: Option<&str>,
) -> anyhow::Result<ArchivedSession> {
    // An empty prefix is every session's: never a choice.
    if arg.trim().is_empty() {
        return Err(anyhow::Error::new(Hint("`sess --store URL list --all-projects` lists them".to_owned()))
            .context("the session id is empty: give an archived session's id (or the start of it)"));
    }
    let filter = Filter { machine: machine.map(str::to_owned), id_prefix: Some(arg.to_owned()), ..Filter::default() };
    let mut found = vault.sessions(&filter)?;
    if found.iter().any(|s| s.meta.session_id == arg) {
        found.retain(|s| s.meta.session_id == arg);
    }
    match found.len() {
        0 => Err(anyhow::Error::new(Hint("`sess --store URL list --all-projects` lists them".to_owned()))
            .context(format!("no archived session `{arg}` in `{url}`"))),
        1 => Ok(found.remove(0)),
        n => {
            let list: Vec<String> = found
                .iter()
                .map(|s| format!("  {}  {} on {}: {}", s.meta.session_id, s.source, s.machine, s.path))
                .collect();
            Err(anyhow::Error::new(Hint("give more of the id, or --machine NAME".to_owned()))
                .context(format!("`{arg}` names {n} archived sessions:\n{}", list.join("\n"))))
        }
    }
}

/// The archived session `session` as a transcript, read with its agent's
/// own reader from a private copy of its files.
pub(crate) fn load(vault: &mut dyn Vault, session: &ArchivedSession) -> anyhow::Result<Transcript> {
    let files = vault.files(session.key)?;
    read(session, &files)
}

/// The archived session `session` whose files are `files`, as a transcript
/// (see [`load`]).
pub(crate) fn read(session: &ArchivedSession, files: &[StoredFile]) -> anyhow::Result<Transcript> {
    let scratch =
        tempfile::Builder::new().prefix("sess-archived-").tempdir().context("cannot make a scratch folder")?;
    let transcript = sess_archive::load(session, files, scratch.path())
        .with_context(|| format!("cannot read the archived session `{}`", session.meta.session_id))?;
    Ok(transcript)
}

/// Whether an archived session's original is still where it was.
pub(crate) fn original(session: &ArchivedSession) -> &'static str {
    if session.deleted_ms.is_some() { "deleted" } else { "present" }
}
