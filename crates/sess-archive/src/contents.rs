//! An archived session's files: put together from their chunks, written
//! into a private folder to be read by the agent's own reader, or restored
//! where they were (or into a folder of the user's).

use std::io;
use std::path::{Component, Path, PathBuf};

use sess_sources::{Call, RowDump, SourceKind, Transcript};

use crate::error::{Error, Result};
use crate::vault::{ArchivedSession, Kind, StoredFile};

/// Adds the chunk `chunk`, which starts at `start`, to the bytes `bytes` of
/// the file `path` put together so far: chunks must follow each other.
pub(crate) fn append_chunk(bytes: &mut Vec<u8>, start: i64, chunk: &[u8], path: &str) -> Result<()> {
    if usize::try_from(start).ok() != Some(bytes.len()) {
        return Err(Error::Invalid {
            path: PathBuf::from(path),
            message: format!(
                "the archive's copy is damaged: a chunk starts at byte {start} where {} bytes are stored",
                bytes.len()
            ),
        });
    }
    bytes.extend_from_slice(chunk);
    Ok(())
}

/// The file name a database session's rows are written to.
const ROWS_DATABASE: &str = "session.db";

/// `path` under `root`: an absolute path loses its root, and `..` parts are
/// dropped, so nothing lands outside `root`.
fn under(root: &Path, path: &str) -> PathBuf {
    let mut out = root.to_path_buf();
    for part in Path::new(path).components() {
        if let Component::Normal(name) = part {
            out.push(name);
        }
    }
    out
}

/// The session id a row session's path (`DATABASE#id`) names.
fn row_id(path: &str) -> &str {
    path.rsplit_once('#').map_or(path, |(_, id)| id)
}

/// Reads the archived session `session`, whose files are `files`, with its
/// agent's own reader: the files are written under `scratch` (a private
/// folder the caller removes) at their original paths, so a reader that
/// looks beside the main file finds what was there; a directory the files
/// do not say is the one the archive noted.
pub fn load(session: &ArchivedSession, files: &[StoredFile], scratch: &Path) -> Result<Transcript> {
    let (source, main) = write_scratch(session, files, scratch)?;
    let mut transcript = match main {
        Main::Rows(database, id) => return Ok(source.source().load_row(&database, &id)?),
        Main::File(path) => source.source().load(&path)?,
    };
    // What a file all the agent's sessions share said (Gemini's
    // `projects.json`), as it was when the session was archived.
    if transcript.cwd.is_none() {
        transcript.cwd.clone_from(&session.meta.cwd);
    }
    Ok(transcript)
}

/// The model calls the archived session `session` recorded, read as the
/// catalog reads them (its main file, then the files its source counts
/// with it), from a private copy of its files under `scratch`.
pub fn usage(session: &ArchivedSession, files: &[StoredFile], scratch: &Path) -> Result<Vec<Call>> {
    let (source, main) = write_scratch(session, files, scratch)?;
    let source = source.source();
    let invalid = |path: &Path, message: String| Error::Invalid { path: path.to_owned(), message };
    let path = match main {
        Main::Rows(database, id) => {
            return source.index_row(&database, &id).map(|indexed| indexed.usage).map_err(|m| invalid(&database, m));
        }
        Main::File(path) => path,
    };
    let bytes = source.read_whole(&path)?;
    let mut calls = source.index(&path, complete_lines(&bytes)).map_err(|m| invalid(&path, m))?.usage;
    for extra in source.usage_files(&path) {
        let bytes = source.read_whole(&extra)?;
        calls.extend(source.usage(&extra, complete_lines(&bytes)));
    }
    Ok(calls)
}

/// The bytes up to the end of the last line.
fn complete_lines(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)]
}

/// Where an archived session's main file was written for its reader.
enum Main {
    /// A session file.
    File(PathBuf),
    /// A database of its rows, and the session's id.
    Rows(PathBuf, String),
}

/// Writes the files of `session` under `scratch` at their original paths
/// (the rows of a database session as a database of their own).
fn write_scratch(session: &ArchivedSession, files: &[StoredFile], scratch: &Path) -> Result<(SourceKind, Main)> {
    let source = SourceKind::from_name(&session.source).ok_or_else(|| Error::UnknownSource {
        id: session.meta.session_id.clone(),
        source_name: session.source.clone(),
    })?;
    let main = files.first().ok_or_else(|| Error::Invalid {
        path: PathBuf::from(&session.path),
        message: "the archive holds no file of this session".to_owned(),
    })?;
    if main.kind == Kind::Rows {
        let database = scratch.join(ROWS_DATABASE);
        rows_of(main)?.write_database(&database)?;
        return Ok((source, Main::Rows(database, row_id(&main.path).to_owned())));
    }
    for file in files {
        let target = under(scratch, &file.path);
        write_new(&target, &file.bytes)?;
    }
    Ok((source, Main::File(under(scratch, &main.path))))
}

fn rows_of(file: &StoredFile) -> Result<RowDump> {
    serde_json::from_slice(&file.bytes).map_err(|e| Error::Invalid {
        path: PathBuf::from(&file.path),
        message: format!("the archive's copy of the rows is not readable: {e}"),
    })
}

fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("making", parent, e))?;
    }
    sess_store::durable::write_atomic(path, bytes)
        .map_err(|e| Error::Invalid { path: path.to_owned(), message: e.to_string() })
}

/// What `sess restore` did with one file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Restored {
    /// Where it was written.
    pub path: PathBuf,
    /// Whether it was there already with the same bytes (nothing written).
    pub unchanged: bool,
    /// Its size.
    pub bytes: usize,
}

/// Writes the files of the archived session `session` back: where they were
/// (`to` is `None`), or under `to` keeping their layout below the folder
/// they share. Nothing is written when one of them exists with other bytes
/// ([`Error::WouldOverwrite`]); a file there with the same bytes is left as
/// it is. A session kept as rows of an agent's database is written only
/// under `to`, as a database file of its own.
pub fn restore(session: &ArchivedSession, files: &[StoredFile], to: Option<&Path>) -> Result<Vec<Restored>> {
    if files.first().is_some_and(|f| f.kind == Kind::Rows) {
        let Some(to) = to else {
            let agent = SourceKind::from_name(&session.source)
                .map_or_else(|| session.source.clone(), |k| k.agent_name().to_owned());
            return Err(Error::RowsInPlace { agent, id: session.meta.session_id.clone() });
        };
        let target = to.join(format!("{}.db", sanitize(&session.meta.session_id)));
        if target.exists() {
            return Err(Error::WouldOverwrite { path: target });
        }
        std::fs::create_dir_all(to).map_err(|e| Error::io("making", to, e))?;
        rows_of(&files[0])?.write_database(&target)?;
        let bytes = std::fs::metadata(&target).map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX));
        return Ok(vec![Restored { path: target, unchanged: false, bytes }]);
    }
    let base = common_folder(files.iter().map(|f| Path::new(&f.path)));
    let targets: Vec<PathBuf> = files
        .iter()
        .map(|file| match to {
            None => PathBuf::from(&file.path),
            Some(to) => {
                under(to, &Path::new(&file.path).strip_prefix(&base).unwrap_or(Path::new(&file.path)).to_string_lossy())
            }
        })
        .collect();
    let mut unchanged = Vec::with_capacity(files.len());
    for (file, target) in files.iter().zip(&targets) {
        // What is there is read only if it is a regular file: a FIFO there
        // would block the read, a device never end it.
        let existing =
            sess_store::storage::regular_file(&sess_store::FileStorage, target).and_then(|_| std::fs::read(target));
        match existing {
            Ok(existing) if existing == file.bytes => unchanged.push(true),
            Ok(_) => return Err(Error::WouldOverwrite { path: target.clone() }),
            Err(err) if err.kind() == io::ErrorKind::NotFound => unchanged.push(false),
            Err(err) => return Err(Error::io("reading", target, err)),
        }
    }
    let mut done = Vec::with_capacity(files.len());
    for ((file, target), unchanged) in files.iter().zip(targets).zip(unchanged) {
        if !unchanged {
            write_new(&target, &file.bytes)?;
        }
        done.push(Restored { path: target, unchanged, bytes: file.bytes.len() });
    }
    Ok(done)
}

/// The deepest folder that holds every one of `paths`.
fn common_folder<'a>(paths: impl Iterator<Item = &'a Path>) -> PathBuf {
    let mut common: Option<PathBuf> = None;
    for path in paths {
        let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
        common = Some(match common {
            None => folder,
            Some(current) => {
                let mut shared = PathBuf::new();
                for (a, b) in current.components().zip(folder.components()) {
                    if a != b {
                        break;
                    }
                    shared.push(a);
                }
                shared
            }
        });
    }
    common.unwrap_or_default()
}

/// A session id as a file name: path separators and other odd characters
/// become `_`.
fn sanitize(id: &str) -> String {
    id.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::FileTypeExt as _;

    use super::*;

    #[test]
    fn paths_stay_under_the_root() {
        let root = Path::new("/scratch");
        assert_eq!(
            under(root, "/home/u/.claude/projects/-p/a.jsonl"),
            Path::new("/scratch/home/u/.claude/projects/-p/a.jsonl")
        );
        assert_eq!(under(root, "../../etc/passwd"), Path::new("/scratch/etc/passwd"));
        assert_eq!(row_id("/home/u/opencode.db#ses_1"), "ses_1");
    }

    #[test]
    fn the_common_folder_of_a_session_files() {
        let paths = ["/h/p/a.jsonl", "/h/p/a/subagents/x.jsonl"];
        assert_eq!(common_folder(paths.iter().map(Path::new)), Path::new("/h/p"));
        assert_eq!(common_folder(["/h/p/a.jsonl"].iter().map(Path::new)), Path::new("/h/p"));
    }

    #[test]
    fn a_fifo_where_a_file_is_restored_is_refused_without_being_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("s.jsonl");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let session = ArchivedSession {
            key: 1,
            machine_id: "m".to_owned(),
            machine: "m".to_owned(),
            source: "claude".to_owned(),
            path: "/h/p/s.jsonl".to_owned(),
            meta: crate::Meta::default(),
            archived_ms: 0,
            updated_ms: 0,
            deleted_ms: None,
        };
        let files =
            [StoredFile { path: "/h/p/s.jsonl".to_owned(), kind: Kind::Lines, version: 1, bytes: b"{}\n".to_vec() }];
        let err = restore(&session, &files, Some(dir.path())).unwrap_err().to_string();
        assert!(err.contains("FIFO"), "{err}");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn chunks_must_follow_each_other() {
        let mut bytes = b"ab\n".to_vec();
        append_chunk(&mut bytes, 3, b"cd\n", "f").unwrap();
        assert!(append_chunk(&mut bytes, 9, b"x\n", "f").is_err());
        assert_eq!(bytes, b"ab\ncd\n");
    }
}
