//! Where each agent keeps its sessions, blobs and terminal breadcrumbs.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::encoding::session_dir_name;
use crate::storage::SessionStorage;

/// Whether the platform is one where xcsh and oh-my-pi honour `XDG_*_HOME`
/// (they check `process.platform` for `linux` and `darwin`).
const XDG_PLATFORM: bool = cfg!(any(target_os = "linux", target_os = "macos"));

/// Everything discovery needs from the process environment; the CLI fills it
/// in, so the library never reads environment variables itself.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    /// The user's home directory (`os.homedir()`).
    pub home: PathBuf,
    /// The temporary directory (`os.tmpdir()`).
    pub tmp_dir: PathBuf,
    /// `$XDG_DATA_HOME`, when set and not empty.
    pub xdg_data_home: Option<PathBuf>,
    /// `$XDG_STATE_HOME`, when set and not empty.
    pub xdg_state_home: Option<PathBuf>,
    /// `$PI_CODING_AGENT_DIR`: replaces the agent directory of every pi-family
    /// agent (they all read this variable). A leading `~` is the home directory.
    pub pi_agent_dir: Option<PathBuf>,
    /// `$PI_CODING_AGENT_SESSION_DIR` (pi-mono): the directory pi-mono keeps the
    /// current project's session files in, instead of the encoded per-cwd
    /// directory. A leading `~` is the home directory.
    pub pi_session_dir: Option<PathBuf>,
    /// `$PRIME_AGENT_CODING_AGENT_DIR`: replaces Prime Agent's agent directory
    /// (Prime Agent reads its own variables, not `PI_CODING_AGENT_DIR`). A
    /// leading `~` is the home directory.
    pub prime_agent_dir: Option<PathBuf>,
    /// `$PRIME_AGENT_SESSION_DIR`, else `$PRIME_AGENT_CODING_AGENT_SESSION_DIR`:
    /// replaces Prime Agent's sessions directory. A leading `~` is the home
    /// directory.
    pub prime_session_dir: Option<PathBuf>,
    /// The terminal this process runs in (see [`write_breadcrumb`](super::write_breadcrumb)),
    /// as the CLI computes it: the tty path without `/dev/` and with `/` → `-`,
    /// or `kitty-…`, `tmux-…`, `apple-…`, `wt-…` from the terminal's variables.
    pub terminal_id: Option<String>,
}

/// The pi-family agents whose session files `sess` reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PiAgent {
    /// pi-mono (`@mariozechner/pi-coding-agent`): `~/.pi/agent`.
    PiMono,
    /// oh-my-pi (`omp`): `~/.omp/agent`.
    OhMyPi,
    /// xcsh: `~/.xcsh/agent`.
    Xcsh,
    /// Prime Agent (`prime-agent`, Prime Intellect's pi): `~/.prime/agent`,
    /// every session directly in `sessions/` (no folder per project).
    Prime,
}

impl PiAgent {
    /// Every agent, in the order discovery looks at them.
    pub const ALL: [Self; 4] = [Self::PiMono, Self::OhMyPi, Self::Xcsh, Self::Prime];

    /// The agent's name as users know it.
    pub fn name(self) -> &'static str {
        match self {
            Self::PiMono => "pi-mono",
            Self::OhMyPi => "oh-my-pi",
            Self::Xcsh => "xcsh",
            Self::Prime => "prime-agent",
        }
    }

    /// The command that starts it.
    pub fn program(self) -> &'static str {
        match self {
            Self::PiMono => "pi",
            Self::OhMyPi => "omp",
            Self::Xcsh => "xcsh",
            Self::Prime => "prime-agent",
        }
    }

    /// Whether it keeps every session directly in its sessions directory
    /// rather than in a folder per project (Prime Agent).
    pub fn flat(self) -> bool {
        match self {
            Self::PiMono | Self::OhMyPi | Self::Xcsh => false,
            Self::Prime => true,
        }
    }

    /// The configuration directory under the home directory.
    pub fn config_dir_name(self) -> &'static str {
        match self {
            Self::PiMono => ".pi",
            Self::OhMyPi => ".omp",
            Self::Xcsh => ".xcsh",
            Self::Prime => ".prime",
        }
    }

    /// The directory name under `$XDG_DATA_HOME` and `$XDG_STATE_HOME`, for the
    /// agents that use them.
    pub fn xdg_name(self) -> Option<&'static str> {
        match self {
            Self::PiMono | Self::Prime => None,
            Self::OhMyPi => Some("omp"),
            Self::Xcsh => Some("xcsh"),
        }
    }
}

impl fmt::Display for PiAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The directories of one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentDirs {
    /// Which agent.
    pub agent: PiAgent,
    /// The agent directory (`~/.xcsh/agent`, or `$PI_CODING_AGENT_DIR`).
    pub agent_dir: PathBuf,
    /// The root of the per-project session directories.
    pub sessions: PathBuf,
    /// The content-addressed blob store (xcsh, oh-my-pi; pi-mono has none).
    pub blobs: PathBuf,
    /// The terminal breadcrumbs (xcsh, oh-my-pi; pi-mono has none).
    pub terminal_sessions: PathBuf,
}

/// The directories of `agent`.
///
/// The agent directory is `~/<config dir>/agent`, or `env.pi_agent_dir`
/// (Prime Agent: `env.prime_agent_dir`). Sessions and blobs live under it
/// (Prime Agent's sessions: `env.prime_session_dir` when set), and so do
/// breadcrumbs (`terminal-sessions`), except
/// for xcsh and oh-my-pi on Linux and macOS with the default agent directory:
/// when `$XDG_DATA_HOME/<name>` exists, sessions and blobs are
/// `$XDG_DATA_HOME/<name>/{sessions,blobs}`, and when `$XDG_STATE_HOME/<name>`
/// exists, breadcrumbs are `$XDG_STATE_HOME/<name>/terminal-sessions` (the
/// `agent` level is dropped). `storage` answers whether those directories exist.
pub fn agent_dirs(agent: PiAgent, env: &Environment, storage: &dyn SessionStorage) -> AgentDirs {
    let default_dir = normalize_lexically(&env.home.join(agent.config_dir_name()).join("agent"));
    let override_dir = if agent == PiAgent::Prime { &env.prime_agent_dir } else { &env.pi_agent_dir };
    let agent_dir = non_empty(override_dir.as_deref())
        .map_or_else(|| default_dir.clone(), |dir| normalize_lexically(&expand_tilde(dir, &env.home)));
    let xdg_root = |base: Option<&Path>| {
        let name = agent.xdg_name()?;
        if !XDG_PLATFORM || agent_dir != default_dir {
            return None;
        }
        let root = normalize_lexically(&non_empty(base)?.join(name));
        storage.exists(&root).then_some(root)
    };
    let data = xdg_root(env.xdg_data_home.as_deref()).unwrap_or_else(|| agent_dir.clone());
    let state = xdg_root(env.xdg_state_home.as_deref()).unwrap_or_else(|| agent_dir.clone());
    let prime_sessions = non_empty(env.prime_session_dir.as_deref())
        .filter(|_| agent == PiAgent::Prime)
        .map(|dir| normalize_lexically(&expand_tilde(dir, &env.home)));
    AgentDirs {
        agent,
        sessions: prime_sessions.unwrap_or_else(|| data.join("sessions")),
        blobs: data.join("blobs"),
        terminal_sessions: state.join("terminal-sessions"),
        agent_dir,
    }
}

/// The directory the agent keeps the sessions of a project started in `cwd`:
/// `env.pi_session_dir` for pi-mono when it is set, `dirs.sessions` itself for
/// an agent that keeps every session there ([`PiAgent::flat`]), else
/// `dirs.sessions` joined with [`session_dir_name`]. `canonical` resolves
/// symbolic links (see [`session_dir_name`]).
pub fn project_session_dir(
    dirs: &AgentDirs,
    cwd: &Path,
    env: &Environment,
    canonical: &dyn Fn(&Path) -> PathBuf,
) -> PathBuf {
    if dirs.agent == PiAgent::PiMono
        && let Some(dir) = non_empty(env.pi_session_dir.as_deref())
    {
        return normalize_lexically(&expand_tilde(dir, &env.home));
    }
    if dirs.agent.flat() {
        return dirs.sessions.clone();
    }
    dirs.sessions.join(session_dir_name(dirs.agent, cwd, env, canonical))
}

/// The session roots of every agent that exist on this machine, for listing
/// all projects: each agent's `sessions`; for xcsh and oh-my-pi also
/// `<agent dir>/sessions` when XDG moved `sessions` elsewhere (their `listAll`
/// still scans it); for pi-mono also `env.pi_session_dir`.
///
/// Directories are compared lexically. A root equal to or inside another is
/// left out, so a recursive listing of the roots sees each file once; the
/// first agent to name a directory keeps it.
pub fn all_session_roots(env: &Environment, storage: &dyn SessionStorage) -> Vec<(PiAgent, PathBuf)> {
    let mut candidates = Vec::new();
    for agent in PiAgent::ALL {
        let dirs = agent_dirs(agent, env, storage);
        candidates.push((agent, dirs.sessions));
        candidates.push((agent, dirs.agent_dir.join("sessions")));
        if agent == PiAgent::PiMono
            && let Some(dir) = non_empty(env.pi_session_dir.as_deref())
        {
            candidates.push((agent, normalize_lexically(&expand_tilde(dir, &env.home))));
        }
    }
    candidates.retain(|(_, dir)| storage.stat(dir).is_ok_and(|s| s.is_dir));
    let mut roots: Vec<(PiAgent, PathBuf)> = Vec::new();
    for (index, (agent, dir)) in candidates.iter().enumerate() {
        let covered = candidates.iter().enumerate().any(|(other_index, (_, other))| {
            (other != dir && dir.starts_with(other)) || (other == dir && other_index < index)
        });
        if !covered {
            roots.push((*agent, dir.clone()));
        }
    }
    roots
}

/// `path` with `.` removed and `..` applied, as `path.resolve` does for an
/// absolute path (without consulting the file system). `/..` is `/`.
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                Some(Component::CurDir | Component::ParentDir) | None => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() && !path.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `~` and `~/…` relative to `home`, as pi-mono's `expandTildePath`.
fn expand_tilde(path: &Path, home: &Path) -> PathBuf {
    match path.strip_prefix("~") {
        Ok(rest) if rest.as_os_str().is_empty() => home.to_owned(),
        Ok(rest) => home.join(rest),
        Err(_) => path.to_owned(),
    }
}

/// An unset variable and an empty one mean the same (`if (value)` in the peers).
fn non_empty(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| !p.as_os_str().is_empty())
}

#[cfg(test)]
#[path = "dirs_tests.rs"]
mod tests;
