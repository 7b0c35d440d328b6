//! `sess export SESSION [--format md|html|json] [--leaf ID] [--redact] [-o FILE]`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sess_sources::Transcript;
use sess_store::{FileStorage, SessionStorage as _};

use crate::Outcome;
use crate::cli::{ExportArgs, ExportFormat};
use crate::env::host;
use crate::env::sources_env;
use crate::output::Printed;
use crate::output::{Hint, note, stdout};

pub(crate) fn run(args: &ExportArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let format = args.format.or_else(|| args.output.as_deref().and_then(format_of)).unwrap_or(ExportFormat::Md);
    // A target that cannot be written is refused before the session is read.
    if let Some(target) = &args.output {
        check_writable(target)?;
    }
    let read = sess::load::read(&args.session, args.leaf.as_deref(), store, host(), &Printed)?;
    if let Some(target) = &args.output {
        check_not_a_session(target, read.file.as_deref())?;
    }
    let mut transcript = read.transcript;
    if let Some(masked) = sess::export::prepare(&mut transcript, args.redact) {
        note(format_args!("masked {masked} secret{}", if masked == 1 { "" } else { "s" }));
    }
    let bytes = file(&transcript, format)?;
    if let Some(target) = &args.output {
        sess_store::durable::write_atomic(target, &bytes)
            .with_context(|| format!("cannot write `{}`", target.display()))?;
    } else {
        let mut out = stdout();
        out.write_all(&bytes)?;
        out.flush()?;
    }
    Ok(Outcome::Clean)
}

/// The format a file name's extension names: `.md`/`.markdown`, `.html`/`.htm`, `.json`.
fn format_of(path: &Path) -> Option<ExportFormat> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "md" | "markdown" => Some(ExportFormat::Md),
        "html" | "htm" => Some(ExportFormat::Html),
        "json" => Some(ExportFormat::Json),
        _ => None,
    }
}

/// The bytes of `transcript` written as `format`. JSON is what `sess show
/// --json --all` prints.
pub(crate) fn file(transcript: &Transcript, format: ExportFormat) -> anyhow::Result<Vec<u8>> {
    Ok(match format {
        ExportFormat::Md => sess::export::write(transcript, sess::ExportFormat::Markdown),
        ExportFormat::Html => sess::export::write(transcript, sess::ExportFormat::Html),
        ExportFormat::Json => {
            let mut bytes = serde_json::to_vec_pretty(transcript)?;
            bytes.push(b'\n');
            bytes
        }
    })
}

/// Refuses a target that is not a regular file (a FIFO, a device, a
/// folder), or whose folder does not exist.
fn check_writable(target: &Path) -> anyhow::Result<()> {
    let shown = target.display();
    match sess_store::storage::regular_file(&FileStorage, target) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = sess_store::storage::parent_dir(target);
            if !dir.is_dir() {
                bail!("cannot write `{shown}`: the folder `{}` does not exist", dir.display());
            }
        }
        Err(e) => match e.get_ref().and_then(|inner| inner.downcast_ref::<sess_store::storage::NotRegular>()) {
            Some(not_regular) => {
                bail!("cannot write `{shown}`: it is {}; sess export writes regular files", not_regular.kind);
            }
            None => return Err(anyhow::Error::new(e).context(format!("cannot write `{shown}`"))),
        },
    }
    Ok(())
}

/// Refuses a target that is a session file of any agent (the one exported,
/// `session`, above all), a path inside an agent's sessions folder or sess's
/// own data folder, or an SQLite database (sess's archive or catalog may be
/// one, wherever it is): an export never lands where an agent would read it
/// as a session, nor over data that may be the only copy of a session. The
/// checks are made on the file a write would land in, past any links, and a
/// link is then refused: the user passes the real path.
fn check_not_a_session(target: &Path, session: Option<&Path>) -> anyhow::Result<()> {
    let shown = target.display();
    let at = final_target(target);
    if let Some(session) = session
        && at == real_path(session)
    {
        bail!("`{shown}` is the session being exported: sess export does not replace it");
    }
    if FileStorage.exists(target)
        && let Some(kind) = sess::resolve::detect(target)?
    {
        return Err(anyhow::Error::new(Hint("write the export to a file of its own".to_owned())).context(format!(
            "`{shown}` is a {} session: sess export does not replace session files",
            kind.agent_name()
        )));
    }
    for kind in sess_sources::registry() {
        for root in kind.source().roots(sources_env()) {
            if at.starts_with(real_path(&root)) {
                return Err(anyhow::Error::new(Hint("write the export outside the agents' folders".to_owned()))
                    .context(format!(
                        "`{shown}` is in `{}`, where {} keeps its sessions",
                        root.display(),
                        kind.agent_name()
                    )));
            }
        }
    }
    let data = host().data_dir.clone();
    if at.starts_with(real_path(&data)) {
        return Err(anyhow::Error::new(Hint("write the export outside sess's data folder".to_owned())).context(
            format!(
                "`{shown}` is in `{}`, where sess keeps its own data (the archive, the catalog): sess export does \
                 not write there",
                data.display()
            ),
        ));
    }
    if is_sqlite(&at) {
        return Err(anyhow::Error::new(Hint("write the export to a file of its own".to_owned())).context(format!(
            "`{shown}` is an SQLite database (sess's archive or catalog may be one): sess export does not replace \
             databases"
        )));
    }
    if is_link(target) {
        return Err(anyhow::Error::new(Hint(format!(
            "to write the file it leads to, give its path: `{}`",
            at.display()
        )))
        .context(format!("`{shown}` is a symbolic link: sess export does not write through links")));
    }
    Ok(())
}

/// Whether `path` itself (not what it leads to) is a symbolic link.
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether the file at `path` starts with SQLite's header.
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read as _;
    const HEADER: &[u8; 16] = b"SQLite format 3\0";
    let mut start = [0; 16];
    std::fs::File::open(path).and_then(|mut file| file.read_exact(&mut start)).is_ok() && &start == HEADER
}

/// The file a write to `target` lands in: its links followed to the end
/// (a dangling one too, whose target a write would create: the storage's
/// [`resolve_link`](sess_store::SessionStorage::resolve_link)), then
/// [`real_path`]. A loop of links is checked where it starts (and refused
/// as a link).
fn final_target(target: &Path) -> PathBuf {
    let at = std::path::absolute(target).unwrap_or_else(|_| target.to_owned());
    real_path(&FileStorage.resolve_link(&at).unwrap_or(at))
}

/// `path` with its links and `..` resolved as far as it exists: the file
/// itself when it does, else its folder's real path and its name.
fn real_path(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    match (absolute.parent().and_then(|dir| std::fs::canonicalize(dir).ok()), absolute.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => absolute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_extensions() {
        assert_eq!(format_of(Path::new("a/b.md")), Some(ExportFormat::Md));
        assert_eq!(format_of(Path::new("b.HTML")), Some(ExportFormat::Html));
        assert_eq!(format_of(Path::new("b.htm")), Some(ExportFormat::Html));
        assert_eq!(format_of(Path::new("b.json")), Some(ExportFormat::Json));
        assert_eq!(format_of(Path::new("b.txt")), None);
        assert_eq!(format_of(Path::new("b")), None);
    }
}
