//! The machine the library reads, as its caller describes it (the library
//! reads no environment variable), and where it tells a person what it
//! noticed on the way.

use std::path::{Path, PathBuf};

use sess_core::FileKind;
use sess_sources::Env;
use sess_store::discovery::Environment;

/// The machine whose sessions the library reads: where every agent keeps
/// them, where sess keeps its own data, and who asks.
#[derive(Clone, Debug)]
pub struct Host {
    /// The agents' folders.
    pub env: Env,
    /// The pi-family agents' folders (their sessions and blob stores).
    pub environment: Environment,
    /// sess's own data folder: the catalog, the default archive and the
    /// machine file ([`archive::data_dir`](crate::archive::data_dir)).
    pub data_dir: PathBuf,
    /// The host name the environment gives, if any (`$HOSTNAME`).
    pub host_name: Option<String>,
    /// The working directory: written in the header of a session started
    /// here.
    pub cwd: PathBuf,
    /// The folder of the embedding model of search by meaning
    /// ([`meaning`](crate::meaning)), when one is given.
    pub model: Option<PathBuf>,
}

impl Host {
    /// The machine of a user whose home is `home`, with the agents'
    /// default folders and the data folder under it.
    pub fn at_home(home: &Path) -> Self {
        Self {
            env: Env::new(home, []),
            environment: Environment { home: home.to_owned(), ..Environment::default() },
            data_dir: crate::archive::data_dir(None, home),
            host_name: None,
            cwd: home.to_owned(),
            model: None,
        }
    }

    /// This machine, as the archive knows it (made once in the data folder).
    ///
    /// # Errors
    ///
    /// [`Error::Vault`](crate::Error::Vault) when the machine file cannot be
    /// read or made.
    pub fn machine(&self) -> crate::Result<sess_archive::Machine> {
        crate::archive::machine(&self.data_dir, self.host_name.as_deref())
    }
}

/// Where a long-lived library (a page's, an MCP server's) tells a person
/// what it noticed after it was opened: a name a source skipped, a line it
/// could not read, a request that failed. A front-end prints it; a program
/// may log it or drop it.
pub trait Tell: Send + Sync {
    /// A warning, one line.
    fn warning(&self, line: &str);

    /// Names a source found that are not session files, which it skipped.
    fn skipped(&self, skipped: &[(PathBuf, FileKind)]) {
        for (path, kind) in skipped {
            self.warning(&skipped_line(path, *kind));
        }
    }
}

/// A function of a line tells warnings.
impl<F: Fn(&str) + Send + Sync> Tell for F {
    fn warning(&self, line: &str) {
        self(line);
    }
}

/// Tells nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Tell for Quiet {
    fn warning(&self, _: &str) {}
}

/// The warning for a name that is not a session file.
pub fn skipped_line(path: &Path, kind: FileKind) -> String {
    format!("`{}` is {}, not a session file; skipped", path.display(), kind.describe_skipped())
}

/// An error and every cause of it, on one line, `: ` between them.
pub fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        message = format!("{message}: {next}");
        cause = next.source();
    }
    message
}
