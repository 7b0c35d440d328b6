//! The environment the agents' folders depend on, passed in by the caller
//! (the library never reads the process's variables).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The user's home folder and the environment variables that move the
/// agents' folders (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`, …),
/// and the folders the agents' sessions name, where an agent that keeps its
/// sessions inside the projects is looked for ([`crate::projects`]).
#[derive(Clone, Debug, Default)]
pub struct Env {
    home: PathBuf,
    vars: HashMap<String, OsString>,
    /// The directories the sessions of every agent name: given by the caller
    /// ([`Env::with_session_cwds`]), else found once, when first asked for.
    cwds: Arc<OnceLock<Vec<String>>>,
}

impl Env {
    /// The environment of a user whose home is `home`, with these variables.
    pub fn new(home: impl Into<PathBuf>, vars: impl IntoIterator<Item = (String, OsString)>) -> Self {
        Self { home: home.into(), vars: vars.into_iter().collect(), cwds: Arc::default() }
    }

    /// This environment, where the directories the agents' sessions name are
    /// `cwds` (a caller that knows them, from its catalog, spares the
    /// listing of every agent that finds them otherwise).
    #[must_use]
    pub fn with_session_cwds(mut self, cwds: Vec<String>) -> Self {
        self.cwds = Arc::new(OnceLock::from(cwds));
        self
    }

    /// The directories the agents' sessions name: those given with
    /// [`with_session_cwds`](Self::with_session_cwds), else what `find` gives,
    /// asked once for this environment and its clones.
    pub(crate) fn session_cwds(&self, find: impl FnOnce() -> Vec<String>) -> &[String] {
        self.cwds.get_or_init(find)
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
