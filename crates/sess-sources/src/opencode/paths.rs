//! Where OpenCode keeps its data: the data folder, and the databases in it.

use std::fs;
use std::path::{Path, PathBuf};

use crate::env::Env;

/// OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else
/// `~/.local/share/opencode` (on every platform: OpenCode follows the XDG
/// layout on macOS too).
pub fn data_dir(env: &Env) -> PathBuf {
    env.path_or_home("XDG_DATA_HOME", ".local/share").join("opencode")
}

/// The databases of `env` that exist: `$OPENCODE_DB` when set (relative to
/// the data folder unless absolute; `:memory:` is none), else the data
/// folder's `opencode.db` and `opencode-<channel>.db` (the name builds of
/// other release channels use), in name order.
pub fn databases(env: &Env) -> Vec<PathBuf> {
    let data = data_dir(env);
    if let Some(db) = env.path("OPENCODE_DB") {
        if db.as_os_str() == ":memory:" {
            return Vec::new();
        }
        let db = if db.is_absolute() { db } else { data.join(db) };
        return if db.is_file() { vec![db] } else { Vec::new() };
    }
    let mut found: Vec<PathBuf> = fs::read_dir(&data)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| is_database_name(path) && path.is_file())
        .collect();
    found.sort();
    found
}

/// Whether `path` is named like one of OpenCode's databases: `opencode.db`,
/// or `opencode-<channel>.db`.
pub(crate) fn is_database_name(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let db = path.extension().is_some_and(|ext| ext == "db");
    db && (name == "opencode.db" || name.starts_with("opencode-"))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn env(home: &std::path::Path, vars: &[(&str, &str)]) -> Env {
        Env::new(home, vars.iter().map(|(k, v)| ((*k).to_owned(), OsString::from(v))))
    }

    #[test]
    fn the_data_folder_follows_xdg_data_home() {
        let home = std::path::Path::new("/home/u");
        assert_eq!(data_dir(&env(home, &[])), PathBuf::from("/home/u/.local/share/opencode"));
        assert_eq!(data_dir(&env(home, &[("XDG_DATA_HOME", "/data")])), PathBuf::from("/data/opencode"));
        assert_eq!(data_dir(&env(home, &[("XDG_DATA_HOME", "")])), PathBuf::from("/home/u/.local/share/opencode"));
    }

    #[test]
    fn databases_are_the_channels_files_or_opencode_db() {
        let home = tempfile::tempdir().unwrap();
        let data = home.path().join(".local/share/opencode");
        fs::create_dir_all(data.join("opencode-old.db")).unwrap(); // a folder: not a database
        for name in ["opencode.db", "opencode-beta.db", "opencode.db-wal", "other.db"] {
            fs::write(data.join(name), "").unwrap();
        }
        let plain = env(home.path(), &[]);
        assert_eq!(databases(&plain), [data.join("opencode-beta.db"), data.join("opencode.db")]);
        let relative = env(home.path(), &[("OPENCODE_DB", "other.db")]);
        assert_eq!(databases(&relative), [data.join("other.db")]);
        let absolute = data.join("other.db");
        let absolute = env(home.path(), &[("OPENCODE_DB", absolute.to_str().unwrap())]);
        assert_eq!(databases(&absolute), [data.join("other.db")]);
        assert!(databases(&env(home.path(), &[("OPENCODE_DB", ":memory:")])).is_empty());
        assert!(databases(&env(home.path(), &[("OPENCODE_DB", "missing.db")])).is_empty());
    }
}
