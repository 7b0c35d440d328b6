//! The process environment, read once for the library (which never reads it).

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::OnceLock;

use sess_store::Environment;

/// The environment discovery needs, from this process's variables.
pub(crate) fn environment() -> Environment {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    Environment {
        home: home(),
        tmp_dir: std::env::temp_dir(),
        xdg_data_home: var("XDG_DATA_HOME"),
        xdg_state_home: var("XDG_STATE_HOME"),
        pi_agent_dir: var("PI_CODING_AGENT_DIR"),
        pi_session_dir: var("PI_CODING_AGENT_SESSION_DIR"),
        prime_agent_dir: var("PRIME_AGENT_CODING_AGENT_DIR"),
        prime_session_dir: var("PRIME_AGENT_SESSION_DIR").or_else(|| var("PRIME_AGENT_CODING_AGENT_SESSION_DIR")),
        terminal_id: terminal_id(),
    }
}

/// The machine as the library reads it: this process's environment, the
/// data folder, the host name and the working directory; read once.
pub(crate) fn host() -> &'static sess::Host {
    static HOST: OnceLock<sess::Host> = OnceLock::new();
    HOST.get_or_init(|| sess::Host {
        env: sources_env().clone(),
        environment: environment(),
        data_dir: data_dir(),
        host_name: std::env::var("HOSTNAME").ok(),
        cwd: std::env::current_dir().unwrap_or_default(),
        model: std::env::var_os("SESS_EMBED_MODEL").map(PathBuf::from),
    })
}

/// `$XDG_DATA_HOME/sess` (`~/.local/share/sess`): the archive, the machine
/// file and the catalog.
fn data_dir() -> PathBuf {
    let env = environment();
    sess::archive::data_dir(env.xdg_data_home, &env.home)
}

/// The folders `--project-dir` names, absolute.
static PROJECT_DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();

/// Keeps the folders `--project-dir` names, for [`sources_env`]; called once,
/// before it.
pub(crate) fn name_project_dirs(dirs: &[PathBuf]) {
    let dirs = dirs.iter().map(|dir| std::path::absolute(dir).unwrap_or_else(|_| dir.clone())).collect();
    let _ = PROJECT_DIRS.set(dirs);
}

/// What the agents' sources need of the environment: the home folder and
/// the process's variables, read once; the folders `--project-dir` names
/// before those of `$SESS_PROJECT_DIRS`; and the directories the sessions in
/// the default catalog name, when there is one (without it, the sources that
/// look in the agents' project folders list every agent to find them).
pub(crate) fn sources_env() -> &'static sess_sources::Env {
    static ENV: OnceLock<sess_sources::Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut vars: Vec<(String, OsString)> =
            std::env::vars_os().filter_map(|(name, value)| Some((name.into_string().ok()?, value))).collect();
        let named = PROJECT_DIRS.get().map_or(&[][..], Vec::as_slice);
        if !named.is_empty() {
            let var = sess_sources::projects::PROJECT_DIRS;
            let given = vars.iter().find(|(name, _)| name == var).map(|(_, value)| value.clone());
            let given: Vec<PathBuf> = given.map(|list| std::env::split_paths(&list).collect()).unwrap_or_default();
            match std::env::join_paths(named.iter().chain(&given)) {
                Ok(joined) => {
                    vars.retain(|(name, _)| name != var);
                    vars.push((var.to_owned(), joined));
                }
                Err(err) => crate::output::warn(format_args!("--project-dir: {err}; not looked in")),
            }
        }
        let env = sess_sources::Env::new(home(), vars);
        match sess::catalog::path(None, &data_dir()).ok().filter(|path| path.is_file()) {
            Some(path) => match sess_catalog::Catalog::session_cwds_at(&path) {
                Ok(cwds) => env.with_session_cwds(cwds),
                Err(_) => env,
            },
            None => env,
        }
    })
}

fn home() -> PathBuf {
    std::env::var_os("HOME").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_default()
}

/// The agents' terminal id: the tty of stdin without `/dev/` and with `/` → `-`
/// (`pts-3`), else one from the terminal emulator's variables.
fn terminal_id() -> Option<String> {
    if std::io::stdin().is_terminal()
        && let Ok(tty) = std::fs::read_link("/proc/self/fd/0")
        && let Some(rest) = tty.to_str().and_then(|t| t.strip_prefix("/dev/"))
    {
        return Some(rest.replace('/', "-"));
    }
    let from =
        |var: &str, prefix: &str| std::env::var(var).ok().filter(|v| !v.is_empty()).map(|v| format!("{prefix}-{v}"));
    from("KITTY_WINDOW_ID", "kitty")
        .or_else(|| from("TMUX_PANE", "tmux"))
        .or_else(|| from("TERM_SESSION_ID", "apple"))
        .or_else(|| from("WT_SESSION", "wt"))
}
