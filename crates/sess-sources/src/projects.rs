//! The project folders `sess` knows of, for an agent that keeps its sessions
//! inside the projects it works on, with no index of them anywhere: the
//! directories the sessions of every agent name, and the folders the user
//! names.
//!
//! The user names folders (or files) in `SESS_PROJECT_DIRS`, a list of paths
//! as `PATH` writes one (`:` between them; `;` on Windows); `sess
//! --project-dir DIR` adds to it. The directories the agents' sessions name
//! are those their listings give; a caller that keeps a catalog of them
//! gives them instead ([`Env::with_session_cwds`]), which spares reading
//! every agent's sessions (`sess` gives those of every session its catalog
//! holds, so a folder once named stays known while its sessions are there).

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::env::Env;
use crate::listing::Scope;
use crate::source::registry;

/// The variable that names project folders.
pub const PROJECT_DIRS: &str = "SESS_PROJECT_DIRS";

/// The folders (or files) the user names in [`PROJECT_DIRS`], in its order.
pub fn named(env: &Env) -> Vec<PathBuf> {
    env.var(PROJECT_DIRS)
        .map(|list| std::env::split_paths(list).filter(|p| !p.as_os_str().is_empty()).collect())
        .unwrap_or_default()
}

/// The directories the sessions of every agent in `env` name, sorted, each
/// once: what the listings of every source say (listed with no other
/// directory known, so that a source that looks in these folders itself
/// finds only the user's).
pub fn session_cwds(env: &Env) -> Vec<String> {
    let alone = env.clone().with_session_cwds(Vec::new());
    let mut cwds = BTreeSet::new();
    for kind in registry() {
        cwds.extend(kind.source().list(&alone, Scope::All).sessions.into_iter().filter_map(|info| info.cwd));
    }
    cwds.into_iter().collect()
}

/// Every project folder of `env`: the user's, then the directories the
/// agents' sessions name ([`Env::with_session_cwds`], else
/// [`session_cwds`], found once per environment).
pub(crate) fn folders(env: &Env) -> Vec<PathBuf> {
    let mut folders = named(env);
    folders.extend(env.session_cwds(|| session_cwds(env)).iter().map(PathBuf::from));
    folders
}
