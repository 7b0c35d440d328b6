//! The `SessionManager`: a conversation as an append-only tree of entries,
//! persisted to a JSONL session file (seed 000).
//!
//! Appends update memory at once and reach the OS before they return. A new
//! session is not written until it has an assistant message; the first write is
//! an atomic full write, later entries are appended under an exclusive file lock.
//! `flush` makes everything durable. The first persistence error is kept and
//! returned by every later call.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sess_core::{
    Entry, EntryId, EntryIndex, IdSource, Leaf, SessionContext, SessionHeader, Tree, context, format_iso_millis,
};

use crate::blob::BlobStore;
use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::ids::RandomIds;
use crate::storage::{FileStorage, MemoryStorage, SessionStorage, StorageWriter};

mod append;
mod backend;
mod branching;
mod load;
mod persist;
mod title;

pub use append::{CompactionParams, CustomMessageParams, SessionInitParams};
pub use backend::At;
pub use sess_core::TitleSource;

/// When appended bytes must be on disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// Each append reaches the OS (one `write`) before it returns; `flush`
    /// makes it durable. The agents' behaviour.
    #[default]
    Flushed,
    /// Each append is also fsynced before it returns.
    Synced,
}

/// Something the caller should know that is not an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Another writer appended to the file since this manager last wrote. Its
    /// entries were read in; this manager's entries still hang under its own
    /// leaf, so the tree branched there (live auto-fork). Nothing was lost.
    ConcurrentAppend {
        /// Entries the other writer added.
        foreign: Vec<EntryId>,
        /// The entry this manager continued from.
        continued_from: Option<EntryId>,
    },
    /// The file ended in a line cut off by an interrupted write; it was removed
    /// before appending.
    TornTailRemoved {
        /// The session file.
        path: PathBuf,
        /// How many bytes were cut.
        bytes: u64,
    },
    /// The file's header was invalid. Its bytes were moved aside and a new
    /// session was started at the path.
    CorruptFileMoved {
        /// Where the original bytes are now.
        moved_to: PathBuf,
    },
    /// Lines holding bytes that are not UTF-8 were read with U+FFFD in their
    /// place. The file is unchanged; a rewrite first keeps its original bytes
    /// ([`Notice::OriginalKept`]).
    InvalidUtf8 {
        /// Their numbers (1-based).
        lines: Vec<usize>,
    },
    /// A rewrite would have dropped lines that could not be read, or replaced
    /// bytes that are not UTF-8; the original bytes were copied aside first.
    OriginalKept {
        /// The copy.
        copy: PathBuf,
    },
    /// Another writer appended to the segment first, so these entries went to a
    /// new `fork` segment under the same entry (live auto-fork); lineage recorded.
    AutoForked {
        /// The new segment.
        segment: String,
        /// The segment it branches from.
        from: String,
        /// The seq there.
        at: u64,
    },
    /// A blob reference could not be resolved on load; the reference was kept.
    UnresolvedBlob {
        /// Where and why.
        warning: String,
    },
    /// Lines of the file could not be read and were skipped.
    SkippedLines {
        /// Their 1-based numbers.
        lines: Vec<usize>,
    },
}

/// Terminal breadcrumbs: which session a terminal last used (for `continue_recent`).
#[derive(Clone, Debug)]
pub struct Breadcrumbs {
    /// The `terminal-sessions` directory.
    pub dir: PathBuf,
    /// This terminal's id.
    pub terminal_id: String,
}

/// Settings shared by the constructors; see [`SessionManager::builder`].
pub struct SessionManagerBuilder {
    storage: Arc<dyn SessionStorage>,
    durability: Durability,
    clock: Arc<dyn Clock>,
    ids: Box<dyn IdSource + Send>,
    blobs_dir: Option<PathBuf>,
    breadcrumbs: Option<Breadcrumbs>,
    cwd: String,
    backend: Option<Arc<dyn crate::backend::Backend>>,
    cursor: Option<String>,
}

impl Default for SessionManagerBuilder {
    fn default() -> Self {
        Self {
            storage: Arc::new(FileStorage),
            durability: Durability::default(),
            clock: Arc::new(SystemClock),
            ids: Box::new(RandomIds::new()),
            blobs_dir: None,
            breadcrumbs: None,
            cwd: String::new(),
            backend: None,
            cursor: None,
        }
    }
}

impl SessionManagerBuilder {
    /// Where files live (default: the local file system).
    #[must_use]
    pub fn storage(mut self, storage: Arc<dyn SessionStorage>) -> Self {
        self.storage = storage;
        self
    }

    /// When appends must be on disk (default: [`Durability::Flushed`]).
    #[must_use]
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Where timestamps come from (default: the system clock).
    #[must_use]
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Where entry ids come from (default: 8 random hex digits).
    #[must_use]
    pub fn ids(mut self, ids: Box<dyn IdSource + Send>) -> Self {
        self.ids = ids;
        self
    }

    /// The blob store directory for large images. Without one, images stay inline.
    #[must_use]
    pub fn blobs(mut self, dir: impl Into<PathBuf>) -> Self {
        self.blobs_dir = Some(dir.into());
        self
    }

    /// The working directory written into a session that [`open`](Self::open)
    /// starts because the file does not exist.
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<String>) -> Self {
        self.cwd = cwd.into();
        self
    }

    /// Record which session this terminal uses.
    #[must_use]
    pub fn breadcrumbs(mut self, breadcrumbs: Breadcrumbs) -> Self {
        self.breadcrumbs = Some(breadcrumbs);
        self
    }

    /// A new session for `cwd` whose file will be in `session_dir`. Nothing is
    /// written until the session has an assistant message.
    pub fn create(self, cwd: &str, session_dir: &Path) -> Result<SessionManager> {
        let mut manager = SessionManager::new(self, cwd, true);
        manager.new_session(Some(session_dir), None)?;
        manager.write_breadcrumb();
        Ok(manager)
    }

    /// An in-memory session: nothing is ever written.
    pub fn in_memory(mut self, cwd: &str) -> SessionManager {
        self.storage = Arc::new(MemoryStorage::new());
        let mut manager = SessionManager::new(self, cwd, false);
        manager.header = manager.fresh_header(None);
        manager
    }
}

/// A session being written: header, entries, leaf, and the file behind them.
pub struct SessionManager {
    storage: Arc<dyn SessionStorage>,
    durability: Durability,
    clock: Arc<dyn Clock>,
    ids: Box<dyn IdSource + Send>,
    blobs: Option<BlobStore>,
    breadcrumbs: Option<Breadcrumbs>,
    persist: bool,
    cwd: String,
    session_dir: Option<PathBuf>,
    file: Option<PathBuf>,
    title_line: Option<String>,
    header: SessionHeader,
    entries: Vec<Entry>,
    index: EntryIndex,
    leaf: Option<EntryId>,
    has_assistant: bool,
    disk: DiskState,
    latched: Option<String>,
    notices: Vec<Notice>,
    /// The session's place in a backend, when it is not a file.
    stored: Option<backend::Stored>,
    /// Why appends are refused, for a read-only view of a past state.
    read_only: Option<String>,
    /// Appends wait for the end of [`SessionManager::append_batch`] to persist.
    batching: bool,
    /// The last timestamp written, by its ms: appends in the same millisecond
    /// share its text.
    stamp: (i64, String),
}

/// What the manager knows about its file.
#[derive(Default)]
struct DiskState {
    /// How the next persist writes.
    next_write: NextWrite,
    /// The file exists on disk and every append persists at once (a loaded file).
    ensured_on_disk: bool,
    /// How many entries (a prefix) are in the file.
    persisted: usize,
    /// Bytes of the file accounted for.
    known_len: u64,
    /// Identity of the file last seen.
    identity: Option<(u64, u64)>,
    /// How the file ends.
    tail: Tail,
    /// The file has lines that could not be read, or bytes that are not UTF-8
    /// (a rewrite must keep a copy).
    lossy: bool,
    /// The open append handle.
    writer: Option<Box<dyn StorageWriter>>,
    /// The bytes of the last append, kept for the next one (a batch of
    /// megabytes is not allocated and faulted in anew each time).
    buffer: Vec<u8>,
}

/// How the next persist writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum NextWrite {
    /// The whole file, atomically: the first write, or after a change that
    /// appending cannot express.
    #[default]
    Full,
    /// Only the entries the file does not have yet.
    Append,
}

/// How the file ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Tail {
    /// With a newline.
    #[default]
    Clean,
    /// With a complete line that lacks its newline.
    MissingNewline,
    /// With a line cut off by an interrupted write, starting at this offset.
    /// Only ever decided under the file's lock: without it, the line may be
    /// another writer's, still being written.
    Torn(u64),
}

impl Tail {
    fn of(outcome: &sess_core::ReadOutcome) -> Self {
        match (outcome.torn_tail_at, outcome.unterminated_tail) {
            (Some(at), _) => Self::Torn(at),
            (None, true) => Self::MissingNewline,
            (None, false) => Self::Clean,
        }
    }

    /// The tail up to the start of a torn line, which is not known to be torn
    /// until it is seen again under the lock.
    fn unless_torn(self) -> Self {
        match self {
            Self::Torn(_) => Self::Clean,
            tail => tail,
        }
    }
}

impl SessionManager {
    /// Settings for the constructors below.
    pub fn builder() -> SessionManagerBuilder {
        SessionManagerBuilder::default()
    }

    /// A new session on the local file system (see [`SessionManagerBuilder::create`]).
    pub fn create(cwd: &str, session_dir: &Path) -> Result<Self> {
        Self::builder().create(cwd, session_dir)
    }

    /// Opens a session file (see [`SessionManagerBuilder::open`]).
    pub fn open(path: &Path) -> Result<Self> {
        Self::builder().open(path)
    }

    /// An in-memory session.
    pub fn in_memory(cwd: &str) -> Self {
        Self::builder().in_memory(cwd)
    }

    fn new(builder: SessionManagerBuilder, cwd: &str, persist: bool) -> Self {
        Self {
            storage: builder.storage.clone(),
            durability: builder.durability,
            clock: builder.clock,
            ids: builder.ids,
            blobs: builder.blobs_dir.map(|dir| BlobStore::new(builder.storage.clone(), dir)),
            breadcrumbs: builder.breadcrumbs,
            persist,
            cwd: cwd.to_owned(),
            session_dir: None,
            file: None,
            title_line: None,
            header: SessionHeader::new("", "", cwd, None),
            entries: Vec::new(),
            index: EntryIndex::default(),
            leaf: None,
            has_assistant: false,
            disk: DiskState::default(),
            latched: None,
            notices: Vec::new(),
            stored: None,
            read_only: None,
            batching: false,
            stamp: (0, String::new()),
        }
    }

    /// The current time as the agents write it.
    fn now_iso(&self) -> String {
        format_iso_millis(self.clock.now_ms())
    }

    /// [`now_iso`](Self::now_iso) into `self.stamp`, formatted only when the
    /// millisecond changed.
    fn refresh_stamp(&mut self) {
        let ms = self.clock.now_ms();
        if self.stamp.1.is_empty() || self.stamp.0 != ms {
            self.stamp = (ms, format_iso_millis(ms));
        }
    }

    /// A header for a new session.
    fn fresh_header(&self, parent_session: Option<&str>) -> SessionHeader {
        SessionHeader::new(&uuid::Uuid::now_v7().to_string(), &self.now_iso(), &self.cwd, parent_session)
    }

    /// Starts a new, empty session (pi's `newSession`): its file in `dir`
    /// (none in memory or without one), its id `id` when given (else a new
    /// `UUIDv7`), and `parent_session` in its header. Nothing is written
    /// before its first assistant message, as for [`SessionManager::create`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidEntry`] for an `id` with a path separator or a NUL (it
    /// is part of the file's name, which must stay in `dir`); [`Error::Io`]
    /// when `dir` cannot be made.
    pub fn start_session(&mut self, dir: Option<&Path>, id: Option<&str>, parent_session: Option<&str>) -> Result<()> {
        if let Some(id) = id.filter(|id| id.contains(['/', '\\', '\0'])) {
            return Err(Error::InvalidEntry {
                reason: format!("the session id {id:?} holds a path separator or NUL, and names the session's file"),
            });
        }
        let header = match id {
            Some(id) => SessionHeader::new(id, &self.now_iso(), &self.cwd, parent_session),
            None => self.fresh_header(parent_session),
        };
        self.begin_session(header, dir)
    }

    /// Starts a new, empty session in `dir` (or in memory without one).
    fn new_session(&mut self, dir: Option<&Path>, parent_session: Option<&str>) -> Result<()> {
        let header = self.fresh_header(parent_session);
        self.begin_session(header, dir)
    }

    /// Starts the new, empty session `header` in `dir` (or in memory without one).
    fn begin_session(&mut self, header: SessionHeader, dir: Option<&Path>) -> Result<()> {
        self.header = header;
        self.title_line = None;
        self.entries.clear();
        self.index = EntryIndex::default();
        self.leaf = None;
        self.has_assistant = false;
        self.disk = DiskState::default();
        self.latched = None;
        if self.persist
            && let Some(dir) = dir
        {
            self.storage.create_dir_all(dir).map_err(|e| Error::io("creating", dir, e))?;
            self.session_dir = Some(dir.to_owned());
            let name =
                crate::discovery::session_file_name(self.header.timestamp().unwrap_or_default(), self.header.id());
            self.file = Some(dir.join(name));
        }
        Ok(())
    }

    // ----- getters ---------------------------------------------------------

    /// The working directory of the session.
    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// The directory of the session file.
    pub fn session_dir(&self) -> Option<&Path> {
        self.session_dir.as_deref()
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        self.header.id()
    }

    /// The session file (which may not exist yet).
    pub fn session_file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Whether the session is written to a file or a backend.
    pub fn is_persisted(&self) -> bool {
        self.persist
    }

    /// Why this is a read-only view (a past state of a stored session), if it is.
    pub fn read_only(&self) -> Option<&str> {
        self.read_only.as_deref()
    }

    /// The header.
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// All entries in insertion order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry with `id`.
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.index.position(id).map(|p| &self.entries[p])
    }

    /// The entries whose parent is `id`, in insertion order.
    pub fn children(&self, id: &str) -> Vec<&Entry> {
        self.entries.iter().filter(|e| e.parent_id().is_some_and(|p| p.as_str() == id)).collect()
    }

    /// The leaf: where the next append goes. `None` before the first entry or
    /// after [`reset_leaf`](Self::reset_leaf).
    pub fn leaf_id(&self) -> Option<&EntryId> {
        self.leaf.as_ref()
    }

    /// The leaf entry.
    pub fn leaf_entry(&self) -> Option<&Entry> {
        self.leaf.as_ref().and_then(|id| self.entry(id.as_str()))
    }

    /// The label of an entry.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.index.label(id)
    }

    /// The path from the root to `from` (default: the leaf).
    pub fn branch_entries(&self, from: Option<&str>) -> Vec<&Entry> {
        let start = from.or(self.leaf.as_ref().map(EntryId::as_str));
        let Some(position) = start.and_then(|id| self.index.position(id)) else { return Vec::new() };
        self.index.path(&self.entries, position).entries.iter().map(|&p| &self.entries[p]).collect()
    }

    /// The whole tree.
    pub fn tree(&self) -> Tree {
        Tree::build(&self.entries, &self.index)
    }

    /// The index over the entries (lookups and labels).
    pub fn index(&self) -> &EntryIndex {
        &self.index
    }

    /// The model context at the leaf.
    pub fn build_session_context(&self) -> SessionContext {
        let leaf = match &self.leaf {
            Some(id) => Leaf::Id(id.as_str()),
            None => Leaf::None,
        };
        context::build(&self.entries, &self.index, leaf)
    }

    /// Takes the notices gathered since the last call.
    pub fn drain_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// The storage this manager uses.
    pub fn storage(&self) -> &Arc<dyn SessionStorage> {
        &self.storage
    }
}
