//! Aider's chat histories: `.aider.chat.history.md` in the projects, each
//! run of Aider a session.
//!
//! # Where
//!
//! Aider keeps no index of its sessions: it appends to
//! `.aider.chat.history.md` at the root of the git repository it runs in (in
//! the folder it runs in, without git), or to the file `--chat-history-file`
//! names. `sess` looks in the project folders it knows of
//! ([`crate::projects`]): the directories every agent's sessions name and
//! each folder above one up to its git repository's root, and the folders
//! the user names in `SESS_PROJECT_DIRS` (or with `sess --project-dir`),
//! where a file named is a chat history itself (a moved one). The files are
//! read only.
//!
//! A run is located by its file and its id ([`SessionInfo::path`] is the
//! chat history). Its id is the time of its header and a tag of the file's
//! path (`20261202T025147-5f3a9c01`; a second run started in the same
//! second of the same file gets `-2`): stable while the file grows, as
//! Aider only appends to it.
//!
//! # Listing
//!
//! One session per run, from its `# aider chat started at YYYY-MM-DD
//! HH:MM:SS` header (local time, read in the system's time zone) to the
//! next. The cwd is the `Cur working dir:` Aider printed, else its `Git
//! working dir:`, else the history's folder; there is no title, the first
//! prompt stands for one. The header's is the only time a run records: it
//! is the run's start, and its last activity for every run but the file's
//! last, which was active until the file's modification time. A run that
//! restored the conversation (`Restored previous conversation history.`)
//! names the run before it as its parent.
//!
//! # From a run to a transcript
//!
//! - Aider's own output (`> ` lines, each ending with two spaces; a message
//!   of several lines is quoted on its first line only and ends at the line
//!   with the two spaces) before the first input is the run's opening (the
//!   command line, version, model, repository): a system message of one
//!   context block. Later output goes with the message before it, as a
//!   context block, or as an error for Aider's error messages.
//! - `#### ` lines are the user's input (a multi-line input has one per
//!   line). `/run CMD` and `!CMD` are a `run` call with the command: the
//!   chat history holds neither its output nor its exit status, only
//!   Aider's lines about adding the output to the chat, which are its
//!   result; it is shown as completed.
//! - The other lines are the model's answers. Each SEARCH/REPLACE block
//!   (the file name above a fence, `<<<<<<< SEARCH`, `=======`, `>>>>>>>
//!   REPLACE`) is an `edit` call with `path`, `search` and `replace`: it
//!   succeeded when Aider printed `Applied edit to FILE`, failed when its
//!   report of blocks that failed to match shows its SEARCH text (the
//!   report is its result, and the model's answer to the report the next
//!   message), and is pending when the run says nothing more. An edit shows
//!   as a diff; an empty SEARCH writes a new file. Answers in Aider's other
//!   edit formats (whole files, unified diffs) are text.
//! - **Usage:** one call per `Tokens: 2.4k sent, 6 received.` line (with
//!   `N cache write`, `N cache hit` and `Cost: $X message, …` where Aider
//!   printed them), with the model of the run's `Model:` line, dated by the
//!   run's start. Aider prints counts from 1,000 on in thousands with one
//!   decimal (`2.4k`), from 10,000 on in whole thousands: the counts are as
//!   exact as it printed them. The cache reads and writes are taken out of
//!   `sent`.
//! - Compaction is not in the chat history (Aider sends its summary of the
//!   older messages in place of them, and keeps it only in its LLM history).

mod convert;
mod history;
mod source;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sess_core::format_iso_millis;

pub use source::{Aider, SOURCE};

use self::history::Run;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::listing::{FoundFiles, FoundRow, Listing, Scope, SessionInfo, modified_ms};
use crate::project_folders::same_dir;
use crate::transcript::{Transcript, first_prompt};
use crate::usage::Call;

/// The name of a chat history.
pub const HISTORY: &str = ".aider.chat.history.md";

/// Every chat history in the project folders of `env`, each once, in the
/// folders' order: a file the user names, and in each folder, the history
/// in it and in each folder above it up to the root of its git repository.
pub fn history_files(env: &Env) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut looked = HashSet::new();
    let mut seen = HashSet::new();
    for folder in crate::projects::folders(env) {
        if folder.is_file() {
            if seen.insert(folder.clone()) {
                files.push(folder);
            }
            continue;
        }
        let mut dir = Some(folder.as_path());
        while let Some(here) = dir {
            if !looked.insert(here.to_owned()) {
                break;
            }
            let file = here.join(HISTORY);
            if file.is_file() && seen.insert(file.clone()) {
                files.push(file);
            }
            if here.join(".git").exists() {
                break;
            }
            dir = here.parent();
        }
    }
    files
}

/// The runs of the chat histories of `env`, as rows of their files: a run's
/// version is its start, and for a file's last run, the file's modification
/// time.
pub(crate) fn find_session_files(env: &Env) -> FoundFiles {
    let mut found = FoundFiles::default();
    for path in history_files(env) {
        let Ok(file) = File::read(&path) else { continue };
        let runs = history::runs(&file.text);
        let ids = run_ids(&path, &runs);
        let last = runs.len().saturating_sub(1);
        for (n, (run, id)) in runs.iter().zip(ids).enumerate() {
            let version = file.active_ms(started_ms(run.started), n == last);
            found.rows.push(FoundRow { id, database: path.clone(), version });
        }
    }
    found
}

/// The runs of `env` in `scope`; a history that cannot be read goes to
/// [`Listing::problems`].
pub(crate) fn list(env: &Env, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    for path in history_files(env) {
        let file = match File::read(&path) {
            Ok(file) => file,
            Err(err) => {
                listing.problems.push(err);
                continue;
            }
        };
        for read in file.reads(&path) {
            if let Scope::Project(dir) = scope
                && !read.transcript.cwd.as_deref().is_some_and(|cwd| same_dir(cwd, &dir.to_string_lossy()))
            {
                continue;
            }
            listing.sessions.push(read.info(&path));
        }
    }
    listing
}

/// A chat history's text and modification time.
pub(crate) struct File {
    text: String,
    mtime_ms: i64,
}

impl File {
    /// The chat history at `path` (bytes that are not UTF-8 read as U+FFFD).
    pub(crate) fn read(path: &Path) -> Result<Self> {
        let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
        let bytes = crate::jsonl::read_file(path)?;
        Ok(Self { text: String::from_utf8_lossy(&bytes).into_owned(), mtime_ms: modified_ms(&metadata) })
    }

    /// When a run that started at `started_ms` was last active: its start,
    /// or for the file's `last` run, the file's modification time.
    fn active_ms(&self, started_ms: Option<i64>, last: bool) -> i64 {
        match (started_ms, last) {
            (Some(started), false) => started,
            (started, _) => started.unwrap_or(0).max(self.mtime_ms),
        }
    }

    /// Every run of this history at `path`, read.
    pub(crate) fn reads(&self, path: &Path) -> Vec<Read> {
        let runs = history::runs(&self.text);
        let ids = run_ids(path, &runs);
        let last = runs.len().saturating_sub(1);
        let mut reads: Vec<Read> = Vec::with_capacity(runs.len());
        for (n, (run, id)) in runs.iter().zip(ids).enumerate() {
            let previous = reads.last().map(|r| r.transcript.id.clone());
            let mut read = read_run(path, run, id, previous);
            read.active_ms = self.active_ms(read.created_ms, n == last);
            reads.push(read);
        }
        reads
    }

    /// The run `id` of this history at `path`, read, and its text.
    pub(crate) fn read_one(&self, path: &Path, id: &str) -> Result<(Read, Run<'_>)> {
        let runs = history::runs(&self.text);
        let ids = run_ids(path, &runs);
        let at = ids.iter().position(|i| i == id).ok_or_else(|| Error::NotFound { path: path.join(id) })?;
        let previous = at.checked_sub(1).map(|p| ids[p].clone());
        let mut read = read_run(path, &runs[at], ids[at].clone(), previous);
        read.active_ms = self.active_ms(read.created_ms, at + 1 == runs.len());
        Ok((read, runs[at]))
    }

    /// The ids of this history's runs, in file order.
    pub(crate) fn ids(&self, path: &Path) -> Vec<String> {
        run_ids(path, &history::runs(&self.text))
    }

    /// The last run's id, when there is a run.
    pub(crate) fn last_id(&self, path: &Path) -> Option<String> {
        self.ids(path).pop()
    }
}

/// A run read.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    /// Its start (ISO 8601).
    pub(crate) created: Option<String>,
    created_ms: Option<i64>,
    /// When it was last active ([`File::active_ms`]).
    active_ms: i64,
    /// The run before it, when it restored the conversation.
    pub(crate) parent: Option<String>,
    pub(crate) usage: Vec<Call>,
}

impl Read {
    fn info(&self, path: &Path) -> SessionInfo {
        let transcript = &self.transcript;
        SessionInfo {
            source: SOURCE,
            flavor: None,
            id: transcript.id.clone(),
            path: path.to_owned(),
            cwd: transcript.cwd.clone(),
            title: None,
            created: self.created.clone(),
            modified_ms: self.active_ms,
            message_count: transcript.messages.len(),
            first_message: first_prompt(&transcript.messages).map(ToOwned::to_owned),
            parent_session: self.parent.clone(),
        }
    }
}

/// The run `run` of the history at `path`, as session `id`; `previous` is
/// the run before it in the file.
pub(crate) fn read_run(path: &Path, run: &Run<'_>, id: String, previous: Option<String>) -> Read {
    let created_ms = started_ms(run.started);
    let created = created_ms.map(format_iso_millis);
    let converted = convert::convert(&history::items(run.body()), created.as_deref());
    let mut transcript = Transcript::new(SOURCE, id);
    transcript.cwd = converted.cwd.or_else(|| folder_of(path));
    transcript.messages = converted.messages;
    Read {
        transcript,
        created,
        created_ms,
        active_ms: created_ms.unwrap_or(0),
        parent: previous.filter(|_| converted.restored),
        usage: converted.usage,
    }
}

/// The folder of the history at `path`, absolute.
fn folder_of(path: &Path) -> Option<String> {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    path.parent().map(|dir| dir.to_string_lossy().into_owned())
}

/// The ids of the runs of the history at `path` (see the module docs).
fn run_ids(path: &Path, runs: &[Run<'_>]) -> Vec<String> {
    let tag = path_tag(path);
    let mut ids: Vec<String> = Vec::with_capacity(runs.len());
    for run in runs {
        let base = match compact_time(run.started) {
            Some(time) => format!("{time}-{tag}"),
            None => format!("run{}-{tag}", run.offset),
        };
        let mut id = base.clone();
        let mut n = 1;
        while ids.contains(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        ids.push(id);
    }
    ids
}

/// `2026-12-02 02:51:47` as `20261202T025147`, when it has that shape.
fn compact_time(started: &str) -> Option<String> {
    let digits: String = started.chars().filter(char::is_ascii_digit).collect();
    let shaped = started.len() == 19 && digits.len() == 14;
    shaped.then(|| format!("{}T{}", &digits[..8], &digits[8..]))
}

/// Eight hex digits of the FNV-1a hash of the absolute path of `path`.
fn path_tag(path: &Path) -> String {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut hash: u32 = 0x811c_9dc5;
    for byte in path.to_string_lossy().bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{hash:08x}")
}

/// A header's local time in ms since the Unix epoch, in the system's time
/// zone.
fn started_ms(started: &str) -> Option<i64> {
    started_ms_in(started, &jiff::tz::TimeZone::system())
}

/// A header's local time in ms since the Unix epoch, in `zone` (a time a
/// clock change skipped or repeated is read as the earlier).
fn started_ms_in(started: &str, zone: &jiff::tz::TimeZone) -> Option<i64> {
    let civil = jiff::civil::DateTime::strptime("%Y-%m-%d %H:%M:%S", started.trim()).ok()?;
    Some(civil.to_zoned(zone.clone()).ok()?.timestamp().as_millisecond())
}

#[cfg(test)]
#[path = "aider/tests.rs"]
mod tests;
