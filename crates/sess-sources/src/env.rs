//! The environment the agents' folders depend on, passed in by the caller
//! (the library never reads the process's variables).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// The user's home folder and the environment variables that move the
/// agents' folders (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`, …).
#[derive(Clone, Debug, Default)]
pub struct Env {
    home: PathBuf,
    vars: HashMap<String, OsString>,
}

impl Env {
    /// The environment of a user whose home is `home`, with these variables.
    pub fn new(home: impl Into<PathBuf>, vars: impl IntoIterator<Item = (String, OsString)>) -> Self {
        Self { home: home.into(), vars: vars.into_iter().collect() }
    }

    /// The home folder.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The value of `name`, unless it is unset or empty (an empty value moves
    /// no folder, as the agents read it).
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(name).map(OsString::as_os_str).filter(|v| !v.is_empty())
    }

    /// [`Env::var`] as a path.
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        self.var(name).map(PathBuf::from)
    }

    /// `$name` when set, else `home/default`.
    pub fn path_or_home(&self, name: &str, default: &str) -> PathBuf {
        self.path(name).unwrap_or_else(|| self.home.join(default))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_variables_are_unset() {
        let env = Env::new("/home/u", [("A".to_owned(), OsString::new()), ("B".to_owned(), "/b".into())]);
        assert_eq!(env.var("A"), None);
        assert_eq!(env.path("B"), Some(PathBuf::from("/b")));
        assert_eq!(env.path_or_home("A", ".a"), PathBuf::from("/home/u/.a"));
    }
}
