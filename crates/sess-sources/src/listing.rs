//! What a listing of sessions says about each one.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use sess_core::{FileKind, parse_iso_millis};

use crate::error::Error;
use crate::jsonl::entry_kind;
use crate::source::SourceKind;
use crate::transcript::Transcript;

/// Which sessions to list.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// The sessions whose agent worked in this directory.
    Project(&'a Path),
    /// Every session.
    All,
}

/// One session in a listing.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    /// The agent that wrote it.
    pub source: SourceKind,
    /// Which agent of a family wrote it (pi-mono, oh-my-pi, xcsh), when the
    /// source tells them apart.
    #[serde(skip)]
    pub flavor: Option<&'static str>,
    /// The session id.
    pub id: String,
    /// The session file.
    pub path: PathBuf,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// The title, when the session has one.
    pub title: Option<String>,
    /// When the session started (ISO 8601), when known.
    pub created: Option<String>,
    /// When the session was last active, in ms since the Unix epoch: its
    /// newest message's time, never earlier than `created` (pi-family: pi's
    /// own rule); the file's modification time only when it records no time.
    #[serde(skip)]
    pub modified_ms: i64,
    /// How many messages its transcript has: what `sess show --all` shows. (A
    /// pi-family session's listing carries pi's own count instead: `message`
    /// entries on every branch.)
    pub message_count: usize,
    /// The first prompt, for a listing without a title.
    pub first_message: Option<String>,
    /// The session this one was forked from, when it says so.
    pub parent_session: Option<String>,
}

/// Session files found without reading any: `(session id, path)`, and the
/// names that looked like sessions but are not regular files (a FIFO, a
/// device): skipped, never opened. Callers warn about those.
#[derive(Debug, Default)]
pub struct FoundFiles {
    /// The session files.
    pub files: Vec<(String, PathBuf)>,
    /// The paths skipped, and what they are.
    pub skipped: Vec<(PathBuf, sess_core::FileKind)>,
    /// Sessions that are rows of a database.
    pub rows: Vec<FoundRow>,
}

impl FoundFiles {
    /// Adds the session files directly in `folder`: those whose names `id`
    /// gives a session id, `(id, path)` sorted by path; none when the folder
    /// is missing or unreadable. A name that cannot be inspected (a dangling
    /// link) is kept, so that reading it reports the problem; folders are left
    /// out; other files that are not regular (a FIFO, a device) go to
    /// [`skipped`](Self::skipped).
    pub(crate) fn add_folder(&mut self, folder: &Path, id: impl Fn(&str) -> Option<&str>) {
        let Ok(entries) = std::fs::read_dir(folder) else { return };
        let mut files: Vec<(String, PathBuf)> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = id(&name.to_string_lossy()).map(str::to_owned) else { continue };
            let path = entry.path();
            match entry_kind(&entry) {
                Some(FileKind::Directory) => {}
                Some(FileKind::Regular | FileKind::Symlink) | None => files.push((id, path)),
                Some(kind) => self.skipped.push((path, kind)),
            }
        }
        // One folder: its paths sort as their names do, and names compare faster.
        files.sort_by(|a, b| a.1.file_name().cmp(&b.1.file_name()));
        self.files.extend(files);
    }
}

/// Notes `entry`, a name in a folder where an agent keeps its project folders
/// or its sessions, in `skipped` when it is a symbolic link that leads to
/// nothing (a loop, or a link whose target is gone): a folder or file there
/// that cannot be read, which `sess archive` counts as a failure and listings
/// warn about ([`FileKind::Symlink`] in [`FoundFiles::skipped`]). Whether it
/// was noted.
pub(crate) fn note_nowhere(entry: &std::fs::DirEntry, skipped: &mut Vec<(PathBuf, FileKind)>) -> bool {
    let nowhere = entry_kind(entry) == Some(FileKind::Symlink);
    if nowhere {
        skipped.push((entry.path(), FileKind::Symlink));
    }
    nowhere
}

/// Whether `path` is a symbolic link that leads to nothing (a loop, or a link
/// whose target is gone).
pub(crate) fn leads_nowhere(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|own| own.file_type().is_symlink()) && std::fs::metadata(path).is_err()
}

/// A session that is rows of a database file (not a file of its own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundRow {
    /// The session id.
    pub id: String,
    /// The database file.
    pub database: PathBuf,
    /// When the session last changed, by the database's own change marker
    /// (e.g. its `time_updated`), in ms since the Unix epoch: a session whose
    /// version is the same has not changed.
    pub version: i64,
}

/// Sessions found, and the files that could not be read.
#[derive(Debug, Default)]
pub struct Listing {
    /// The sessions, in no particular order.
    pub sessions: Vec<SessionInfo>,
    /// Files that looked like sessions but could not be read.
    pub problems: Vec<Error>,
}

impl Listing {
    /// Adds another listing's sessions and problems.
    pub fn extend(&mut self, other: Listing) {
        self.sessions.extend(other.sessions);
        self.problems.extend(other.problems);
    }
}

/// The listing's item of the session of `source` at `path` (a database
/// file, for a session kept as rows), from its whole transcript: started at
/// `created`, last changed at `modified_ms`.
pub(crate) fn transcript_info(
    source: SourceKind,
    transcript: &Transcript,
    path: &Path,
    created: Option<String>,
    modified_ms: i64,
) -> SessionInfo {
    SessionInfo {
        source,
        flavor: None,
        id: transcript.id.clone(),
        path: path.to_owned(),
        cwd: transcript.cwd.clone(),
        title: transcript.title.clone(),
        created,
        modified_ms,
        message_count: transcript.messages.len(),
        first_message: transcript.first_prompt().map(ToOwned::to_owned),
        parent_session: None,
    }
}

/// When a session was last active by what it records, which a listing dates
/// it by: its newest message's time, never earlier than `created` (a clock
/// set back between the two does not put it before its start). `None` when
/// it records neither: the listing then takes its file's modification time,
/// which a copy, a backup or a restore makes the time of the copy.
pub(crate) fn active_ms(transcript: &Transcript, created: Option<&str>) -> Option<i64> {
    let newest = transcript.messages.iter().filter_map(|m| m.timestamp.as_deref().and_then(parse_iso_millis)).max();
    newest.into_iter().chain(created.and_then(parse_iso_millis)).max()
}

/// A file's modification time in ms since the Unix epoch (0 when unknown).
pub fn modified_ms(metadata: &std::fs::Metadata) -> i64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .unwrap_or(0)
}

/// What a listing says of one session that can be read from its file alone:
/// what the search catalog keeps of it for `sess list` (see
/// [`Source::listed`](crate::Source::listed)). The listing's
/// [`SessionInfo`] is this with the file's path and modification time, and
/// what only the files around it say (pi-family's agent, Codex's thread
/// names), which [`Source::list_catalogued`](crate::Source::list_catalogued)
/// adds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed {
    /// [`SessionInfo::id`].
    pub id: String,
    /// [`SessionInfo::cwd`].
    pub cwd: Option<String>,
    /// [`SessionInfo::title`].
    pub title: Option<String>,
    /// [`SessionInfo::created`].
    pub created: Option<String>,
    /// [`SessionInfo::modified_ms`] when the session records a time (its
    /// last message's, never earlier than its start); `None`:
    /// the file's modification time.
    pub active_ms: Option<i64>,
    /// [`SessionInfo::message_count`].
    pub message_count: usize,
    /// [`SessionInfo::first_message`].
    pub first_message: Option<String>,
    /// [`SessionInfo::parent_session`].
    pub parent_session: Option<String>,
    /// pi-family: how many messages `sess show --all` shows (the transcript
    /// at the last entry), which `sess list --json` prints.
    pub shown_messages: Option<usize>,
}

impl Listed {
    /// The listing's item of the session file at `path` of `source`, whose
    /// modification time is `file_modified_ms`.
    pub fn info(self, source: SourceKind, path: PathBuf, file_modified_ms: i64) -> SessionInfo {
        SessionInfo {
            source,
            flavor: None,
            id: self.id,
            path,
            cwd: self.cwd,
            title: self.title,
            created: self.created,
            modified_ms: self.active_ms.unwrap_or(file_modified_ms),
            message_count: self.message_count,
            first_message: self.first_message,
            parent_session: self.parent_session,
        }
    }
}

impl From<SessionInfo> for Listed {
    /// What `info` says, its time included.
    fn from(info: SessionInfo) -> Self {
        Self {
            id: info.id,
            cwd: info.cwd,
            title: info.title,
            created: info.created,
            active_ms: Some(info.modified_ms),
            message_count: info.message_count,
            first_message: info.first_message,
            parent_session: info.parent_session,
            shown_messages: None,
        }
    }
}

/// What the catalog holds of one source's session files, for
/// [`Source::list_catalogued`](crate::Source::list_catalogued): every file of
/// [`Source::files`](crate::Source::files).
#[derive(Debug, Default)]
pub struct Catalogued {
    /// The sessions its listing shows, from what the catalog keeps
    /// ([`Listed::info`]).
    pub sessions: Vec<SessionInfo>,
    /// The names that are not regular files (never opened).
    pub skipped: Vec<(PathBuf, FileKind)>,
    /// The files that could not be read, with why.
    pub unreadable: Vec<(PathBuf, String)>,
}

impl Catalogued {
    /// The listing of the sessions `keep` keeps, with the skipped names and
    /// unreadable files among the paths `near` keeps as its problems (a
    /// listing reports those in the folders it looks in).
    pub(crate) fn into_listing(self, keep: impl Fn(&SessionInfo) -> bool, near: impl Fn(&Path) -> bool) -> Listing {
        let mut listing = Listing::default();
        for (path, kind) in self.skipped {
            if near(&path) {
                listing.problems.push(Error::NotASessionFile { path, kind });
            }
        }
        for (path, message) in self.unreadable {
            if near(&path) {
                listing.problems.push(Error::Unread { path, message });
            }
        }
        listing.sessions = self.sessions.into_iter().filter(|info| keep(info)).collect();
        listing
    }
}
