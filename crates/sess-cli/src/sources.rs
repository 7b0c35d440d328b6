//! Every agent's sessions on this machine: listing them, finding one by id or
//! path, and loading it as a transcript.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use sess_core::Leaf;
use sess_sources::{Listing, Scope, SourceKind, Transcript};
use sess_store::discovery::{self, Depth, MessageText, PiAgent};
use sess_store::{FileStorage, SessionStorage as _, SessionSummary};

use crate::env::{claude_config_dirs, codex_home, environment};
use crate::output::{Hint, warn_skipped};

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

/// How much of a file tells which agent wrote it.
const DETECT_BYTES: usize = sess_sources::DETECT_BYTES;

/// Every pi-family session file on the machine, for resolving an id.
pub(crate) fn all_summaries() -> Vec<SessionSummary> {
    pi_sessions(None).into_iter().map(|(_, s)| s).collect()
}

/// Whether `arg` names a file rather than an id.
pub(crate) fn looks_like_path(arg: &str) -> bool {
    let path = PathBuf::from(arg);
    arg.contains(std::path::MAIN_SEPARATOR)
        || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("zst"))
        || path.exists()
}

/// A session file and the agent that wrote it.
pub(crate) struct Located {
    pub(crate) kind: SourceKind,
    pub(crate) path: PathBuf,
}

/// The session `arg` names: a file of any agent, or an id or id prefix of a
/// session of any agent on this machine.
pub(crate) fn locate(arg: &str) -> anyhow::Result<Located> {
    if looks_like_path(arg) {
        let path = PathBuf::from(arg);
        let kind = detect(&path)?;
        return Ok(Located { kind, path });
    }
    let needle = arg.to_lowercase();
    let mut candidates: Vec<(SourceKind, String, PathBuf)> = Vec::new();
    for summary in all_summaries() {
        candidates.push((SourceKind::Pi, summary.id, summary.path));
    }
    let claude = sess_sources::claude::find_session_files(&claude_config_dirs());
    let codex = sess_sources::codex::find_session_files(&codex_home());
    warn_skipped(&claude.skipped);
    warn_skipped(&codex.skipped);
    for (id, path) in claude.files {
        candidates.push((SourceKind::Claude, id, path));
    }
    for (id, path) in codex.files {
        candidates.push((SourceKind::Codex, id, path));
    }
    let mut matches: Vec<_> =
        candidates.into_iter().filter(|(_, id, _)| id.to_lowercase().starts_with(&needle)).collect();
    if matches.len() > 1
        && let Some(exact) = matches.iter().position(|(_, id, _)| id.to_lowercase() == needle)
        && matches.iter().filter(|(_, id, _)| id.to_lowercase() == needle).count() == 1
    {
        matches = vec![matches.swap_remove(exact)];
    }
    match matches.len() {
        0 => Err(anyhow::Error::new(Hint(
            "`sess list --all-projects` shows every session of every agent; a file path works too".to_owned(),
        ))
        .context(format!("no session of any agent has an id starting with `{arg}`"))),
        1 => {
            let (kind, _, path) = matches.remove(0);
            Ok(Located { kind, path })
        }
        _ => {
            let list: Vec<String> =
                matches.iter().map(|(kind, id, path)| format!("  {kind}  {id}  {}", path.display())).collect();
            Err(anyhow::Error::new(Hint("give more of the id, or the file path".to_owned())).context(format!(
                "`{arg}` matches {} sessions:\n{}",
                matches.len(),
                list.join("\n")
            )))
        }
    }
}

/// The agent that wrote the file at `path`, which must be a regular file (a
/// FIFO or a device is refused without being opened).
fn detect(path: &Path) -> anyhow::Result<SourceKind> {
    let head = FileStorage
        .read_range(path, 0, DETECT_BYTES)
        .map_err(|e| sess_store::Error::from_io("reading", path, e))
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    sess_sources::detect(path, &head).with_context(|| {
        format!(
            "`{}` is not a session of any agent `sess` reads (pi-family, Claude Code, Codex): none of its first lines is one",
            path.display()
        )
    })
}

/// Refuses to write to `path` when another agent wrote it (told as `sess
/// show` tells it): `sess` writes only pi-family sessions, and the file is
/// not touched. A missing file is fine: it is a new session.
pub(crate) fn refuse_other_agents(path: &Path) -> anyhow::Result<()> {
    let head = match FileStorage.read_range(path, 0, DETECT_BYTES) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        read => read
            .map_err(|e| sess_store::Error::from_io("reading", path, e))
            .with_context(|| format!("cannot read `{}`", path.display()))?,
    };
    match sess_sources::detect(path, &head) {
        Some(kind) if kind != SourceKind::Pi => {
            Err(anyhow::Error::new(Hint(format!("`sess show {}` reads it", path.display()))).context(format!(
                "`{}` is a {} session; sess writes only pi-family sessions",
                path.display(),
                kind.agent_name()
            )))
        }
        _ => Ok(()),
    }
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
