use pretty_assertions::assert_eq;
use rstest::rstest;

use super::*;
use crate::discovery::test_storage::{ClockStorage, Layout as _};

fn env() -> Environment {
    Environment {
        home: "/home/u".into(),
        tmp_dir: "/tmp".into(),
        xdg_data_home: Some("/home/u/.local/share".into()),
        xdg_state_home: Some("/home/u/.local/state".into()),
        ..Environment::default()
    }
}

fn dirs(agent: PiAgent, agent_dir: &str, sessions: &str, blobs: &str, crumbs: &str) -> AgentDirs {
    AgentDirs {
        agent,
        agent_dir: agent_dir.into(),
        sessions: sessions.into(),
        blobs: blobs.into(),
        terminal_sessions: crumbs.into(),
    }
}

#[rstest]
#[case::pi_mono(PiAgent::PiMono, "/home/u/.pi/agent")]
#[case::oh_my_pi(PiAgent::OhMyPi, "/home/u/.omp/agent")]
#[case::xcsh(PiAgent::Xcsh, "/home/u/.xcsh/agent")]
#[case::prime(PiAgent::Prime, "/home/u/.prime/agent")]
fn default_dirs(#[case] agent: PiAgent, #[case] agent_dir: &str) {
    let got = agent_dirs(agent, &env(), &ClockStorage::new());
    let expected = dirs(
        agent,
        agent_dir,
        &format!("{agent_dir}/sessions"),
        &format!("{agent_dir}/blobs"),
        &format!("{agent_dir}/terminal-sessions"),
    );
    assert_eq!(got, expected);
}

#[rstest]
#[case::absolute("/opt/agent", "/opt/agent")]
#[case::tilde("~/alt/agent", "/home/u/alt/agent")]
#[case::bare_tilde("~", "/home/u")]
#[case::normalized("/opt/x/../agent/", "/opt/agent")]
#[case::tilde_in_a_name("~x/agent", "~x/agent")]
fn the_agent_dir_override_applies_to_every_agent(#[case] value: &str, #[case] expected: &str) {
    let storage = ClockStorage::new();
    storage.dir("/home/u/.local/share/xcsh").dir("/home/u/.local/state/xcsh");
    let env = Environment { pi_agent_dir: Some(value.into()), ..env() };
    // Prime Agent reads variables of its own (below).
    for agent in PiAgent::ALL.into_iter().filter(|agent| *agent != PiAgent::Prime) {
        let got = agent_dirs(agent, &env, &storage);
        assert_eq!(got.agent_dir, PathBuf::from(expected), "{agent}");
        assert_eq!(got.sessions, Path::new(expected).join("sessions"), "{agent}: no XDG with an override");
        assert_eq!(got.terminal_sessions, Path::new(expected).join("terminal-sessions"), "{agent}");
    }
}

#[test]
fn an_empty_override_is_no_override() {
    let env = Environment { pi_agent_dir: Some(PathBuf::new()), ..env() };
    assert_eq!(agent_dirs(PiAgent::Xcsh, &env, &ClockStorage::new()).agent_dir, Path::new("/home/u/.xcsh/agent"));
}

#[rstest]
#[case::nothing_exists(PiAgent::Xcsh, &[], "/home/u/.xcsh/agent/sessions", "/home/u/.xcsh/agent/terminal-sessions")]
#[case::data_only(PiAgent::Xcsh, &["/home/u/.local/share/xcsh"], "/home/u/.local/share/xcsh/sessions", "/home/u/.xcsh/agent/terminal-sessions")]
#[case::state_only(PiAgent::Xcsh, &["/home/u/.local/state/xcsh"], "/home/u/.xcsh/agent/sessions", "/home/u/.local/state/xcsh/terminal-sessions")]
#[case::both(PiAgent::OhMyPi, &["/home/u/.local/share/omp", "/home/u/.local/state/omp"], "/home/u/.local/share/omp/sessions", "/home/u/.local/state/omp/terminal-sessions")]
#[case::other_agents_dir(PiAgent::OhMyPi, &["/home/u/.local/share/xcsh"], "/home/u/.omp/agent/sessions", "/home/u/.omp/agent/terminal-sessions")]
#[case::pi_mono_ignores_xdg(PiAgent::PiMono, &["/home/u/.local/share/pi", "/home/u/.local/state/pi"], "/home/u/.pi/agent/sessions", "/home/u/.pi/agent/terminal-sessions")]
#[cfg_attr(not(any(target_os = "linux", target_os = "macos")), ignore = "XDG applies on Linux and macOS only")]
fn xdg_rule(#[case] agent: PiAgent, #[case] existing: &[&str], #[case] sessions: &str, #[case] crumbs: &str) {
    let storage = ClockStorage::new();
    for dir in existing {
        storage.dir(dir);
    }
    let got = agent_dirs(agent, &env(), &storage);
    assert_eq!((got.sessions.as_path(), got.terminal_sessions.as_path()), (Path::new(sessions), Path::new(crumbs)));
    assert_eq!(got.blobs, got.sessions.with_file_name("blobs"));
}

#[test]
#[cfg_attr(not(any(target_os = "linux", target_os = "macos")), ignore = "XDG applies on Linux and macOS only")]
fn an_override_naming_the_default_dir_keeps_xdg() {
    let storage = ClockStorage::new();
    storage.dir("/home/u/.local/share/xcsh");
    let env = Environment { pi_agent_dir: Some("~/.xcsh/./agent/".into()), ..env() };
    assert_eq!(agent_dirs(PiAgent::Xcsh, &env, &storage).sessions, Path::new("/home/u/.local/share/xcsh/sessions"));
}

#[test]
fn unset_or_empty_xdg_variables_are_ignored() {
    let storage = ClockStorage::new();
    storage.dir("xcsh").dir("/xcsh");
    let env = Environment { xdg_data_home: Some(PathBuf::new()), xdg_state_home: None, ..env() };
    let got = agent_dirs(PiAgent::Xcsh, &env, &storage);
    assert_eq!(got.sessions, Path::new("/home/u/.xcsh/agent/sessions"));
    assert_eq!(got.terminal_sessions, Path::new("/home/u/.xcsh/agent/terminal-sessions"));
}

#[rstest]
#[case::pi_mono_default(PiAgent::PiMono, None, "/home/u/.pi/agent/sessions/--home-u-p--")]
#[case::pi_mono_session_dir(PiAgent::PiMono, Some("~/flat"), "/home/u/flat")]
#[case::xcsh_ignores_the_session_dir(PiAgent::Xcsh, Some("/flat"), "/home/u/.xcsh/agent/sessions/-p")]
#[case::oh_my_pi(PiAgent::OhMyPi, None, "/home/u/.omp/agent/sessions/-p")]
#[case::prime_is_flat(PiAgent::Prime, Some("/flat"), "/home/u/.prime/agent/sessions")]
fn project_dirs(#[case] agent: PiAgent, #[case] session_dir: Option<&str>, #[case] expected: &str) {
    let env = Environment { pi_session_dir: session_dir.map(PathBuf::from), ..env() };
    let dirs = agent_dirs(agent, &env, &ClockStorage::new());
    let got = project_session_dir(&dirs, Path::new("/home/u/p"), &env, &|p: &Path| p.to_owned());
    assert_eq!(got, Path::new(expected));
}

fn roots(env: &Environment, existing: &[&str]) -> Vec<(PiAgent, String)> {
    let storage = ClockStorage::new();
    storage.file("/home/u/.omp/agent/sessions", "a file, not a directory", 1);
    for dir in existing {
        storage.dir(dir);
    }
    all_session_roots(env, &storage).into_iter().map(|(agent, dir)| (agent, dir.display().to_string())).collect()
}

#[test]
fn roots_that_exist() {
    let got = roots(&env(), &["/home/u/.pi/agent/sessions", "/home/u/.xcsh/agent/sessions"]);
    assert_eq!(
        got,
        [
            (PiAgent::PiMono, "/home/u/.pi/agent/sessions".into()),
            (PiAgent::Xcsh, "/home/u/.xcsh/agent/sessions".into())
        ]
    );
}

#[test]
fn no_roots_on_a_fresh_machine() {
    assert_eq!(roots(&env(), &[]), []);
}

#[test]
fn a_shared_agent_dir_is_listed_once() {
    let env = Environment { pi_agent_dir: Some("/shared".into()), ..env() };
    assert_eq!(roots(&env, &["/shared/sessions"]), [(PiAgent::PiMono, "/shared/sessions".into())]);
}

#[test]
fn a_session_dir_inside_a_root_is_covered_by_it() {
    let env = Environment { pi_session_dir: Some("/home/u/.pi/agent/sessions/flat".into()), ..env() };
    let got = roots(&env, &["/home/u/.pi/agent/sessions/flat"]);
    assert_eq!(got, [(PiAgent::PiMono, "/home/u/.pi/agent/sessions".into())]);
}

#[test]
fn a_session_dir_elsewhere_is_a_root() {
    let env = Environment { pi_session_dir: Some("/flat".into()), ..env() };
    assert_eq!(roots(&env, &["/flat"]), [(PiAgent::PiMono, "/flat".into())]);
}

#[test]
#[cfg_attr(not(any(target_os = "linux", target_os = "macos")), ignore = "XDG applies on Linux and macOS only")]
fn xdg_and_legacy_roots_are_both_listed() {
    let got = roots(&env(), &["/home/u/.local/share/xcsh/sessions", "/home/u/.xcsh/agent/sessions"]);
    assert_eq!(
        got,
        [
            (PiAgent::Xcsh, "/home/u/.local/share/xcsh/sessions".into()),
            (PiAgent::Xcsh, "/home/u/.xcsh/agent/sessions".into()),
        ]
    );
}

#[rstest]
#[case::plain("/a/b", "/a/b")]
#[case::dots("/a/./b/../c", "/a/c")]
#[case::above_root("/../a", "/a")]
#[case::trailing_slash("/a/b/", "/a/b")]
#[case::relative_climb("../a/../../b", "../../b")]
#[case::to_nothing("a/..", ".")]
#[case::empty("", "")]
fn lexical_normalization(#[case] path: &str, #[case] expected: &str) {
    assert_eq!(normalize_lexically(Path::new(path)), Path::new(expected));
}

#[test]
fn prime_agent_reads_its_own_variables() {
    let storage = ClockStorage::new();
    let env = Environment { pi_agent_dir: Some("/pi".into()), prime_agent_dir: Some("~/p".into()), ..env() };
    let got = agent_dirs(PiAgent::Prime, &env, &storage);
    assert_eq!(
        (got.agent_dir.as_path(), got.sessions.as_path()),
        (Path::new("/home/u/p"), Path::new("/home/u/p/sessions"))
    );
    let env = Environment { prime_session_dir: Some("/sessions".into()), ..env };
    let got = agent_dirs(PiAgent::Prime, &env, &storage);
    assert_eq!(got.sessions, Path::new("/sessions"));
    let project = project_session_dir(&got, Path::new("/home/u/p"), &env, &|p: &Path| p.to_owned());
    assert_eq!(project, Path::new("/sessions"));
    assert_eq!(agent_dirs(PiAgent::PiMono, &env, &storage).agent_dir, Path::new("/pi"));
}

#[test]
fn prime_agents_sessions_are_a_root() {
    let got = roots(&env(), &["/home/u/.prime/agent/sessions"]);
    assert_eq!(got, [(PiAgent::Prime, "/home/u/.prime/agent/sessions".into())]);
}
