//! Where an agent of OpenCode's family keeps its data: the data folder, and
//! the databases in it.

use std::fs;
use std::path::{Path, PathBuf};

use super::agent::Agent;
use crate::env::Env;

impl Agent {
    /// The data folder: `$XDG_DATA_HOME/<folder>`, else
    /// `~/.local/share/<folder>` (on every platform: OpenCode and Kilo
    /// follow the XDG layout on macOS too).
    pub(crate) fn data_dir(&self, env: &Env) -> PathBuf {
        env.path_or_home("XDG_DATA_HOME", ".local/share").join(self.folder)
    }

    /// The databases of `env` that exist: the one the agent's variable
    /// (`$OPENCODE_DB`) names when set (relative to the data folder unless
    /// absolute; `:memory:` is none), else the data folder's `<stem>.db`
    /// and `<stem>-<channel>.db` (the name builds of other release channels
    /// use), in name order.
    pub(crate) fn databases(&self, env: &Env) -> Vec<PathBuf> {
        let data = self.data_dir(env);
        if let Some(db) = env.path(self.database_var) {
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
            .filter(|path| self.is_database_name(path) && path.is_file())
            .collect();
        found.sort();
        found
    }

    /// Whether `path` is named like one of the agent's databases:
    /// `<stem>.db`, or `<stem>-<channel>.db`.
    pub(crate) fn is_database_name(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let Some(rest) = name.strip_suffix(".db").and_then(|n| n.strip_prefix(self.database_stem)) else {
            return false;
        };
        rest.is_empty() || rest.len() > 1 && rest.starts_with('-')
    }

    /// The data folder, and the database the agent's variable names when it
    /// is outside it.
    pub(crate) fn roots(&self, env: &Env) -> Vec<PathBuf> {
        let data = self.data_dir(env);
        let mut roots: Vec<PathBuf> = self.databases(env).into_iter().filter(|db| !db.starts_with(&data)).collect();
        roots.insert(0, data);
        roots
    }
}

/// OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else
/// `~/.local/share/opencode`.
pub fn data_dir(env: &Env) -> PathBuf {
    super::OPENCODE.data_dir(env)
}

/// OpenCode's databases in `env` that exist: `$OPENCODE_DB` when set, else
/// the data folder's `opencode.db` and `opencode-<channel>.db`
/// (`Agent::databases`).
pub fn databases(env: &Env) -> Vec<PathBuf> {
    super::OPENCODE.databases(env)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::opencode::OPENCODE;

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
        for name in ["opencode.db", "opencode-beta.db", "opencode.db-wal", "other.db", "opencode-.db", "kilo.db"] {
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

    #[test]
    fn database_names_are_the_agents_own() {
        for (name, expected) in [
            ("opencode.db", true),
            ("opencode-beta.db", true),
            ("opencode-.db", false),
            ("opencodex.db", false),
            ("kilo.db", false),
            ("opencode.db-wal", false),
        ] {
            assert_eq!(OPENCODE.is_database_name(Path::new(name)), expected, "{name}");
        }
    }
}
