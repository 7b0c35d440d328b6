//! Session directory and file names.

use std::path::{Path, PathBuf};

use super::dirs::{Environment, PiAgent, normalize_lexically};

/// The name of the directory (under the sessions root) that holds the sessions
/// started in `cwd`.
///
/// - pi-mono: the legacy form ([`legacy_dir_name`]) of `cwd` exactly as given
///   (no normalisation, no symbolic links resolved).
/// - xcsh and oh-my-pi: `cwd` is normalised and then canonicalised with
///   `canonical` (the caller's `realpath`, which should return its input when
///   the path cannot be resolved), and so are `env.home` and `env.tmp_dir`. A
///   cwd inside the home directory is `-` followed by the relative path with
///   `/`, `\` and `:` replaced by `-` (the home directory itself is `-`); inside
///   the temporary directory it is `-tmp-…` (the directory itself is `-tmp`);
///   anywhere else it is the legacy form of the canonical path. The home
///   directory is checked first.
/// - Prime Agent keeps no folder per project ([`PiAgent::flat`]): the name is
///   empty (the sessions directory itself).
pub fn session_dir_name(agent: PiAgent, cwd: &Path, env: &Environment, canonical: &dyn Fn(&Path) -> PathBuf) -> String {
    match agent {
        PiAgent::PiMono => legacy_dir_name(&cwd.to_string_lossy()),
        PiAgent::OhMyPi | PiAgent::Xcsh => relative_dir_name(cwd, env, canonical),
        PiAgent::Prime => String::new(),
    }
}

/// The legacy directory name: `--` + `cwd` without one leading `/` or `\`,
/// with every `/`, `\` and `:` replaced by `-`, + `--`
/// (`/home/u/p` → `--home-u-p--`, `C:\x\y` → `--C--x-y--`).
pub fn legacy_dir_name(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

/// Every directory name a pi-family agent may have used for `cwd`, without
/// duplicates: the xcsh/oh-my-pi name, then the legacy form of `cwd` as given,
/// normalised and canonicalised. A lister that looks in all of them finds a
/// project's sessions whichever agent (or agent version) wrote them.
pub fn candidate_dir_names(cwd: &Path, env: &Environment, canonical: &dyn Fn(&Path) -> PathBuf) -> Vec<String> {
    let normalized = normalize_lexically(cwd);
    let names = [
        relative_dir_name(cwd, env, canonical),
        legacy_dir_name(&cwd.to_string_lossy()),
        legacy_dir_name(&normalized.to_string_lossy()),
        legacy_dir_name(&canonical(&normalized).to_string_lossy()),
    ];
    let mut unique: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    unique
}

/// The file name of a session: the header timestamp with every `:` and `.`
/// replaced by `-`, then `_<id>.jsonl`
/// (`2026-11-30T07:04:55.591Z` → `2026-11-30T07-04-55-591Z_<id>.jsonl`).
pub fn session_file_name(timestamp_iso: &str, session_id: &str) -> String {
    format!("{}_{session_id}.jsonl", timestamp_iso.replace([':', '.'], "-"))
}

/// xcsh's `getDefaultSessionDirName`.
fn relative_dir_name(cwd: &Path, env: &Environment, canonical: &dyn Fn(&Path) -> PathBuf) -> String {
    let cwd = canonical(&normalize_lexically(cwd));
    if let Some(rel) = relative_within(&env.home, &cwd, canonical) {
        return prefixed("-", &rel);
    }
    if let Some(rel) = relative_within(&env.tmp_dir, &cwd, canonical) {
        return prefixed("-tmp", &rel);
    }
    legacy_dir_name(&cwd.to_string_lossy())
}

/// The encoded path of `cwd` relative to the canonical `root`, or `None` when
/// `cwd` is not inside it.
fn relative_within(root: &Path, cwd: &Path, canonical: &dyn Fn(&Path) -> PathBuf) -> Option<String> {
    if root.as_os_str().is_empty() {
        return None;
    }
    let root = canonical(&normalize_lexically(root));
    let rest = cwd.strip_prefix(&root).ok()?;
    let rel = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().replace(['/', '\\', ':'], "-"))
        .collect::<Vec<_>>()
        .join("-");
    // xcsh tests `path.relative(root, cwd).startsWith("..")`, so a first
    // directory named like `..x` counts as outside the root.
    (!rel.starts_with("..")).then_some(rel)
}

fn prefixed(prefix: &str, rel: &str) -> String {
    match (rel.is_empty(), prefix.ends_with('-')) {
        (true, _) => prefix.to_owned(),
        (false, true) => format!("{prefix}{rel}"),
        (false, false) => format!("{prefix}-{rel}"),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    use super::*;

    fn env() -> Environment {
        Environment { home: "/home/u".into(), tmp_dir: "/tmp".into(), ..Environment::default() }
    }

    /// `/home/link` is a symbolic link to `/data/u`, `/lnk` to `/home/u/real`.
    fn canonical(path: &Path) -> PathBuf {
        for (link, target) in [("/home/link", "/data/u"), ("/lnk", "/home/u/real")] {
            if let Ok(rest) = path.strip_prefix(link) {
                return Path::new(target).join(rest);
            }
        }
        path.to_owned()
    }

    fn identity(path: &Path) -> PathBuf {
        path.to_owned()
    }

    #[rstest]
    #[case::unix("/home/u/p", "--home-u-p--")]
    #[case::windows(r"C:\x\y", "--C--x-y--")]
    #[case::leading_backslash(r"\srv\share", "--srv-share--")]
    #[case::root("/", "----")]
    #[case::trailing_slash("/a/b/", "--a-b---")]
    #[case::only_one_leading_separator("//a", "---a--")]
    #[case::relative("a/b", "--a-b--")]
    #[case::dots_kept("/a/./b", "--a-.-b--")]
    fn legacy_names(#[case] cwd: &str, #[case] expected: &str) {
        assert_eq!(legacy_dir_name(cwd), expected);
    }

    #[rstest]
    #[case::pi_mono_uses_the_raw_cwd(PiAgent::PiMono, "/home/u/p/../q", "--home-u-p-..-q--")]
    #[case::pi_mono_home(PiAgent::PiMono, "/home/u", "--home-u--")]
    #[case::pi_mono_no_realpath(PiAgent::PiMono, "/lnk/x", "--lnk-x--")]
    #[case::home_relative(PiAgent::Xcsh, "/home/u/Projects/foo", "-Projects-foo")]
    #[case::home_itself(PiAgent::Xcsh, "/home/u", "-")]
    #[case::home_with_trailing_slash(PiAgent::Xcsh, "/home/u/", "-")]
    #[case::normalized_first(PiAgent::Xcsh, "/home/u/a/./b/../c", "-a-c")]
    #[case::colon_in_a_name(PiAgent::Xcsh, "/home/u/a:b", "-a-b")]
    #[case::tmp_relative(PiAgent::OhMyPi, "/tmp/x/y", "-tmp-x-y")]
    #[case::tmp_itself(PiAgent::OhMyPi, "/tmp", "-tmp")]
    #[case::elsewhere(PiAgent::Xcsh, "/srv/app", "--srv-app--")]
    #[case::sibling_of_home(PiAgent::Xcsh, "/home/u2/p", "--home-u2-p--")]
    #[case::dot_dot_named_dir(PiAgent::Xcsh, "/home/u/..x/p", "--home-u-..x-p--")]
    #[case::symlinked_cwd_into_home(PiAgent::Xcsh, "/lnk/z", "-real-z")]
    fn dir_names(#[case] agent: PiAgent, #[case] cwd: &str, #[case] expected: &str) {
        assert_eq!(session_dir_name(agent, Path::new(cwd), &env(), &canonical), expected);
    }

    #[rstest]
    #[case::cwd_below_the_real_home("/data/u/p", "-p")]
    #[case::cwd_through_the_link("/home/link/p", "-p")]
    #[case::home_itself("/home/link", "-")]
    fn symlinked_home(#[case] cwd: &str, #[case] expected: &str) {
        let env = Environment { home: "/home/link".into(), ..env() };
        assert_eq!(session_dir_name(PiAgent::Xcsh, Path::new(cwd), &env, &canonical), expected);
    }

    #[test]
    fn home_wins_over_a_tmp_inside_it() {
        let env = Environment { tmp_dir: "/home/u/tmp".into(), ..env() };
        assert_eq!(session_dir_name(PiAgent::Xcsh, Path::new("/home/u/tmp/x"), &env, &identity), "-tmp-x");
    }

    #[test]
    fn empty_home_and_tmp_are_ignored() {
        let env = Environment::default();
        assert_eq!(session_dir_name(PiAgent::Xcsh, Path::new("/a/b"), &env, &identity), "--a-b--");
    }

    #[rstest]
    #[case::home("/home/u/p", &["-p", "--home-u-p--"])]
    #[case::unnormalized("/home/u/p/", &["-p", "--home-u-p---", "--home-u-p--"])]
    #[case::symlink("/lnk/p", &["-real-p", "--lnk-p--", "--home-u-real-p--"])]
    #[case::elsewhere("/srv/x", &["--srv-x--"])]
    fn candidates(#[case] cwd: &str, #[case] expected: &[&str]) {
        assert_eq!(candidate_dir_names(Path::new(cwd), &env(), &canonical), expected);
    }

    #[rstest]
    #[case::peer_timestamp("2026-11-30T07:04:55.591Z", "01a2", "2026-11-30T07-04-55-591Z_01a2.jsonl")]
    #[case::no_fraction("2025-01-01T00:00:00Z", "x", "2025-01-01T00-00-00Z_x.jsonl")]
    fn file_names(#[case] timestamp: &str, #[case] id: &str, #[case] expected: &str) {
        assert_eq!(session_file_name(timestamp, id), expected);
    }
}
