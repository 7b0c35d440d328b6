//! One agent, one [`Source`]: where it keeps its sessions, how to list them,
//! which files are its, how to read one as a transcript, and what the catalog
//! keeps of one. The [`registry`] holds every source; everything else
//! iterates it, and never names an agent.
//!
//! Adding an agent is a folder of this crate with a type implementing
//! [`Source`], and one line in [`SOURCES`].

use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

use crate::detect::Head;
use crate::edit::FileEdit;
use crate::env::Env;
use crate::error::Result;
use crate::handoff::{Handoff, Written};
use crate::index::{Added, Indexed};
use crate::jsonl::read_file;
use crate::listing::{Catalogued, FoundFiles, Listed, Listing, Scope};
use crate::transcript::{ToolCall, Transcript};
use crate::verify::Checked;

/// How a session file changes, which decides how the archive keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// It grows by appended lines: the archive keeps only the lines added
    /// since it last read it (a file rewritten otherwise is a new version).
    Lines,
    /// It is written whole each time: every change is a new version.
    Whole,
}

/// A session's shape, as `sess tree` draws it.
#[derive(Clone, Debug)]
pub enum Outline {
    /// Lines linked by their ids and parents' ids: branches are rewinds,
    /// edits and resumed turns.
    Lines(crate::line_tree::LineTree),
    /// A thread's line of turns, rollbacks and compactions marked.
    Turns(crate::codex::Turns),
}

/// Every agent `sess` reads, in the order detection asks them: a source
/// whose lines could pass for another's comes before it (a tie on the first
/// line recognised goes to the earlier source).
static SOURCES: &[&dyn Source] = &[
    &crate::pi::Pi,
    &crate::codex::Codex,
    &crate::opencode::OpenCode,
    &crate::copilot::Copilot,
    &crate::qwen::Qwen,
    &crate::gemini::Gemini,
    &crate::claude::Claude,
    &crate::goose::Goose,
    &crate::crush::Crush,
    &crate::zed::Zed,
    &crate::continue_cli::Continue,
    &crate::cline::Cline,
    &crate::roo::Roo,
    &crate::aider::Aider,
    &crate::cursor::Cursor,
    &crate::droid::Droid,
    &crate::auggie::Auggie,
    &crate::kilo::Kilo,
];

/// Every source, in registry order.
pub fn registry() -> impl Iterator<Item = SourceKind> {
    SOURCES.iter().map(|&source| SourceKind(source))
}

/// An agent whose sessions `sess` reads.
pub trait Source: Sync {
    /// Its name on the command line (`--source`) and in JSON: `claude`.
    fn name(&self) -> &'static str;

    /// Its name in messages: `Claude Code`.
    fn agent(&self) -> &'static str;

    /// Where it keeps sessions, for help texts: `$CODEX_HOME or ~/.codex`.
    fn location(&self) -> &'static str;

    /// Whether this is the format `sess` itself writes (pi-family): its
    /// sessions have entry trees that the write verbs, `context` and
    /// `segments` work on. Every other agent's files are read-only.
    fn native(&self) -> bool {
        false
    }

    /// The folders (or database files) where it keeps sessions in `env`,
    /// with the agent's own environment overrides applied.
    fn roots(&self, env: &Env) -> Vec<PathBuf>;

    /// Whether its tool `tool` asks the user and waits for the answer (a
    /// question, a plan to approve): a session whose last call is one of
    /// them is [`waiting`](crate::SessionState::Waiting). None by default.
    fn asks_user(&self, tool: &str) -> bool {
        let _ = tool;
        false
    }

    /// Its session files in `env`, found cheaply (from names, where the
    /// format allows): `(session id, path)`, and the names that are not
    /// regular files (skipped, never opened); or, for an agent that keeps
    /// sessions in a database, its sessions as rows with their versions.
    fn find(&self, env: &Env) -> FoundFiles;

    /// Whether [`find`](Self::find) looks in the directories the other
    /// agents' sessions name ([`Env::with_session_cwds`]), so that it can
    /// find more once more sessions are known (Aider's chat histories,
    /// which no index lists). No, by default.
    fn finds_in_session_cwds(&self) -> bool {
        false
    }

    /// [`find`](Self::find) for a caller that needs the files, not their
    /// ids (the catalog, which reads the ids when it reads the files): a
    /// source whose ids cost a read gives the ids its names carry instead.
    fn files(&self, env: &Env) -> FoundFiles {
        self.find(env)
    }

    /// Its sessions in `env` within `scope`, each summarised.
    fn list(&self, env: &Env, scope: Scope<'_>) -> Listing;

    /// What [`list`](Self::list) says of the session file at `path`, whose
    /// bytes (as [`read_whole`](Self::read_whole) reads them) are `bytes`,
    /// from the file alone: the same code. `None` when the listing leaves the
    /// file out, or when this source is listed by reading its files (the
    /// default: [`list_catalogued`](Self::list_catalogued) gives `None`).
    /// [`index`](Self::index) gives the same in [`Indexed::listed`].
    fn listed(&self, path: &Path, bytes: &[u8]) -> Option<Listed> {
        let _ = (path, bytes);
        None
    }

    /// The sessions [`list`](Self::list) gives in `env` and `scope`, from
    /// what the search catalog holds of every file of [`files`](Self::files)
    /// (`catalogued`): those of the scope, with what only other files say
    /// added, and the problems the listing reports. `None` when this source
    /// is listed by reading its files (the default).
    fn list_catalogued(&self, env: &Env, scope: Scope<'_>, catalogued: Catalogued) -> Option<Listing> {
        let _ = (env, scope, catalogued);
        None
    }

    /// The position of the first line of `head` that says this agent wrote
    /// the file (0 when the name or the first bytes say it); `None` when no
    /// line does.
    fn detect(&self, head: &Head<'_>) -> Option<usize>;

    /// The session file at `path` as a whole transcript (the caller keeps the
    /// newest messages it wants).
    fn load(&self, path: &Path) -> Result<Transcript>;

    /// The session `id` of the database file `database` as a whole
    /// transcript, for a source whose sessions are rows
    /// ([`FoundFiles::rows`]); a source of files loads the file.
    fn load_row(&self, database: &Path, id: &str) -> Result<Transcript> {
        let _ = id;
        self.load(database)
    }

    /// The ids of every session the database file `database` holds as rows
    /// (those a listing leaves out too, such as subagents'), in the
    /// database's order. The default, for a source of files, is none.
    fn row_ids(&self, database: &Path) -> Result<Vec<String>> {
        let _ = database;
        Ok(Vec::new())
    }

    /// What the catalog keeps of the session `id` of the database file
    /// `database` ([`FoundFiles::rows`]).
    fn index_row(&self, database: &Path, id: &str) -> std::result::Result<Indexed, String> {
        let _ = id;
        Err(format!("`{}` is not a database of {} sessions", database.display(), self.agent()))
    }

    /// What is wrong in the session file at `path`; `None` when the caller
    /// checks it (the native format, which the store checks).
    fn verify(&self, path: &Path) -> Option<Result<Checked>> {
        let _ = path;
        None
    }

    /// The shape of the session file at `path` for `sess tree`: a tree of
    /// lines, or a line of turns; `None` when the caller draws it (the
    /// native format's entry tree) or the agent's files have no such shape.
    fn outline(&self, path: &Path) -> Option<Result<Outline>> {
        let _ = path;
        None
    }

    /// The bytes of the session file at `path` as the catalog reads them
    /// (decompressed, for an agent that compresses old sessions).
    fn read_whole(&self, path: &Path) -> Result<Vec<u8>> {
        read_file(path)
    }

    /// What the catalog keeps of the session file at `path`, whose complete
    /// lines are `bytes`; an error says why it is not a session.
    fn index(&self, path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String>;

    /// How the session file (or companion) at `path` changes: by appended
    /// lines (the default for a `.jsonl` name), or written whole (any other
    /// name: JSON documents, YAML, blobs, compressed files, databases).
    fn growth(&self, path: &Path) -> Growth {
        if path.extension().is_some_and(|ext| ext == "jsonl") { Growth::Lines } else { Growth::Whole }
    }

    /// The other files the session whose main file is `path` is made of
    /// (its subagents' transcripts, a metadata file beside it, images it
    /// moved out of its lines): what the archive keeps with it and `sess
    /// restore` writes back: the files its reader reads for it (a file
    /// every session of the agent reads, such as an index of titles, is not
    /// one session's), and its subagents' transcripts. Only regular files
    /// that exist (links followed), and links among them that lead to nothing
    /// (a loop, or dangling: files of the session that cannot be read), sorted,
    /// each once, never `path` itself.
    fn companions(&self, path: &Path) -> Vec<PathBuf> {
        let _ = path;
        Vec::new()
    }

    /// The rows of session `id` in the database file `database`, exactly as
    /// stored ([`FoundFiles::rows`]): what the archive keeps of it, and what
    /// [`RowDump::write_database`](crate::RowDump::write_database) writes to
    /// a copy that [`load_row`](Self::load_row) reads the same. The default,
    /// for a source of files, is [`Error::Database`](crate::Error::Database).
    fn rows(&self, database: &Path, id: &str) -> Result<crate::RowDump> {
        let _ = id;
        Err(crate::Error::Database {
            path: database.to_owned(),
            message: format!("{} keeps no sessions in a database", self.agent()),
        })
    }

    /// The files besides `path` whose model calls count toward the session
    /// (its subagents' transcripts, among its
    /// [`companions`](Self::companions)), read with [`usage`](Self::usage).
    /// The default is none.
    fn usage_files(&self, path: &Path) -> Vec<PathBuf> {
        let _ = path;
        Vec::new()
    }

    /// The model calls recorded in one of the session's
    /// [`usage_files`](Self::usage_files), whose complete lines are `bytes`.
    /// The default is none.
    fn usage(&self, path: &Path, bytes: &[u8]) -> Vec<crate::Call> {
        let _ = (path, bytes);
        Vec::new()
    }

    /// The files `call` changes, read from its input by this agent's own
    /// tool names and fields (an edit, a file written, a patch): what
    /// [`add_diffs`](crate::diff::add_diffs) shows as diffs. The change the
    /// call asked for, whether or not it succeeded (its status says). The
    /// default, for an agent without edit tools, is none.
    fn edits(&self, call: &ToolCall) -> Vec<FileEdit> {
        let _ = call;
        Vec::new()
    }

    /// What the lines `bytes` added to a file of session `session_id` after
    /// its first `lines_before` lines give; `None` when the format does not
    /// grow by appended lines (the catalog then reads the file whole).
    fn index_added(&self, session_id: &str, bytes: &[u8], lines_before: usize) -> Option<Added> {
        let _ = (session_id, bytes, lines_before);
        None
    }

    /// The command that resumes `session` in this agent (the program and its
    /// arguments, run in the session's directory); `None` when the agent
    /// resumes no session by its id or file (the default).
    fn resume(&self, env: &Env, session: &Resumable<'_>) -> Option<Vec<String>> {
        let _ = (env, session);
        None
    }

    /// What writes a [`Handoff`] as a new session of this agent in an
    /// environment, kept where the agent looks for the sessions of its
    /// directory: one new file, created, never replacing one. `None` when
    /// this agent takes no handoff (the default).
    fn hand_off(&self) -> Option<HandOff> {
        None
    }
}

/// Writes a handoff as a new session of an agent ([`Source::hand_off`]).
pub type HandOff = fn(&Env, &Handoff) -> Result<Written>;

/// A session to resume in its agent.
#[derive(Clone, Copy, Debug)]
pub struct Resumable<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its file (or the database that holds it).
    pub path: &'a Path,
    /// The directory it worked in, when known.
    pub cwd: Option<&'a str>,
}

/// A source, by handle: cheap to copy, compared and printed by name.
#[derive(Clone, Copy)]
pub struct SourceKind(&'static dyn Source);

impl SourceKind {
    /// The handle of `source`.
    pub const fn of(source: &'static dyn Source) -> Self {
        Self(source)
    }

    /// The source itself.
    pub fn source(self) -> &'static dyn Source {
        self.0
    }

    /// The name used on the command line and in JSON: `pi`, `claude`, …
    pub fn as_str(self) -> &'static str {
        self.0.name()
    }

    /// The agent's name in messages: `pi-family`, `Claude Code`, …
    pub fn agent_name(self) -> &'static str {
        self.0.agent()
    }

    /// Whether this is the format `sess` writes ([`Source::native`]).
    pub fn is_native(self) -> bool {
        self.0.native()
    }

    /// The source [`as_str`](Self::as_str) names.
    pub fn from_name(name: &str) -> Option<Self> {
        registry().find(|kind| kind.as_str() == name)
    }

    /// The native source: the format `sess` writes.
    pub fn native() -> Self {
        registry().find(|kind| kind.is_native()).unwrap_or(Self(SOURCES[0]))
    }
}

impl PartialEq for SourceKind {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SourceKind {}

impl Hash for SourceKind {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for SourceKind {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SourceKind {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Debug for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for SourceKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A command's words, owned.
pub(crate) fn command(words: &[&str]) -> Vec<String> {
    words.iter().map(|&word| word.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_again() {
        let names: Vec<&str> = registry().map(SourceKind::as_str).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for kind in registry() {
            assert_eq!(SourceKind::from_name(kind.as_str()), Some(kind));
        }
        assert_eq!(registry().filter(|kind| kind.is_native()).count(), 1);
    }
}
