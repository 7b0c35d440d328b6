//! Opening existing sessions: `open`, `continue_recent`, `fork_from`.

use std::path::Path;

use sess_core::{EntryIndex, EntryKind, IssueKind, ReadOutcome};

use super::{Notice, SessionManager, SessionManagerBuilder};
use crate::discovery;
use crate::error::{Error, Result};
use crate::prepare::resolve_entries;
use crate::session_file::read_session;
use crate::storage::SessionStorage;

impl SessionManagerBuilder {
    /// Opens the session file at `path`.
    ///
    /// - A missing file starts a new session at that path, written at once.
    /// - A legacy (v1/v2) file is migrated and rewritten at once, atomically; if
    ///   lines could not be read, the original bytes are copied aside first.
    /// - A file whose header is invalid is never overwritten: it is moved to a
    ///   `<file>.corrupt-<time>` sibling (reported as a [`Notice`]) and a new
    ///   session starts at the path. Behind a symbolic link, the file it points
    ///   to is moved aside and replaced; the link stays.
    /// - After a load the leaf is the last entry of the file, and every append
    ///   persists at once.
    pub fn open(self, path: &Path) -> Result<SessionManager> {
        let cwd = self.cwd.clone();
        let mut manager = SessionManager::new(self, &cwd, true);
        manager.set_session_file(path)?;
        Ok(manager)
    }

    /// The session to continue in `session_dir`: this terminal's last session if
    /// it belongs to `cwd`, else the most recently modified session file, else a
    /// new session.
    pub fn continue_recent(self, cwd: &str, session_dir: &Path) -> Result<SessionManager> {
        let storage = self.storage.as_ref();
        let recent = self
            .breadcrumbs
            .as_ref()
            .and_then(|b| discovery::read_breadcrumb(storage, &b.dir, &b.terminal_id, Path::new(cwd)))
            .or_else(|| discovery::most_recent(storage, session_dir));
        match recent {
            Some(path) => self.open(&path),
            None => self.create(cwd, session_dir),
        }
    }

    /// A new session in `session_dir` for `cwd` holding a copy of every entry of
    /// the session file `source` (same ids, the whole tree). Its header's
    /// `parentSession` is the source's session id, and it has the source's
    /// name and `titleSource` (and a title slot when the source has one).
    /// Written at once, atomically.
    pub fn fork_from(self, source: &Path, cwd: &str, session_dir: &Path) -> Result<SessionManager> {
        self.fork_from_naming(source, cwd, session_dir, None)
    }

    /// [`fork_from`](Self::fork_from) with `parent_session` in the new
    /// header instead of the source's session id (pi-mono names the source
    /// file there).
    pub fn fork_from_naming(
        self,
        source: &Path,
        cwd: &str,
        session_dir: &Path,
        parent_session: Option<&str>,
    ) -> Result<SessionManager> {
        let mut manager = SessionManager::new(self, cwd, true);
        let outcome = read_session(manager.storage.as_ref(), source)?;
        let Some(header) = outcome.file.header().cloned() else {
            return Err(Error::InvalidEntry {
                reason: format!("cannot fork `{}`: it has no valid session header", source.display()),
            });
        };
        let title = super::title::Carried::of(&outcome.file.names(), &header);
        manager.new_session(Some(session_dir), Some(parent_session.unwrap_or(header.id())))?;
        manager.carry_title(title, super::title::Place::Last);
        let entries = outcome.file.into_entries();
        manager.install_entries(entries);
        manager.disk.ensured_on_disk = true;
        manager.resolve_blobs()?;
        manager.rewrite_entries()?;
        manager.write_breadcrumb();
        Ok(manager)
    }
}

impl SessionManager {
    /// Switches to the session file at `path` (seed 000's `setSessionFile`).
    pub fn set_session_file(&mut self, path: &Path) -> Result<()> {
        let storage = self.storage.clone();
        self.session_dir = path.parent().map(Path::to_path_buf);
        if !storage.exists(path) {
            self.new_session(None, None)?;
            self.file = Some(path.to_owned());
            self.disk.ensured_on_disk = true;
            self.rewrite_entries()?;
            self.write_breadcrumb();
            return Ok(());
        }
        let outcome = read_session(storage.as_ref(), path)?;
        if outcome.file.header().is_none() {
            return self.replace_corrupt_file(path, &outcome);
        }
        self.install(path, outcome)?;
        self.write_breadcrumb();
        Ok(())
    }

    /// Moves a file without a valid header aside (never overwriting its bytes)
    /// and starts a new session at `path`. A file that does not look like a
    /// pi-family session with a damaged header (another agent's session, any
    /// other file) is refused and left where it is.
    fn replace_corrupt_file(&mut self, path: &Path, outcome: &ReadOutcome) -> Result<()> {
        let has_content = outcome.len > 0 && (!outcome.issues.is_empty() || !outcome.file.entries().is_empty());
        if has_content {
            if !looks_like_damaged_pi_session(self.storage.as_ref(), path, outcome) {
                return Err(Error::NotAPiSession { path: path.to_owned() });
            }
            // A symbolic link stays: the file it points to is moved aside, and
            // the new session is written there through the link.
            let target = self.storage.resolve_link(path).map_err(|e| Error::io("moving aside", path, e))?;
            let moved_to = self.sibling(&target, "corrupt");
            self.storage.rename(&target, &moved_to).map_err(|e| Error::io("moving aside", path, e))?;
            self.notices.push(Notice::CorruptFileMoved { moved_to });
        }
        self.new_session(None, None)?;
        self.file = Some(path.to_owned());
        self.disk.ensured_on_disk = true;
        self.rewrite_entries()?;
        self.write_breadcrumb();
        Ok(())
    }

    /// Takes over a file that was read.
    fn install(&mut self, path: &Path, outcome: ReadOutcome) -> Result<()> {
        let skipped: Vec<usize> = outcome
            .issues
            .iter()
            .filter(|i| i.kind.is_skipped() && i.kind != IssueKind::TruncatedLastLine)
            .map(|i| i.line)
            .collect();
        let header = outcome.file.header().cloned();
        self.file = Some(path.to_owned());
        self.title_line = outcome.file.title_line().map(str::to_owned);
        self.cwd = header.as_ref().and_then(|h| h.cwd()).unwrap_or_default().to_owned();
        if let Some(header) = header {
            self.header = header;
        }
        self.latched = None;
        self.disk = super::DiskState {
            next_write: super::NextWrite::Append,
            ensured_on_disk: true,
            // A torn last line was read without the lock: another writer may be
            // writing it. It is judged again, under the lock, before the next append.
            known_len: outcome.torn_tail_at.unwrap_or(outcome.len),
            identity: self.storage.stat(path).ok().and_then(|s| s.identity),
            tail: super::Tail::of(&outcome).unless_torn(),
            lossy: outcome.issues.iter().any(|i| i.kind.is_lost_by_rewrite()),
            ..super::DiskState::default()
        };
        if !skipped.is_empty() {
            self.notices.push(Notice::SkippedLines { lines: skipped });
        }
        let not_utf8: Vec<usize> =
            outcome.issues.iter().filter(|i| i.kind == IssueKind::InvalidUtf8).map(|i| i.line).collect();
        if !not_utf8.is_empty() {
            self.notices.push(Notice::InvalidUtf8 { lines: not_utf8 });
        }
        let migrated = outcome.migrated_from.is_some();
        let entries = outcome.file.into_entries();
        self.install_entries(entries);
        self.disk.persisted = self.entries.len();
        self.resolve_blobs()?;
        if migrated {
            self.rewrite_entries()?;
        }
        Ok(())
    }

    /// Replaces the entries; the leaf becomes the last one.
    pub(crate) fn install_entries(&mut self, entries: Vec<sess_core::Entry>) {
        self.index = EntryIndex::new(&entries);
        self.has_assistant = entries.iter().any(super::append::is_assistant);
        self.leaf = entries.last().map(|e| e.id().clone());
        self.entries = entries;
    }

    /// Replaces blob references in the loaded entries with their data.
    pub(crate) fn resolve_blobs(&mut self) -> Result<()> {
        let Some(blobs) = self.blobs.clone() else { return Ok(()) };
        let resolution = resolve_entries(&mut self.entries, &blobs)?;
        self.notices.extend(resolution.warnings.into_iter().map(|warning| Notice::UnresolvedBlob { warning }));
        if resolution.changed {
            self.index = EntryIndex::new(&self.entries);
        }
        Ok(())
    }

    /// Records that this terminal uses this session (best effort).
    pub(crate) fn write_breadcrumb(&self) {
        if let (Some(crumbs), Some(file)) = (&self.breadcrumbs, &self.file) {
            let written = discovery::write_breadcrumb(
                self.storage.as_ref(),
                &crumbs.dir,
                &crumbs.terminal_id,
                Path::new(&self.cwd),
                file,
            );
            if let Err(err) = written {
                log::warn!("cannot write the terminal breadcrumb: {err}");
            }
        }
    }
}

/// How pi-family files begin: the session header, or oh-my-pi's title line
/// (compared with the whitespace of the first line removed).
const PI_FIRST_LINES: [&[u8]; 2] = [b"{\"type\":\"session\"", b"{\"type\":\"title\""];

/// Whether a file read without a valid header is a pi-family session whose
/// header was damaged: one of its entries is of a type the pi family writes,
/// or its first line begins as a pi header does (a header cut by an
/// interrupted write). Another agent's lines have no string `id`, so they are
/// no entries, and their first line is no pi header.
fn looks_like_damaged_pi_session(storage: &dyn SessionStorage, path: &Path, outcome: &ReadOutcome) -> bool {
    if outcome.file.entries().iter().any(|e| !matches!(e.kind(), EntryKind::Unknown(_))) {
        return true;
    }
    let Ok(head) = storage.read_range(path, 0, 256) else { return false };
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let first_line = first_line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first_line);
    let compact: Vec<u8> = first_line.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
    PI_FIRST_LINES.iter().any(|start| compact.starts_with(start))
}
