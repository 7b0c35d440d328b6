//! The process environment, read once for the library (which never reads it).

use std::io::IsTerminal;
use std::path::PathBuf;

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

/// What the agents' sources need of the environment: the home folder and
/// the process's variables, read once.
pub(crate) fn sources_env() -> &'static sess_sources::Env {
    static ENV: std::sync::OnceLock<sess_sources::Env> = std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let vars = std::env::vars_os().filter_map(|(name, value)| Some((name.into_string().ok()?, value)));
        sess_sources::Env::new(home(), vars)
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
