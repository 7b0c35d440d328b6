//! Bringing the catalog up to date with the session files on disk.
//!
//! Each file is looked at with one `stat`: the same size and modification
//! time means it is not read again. A file that only grew (its first bytes
//! are the same and it is longer) is read from the end of the last line the
//! catalog read; any other change reads it whole. Files no longer given drop
//! out. Files are read on several threads; the database is written on the
//! calling thread, in one transaction.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::UNIX_EPOCH;

use rusqlite::{Transaction, params};
use serde::Serialize;
use sess_sources::{Listed, SourceKind};

use crate::catalog::{Catalog, stored_count};
use crate::error::Result;
use crate::extract::{self, Doc, Full, Tail};
use crate::text::Stored;
use crate::usage::{self, KnownPart, Parts};

/// How many leading bytes tell a file that grew from one that was rewritten.
const HEAD_BYTES: usize = 4096;

/// A session file to catalog, or a session that is rows of a database file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The agent that wrote it.
    pub source: SourceKind,
    /// The file (the database, for a session of rows).
    pub path: PathBuf,
    /// For a session of rows: its id and version ([`sess_sources::FoundRow`]).
    pub row: Option<(String, i64)>,
}

impl SourceFile {
    /// The session file at `path`.
    pub fn new(source: SourceKind, path: PathBuf) -> Self {
        Self { source, path, row: None }
    }

    /// A session of rows of a database.
    pub fn row(source: SourceKind, row: sess_sources::FoundRow) -> Self {
        Self { source, path: row.database, row: Some((row.id, row.version)) }
    }

    /// The catalog's key: the path, and the session id for a session of rows.
    fn key(&self) -> String {
        match &self.row {
            None => path_key(&self.path),
            Some((id, _)) => format!("{}#{id}", path_key(&self.path)),
        }
    }

    /// The file's size and modification time; a session of rows has its
    /// version as its time.
    fn stat(&self) -> Option<Stat> {
        match &self.row {
            None => stat(&self.path),
            Some((_, version)) => Some(Stat { size: 0, mtime_ns: version.saturating_mul(1_000_000) }),
        }
    }
}

/// What a refresh did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshReport {
    /// Files looked at.
    pub files: usize,
    /// Files that had not changed and were not read.
    pub unchanged: usize,
    /// Files read for the first time.
    pub added: usize,
    /// Files read from where the catalog had stopped.
    pub grown: usize,
    /// Files read again whole (rewritten, shrunk, or compressed).
    pub reread: usize,
    /// Sessions whose files are gone.
    pub removed: usize,
    /// Messages indexed by this refresh.
    pub messages: usize,
    /// Files that could not be read, with why (also those not read again
    /// because they have not changed since).
    pub problems: Vec<Problem>,
}

/// A file the catalog could not read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// How far a refresh (or the embedding after it) has come, for a progress
/// bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Files read (or messages embedded) so far.
    pub done: usize,
    /// Files to read (or messages to embed) in all.
    pub total: usize,
    /// What is counted, as a bar names it: `sessions` (files read) or
    /// `messages embedded`.
    pub unit: &'static str,
}

/// What the catalog knew of a file.
struct Known {
    key: i64,
    size: i64,
    mtime_ns: i64,
    indexed_bytes: i64,
    /// Lines in the first `indexed_bytes`: Codex message ids are line numbers.
    indexed_lines: i64,
    head_hash: i64,
    title_explicit: bool,
    session_id: String,
    /// The agent's name ([`SourceKind::as_str`]).
    source: String,
}

/// How much of a file the catalog has read: up to the end of a line.
#[derive(Clone, Copy)]
struct Indexed {
    bytes: i64,
    lines: i64,
}

/// A file's size and modification time.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub(crate) size: i64,
    pub(crate) mtime_ns: i64,
}

#[derive(Clone, Copy)]
enum Job<'a> {
    Full(&'a SourceFile, Stat, Option<i64>),
    Tail(&'a SourceFile, Stat, &'a Known),
}

enum Outcome {
    Full { key: Option<i64>, full: Box<Full>, stored: Vec<Stored>, indexed: Indexed, head_hash: i64, parts: Parts },
    Tail { key: i64, title_explicit: bool, tail: Tail, stored: Vec<Stored>, indexed: Indexed, parts: Parts },
    Failed { key: Option<i64>, failure: Failure },
}

/// Why a file is not in the catalog.
struct Failure {
    reason: String,
    /// It could not be read (else it was read, and is not a session).
    unreadable: bool,
}

impl Failure {
    fn unreadable(reason: String) -> Self {
        Self { reason, unreadable: true }
    }

    fn not_a_session(reason: String) -> Self {
        Self { reason, unreadable: false }
    }
}

struct Done<'a> {
    file: &'a SourceFile,
    stat: Stat,
    outcome: Outcome,
}

/// Which sessions a refresh may remove: those of the files it was not given
/// (a file given that is gone is removed whatever the scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Within {
    /// Every agent's: the files given are every session file there is.
    Everything,
    /// One agent's: the files given are every session file of it.
    Agent(SourceKind),
    /// None: the files given are some that changed.
    These,
}

impl Within {
    fn may_remove(self, source: &str) -> bool {
        match self {
            Within::Everything => true,
            Within::Agent(kind) => kind.as_str() == source,
            Within::These => false,
        }
    }
}

impl Catalog {
    /// Brings the catalog up to date with `files`, every session file there
    /// is: sessions of files not in `files` are removed (sessions of stores
    /// are left to [`Catalog::refresh_store`]). `progress` is called
    /// as files are read.
    pub fn refresh(&mut self, files: &[SourceFile], progress: &mut dyn FnMut(Progress)) -> Result<RefreshReport> {
        self.refresh_within(files, Within::Everything, progress)
    }

    /// Brings the catalog up to date with `files`; of the sessions of files
    /// not in `files`, those `within` covers are removed.
    pub fn refresh_within(
        &mut self,
        files: &[SourceFile],
        within: Within,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<RefreshReport> {
        let mut report = RefreshReport { files: files.len(), ..RefreshReport::default() };
        let known = self.known()?;
        let failures = self.failures()?;
        let parts = usage::known_parts(&self.conn)?;
        let looked = keys_and_stats(files);
        let mut jobs = Vec::new();
        for (file, (key, stat)) in files.iter().zip(&looked) {
            let Some(stat) = *stat else {
                // Gone between listing and now: it drops out below.
                continue;
            };
            if let Some((failed_stat, reason)) = failures.get(key)
                && *failed_stat == stat
            {
                report.problems.push(Problem { path: file.path.clone(), reason: reason.clone() });
                continue;
            }
            match known.get(key) {
                Some(k) if k.size == stat.size && k.mtime_ns == stat.mtime_ns => report.unchanged += 1,
                Some(k) if can_read_tail(file, k, stat) => jobs.push(Job::Tail(file, stat, k)),
                Some(k) => jobs.push(Job::Full(file, stat, Some(k.key))),
                None => jobs.push(Job::Full(file, stat, None)),
            }
        }
        let listed: std::collections::HashSet<&str> =
            looked.iter().filter(|(_, stat)| stat.is_some()).map(|(key, _)| key.as_str()).collect();
        let given: std::collections::HashSet<&str> = looked.iter().map(|(key, _)| key.as_str()).collect();
        let gone: Vec<i64> = known
            .iter()
            .filter(|(path, k)| {
                !listed.contains(path.as_str()) && (given.contains(path.as_str()) || within.may_remove(&k.source))
            })
            .map(|(_, k)| k.key)
            .collect();
        let gone_failures: Vec<&String> =
            failures.keys().filter(|path| !listed.contains(path.as_str()) && within == Within::Everything).collect();
        if jobs.is_empty() && gone.is_empty() && gone_failures.is_empty() {
            // Nothing to write: no write transaction, no wait for another
            // process's.
            report.problems.sort_by(|a, b| a.path.cmp(&b.path));
            return Ok(report);
        }

        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for key in &gone {
            delete_session(&tx, *key)?;
        }
        report.removed = gone.len();
        for path in gone_failures {
            tx.execute("DELETE FROM failures WHERE path = ?1", [path])?;
        }
        let total = jobs.len();
        let mut read = 0;
        let mut write_error = None;
        run_jobs(jobs, &parts, |done| {
            if write_error.is_some() {
                return;
            }
            if let Err(err) = write(&tx, &done, &mut report) {
                write_error = Some(err);
            }
            read += 1;
            progress(Progress { done: read, total, unit: "sessions" });
        });
        if let Some(err) = write_error {
            return Err(err);
        }
        tx.commit()?;
        report.problems.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(report)
    }

    fn known(&self) -> Result<HashMap<String, Known>> {
        let mut statement = self.conn.prepare(
            "SELECT path, id, file_size, file_mtime_ns, indexed_bytes, head_hash, title_explicit, session_id,
             indexed_lines, source FROM sessions WHERE store IS NULL",
        )?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                Known {
                    key: row.get(1)?,
                    size: row.get(2)?,
                    mtime_ns: row.get(3)?,
                    indexed_bytes: row.get(4)?,
                    head_hash: row.get(5)?,
                    title_explicit: row.get(6)?,
                    session_id: row.get(7)?,
                    indexed_lines: row.get(8)?,
                    source: row.get(9)?,
                },
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn failures(&self) -> Result<HashMap<String, (Stat, String)>> {
        let mut statement = self.conn.prepare("SELECT path, file_size, file_mtime_ns, reason FROM failures")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, (Stat { size: row.get(1)?, mtime_ns: row.get(2)? }, row.get(3)?)))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// Each file's key and its size and modification time (`None` when it is
/// gone), looked at on a few threads: one `stat` each is most of what a
/// refresh that finds nothing changed costs.
fn keys_and_stats(files: &[SourceFile]) -> Vec<(String, Option<Stat>)> {
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get).min(4);
    let chunk = files.len().div_ceil(threads).max(256);
    std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(chunk)
            .map(|files| scope.spawn(move || files.iter().map(|f| (f.key(), f.stat())).collect::<Vec<_>>()))
            .collect();
        // A panic in a worker is a bug; surface it on this thread.
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

/// Whether the file may have only grown: it is longer than what the catalog
/// read, it is a plain JSONL file, and the catalog stopped at a line's end.
fn can_read_tail(file: &SourceFile, known: &Known, stat: Stat) -> bool {
    file.row.is_none()
        && known.indexed_bytes > 0
        && stat.size > known.size
        && known.size >= known.indexed_bytes
        && file.path.extension().is_some_and(|e| e == "jsonl")
}

/// The catalog's key of a path.
pub(crate) fn path_key(path: &Path) -> String {
    match path.to_str() {
        Some(text) => text.to_owned(),
        None => path.to_string_lossy().into_owned(),
    }
}

pub(crate) fn stat(path: &Path) -> Option<Stat> {
    let metadata = std::fs::metadata(path).ok()?;
    let mtime_ns = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos()).ok())
        .unwrap_or(0);
    Some(Stat { size: i64::try_from(metadata.len()).unwrap_or(i64::MAX), mtime_ns })
}

/// Runs the jobs on a few threads, handing each result to `done` on the
/// calling thread as it comes.
fn run_jobs<'a>(jobs: Vec<Job<'a>>, parts: &HashMap<i64, Vec<KnownPart>>, mut done: impl FnMut(Done<'a>)) {
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get).min(jobs.len()).max(1);
    let queue = Mutex::new(jobs.into_iter());
    // Room for a few sessions read per thread, so that the reading threads
    // go on while the writer is in one of FTS5's merges.
    let (sender, receiver) = mpsc::sync_channel::<Done<'a>>(threads * 16);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let queue = &queue;
            scope.spawn(move || {
                loop {
                    let job = match queue.lock() {
                        Ok(mut jobs) => jobs.next(),
                        Err(_) => None,
                    };
                    let Some(job) = job else { break };
                    if sender.send(run(job, parts)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for result in receiver {
            done(result);
        }
    });
}

fn run<'a>(job: Job<'a>, known_parts: &HashMap<i64, Vec<KnownPart>>) -> Done<'a> {
    let parts_of = |file: &SourceFile, key: Option<i64>| {
        let known = key.and_then(|key| known_parts.get(&key)).map_or(&[][..], Vec::as_slice);
        usage::read_parts(file, known)
    };
    match job {
        Job::Full(file, stat, key) => {
            let outcome = match read_full(file) {
                Ok((full, indexed, head_hash)) => {
                    let stored = stored(&full.docs);
                    Outcome::Full { key, full: Box::new(full), stored, indexed, head_hash, parts: parts_of(file, key) }
                }
                Err(failure) => Outcome::Failed { key, failure },
            };
            Done { file, stat, outcome }
        }
        Job::Tail(file, stat, known) => {
            let parts = parts_of(file, Some(known.key));
            let outcome = match read_tail(file, known) {
                Ok(Some((tail, indexed))) => {
                    let stored = stored(&tail.docs);
                    Outcome::Tail { key: known.key, title_explicit: known.title_explicit, tail, stored, indexed, parts }
                }
                // Not a file that grew after all.
                Ok(None) => match read_full(file) {
                    Ok((full, indexed, head_hash)) => {
                        let stored = stored(&full.docs);
                        Outcome::Full { key: Some(known.key), full: Box::new(full), stored, indexed, head_hash, parts }
                    }
                    Err(failure) => Outcome::Failed { key: Some(known.key), failure },
                },
                Err(reason) => Outcome::Failed { key: Some(known.key), failure: Failure::unreadable(reason) },
            };
            Done { file, stat, outcome }
        }
    }
}

/// How each document's body is stored, worked out on the reading threads.
fn stored(docs: &[Doc]) -> Vec<Stored> {
    docs.iter().map(|doc| Stored::of(&doc.body)).collect()
}

/// What a listing says of the whole file `file` (read whole again): the
/// listing of a file that grew since it was read whole.
pub(crate) fn read_whole_listed(file: &SourceFile) -> std::result::Result<Option<Listed>, String> {
    let bytes = file.source.source().read_whole(&file.path).map_err(|e| e.to_string())?;
    Ok(file.source.source().listed(&file.path, &bytes))
}

/// The whole file: what it says, how far the catalog read it, and the hash of
/// its first bytes. Its complete lines are indexed; a last line without its
/// newline waits for it, but the listing reads it (as the listing of its
/// source does).
fn read_full(file: &SourceFile) -> Result<(Full, Indexed, i64), Failure> {
    // A compressed file is read decompressed (and never in part: only
    // `.jsonl` files grow).
    if let Some((id, _)) = &file.row {
        let indexed = file.source.source().index_row(&file.path, id).map_err(Failure::not_a_session)?;
        let full = extract::full_of(indexed);
        return Ok((full, Indexed { bytes: 0, lines: 0 }, 0));
    }
    let bytes = file.source.source().read_whole(&file.path).map_err(|e| Failure::unreadable(e.to_string()))?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut full = extract::full(file.source, &file.path, &bytes[..complete]).map_err(Failure::not_a_session)?;
    if complete < bytes.len() {
        full.listed = file.source.source().listed(&file.path, &bytes);
    }
    let indexed = Indexed { bytes: to_i64(complete), lines: to_i64(line_count(&bytes[..complete])) };
    Ok((full, indexed, head_hash(&bytes[..complete.min(HEAD_BYTES)])))
}

fn line_count(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The lines after what the catalog read, when the file starts as it did;
/// `None` when it does not.
fn read_tail(file: &SourceFile, known: &Known) -> Result<Option<(Tail, Indexed)>, String> {
    let mut handle = File::open(&file.path).map_err(|e| e.to_string())?;
    let head_len = usize::try_from(known.indexed_bytes).unwrap_or(0).min(HEAD_BYTES);
    let mut head = vec![0; head_len];
    handle.read_exact(&mut head).map_err(|e| e.to_string())?;
    if head_hash(&head) != known.head_hash {
        return Ok(None);
    }
    let from = u64::try_from(known.indexed_bytes).unwrap_or(0);
    handle.seek(SeekFrom::Start(from - 1)).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    handle.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    // The catalog stopped after a newline; anything else means a rewrite.
    if bytes.first() != Some(&b'\n') {
        return Ok(None);
    }
    let new = &bytes[1..];
    let complete = new.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let lines_before = usize::try_from(known.indexed_lines).unwrap_or(0);
    let Some(tail) = extract::tail(file.source, &known.session_id, &new[..complete], lines_before) else {
        return Ok(None);
    };
    let indexed = Indexed {
        bytes: known.indexed_bytes + to_i64(complete),
        lines: known.indexed_lines + to_i64(line_count(&new[..complete])),
    };
    Ok(Some((tail, indexed)))
}

/// FNV-1a of `bytes`, as SQLite stores it.
fn head_hash(bytes: &[u8]) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    i64::from_ne_bytes(hash.to_ne_bytes())
}

fn write(tx: &Transaction<'_>, done: &Done<'_>, report: &mut RefreshReport) -> Result<()> {
    let Done { file, stat, outcome } = done;
    let path = file.key();
    match outcome {
        Outcome::Full { key, full, stored, indexed, head_hash, parts } => {
            let key = row_to_fill(tx, *key, report, || {
                tx.execute(
                    "INSERT INTO sessions (source, path, session_id, title_explicit, modified_ms, message_count,
                     file_size, file_mtime_ns, indexed_bytes, head_hash) VALUES (?1, ?2, '', 0, 0, 0, 0, 0, 0, 0)",
                    params![file.source.as_str(), path],
                )
            })?;
            tx.execute(
                "UPDATE sessions SET session_id = ?2, title = ?3, title_explicit = ?4, cwd = ?5, created = ?6,
                 modified_ms = ?7, message_count = ?8, file_size = ?9, file_mtime_ns = ?10,
                 indexed_bytes = ?11, head_hash = ?12, indexed_lines = ?13 WHERE id = ?1",
                params![
                    key,
                    full.session_id,
                    full.title,
                    full.title_explicit,
                    full.cwd,
                    full.created,
                    stat.mtime_ns / 1_000_000,
                    stored_count(full.message_count),
                    stat.size,
                    stat.mtime_ns,
                    indexed.bytes,
                    head_hash,
                    indexed.lines
                ],
            )?;
            write_listed(tx, key, full.listed.as_ref())?;
            tx.execute("DELETE FROM failures WHERE path = ?1", [&path])?;
            let title = full.title.as_deref().filter(|_| full.title_explicit);
            fill_docs(tx, key, title, &full.docs, Some(stored), report)?;
            usage::replace_main(tx, key, &full.usage, stat.mtime_ns / 1_000_000)?;
            usage::write_parts(tx, key, parts)?;
        }
        Outcome::Tail { key, title_explicit, tail, stored, indexed, parts } => {
            report.grown += 1;
            tx.execute(
                "UPDATE sessions SET modified_ms = ?2, message_count = message_count + ?3, file_size = ?4,
                 file_mtime_ns = ?5, indexed_bytes = ?6, indexed_lines = ?7 WHERE id = ?1",
                params![
                    key,
                    stat.mtime_ns / 1_000_000,
                    stored_count(tail.message_count),
                    stat.size,
                    stat.mtime_ns,
                    indexed.bytes,
                    indexed.lines
                ],
            )?;
            if let Some(title) = &tail.title {
                tx.execute("UPDATE sessions SET title = ?2, title_explicit = 1 WHERE id = ?1", params![key, title])?;
                if *title_explicit {
                    delete_docs(tx, *key, Docs::Title)?;
                }
                insert_doc(tx, *key, &Doc { entry_id: None, role: "title", body: title.clone() }, None)?;
            }
            insert_docs(tx, *key, &tail.docs, Some(stored), report)?;
            // What a listing shows of the whole file is read when a listing asks.
            tx.execute("UPDATE sessions SET list_stale = 1 WHERE id = ?1", [key])?;
            usage::add_main(tx, *key, &tail.usage, stat.mtime_ns / 1_000_000)?;
            usage::write_parts(tx, *key, parts)?;
        }
        Outcome::Failed { key, failure } => {
            if let Some(key) = key {
                delete_session(tx, *key)?;
            }
            tx.execute(
                "INSERT OR REPLACE INTO failures (path, source, file_size, file_mtime_ns, reason, unreadable)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![path, file.source.as_str(), stat.size, stat.mtime_ns, failure.reason, failure.unreadable],
            )?;
            report.problems.push(Problem { path: file.path.clone(), reason: failure.reason.clone() });
        }
    }
    Ok(())
}

/// Writes what `sess list` shows of a session (nothing, for a session its
/// listing leaves out or a source listed by reading its files).
pub(crate) fn write_listed(tx: &Transaction<'_>, key: i64, listed: Option<&Listed>) -> Result<()> {
    let count = |n: Option<usize>| n.map(stored_count);
    tx.execute(
        "UPDATE sessions SET listed = ?2, list_id = ?3, list_title = ?4, list_cwd = ?5, list_created = ?6,
         active_ms = ?7, list_count = ?8, first_message = ?9, parent_session = ?10, shown_messages = ?11,
         list_stale = 0
         WHERE id = ?1",
        params![
            key,
            listed.is_some(),
            listed.map(|l| &l.id),
            listed.and_then(|l| l.title.as_ref()),
            listed.and_then(|l| l.cwd.as_ref()),
            listed.and_then(|l| l.created.as_ref()),
            listed.and_then(|l| l.active_ms),
            count(listed.map(|l| l.message_count)),
            listed.and_then(|l| l.first_message.as_ref()),
            listed.and_then(|l| l.parent_session.as_ref()),
            count(listed.and_then(|l| l.shown_messages)),
        ],
    )?;
    Ok(())
}

/// The row a session read whole is written to: its row `known`, emptied of
/// its documents (read again), or the one `insert` adds (new).
pub(crate) fn row_to_fill(
    tx: &Transaction<'_>,
    known: Option<i64>,
    report: &mut RefreshReport,
    insert: impl FnOnce() -> rusqlite::Result<usize>,
) -> Result<i64> {
    if let Some(key) = known {
        delete_docs(tx, key, Docs::All)?;
        report.reread += 1;
        Ok(key)
    } else {
        insert()?;
        report.added += 1;
        Ok(tx.last_insert_rowid())
    }
}

/// Writes a session's documents: its own title, when it has one, and `docs`
/// (stored as `stored` says, when it was worked out already).
pub(crate) fn fill_docs(
    tx: &Transaction<'_>,
    key: i64,
    title: Option<&str>,
    docs: &[Doc],
    stored: Option<&[Stored]>,
    report: &mut RefreshReport,
) -> Result<()> {
    if let Some(title) = title {
        insert_doc(tx, key, &Doc { entry_id: None, role: "title", body: title.to_owned() }, None)?;
    }
    insert_docs(tx, key, docs, stored, report)
}

fn insert_docs(
    tx: &Transaction<'_>,
    key: i64,
    docs: &[Doc],
    stored: Option<&[Stored]>,
    report: &mut RefreshReport,
) -> Result<()> {
    for (i, doc) in docs.iter().enumerate() {
        insert_doc(tx, key, doc, stored.and_then(|stored| stored.get(i)))?;
    }
    report.messages += docs.iter().filter(|doc| extract::is_conversation(doc)).count();
    Ok(())
}

/// Writes one document, stored as `stored` says (else as [`Stored::of`] decides).
pub(crate) fn insert_doc(tx: &Transaction<'_>, key: i64, doc: &Doc, stored: Option<&Stored>) -> Result<()> {
    let mut statement =
        tx.prepare_cached("INSERT INTO docs (session, entry_id, role, body, title) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    // A title is searched in its own column, which ranks double.
    let (body, title) = if doc.role == "title" { ("", doc.body.as_str()) } else { (doc.body.as_str(), "") };
    let own;
    let stored = if let Some(stored) = stored {
        stored
    } else {
        own = Stored::of(body);
        &own
    };
    statement.execute(params![key, doc.entry_id, doc.role, stored.value(body), title])?;
    let id = tx.last_insert_rowid();
    if extract::is_conversation(doc) {
        let mut index = tx.prepare_cached("INSERT INTO docs_fts (rowid, body, title) VALUES (?1, ?2, ?3)")?;
        index.execute(params![id, body, title])?;
    } else {
        let mut index = tx.prepare_cached("INSERT INTO tool_fts (rowid, body) VALUES (?1, ?2)")?;
        index.execute(params![id, body])?;
    }
    Ok(())
}

pub(crate) fn delete_session(tx: &Transaction<'_>, key: i64) -> Result<()> {
    delete_docs(tx, key, Docs::All)?;
    usage::delete_session(tx, key)?;
    tx.execute("DELETE FROM sessions WHERE id = ?1", [key])?;
    Ok(())
}

/// Which of a session's documents [`delete_docs`] removes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Docs {
    All,
    Title,
}

/// Removes a session's documents from `docs` and from the index.
pub(crate) fn delete_docs(tx: &Transaction<'_>, key: i64, which: Docs) -> Result<()> {
    let title_only = which == Docs::Title;
    tx.execute(
        "INSERT INTO docs_fts (docs_fts, rowid, body, title)
         SELECT 'delete', id, doc_text(body), title FROM docs
         WHERE session = ?1 AND role <> ?3 AND (NOT ?2 OR role = 'title')",
        params![key, title_only, extract::TOOL_ROLE],
    )?;
    if !title_only {
        tx.execute(
            "INSERT INTO tool_fts (tool_fts, rowid, body) SELECT 'delete', id, doc_text(body) FROM docs
             WHERE session = ?1 AND role = ?2",
            params![key, extract::TOOL_ROLE],
        )?;
    }
    tx.execute(
        "DELETE FROM doc_vectors WHERE doc IN (SELECT id FROM docs WHERE session = ?1 AND (NOT ?2 OR role = 'title'))",
        params![key, title_only],
    )?;
    if !title_only {
        // Its pieces' bits go with its vectors (a title has none).
        tx.execute("DELETE FROM session_bits WHERE session = ?1", [key])?;
    }
    tx.execute("DELETE FROM docs WHERE session = ?1 AND (NOT ?2 OR role = 'title')", params![key, title_only])?;
    Ok(())
}
