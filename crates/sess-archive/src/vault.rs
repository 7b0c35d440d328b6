//! Where the archive keeps what it archived: one trait, implemented on SQLite
//! ([`crate::SqliteVault`]) and PostgreSQL ([`crate::PostgresVault`]), both
//! with the same tables:
//!
//! ```text
//! archive_machines  id, name, first_ms, last_ms
//! archive_files     id, machine, source, path, growth, version, size, mtime, head, stored, mark,
//!                   deleted_ms, digest                           UNIQUE (machine, path)
//! archive_chunks    file, version, start, bytes                  PRIMARY KEY (file, version, start)
//! archive_tails     file, version, bytes                         PRIMARY KEY (file, version)
//! archive_sessions  id, machine, source, path, session_id, title, cwd, created, message_count,
//!                   modified_ms, archived_ms, updated_ms, deleted_ms   UNIQUE (machine, path)
//! archive_members   session, file, position                      PRIMARY KEY (session, file)
//! archive_docs      session, seq, entry_id, role, body   (+ FTS5 / tsvector)
//!                   + vectors (SQLite: archive_vectors doc, vectors; PostgreSQL: a column)
//! ```
//!
//! A document's vectors (search by meaning, [`crate::embed`]) are those of
//! its text when they were made: a document stored again loses them.
//!
//! A file's version is its content from one write of it on: a file that grows
//! by lines keeps one version, its lines stored as chunks of whole lines at
//! their offsets (and the bytes after the last newline as its tail); a file
//! rewritten otherwise gets a new version, the old ones kept (a file is taken
//! as grown only when the hash of what the archive stored of it, its digest,
//! is still the hash of its start). Every write is
//! checked against the state it was read from (compare and set), so two
//! archivers never store a line twice or over each other.

use serde::Serialize;

use sess_catalog::Stop;

use crate::error::Result;

/// How a stored file changes: by lines, whole, or as rows of a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Grows by appended lines.
    Lines,
    /// Rewritten whole.
    Whole,
    /// A session's rows of an agent's database, as a
    /// [`RowDump`](sess_sources::RowDump) in JSON.
    Rows,
}

impl Kind {
    /// Its name in the tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lines => "lines",
            Self::Whole => "whole",
            Self::Rows => "rows",
        }
    }

    /// The kind [`as_str`](Self::as_str) names (a name this build does not
    /// know is read as whole).
    pub fn from_name(name: &str) -> Self {
        match name {
            "lines" => Self::Lines,
            "rows" => Self::Rows,
            _ => Self::Whole,
        }
    }
}

/// What the archive holds of one file of a machine, to decide what changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownFile {
    /// Its key.
    pub id: i64,
    /// The path on its machine (or `DATABASE#id` for rows).
    pub path: String,
    /// The source that found it.
    pub source: String,
    /// Its current version (from 1).
    pub version: i64,
    /// Its size when last archived (a row's: the dump's).
    pub size: i64,
    /// Its modification time when last archived, in ns (a row's: its version).
    pub mtime: i64,
    /// A hash of the first 4 KiB of its stored lines (a whole file's: of all
    /// of it).
    pub head: String,
    /// How many bytes of the current version are stored as whole lines.
    pub stored: i64,
    /// A hash of the up to 4 KiB before `stored`.
    pub mark: String,
    /// A hash of the `stored` bytes of the current version (a whole file's:
    /// of all of it): a file that changed is compared with it, so a change
    /// anywhere in what was archived is a new version.
    pub digest: String,
    /// Whether its original was gone at the last archive.
    pub deleted: bool,
    /// Whether it is a session's main file (or rows).
    pub main: bool,
}

/// One file to store: new, a new version, lines added, or a new
/// modification time with the same content.
#[derive(Clone, Debug)]
pub struct FileWrite {
    /// The source that found it.
    pub source: String,
    /// The path on its machine.
    pub path: String,
    /// How it changes.
    pub kind: Kind,
    /// What the archive held when it was read (`None`: nothing).
    pub base: Option<KnownFile>,
    /// The version written: the base's (lines added, a touch), or the next.
    pub version: i64,
    /// Where `chunk` starts in the version.
    pub start: i64,
    /// Whole lines (or the whole file) from `start`; may be empty.
    pub chunk: Vec<u8>,
    /// The bytes after the last newline (a line being written).
    pub tail: Vec<u8>,
    /// The new state: size, modification time, head hash, stored, mark.
    pub size: i64,
    /// See [`KnownFile::mtime`].
    pub mtime: i64,
    /// See [`KnownFile::head`].
    pub head: String,
    /// `start + chunk.len()`.
    pub stored: i64,
    /// See [`KnownFile::mark`].
    pub mark: String,
    /// See [`KnownFile::digest`].
    pub digest: String,
}

/// What a session's listing shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// The session id.
    pub session_id: String,
    /// Its title.
    pub title: Option<String>,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// When it started (ISO 8601).
    pub created: Option<String>,
    /// How many messages it has.
    pub message_count: i64,
    /// The main file's modification time (a row's version), in ms.
    pub modified_ms: i64,
}

/// A searchable text of a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    /// The message's id, as `sess show --json` gives it.
    pub entry_id: Option<String>,
    /// `user`, `assistant`, `subagent`, `tool` or `title`.
    pub role: String,
    /// The text.
    pub body: String,
}

/// A session whose files changed: its files (the main one first), and its
/// listing and text.
#[derive(Clone, Debug)]
pub struct SessionWrite {
    /// The source that found it.
    pub source: String,
    /// Its main file (or `DATABASE#id`).
    pub path: String,
    /// The paths of its files, the main one first.
    pub members: Vec<String>,
    /// How its listing and text change.
    pub change: SessionChange,
}

/// How an archived session's listing and text change.
#[derive(Clone, Debug)]
pub enum SessionChange {
    /// Read whole: its listing, and its text in place of what it had.
    Whole {
        /// What its listing shows.
        meta: Meta,
        /// Its searchable text.
        docs: Vec<Doc>,
    },
    /// Lines appended to its main file, read alone (the work is that of the
    /// lines): what they add. Applied only with the lines, in the same
    /// transaction: lines another archiver stored first add nothing twice.
    Grown(Grown),
}

/// What lines appended to a session's main file add to its listing and text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grown {
    /// A title of the session's own that they set.
    pub title: Option<String>,
    /// How many messages they add.
    pub message_count: i64,
    /// The main file's new modification time, in ms.
    pub modified_ms: i64,
    /// Their searchable text, after the session's.
    pub docs: Vec<Doc>,
}

/// What one [`Vault::store`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    /// Files whose bytes were stored (new, new versions, added lines).
    pub files: usize,
    /// Bytes stored.
    pub bytes: u64,
    /// Files another archiver had changed since they were read: left for the
    /// next run.
    pub raced: usize,
}

/// Which archived sessions to read.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Of the machine with this name or id (or id prefix).
    pub machine: Option<String>,
    /// Of this source.
    pub source: Option<String>,
    /// With this session id, or an id starting with it.
    pub id_prefix: Option<String>,
    /// Only those whose original is gone.
    pub gone: bool,
}

/// An archived session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchivedSession {
    /// Its key in the archive.
    #[serde(skip)]
    pub key: i64,
    /// The id of the machine it came from.
    pub machine_id: String,
    /// That machine's name.
    pub machine: String,
    /// The source's name.
    pub source: String,
    /// Its main file on that machine (or `DATABASE#id`).
    pub path: String,
    /// What its listing shows.
    #[serde(flatten)]
    pub meta: Meta,
    /// When it was first archived, in ms.
    pub archived_ms: i64,
    /// When its bytes last changed in the archive, in ms.
    pub updated_ms: i64,
    /// When its original was found gone, in ms.
    pub deleted_ms: Option<i64>,
}

/// One file of an archived session, at its newest version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFile {
    /// The path on its machine.
    pub path: String,
    /// How it changes.
    pub kind: Kind,
    /// Its newest version.
    pub version: i64,
    /// The bytes of that version.
    pub bytes: Vec<u8>,
}

/// A search hit in the archive: the session's best-ranked message.
#[derive(Clone, Debug)]
pub struct Hit {
    /// The session.
    pub session: ArchivedSession,
    /// The message's id.
    pub entry_id: Option<String>,
    /// Its role.
    pub role: String,
    /// The text around the match; the parts that matched have `hit`.
    pub snippet: Vec<sess_catalog::SnippetPart>,
}

/// A document of the archive: its session's key and its number there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocKey {
    /// The session's key.
    pub session: i64,
    /// The document's number in the session, from 0.
    pub seq: i64,
}

/// A document's vectors to keep: its pieces' int8 vectors one after another
/// ([`sess_embed::embed_documents`]), made from `text`.
#[derive(Clone, Debug)]
pub struct Vectors {
    /// The document.
    pub doc: DocKey,
    /// The text they were made from: they are kept only if the document
    /// still has it.
    pub text: String,
    /// The vectors (empty: no word of the text is the model's).
    pub bytes: Vec<u8>,
}

/// Ranked with the catalog's hits by their session; the archive's hits
/// carry no score.
impl sess_catalog::Ranked for Hit {
    fn session_key(&self) -> i64 {
        self.session.key
    }

    fn set_fused_score(&mut self, _score: f64) {}
}

/// The archive's storage.
pub trait Vault: Send {
    /// Where it is, for messages (never a password).
    fn location(&self) -> String;

    /// Records `machine` (its name may have changed) as archiving now.
    fn register(&mut self, machine: &crate::Machine, now_ms: i64) -> Result<()>;

    /// Every file archived from the machine `machine_id`.
    fn known(&mut self, machine_id: &str) -> Result<Vec<KnownFile>>;

    /// Stores `files` and then `sessions` of the machine `machine_id` in one
    /// transaction. A file whose row no longer matches its
    /// [`base`](FileWrite::base) is left out ([`Stored::raced`]).
    fn store(
        &mut self,
        machine_id: &str,
        files: &[FileWrite],
        sessions: &[SessionWrite],
        now_ms: i64,
    ) -> Result<Stored>;

    /// Marks the files `file_ids` as gone from their machine, and the
    /// sessions whose main file they are; returns how many sessions were
    /// newly marked.
    fn mark_deleted(&mut self, machine_id: &str, file_ids: &[i64], now_ms: i64) -> Result<usize>;

    /// The archived sessions `filter` selects, newest first.
    fn sessions(&mut self, filter: &Filter) -> Result<Vec<ArchivedSession>>;

    /// The files of the session `key`, the main one first, each at its
    /// newest version.
    fn files(&mut self, key: i64) -> Result<Vec<StoredFile>>;

    /// Every version of every file of the session `key`, the main one's
    /// first, oldest first.
    fn versions(&mut self, key: i64) -> Result<Vec<StoredFile>>;

    /// The sessions `filter` selects whose text matches `query` (the search
    /// box's syntax), best first, at most `limit`.
    ///
    /// A term given twice counts once; a query of more than
    /// [`sess_catalog::MAX_WORDS`] words is refused ([`Error::Query`](crate::Error::Query));
    /// the search ends with [`Error::Query`](crate::Error::Query) holding
    /// [`sess_catalog::Error::Stopped`] when `stop` says so.
    fn search(&mut self, query: &str, filter: &Filter, limit: usize, stop: &Stop) -> Result<Vec<Hit>>;

    /// The id of the model the archive's vectors were made with
    /// ([`sess_embed::Model::id`]); `None` before any.
    fn vector_model(&mut self) -> Result<Option<String>>;

    /// Makes `model` the one the archive's vectors are of: when they are
    /// another's, they are all dropped first (and `true` is returned).
    fn vectors_for(&mut self, model: &str) -> Result<bool>;

    /// How many documents (but titles) have no vectors.
    fn unembedded_count(&mut self) -> Result<usize>;

    /// Up to `limit` documents (but titles) that have no vectors, after
    /// `after` in key order: each one's key and text.
    fn unembedded(&mut self, after: Option<DocKey>, limit: usize) -> Result<Vec<(DocKey, String)>>;

    /// Keeps the vectors of each of `vectors` whose document still has the
    /// text they were made from (one stored again since it was read is left
    /// for the next embedding); returns how many were kept.
    fn put_vectors(&mut self, vectors: &[Vectors]) -> Result<usize>;

    /// Calls `each` with every document's vectors (none for a document
    /// without), in no order; ends with [`Error::Query`](crate::Error::Query)
    /// holding [`sess_catalog::Error::Stopped`] when `stop` says so.
    fn scan_vectors(&mut self, stop: &Stop, each: &mut dyn FnMut(DocKey, &[u8])) -> Result<()>;

    /// The document `key`, if there is one.
    fn doc(&mut self, key: DocKey) -> Result<Option<Doc>>;
}

/// The files of a session (`$1`) at their newest versions: key, path, kind,
/// version.
pub(crate) const NEWEST: &str = "SELECT f.id, f.path, f.growth, f.version FROM archive_members m
    JOIN archive_files f ON f.id = m.file WHERE m.session = $1 ORDER BY m.position, f.path";

/// The files of a session (`$1`) at every version they had.
pub(crate) const EVERY_VERSION: &str = "SELECT f.id, f.path, f.growth, t.version FROM archive_members m
    JOIN archive_files f ON f.id = m.file JOIN archive_tails t ON t.file = f.id
    WHERE m.session = $1 ORDER BY m.position, f.path, t.version";

/// The marks a snippet's matches are wrapped in, split into parts.
pub(crate) fn snippet_parts(text: &str) -> Vec<sess_catalog::SnippetPart> {
    let mut parts = Vec::new();
    let mut hit = false;
    for (i, piece) in text.split(['\u{1}', '\u{2}']).enumerate() {
        if i > 0 {
            hit = !hit;
        }
        if !piece.is_empty() {
            parts.push(sess_catalog::SnippetPart { text: piece.to_owned(), hit });
        }
    }
    parts
}
