//! Every agent's sessions on this machine: listing them, and loading one as a
//! transcript (`resolve` finds one by id or path).

use std::collections::HashSet;
use std::path::Path;

use anyhow::Context as _;
use sess_core::Leaf;
use sess_sources::{Listing, Scope, SourceKind, Transcript};
use sess_store::discovery::{self, Depth, MessageText, PiAgent};
use sess_store::{FileStorage, SessionSummary};

use crate::env::{claude_config_dirs, codex_home, environment};
use crate::output::warn_skipped;
use crate::resolve::Located;

/// The sessions of Claude Code or Codex (pi-family sessions are listed by
/// `sess_store::discovery`).
pub(crate) fn list(kind: SourceKind, scope: Scope<'_>) -> Listing {
    match kind {
        SourceKind::Pi => Listing::default(),
        SourceKind::Claude => sess_sources::claude::list(&claude_config_dirs(), scope),
        SourceKind::Codex => sess_sources::codex::list(&codex_home(), scope),
    }
}

/// pi-family sessions of one project (`Some(cwd)`) or of every project.
pub(crate) fn pi_sessions(cwd: Option<&Path>) -> Vec<(PiAgent, SessionSummary)> {
    let env = environment();
    let roots = discovery::all_session_roots(&env, &FileStorage);
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for (agent, root) in roots {
        let walks = match cwd {
            None => vec![(root, Depth::All)],
            Some(cwd) => discovery::candidate_dir_names(cwd, &env, &canonical)
                .into_iter()
                .map(|name| (root.join(name), Depth::One))
                .collect(),
        };
        let mut files = Vec::new();
        for (dir, depth) in walks {
            let found = discovery::find_session_files(&FileStorage, &dir, depth);
            warn_skipped(&found.skipped);
            files.extend(found.files);
        }
        let listed = discovery::summarize_sessions(&FileStorage, &files, MessageText::Skip);
        for summary in listed {
            if seen.insert(summary.path.clone()) {
                found.push((agent, summary));
            }
        }
    }
    found
}

/// Every pi-family session file on the machine, for resolving an id.
pub(crate) fn all_summaries() -> Vec<SessionSummary> {
    pi_sessions(None).into_iter().map(|(_, s)| s).collect()
}

/// The transcript of a located session, at `leaf` for a pi-family one.
pub(crate) fn transcript(found: &Located, leaf: Option<&str>) -> anyhow::Result<Transcript> {
    let path = &found.path;
    let context = || format!("cannot read `{}`", path.display());
    match found.kind {
        SourceKind::Pi => {
            let outcome = crate::load::load_path(path)?;
            pi_transcript(&outcome.file, leaf, &path.display().to_string())
        }
        SourceKind::Claude => sess_sources::claude::load(path).with_context(context),
        SourceKind::Codex => sess_sources::codex::load(path).with_context(context),
    }
}

/// A pi-family transcript at `leaf`, which must be an entry of the session.
pub(crate) fn pi_transcript(
    file: &sess_core::SessionFile,
    leaf: Option<&str>,
    name: &str,
) -> anyhow::Result<Transcript> {
    let leaf = match leaf {
        Some(id) if !file.entries().iter().any(|e| e.id().as_str() == id) => {
            anyhow::bail!("`{name}` has no entry `{id}`")
        }
        Some(id) => Leaf::Id(id),
        None => Leaf::Last,
    };
    Ok(sess_sources::pi::transcript(file, leaf))
}
