//! A tree of pi-mono sessions: `<sessions>/--<encoded cwd>--/<timestamp>_<id>.jsonl`.

use std::io;
use std::path::Path;

use super::pi::PiSessionSpec;
use super::{Rng, write_input};

/// What a generated tree holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// Session files written.
    pub files: usize,
    /// Their total size.
    pub bytes: u64,
    /// `message` entries in all of them.
    pub messages: usize,
}

/// Writes `sessions` pi-mono session files under `sessions_root` (an agent's
/// `sessions` directory), spread evenly over `projects` project directories
/// named as pi-mono names them.
///
/// Sizes are mixed as on a machine that has used an agent for a while: 0.5%
/// header only, 84.5% of 1–20 KB, 14% of 20–200 KB, 1% of 1–3 MB (about 45 KB on
/// average). Every session starts at a different minute, so "newest first" has
/// no ties.
pub fn session_tree(sessions_root: &Path, sessions: usize, projects: usize, seed: u64) -> io::Result<TreeStats> {
    let projects = projects.max(1);
    let mut stats = TreeStats::default();
    for n in 0..sessions {
        let mut rng = Rng::fork(seed, n as u64);
        let project = n % projects;
        let cwd = project_cwd(project);
        let roll = rng.below(1_000);
        let target = match roll {
            0..=4 => 0,
            5..=849 => rng.range(1_000, 20_000),
            850..=989 => rng.range(20_000, 200_000),
            _ => rng.range(1_000_000, 3_000_000),
        };
        #[allow(clippy::cast_possible_wrap, reason = "a minute per session, far below i64::MAX")]
        let start_ms = 1_767_225_600_000 + (n as i64) * 60_000 + rng.below(50_000) as i64;
        let spec = PiSessionSpec { target_bytes: target, seed: rng.next_u64(), cwd: cwd.clone(), start_ms };
        let session = spec.generate();
        let path = sessions_root.join(dir_name(&cwd)).join(session.file_name());
        write_input(&path, session.text.as_bytes())?;
        stats.files += 1;
        stats.bytes += session.text.len() as u64;
        stats.messages += session.stats.messages;
    }
    Ok(stats)
}

/// The cwd of project `n`: a few shapes of path, all distinct.
fn project_cwd(n: usize) -> String {
    match n % 4 {
        0 => format!("/home/dev/work/project-{n:03}"),
        1 => format!("/home/dev/src/github.com/acme/service_{n}"),
        2 => format!("/srv/repos/app.v{n}/packages/core"),
        _ => format!("/home/dev/scratch/experiment {n}"),
    }
}

/// pi-mono's directory name for a cwd: `--` + the path without its leading
/// slash, every `/`, `\` and `:` as `-`, + `--`.
fn dir_name(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_names_follow_pi_mono() {
        assert_eq!(dir_name("/home/u/p"), "--home-u-p--");
        assert_eq!(dir_name("C:\\x\\y"), "--C--x-y--");
        assert_eq!(dir_name("/srv/repos/app.v2/sub dir"), "--srv-repos-app.v2-sub dir--");
    }
}
