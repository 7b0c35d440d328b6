//! Terminal breadcrumbs: which session a terminal last used, for `--continue`.
//!
//! A breadcrumb is the file `<terminal-sessions>/<terminal id>` holding the cwd
//! and the session file, one per line (xcsh's `writeTerminalBreadcrumb` and
//! `readTerminalBreadcrumb`). Several agents running in different terminals
//! each continue their own session instead of the newest one in the directory.

use std::path::{Component, Path, PathBuf};

use super::dirs::{AgentDirs, Environment, normalize_lexically};
use super::recent::most_recent;
use crate::error::{Error, Result};
use crate::storage::{SessionStorage, write_atomic};

/// The breadcrumb file of `terminal_id` in `terminal_sessions_dir`.
///
/// The id must be one plain file name: not empty, no `/`, `\` or NUL, no `..`,
/// and nothing the platform reads as a root or drive, so a breadcrumb can never
/// land outside the directory.
pub fn breadcrumb_path(terminal_sessions_dir: &Path, terminal_id: &str) -> Result<PathBuf> {
    let mut components = Path::new(terminal_id).components();
    let single_name = matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(name)), None) if name == terminal_id
    );
    let forbidden = terminal_id.contains(['/', '\\', '\0']) || terminal_id.contains("..");
    if !single_name || forbidden {
        return Err(Error::InvalidTerminalId { id: terminal_id.to_owned() });
    }
    Ok(terminal_sessions_dir.join(terminal_id))
}

/// Records that the terminal `terminal_id` is using `session_file` in `cwd`:
/// writes `cwd + "\n" + session_file + "\n"` to its breadcrumb, atomically,
/// creating the directory if needed. Paths that are not UTF-8 are written
/// lossily (such a breadcrumb then never matches, and `--continue` falls back
/// to the newest session).
pub fn write_breadcrumb(
    storage: &dyn SessionStorage,
    terminal_sessions_dir: &Path,
    terminal_id: &str,
    cwd: &Path,
    session_file: &Path,
) -> Result<()> {
    let path = breadcrumb_path(terminal_sessions_dir, terminal_id)?;
    storage
        .create_dir_all(terminal_sessions_dir)
        .map_err(|e| Error::io("creating the directory", terminal_sessions_dir, e))?;
    let text = format!("{}\n{}\n", cwd.to_string_lossy(), session_file.to_string_lossy());
    write_atomic(storage, &path, text.as_bytes()).map_err(|e| Error::io("writing", path, e))
}

/// The session file the terminal `terminal_id` last used in `cwd`, if its
/// breadcrumb exists, has at least two lines once trimmed (`\n` or `\r\n`), names `cwd` on the
/// first (both compared after lexical normalisation) and an existing regular
/// file on the second. Anything else (including an invalid terminal id) is
/// `None`.
pub fn read_breadcrumb(
    storage: &dyn SessionStorage,
    terminal_sessions_dir: &Path,
    terminal_id: &str,
    cwd: &Path,
) -> Option<PathBuf> {
    let path = breadcrumb_path(terminal_sessions_dir, terminal_id).ok()?;
    let bytes = storage.read(&path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.trim().lines();
    let (recorded_cwd, session_file) = (lines.next()?, lines.next()?);
    if normalize_lexically(Path::new(recorded_cwd)) != normalize_lexically(cwd) {
        return None;
    }
    let session_file = PathBuf::from(session_file);
    storage.stat(&session_file).is_ok_and(|s| !s.is_dir).then_some(session_file)
}

/// The session `--continue` resumes in `cwd`: this terminal's breadcrumb when
/// `env.terminal_id` is set and the breadcrumb is valid (it is not required to
/// point into `dir`), else the most recently modified session in `dir`. `None`
/// means "start a new session".
pub fn continue_recent_path(
    storage: &dyn SessionStorage,
    dirs: &AgentDirs,
    env: &Environment,
    cwd: &Path,
    dir: &Path,
) -> Option<PathBuf> {
    env.terminal_id
        .as_deref()
        .and_then(|id| read_breadcrumb(storage, &dirs.terminal_sessions, id, cwd))
        .or_else(|| most_recent(storage, dir))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    use super::*;
    use crate::discovery::dirs::{PiAgent, agent_dirs};
    use crate::discovery::test_storage::{ClockStorage, Layout as _};

    const CRUMBS: &str = "/state/terminal-sessions";
    const SESSION: &str = "/s/--p--/a.jsonl";

    fn storage() -> ClockStorage {
        let storage = ClockStorage::new();
        storage.file(SESSION, "{\"type\":\"session\",\"id\":\"a\"}\n", 1);
        storage
    }

    #[test]
    fn round_trip() {
        let storage = storage();
        write_breadcrumb(&storage, Path::new(CRUMBS), "pts-3", Path::new("/home/u/p"), Path::new(SESSION)).unwrap();
        assert_eq!(
            storage.read(Path::new("/state/terminal-sessions/pts-3")).unwrap(),
            b"/home/u/p\n/s/--p--/a.jsonl\n"
        );
        let found = read_breadcrumb(&storage, Path::new(CRUMBS), "pts-3", Path::new("/home/u/p"));
        assert_eq!(found, Some(PathBuf::from(SESSION)));
    }

    #[rstest]
    #[case::same("/home/u/p\n/s/--p--/a.jsonl\n", "/home/u/p", true)]
    #[case::cwd_normalized("/home/u/./p/\n/s/--p--/a.jsonl", "/home/u/q/../p", true)]
    #[case::surrounding_whitespace("\n  /home/u/p\n/s/--p--/a.jsonl\n\n", "/home/u/p", true)]
    #[case::cwd_mismatch("/home/u/other\n/s/--p--/a.jsonl\n", "/home/u/p", false)]
    #[case::missing_file("/home/u/p\n/s/--p--/gone.jsonl\n", "/home/u/p", false)]
    #[case::a_directory("/home/u/p\n/s/--p--\n", "/home/u/p", false)]
    #[case::one_line("/home/u/p\n", "/home/u/p", false)]
    #[case::empty("", "/home/u/p", false)]
    fn reading(#[case] content: &str, #[case] cwd: &str, #[case] found: bool) {
        let storage = storage();
        storage.put("/state/terminal-sessions/t", content);
        let expected = found.then(|| PathBuf::from(SESSION));
        assert_eq!(read_breadcrumb(&storage, Path::new(CRUMBS), "t", Path::new(cwd)), expected);
    }

    #[rstest]
    #[case::empty("")]
    #[case::slash("a/b")]
    #[case::parent("..")]
    #[case::current(".")]
    #[case::escape("../../etc/passwd")]
    #[case::absolute("/etc/passwd")]
    #[case::backslash(r"a\b")]
    #[case::dots_inside("a..b")]
    #[case::nul("a\0b")]
    fn hostile_terminal_ids_are_refused(#[case] id: &str) {
        let storage = storage();
        let err = write_breadcrumb(&storage, Path::new(CRUMBS), id, Path::new("/p"), Path::new(SESSION)).unwrap_err();
        assert!(matches!(err, Error::InvalidTerminalId { id: ref got } if got == id), "{err}");
        assert_eq!(read_breadcrumb(&storage, Path::new(CRUMBS), id, Path::new("/p")), None);
        assert_eq!(storage.files(), [PathBuf::from(SESSION)], "nothing was written");
    }

    #[rstest]
    #[case::tty("pts-3")]
    #[case::tmux("tmux-%3")]
    #[case::apple("apple-w0t0p0:5A1B-22")]
    #[case::kitty("kitty-1")]
    fn real_terminal_ids_are_accepted(#[case] id: &str) {
        assert_eq!(breadcrumb_path(Path::new(CRUMBS), id).unwrap(), Path::new(CRUMBS).join(id));
    }

    #[test]
    fn continue_prefers_the_breadcrumb_then_the_newest_session() {
        let storage = storage();
        storage.file("/s/--p--/newer.jsonl", "{\"type\":\"session\",\"id\":\"n\"}\n", 5).file(
            "/elsewhere/pinned.jsonl",
            "{\"type\":\"session\",\"id\":\"p\"}\n",
            1,
        );
        let env = Environment { home: "/home/u".into(), terminal_id: Some("pts-1".into()), ..Environment::default() };
        let dirs = agent_dirs(PiAgent::Xcsh, &env, &storage);
        let (cwd, dir) = (Path::new("/home/u/p"), Path::new("/s/--p--"));

        assert_eq!(continue_recent_path(&storage, &dirs, &env, cwd, dir), Some(PathBuf::from("/s/--p--/newer.jsonl")));

        let pinned = Path::new("/elsewhere/pinned.jsonl");
        write_breadcrumb(&storage, &dirs.terminal_sessions, "pts-1", cwd, pinned).unwrap();
        assert_eq!(continue_recent_path(&storage, &dirs, &env, cwd, dir), Some(pinned.to_owned()));

        let other_terminal = Environment { terminal_id: Some("pts-2".into()), ..env.clone() };
        assert_eq!(
            continue_recent_path(&storage, &dirs, &other_terminal, cwd, dir),
            Some(PathBuf::from("/s/--p--/newer.jsonl"))
        );
        let no_terminal = Environment { terminal_id: None, ..env };
        assert_eq!(continue_recent_path(&storage, &dirs, &no_terminal, cwd, Path::new("/empty")), None);
    }
}
