//! pi-family as a [`Source`]: the sessions of pi-mono, oh-my-pi, xcsh and
//! Prime Agent, found where `sess_store`'s discovery finds them (the agents'
//! own folders and variables), read as transcripts at their last entry.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sess_core::{Leaf, SessionFile};
use sess_store::FileStorage;
use sess_store::discovery::{
    self, Depth, Environment, MessageText, NO_MESSAGES, PiAgent, SessionSummary, candidate_dir_names,
};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::{Added, Indexed};
use crate::jsonl::read_file;
use crate::listing::{Catalogued, FoundFiles, Listed, Listing, Scope, SessionInfo};
use crate::source::{HandOff, Resumable, Source, SourceKind};
use crate::transcript::{ToolCall, Transcript};

/// pi-mono, oh-my-pi, xcsh and Prime Agent: the format `sess` writes.
pub struct Pi;

/// The pi-family source.
pub const SOURCE: SourceKind = SourceKind::of(&Pi);

impl Source for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn agent(&self) -> &'static str {
        "pi-family"
    }

    fn location(&self) -> &'static str {
        "`$PI_CODING_AGENT_DIR` or `~/.pi/agent`, `~/.omp/agent`, `~/.xcsh/agent` (XDG folders too); `$PRIME_AGENT_CODING_AGENT_DIR` or `~/.prime/agent`"
    }

    fn native(&self) -> bool {
        true
    }

    /// A new pi-mono session (`~/.pi/agent/sessions`, or pi's variables), in
    /// the folder of the handoff's directory.
    fn hand_off(&self) -> Option<HandOff> {
        Some(|env, handoff| super::handoff::write(&environment(env), handoff))
    }

    /// The agent's own program with `--session FILE`: `pi`, `omp`, `xcsh` or
    /// `prime-agent`, by the folder the file is in (`pi` elsewhere).
    fn resume(&self, env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        let agent = roots(&environment(env))
            .into_iter()
            .find(|(_, root)| session.path.starts_with(root))
            .map_or(PiAgent::PiMono, |(agent, _)| agent);
        Some(vec![agent.program().to_owned(), "--session".to_owned(), session.path.display().to_string()])
    }

    fn roots(&self, env: &Env) -> Vec<PathBuf> {
        roots(&environment(env)).into_iter().map(|(_, root)| root).collect()
    }

    /// The ids are the headers' (a file's name need not carry its id).
    fn find(&self, env: &Env) -> FoundFiles {
        let mut found = self.files(env);
        for (id, path) in &mut found.files {
            if let Some(header) = header_id(path) {
                *id = header;
            }
        }
        found
    }

    /// Every agent's files once, in path order, without reading any.
    fn files(&self, env: &Env) -> FoundFiles {
        let mut found = FoundFiles::default();
        let mut seen = HashSet::new();
        for (_, root) in roots(&environment(env)) {
            let walk = discovery::find_session_files(&FileStorage, &root, Depth::All);
            found.skipped.extend(walk.skipped);
            let mut files = walk.files;
            files.sort();
            for path in files.into_iter().filter(|path| seen.insert(path.clone())) {
                found.files.push((id_from_name(&path), path));
            }
        }
        found
    }

    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing {
        let mut listing = Listing::default();
        for (agent, summary) in sessions(env, scope, &mut listing) {
            listing.sessions.push(info(agent, summary));
        }
        listing
    }

    fn listed(&self, path: &Path, bytes: &[u8]) -> Option<Listed> {
        listed(path, bytes, &sess_core::read(bytes).file)
    }

    /// Each session's agent is the one whose folder holds it; a project's
    /// sessions are those directly in its folders (the names
    /// [`candidate_dir_names`] gives) of each agent, and those directly in
    /// the root of an agent without such folders ([`PiAgent::flat`]) whose
    /// cwd is the project's.
    fn list_catalogued(&self, env: &Env, scope: Scope<'_>, mut catalogued: Catalogued) -> Option<Listing> {
        let env = environment(env);
        let roots = roots(&env);
        let flat: Vec<&PathBuf> = roots.iter().filter(|(agent, _)| agent.flat()).map(|(_, root)| root).collect();
        let folders: Option<Vec<PathBuf>> = match scope {
            Scope::All => None,
            Scope::Project(cwd) => {
                let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
                let names = candidate_dir_names(cwd, &env, &canonical);
                Some(roots.iter().flat_map(|(_, root)| names.iter().map(|name| root.join(name))).collect())
            }
        };
        let in_folder =
            |path: &Path, folders: &[&PathBuf]| path.parent().is_some_and(|p| folders.iter().any(|f| *f == p));
        let near = |path: &Path| {
            folders
                .as_ref()
                .is_none_or(|folders| in_folder(path, &folders.iter().collect::<Vec<_>>()) || in_folder(path, &flat))
        };
        let keep = |info: &SessionInfo| match scope {
            Scope::Project(cwd) if in_folder(&info.path, &flat) => {
                info.cwd.as_deref().is_some_and(|c| Path::new(c) == cwd)
            }
            _ => near(&info.path),
        };
        // The listing reads each file itself and leaves out those it cannot read, unreported.
        catalogued.unreadable.clear();
        let mut listing = catalogued.into_listing(keep, near);
        for info in &mut listing.sessions {
            info.flavor = roots.iter().find(|(_, root)| info.path.starts_with(root)).map(|(agent, _)| agent.name());
        }
        Some(listing)
    }

    fn detect(&self, head: &Head<'_>) -> Option<usize> {
        head.first(|line| line.kind.as_deref() == Some("session"))
    }

    fn load(&self, path: &Path) -> Result<Transcript> {
        let file = read_session(path)?;
        Ok(super::transcript(&file, Leaf::Last))
    }

    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        super::edits::edits(call)
    }

    /// The blob files its lines refer to (`blob:sha256:<hex>`), in the blob
    /// store beside the agent's `sessions` folder (`pi/blobs.rs`).
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        super::blobs::referenced(path)
    }

    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
        super::index::whole(path, bytes)
    }

    fn index_added(&self, _session_id: &str, bytes: &[u8], _lines_before: usize) -> Option<Added> {
        Some(super::index::added(bytes))
    }
}

/// The session file at `path`, read whole.
pub fn read_session(path: &Path) -> Result<SessionFile> {
    Ok(sess_core::read(&read_file(path)?).file)
}

/// What discovery needs of `env`.
fn environment(env: &Env) -> Environment {
    Environment {
        home: env.home().to_owned(),
        tmp_dir: env.path("TMPDIR").unwrap_or_else(|| PathBuf::from("/tmp")),
        xdg_data_home: env.path("XDG_DATA_HOME"),
        xdg_state_home: env.path("XDG_STATE_HOME"),
        pi_agent_dir: env.path("PI_CODING_AGENT_DIR"),
        pi_session_dir: env.path("PI_CODING_AGENT_SESSION_DIR"),
        prime_agent_dir: env.path("PRIME_AGENT_CODING_AGENT_DIR"),
        prime_session_dir: env
            .path("PRIME_AGENT_SESSION_DIR")
            .or_else(|| env.path("PRIME_AGENT_CODING_AGENT_SESSION_DIR")),
        terminal_id: None,
    }
}

fn roots(env: &Environment) -> Vec<(PiAgent, PathBuf)> {
    discovery::all_session_roots(env, &FileStorage)
}

/// The id in the session header among the first lines of the file at `path`
/// (oh-my-pi writes a `title` line first); `None` when they have none.
fn header_id(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Header {
        #[serde(rename = "type")]
        kind: String,
        id: String,
    }
    let head = sess_store::SessionStorage::read_range(&FileStorage, path, 0, crate::DETECT_BYTES).ok()?;
    crate::jsonl::JsonLines::new(&head)
        .take(4)
        .filter_map(|line| line.parse::<Header>().ok())
        .find(|header| header.kind == "session")
        .map(|header| header.id)
}

/// The session id a pi-family file's name carries: `<time>_<id>.jsonl`.
fn id_from_name(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default();
    stem.rsplit('_').next().unwrap_or(&stem).to_owned()
}

/// The sessions of `scope`, each once (the agents' folders may overlap);
/// names that are not regular files go to the listing's problems.
fn sessions(env: &Env, scope: Scope<'_>, listing: &mut Listing) -> Vec<(PiAgent, SessionSummary)> {
    let env = environment(env);
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for (agent, root) in roots(&env) {
        let walks = match scope {
            Scope::All => vec![(root, Depth::All)],
            // Every session of the agent is in its root: the header says whose.
            Scope::Project(_) if agent.flat() => vec![(root, Depth::One)],
            Scope::Project(cwd) => candidate_dir_names(cwd, &env, &canonical)
                .into_iter()
                .map(|name| (root.join(name), Depth::One))
                .collect(),
        };
        let mut files = Vec::new();
        for (dir, depth) in walks {
            let walk = discovery::find_session_files(&FileStorage, &dir, depth);
            for (path, kind) in walk.skipped {
                listing.problems.push(Error::NotASessionFile { path, kind });
            }
            files.extend(walk.files);
        }
        for summary in discovery::summarize_sessions(&FileStorage, &files, MessageText::Skip) {
            let elsewhere = matches!(scope, Scope::Project(cwd) if agent.flat() && Path::new(&summary.cwd) != cwd);
            if !elsewhere && seen.insert(summary.path.clone()) {
                found.push((agent, summary));
            }
        }
    }
    found
}

/// A listing item in the shape of the other sources': untitled, it is titled
/// by its first prompt.
pub fn info(agent: PiAgent, summary: SessionSummary) -> SessionInfo {
    let mut info = summary_info(summary);
    info.flavor = Some(agent.name());
    info
}

/// [`info`] of a session whose agent is not known (a store's).
pub fn summary_info(summary: SessionSummary) -> SessionInfo {
    let first_prompt = (summary.first_message != NO_MESSAGES).then(|| summary.first_message.clone());
    SessionInfo {
        source: SOURCE,
        flavor: None,
        id: summary.id,
        path: summary.path,
        cwd: Some(summary.cwd).filter(|c| !c.is_empty()),
        title: summary.title.or(first_prompt),
        created: summary.created,
        modified_ms: summary.modified_ms,
        message_count: summary.message_count,
        first_message: Some(summary.first_message),
        parent_session: summary.parent_session,
    }
}

/// What a listing says of the pi-family session file at `path`, whose bytes
/// are `bytes` and which reads as `file`: discovery's summary (the code of
/// [`Pi::list`]'s), and how many messages its transcript at the last entry
/// shows. `None` when it is not a session.
pub(super) fn listed(path: &Path, bytes: &[u8], file: &SessionFile) -> Option<Listed> {
    // The summary falls back on the file's time only without a time of its own.
    let file_time = std::cell::Cell::new(false);
    let summary = discovery::summarize_bytes(bytes, path.to_owned(), || {
        file_time.set(true);
        Some(0)
    })?;
    let listed = Listed::from(summary_info(summary));
    Some(Listed {
        active_ms: listed.active_ms.filter(|_| !file_time.get()),
        shown_messages: Some(super::shown_message_count(file, Leaf::Last)),
        ..listed
    })
}
