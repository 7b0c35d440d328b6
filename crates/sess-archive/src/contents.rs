//! An archived session's files: put together from their chunks, written
//! into a private folder to be read by the agent's own reader, or restored
//! where they were (or into a folder of the user's).

use std::io;
use std::path::{Component, Path, PathBuf};

use sess_sources::{Call, RowDump, SourceKind, Transcript};
use sess_store::SessionStorage;

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
        write_scratch_file(&target, &file.bytes)?;
    }
    Ok((source, Main::File(under(scratch, &main.path))))
}

fn rows_of(file: &StoredFile) -> Result<RowDump> {
    serde_json::from_slice(&file.bytes).map_err(|e| Error::Invalid {
        path: PathBuf::from(&file.path),
        message: format!("the archive's copy of the rows is not readable: {e}"),
    })
}

fn write_scratch_file(path: &Path, bytes: &[u8]) -> Result<()> {
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
/// it is. Each file is published without replacing anything: one that
/// appears at its place while the session is restored is left as it is, and
/// the files this call wrote are removed again ([`Error::Appeared`]). No
/// file is written through a link: a symbolic link where a file goes is
/// refused ([`Error::LinkAtTarget`]), and under `to`, a folder that leads
/// out of it ([`Error::OutsideTarget`]). A session kept as rows of an
/// agent's database is written only under `to`, as a database file of its
/// own.
pub fn restore(session: &ArchivedSession, files: &[StoredFile], to: Option<&Path>) -> Result<Vec<Restored>> {
    restore_with(&sess_store::FileStorage, session, files, to)
}

/// [`restore`] through `storage` (the file storage; a test's, to make
/// another writer's file appear at the wrong moment).
fn restore_with(
    storage: &dyn SessionStorage,
    session: &ArchivedSession,
    files: &[StoredFile],
    to: Option<&Path>,
) -> Result<Vec<Restored>> {
    if files.first().is_some_and(|f| f.kind == Kind::Rows) {
        let Some(to) = to else {
            let agent = SourceKind::from_name(&session.source)
                .map_or_else(|| session.source.clone(), |k| k.agent_name().to_owned());
            return Err(Error::RowsInPlace { agent, id: session.meta.session_id.clone() });
        };
        let target = to.join(format!("{}.db", sanitize(&session.meta.session_id)));
        std::fs::create_dir_all(to).map_err(|e| Error::io("making", to, e))?;
        check_target(&target, Some(to))?;
        if target.exists() {
            return Err(Error::WouldOverwrite { path: target });
        }
        // It claims the name with O_EXCL: a file or link there is refused.
        match rows_of(&files[0])?.write_database(&target) {
            Err(sess_sources::Error::Exists { .. }) => return Err(Error::Appeared { path: target }),
            other => other?,
        }
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
        check_target(target, to)?;
        // What is there is read only if it is a regular file: a FIFO there
        // would block the read, a device never end it.
        let existing = sess_store::storage::regular_file(storage, target).and_then(|_| storage.read(target));
        match existing {
            Ok(existing) if existing == file.bytes => unchanged.push(true),
            Ok(_) => return Err(Error::WouldOverwrite { path: target.clone() }),
            Err(err) if err.kind() == io::ErrorKind::NotFound => unchanged.push(false),
            Err(err) => return Err(Error::io("reading", target, err)),
        }
    }
    let mut done: Vec<Restored> = Vec::with_capacity(files.len());
    for ((file, target), unchanged) in files.iter().zip(targets).zip(unchanged) {
        if !unchanged && let Err(err) = publish(storage, &target, &file.bytes) {
            // Nothing is written when a file cannot be: those this call
            // wrote go again.
            for written in done.iter().filter(|r| !r.unchanged) {
                let _ = storage.remove_file(&written.path);
            }
            return Err(err);
        }
        done.push(Restored { path: target, unchanged, bytes: file.bytes.len() });
    }
    Ok(done)
}

/// Writes `bytes` as a new file at `target` (and its folders), never
/// replacing what appeared there.
fn publish(storage: &dyn SessionStorage, target: &Path, bytes: &[u8]) -> Result<()> {
    let parent = sess_store::storage::parent_dir(target);
    storage.create_dir_all(parent).map_err(|e| Error::io("making", parent, e))?;
    match sess_store::storage::write_new(storage, target, bytes) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Err(Error::Appeared { path: target.to_owned() }),
        Err(err) => Err(Error::io("writing", target, err)),
    }
}

/// Refuses a symbolic link at `target` (a restore writes through none, a
/// dangling one included) and, under `to`, a target whose folder resolves
/// out of `to` (through a link among the folders there).
fn check_target(target: &Path, to: Option<&Path>) -> Result<()> {
    if std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink()) {
        let points_to = std::fs::read_link(target).unwrap_or_default();
        return Err(Error::LinkAtTarget { path: target.to_owned(), points_to });
    }
    let Some(to) = to else { return Ok(()) };
    let root = resolve(to)?;
    let folder = sess_store::storage::parent_dir(target);
    let resolved = resolve(folder)?;
    if resolved.starts_with(&root) {
        return Ok(());
    }
    Err(Error::OutsideTarget { path: target.to_owned(), resolved, to: to.to_owned() })
}

/// `path` with every link resolved: its deepest part that exists, made
/// canonical, and the rest (which has no links yet).
fn resolve(path: &Path) -> Result<PathBuf> {
    let path = std::path::absolute(path).map_err(|e| Error::io("resolving", path, e))?;
    for ancestor in path.ancestors() {
        match std::fs::canonicalize(ancestor) {
            Ok(real) => return Ok(real.join(path.strip_prefix(ancestor).unwrap_or(Path::new("")))),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(err) => return Err(Error::io("resolving", ancestor, err)),
        }
    }
    Ok(path)
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

    fn session(path: &str) -> ArchivedSession {
        ArchivedSession {
            key: 1,
            machine_id: "m".to_owned(),
            machine: "m".to_owned(),
            source: "claude".to_owned(),
            path: path.to_owned(),
            meta: crate::Meta::default(),
            archived_ms: 0,
            updated_ms: 0,
            deleted_ms: None,
        }
    }

    fn stored(path: &Path, bytes: &[u8]) -> StoredFile {
        StoredFile { path: path.to_string_lossy().into_owned(), kind: Kind::Lines, version: 1, bytes: bytes.to_vec() }
    }

    // Issue 26, item 5: a dangling link where a file is restored was
    // followed, and the file written wherever it pointed.
    #[test]
    fn a_dangling_link_where_a_file_is_restored_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (target, elsewhere) = (dir.path().join("p/s.jsonl"), dir.path().join("agent/s.jsonl"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &target).unwrap();
        let files = [stored(&target, b"{}\n")];
        let err = restore(&session(&files[0].path), &files, None).unwrap_err();
        assert!(matches!(err, Error::LinkAtTarget { .. }), "{err}");
        assert!(!elsewhere.exists(), "written through the link");
        assert!(std::fs::symlink_metadata(&target).unwrap().file_type().is_symlink());
    }

    // Issue 26, item 5: a folder under `--to DIR` that is a link into an
    // agent's folder was written through.
    #[test]
    fn a_folder_link_under_the_restore_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (to, agent) = (dir.path().join("to"), dir.path().join("agent"));
        std::fs::create_dir_all(&to).unwrap();
        std::fs::create_dir_all(&agent).unwrap();
        std::os::unix::fs::symlink(&agent, to.join("sub")).unwrap();
        let files = [stored(Path::new("/h/p/b.jsonl"), b"{}\n"), stored(Path::new("/h/p/sub/a.jsonl"), b"{}\n")];
        let err = restore(&session(&files[0].path), &files, Some(&to)).unwrap_err();
        assert!(matches!(err, Error::OutsideTarget { .. }), "{err}");
        assert!(!agent.join("a.jsonl").exists(), "written through the link");
        assert!(!to.join("b.jsonl").exists(), "something was written");
    }

    /// The file storage, but another writer makes a file at `intruded` just
    /// before a file is published there.
    #[derive(Debug)]
    struct Intruder {
        intruded: PathBuf,
    }

    impl SessionStorage for Intruder {
        fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
            sess_store::FileStorage.create_dir_all(dir)
        }
        fn stat(&self, path: &Path) -> io::Result<sess_store::storage::FileStat> {
            sess_store::FileStorage.stat(path)
        }
        fn open_read(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
            sess_store::FileStorage.open_read(path)
        }
        fn read_range(&self, path: &Path, offset: u64, max: usize) -> io::Result<Vec<u8>> {
            sess_store::FileStorage.read_range(path, offset, max)
        }
        fn list_dir(&self, dir: &Path) -> io::Result<Vec<sess_store::storage::DirEntry>> {
            sess_store::FileStorage.list_dir(dir)
        }
        fn create_new(&self, path: &Path) -> io::Result<Box<dyn sess_store::storage::StorageWriter>> {
            sess_store::FileStorage.create_new(path)
        }
        fn open_append(&self, path: &Path) -> io::Result<Box<dyn sess_store::storage::StorageWriter>> {
            sess_store::FileStorage.open_append(path)
        }
        fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
            sess_store::FileStorage.truncate(path, len)
        }
        fn write_at(&self, path: &Path, offset: u64, bytes: &[u8]) -> io::Result<()> {
            sess_store::FileStorage.write_at(path, offset, bytes)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.intrude(to);
            sess_store::FileStorage.rename(from, to)
        }
        fn link_new(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.intrude(to);
            sess_store::FileStorage.link_new(from, to)
        }
        fn sync_dir(&self, dir: &Path) -> io::Result<()> {
            sess_store::FileStorage.sync_dir(dir)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            sess_store::FileStorage.remove_file(path)
        }
        fn lock(&self, path: &Path) -> io::Result<Box<dyn sess_store::storage::StorageLock>> {
            sess_store::FileStorage.lock(path)
        }
    }

    impl Intruder {
        fn intrude(&self, to: &Path) {
            if to == self.intruded {
                sess_store::storage::write_atomic(&sess_store::FileStorage, to, b"theirs\n").unwrap();
            }
        }
    }

    // Issue 26, item 3: a file that appeared at a restore target after the
    // check was replaced (5 of 40 races).
    #[test]
    fn a_file_that_appears_while_restoring_is_left_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let to = dir.path().join("to");
        let files = [stored(Path::new("/h/p/a.jsonl"), b"{}\n"), stored(Path::new("/h/p/b.jsonl"), b"{}\n")];
        let storage = Intruder { intruded: to.join("b.jsonl") };
        let err = restore_with(&storage, &session(&files[0].path), &files, Some(&to)).unwrap_err();
        assert!(matches!(err, Error::Appeared { .. }), "{err}");
        assert_eq!(std::fs::read(to.join("b.jsonl")).unwrap(), b"theirs\n");
        let left: Vec<_> = std::fs::read_dir(&to).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["b.jsonl"], "the file written first is removed, no temporary file is left");
    }

    #[test]
    fn chunks_must_follow_each_other() {
        let mut bytes = b"ab\n".to_vec();
        append_chunk(&mut bytes, 3, b"cd\n", "f").unwrap();
        assert!(append_chunk(&mut bytes, 9, b"x\n", "f").is_err());
        assert_eq!(bytes, b"ab\ncd\n");
    }
}
