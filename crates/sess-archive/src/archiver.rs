//! `sess archive`: every session every source finds, into a [`Vault`].
//!
//! A session is its main file (or its rows in an agent's database) and the
//! files it is made of besides ([`Source::companions`]). A main file whose
//! size and modification time are what the archive holds is not read (its
//! companions are looked at when it changes); a changed one that grows by
//! lines ([`Source::growth`]) is hashed up to where the archive's copy ends,
//! and when that is still what the archive holds (its digest), read from
//! there on; else it is read whole, as a new version. When only lines were
//! appended to the main file, only they are indexed, their text added to
//! the session's ([`sess_catalog::tail`]); else the listing and text are
//! taken again from the whole session ([`Source::index`]). Sessions are
//! read on every core and stored in batches, each one transaction; the next
//! batch is read while one is stored. A session
//! no source finds any more is marked gone, never removed.

use std::collections::{HashMap, HashSet};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use sess_sources::{Env, FoundRow, Growth, Source, SourceKind};

use crate::error::Result;
use crate::machine::Machine;
use crate::read::{read_change, stat, unchanged, whole};
use crate::vault::{Doc, FileWrite, Grown, Kind, KnownFile, Meta, SessionChange, SessionWrite, Vault};

/// The most bytes read into memory before a batch is stored.
const BATCH_BYTES: usize = 64 << 20;
/// The most sessions in one batch.
const BATCH_SESSIONS: usize = 128;

/// What one archive run did.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Sessions the sources found.
    pub sessions: usize,
    /// Of those, sessions not read (nothing changed).
    pub unchanged: usize,
    /// Sessions new to the archive.
    pub added: usize,
    /// Sessions already archived whose files changed.
    pub updated: usize,
    /// Files whose bytes were stored (new, new versions, added lines).
    pub files_stored: usize,
    /// Bytes stored.
    pub bytes_stored: u64,
    /// Sessions whose originals this run found gone.
    pub newly_gone: usize,
    /// Sessions of this machine the archive keeps whose originals are gone:
    /// history the agents no longer have.
    pub kept_gone: usize,
    /// Files another archiver changed while this one read them (the next run
    /// takes them).
    pub raced: usize,
    /// Files archived whose text could not be read as a session (kept as
    /// bytes, not searchable): path and why.
    pub unreadable: Vec<(String, String)>,
    /// Files that could not be read at all: path and why.
    pub failed: Vec<(String, String)>,
    /// Names skipped because they are not regular files.
    pub skipped: Vec<String>,
    /// The pi-family sessions (main files) that changed, for a caller that
    /// also keeps them as entries in a store.
    #[serde(skip)]
    pub native_changed: Vec<PathBuf>,
}

/// One session a source found.
enum Main {
    File(PathBuf),
    Row(FoundRow),
}

struct Found {
    source: SourceKind,
    main: Main,
    id: String,
}

impl Found {
    fn key(&self) -> String {
        match &self.main {
            Main::File(path) => path.to_string_lossy().into_owned(),
            Main::Row(row) => format!("{}#{}", row.database.display(), row.id),
        }
    }
}

/// What reading one changed session gave.
struct Read {
    writes: Vec<FileWrite>,
    /// `None` when its main file could not be read: nothing is stored.
    session: Option<SessionWrite>,
    unreadable: Option<String>,
    failed: Vec<(String, String)>,
    native: Option<PathBuf>,
    new: bool,
}

/// Archives every session of `sources` in `env` into `vault` as `machine`'s.
/// `progress` is told how many sessions are done of how many.
pub fn archive(
    vault: &mut dyn Vault,
    env: &Env,
    machine: &Machine,
    sources: &[SourceKind],
    now_ms: i64,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report> {
    vault.register(machine, now_ms)?;
    let known: HashMap<String, KnownFile> =
        vault.known(&machine.id)?.into_iter().map(|k| (k.path.clone(), k)).collect();
    let mut report = Report::default();
    let mut found = Vec::new();
    for &source in sources {
        let files = source.source().files(env);
        for (path, kind) in &files.skipped {
            if *kind == sess_core::FileKind::Symlink {
                // A link that leads to no file (dangling, or a loop) is a
                // session file that cannot be read, not one of another kind.
                let why = std::fs::metadata(path).map_or_else(|e| e.to_string(), |_| "a link to no file".to_owned());
                report.failed.push((path.display().to_string(), why));
            } else {
                report.skipped.push(path.display().to_string());
            }
        }
        found.extend(files.files.into_iter().map(|(id, path)| Found { source, main: Main::File(path), id }));
        found.extend(files.rows.into_iter().map(|row| Found { source, id: row.id.clone(), main: Main::Row(row) }));
    }
    report.sessions = found.len();
    let seen: HashSet<String> = found.iter().map(Found::key).collect();

    let changed: Vec<&Found> = found
        .iter()
        .filter(|f| {
            let known = known.get(&f.key());
            match &f.main {
                Main::File(path) => stat(path).map_or(true, |(size, mtime)| !unchanged(known, size, mtime)),
                Main::Row(row) => known.is_none_or(|k| k.deleted || k.mtime != row.version),
            }
        })
        .collect();
    report.unchanged = found.len() - changed.len();
    let total = found.len();
    progress(report.unchanged, total);

    let mut done = report.unchanged;
    let mut written = HashSet::new();
    // The next batch is read while this one is stored.
    std::thread::scope(|scope| -> Result<()> {
        let (sender, batches) = std::sync::mpsc::sync_channel::<(usize, Vec<Option<Read>>)>(1);
        let (changed, known) = (&changed, &known);
        scope.spawn(move || {
            for batch in changed.chunks(BATCH_SESSIONS) {
                if sender.send((batch.len(), read_all(batch, known))).is_err() {
                    break;
                }
            }
        });
        for (sessions, reads) in batches {
            let mut pending: Vec<Read> = Vec::new();
            let mut bytes = 0;
            for read in reads.into_iter().flatten() {
                bytes += read.writes.iter().map(|w| w.chunk.len()).sum::<usize>();
                pending.push(read);
                if bytes >= BATCH_BYTES {
                    store(vault, machine, &mut pending, &mut written, now_ms, &mut report)?;
                    bytes = 0;
                }
            }
            store(vault, machine, &mut pending, &mut written, now_ms, &mut report)?;
            done += sessions;
            progress(done, total);
        }
        Ok(())
    })?;

    let scanned: HashSet<&str> = sources.iter().map(|s| s.as_str()).collect();
    let gone: Vec<i64> = known
        .values()
        .filter(|k| k.main && !k.deleted && scanned.contains(k.source.as_str()) && !seen.contains(&k.path))
        .map(|k| k.id)
        .collect();
    if !gone.is_empty() {
        report.newly_gone = vault.mark_deleted(&machine.id, &gone, now_ms)?;
    }
    let filter = crate::Filter { machine: Some(machine.id.clone()), ..crate::Filter::default() };
    report.kept_gone = vault.sessions(&filter)?.iter().filter(|s| s.deleted_ms.is_some()).count();
    Ok(report)
}

/// Stores the sessions read so far in one transaction.
fn store(
    vault: &mut dyn Vault,
    machine: &Machine,
    pending: &mut Vec<Read>,
    written: &mut HashSet<String>,
    now_ms: i64,
    report: &mut Report,
) -> Result<()> {
    if pending.is_empty() {
        return Ok(());
    }
    // A file two sessions share (a fork's parent, a blob) is stored once a
    // run: a second read of it was made from the state before the first.
    let writes: Vec<FileWrite> = pending
        .iter_mut()
        .flat_map(|r| std::mem::take(&mut r.writes))
        .filter(|w| written.insert(w.path.clone()))
        .collect();
    let sessions: Vec<SessionWrite> = pending.iter().filter_map(|r| r.session.clone()).collect();
    let stored = vault.store(&machine.id, &writes, &sessions, now_ms)?;
    report.files_stored += stored.files;
    report.bytes_stored += stored.bytes;
    report.raced += stored.raced;
    for read in pending.drain(..) {
        match (&read.session, read.new) {
            (None, _) => {}
            (Some(_), true) => report.added += 1,
            (Some(_), false) => report.updated += 1,
        }
        if let (Some(session), Some(why)) = (&read.session, read.unreadable) {
            report.unreadable.push((session.path.clone(), why));
        }
        report.failed.extend(read.failed);
        report.native_changed.extend(read.native);
    }
    Ok(())
}

/// Reads the sessions of `batch` on every core, in order.
fn read_all(batch: &[&Found], known: &HashMap<String, KnownFile>) -> Vec<Option<Read>> {
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get).min(batch.len()).max(1);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Read>>> = Mutex::new((0..batch.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(found) = batch.get(i) else { break };
                    let read = read_session(found, known);
                    if let Ok(mut results) = results.lock() {
                        results[i] = read;
                    }
                }
            });
        }
    });
    results.into_inner().unwrap_or_default()
}

/// Reads what changed of one session; `None` when its main file vanished
/// since it was found.
fn read_session(found: &Found, known: &HashMap<String, KnownFile>) -> Option<Read> {
    let source = found.source.source();
    let key = found.key();
    let new = !known.contains_key(&key);
    match &found.main {
        Main::Row(row) => Some(read_row(found, row, known.get(&key), new)),
        Main::File(path) => {
            let (size, mtime) = match stat(path) {
                Ok(stat) => stat,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
                Err(err) => return Some(failed(&key, new, err.to_string())),
            };
            let mut writes = Vec::new();
            let mut failures = Vec::new();
            let base = known.get(&key);
            let lines_before = match read_change(found.source.as_str(), path, kind_of(source, path), base, size, mtime)
            {
                Ok(change) => {
                    writes.push(change.write);
                    // Lines appended to a session the archive lists.
                    change.lines_before.filter(|_| base.is_some_and(|k| k.main && !k.deleted))
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
                Err(err) => return Some(failed(&key, new, err.to_string())),
            };
            let companions = source.companions(path);
            let mut members = vec![key.clone()];
            for companion in &companions {
                let name = companion.to_string_lossy().into_owned();
                members.push(name.clone());
                let known = known.get(&name);
                let (size, mtime) = match stat(companion) {
                    Ok(stat) => stat,
                    // Gone since it was listed: the session no longer has it.
                    Err(err)
                        if err.kind() == std::io::ErrorKind::NotFound
                            && std::fs::symlink_metadata(companion).is_err() =>
                    {
                        continue;
                    }
                    // A link to nothing (a loop, or dangling), or a file that cannot be read.
                    Err(err) => {
                        failures.push((name, err.to_string()));
                        continue;
                    }
                };
                if unchanged(known, size, mtime) {
                    continue;
                }
                match read_change(found.source.as_str(), companion, kind_of(source, companion), known, size, mtime) {
                    Ok(change) => writes.push(change.write),
                    Err(err) => failures.push((name, err.to_string())),
                }
            }
            // Only its main file grew: what the new lines add, read alone.
            let grown = match (lines_before, writes.as_slice(), failures.is_empty()) {
                (Some(lines), [write], true) => grown(found, write, lines, mtime),
                _ => None,
            };
            let (change, unreadable) = if let Some(grown) = grown {
                (SessionChange::Grown(grown), None)
            } else {
                let (meta, docs, unreadable) = index_file(source, path, &found.id, mtime);
                (SessionChange::Whole { meta, docs }, unreadable)
            };
            Some(Read {
                writes,
                session: Some(SessionWrite { source: found.source.as_str().to_owned(), path: key, members, change }),
                unreadable,
                failed: failures,
                native: source.native().then(|| path.clone()),
                new,
            })
        }
    }
}

fn kind_of(source: &dyn Source, path: &Path) -> Kind {
    match source.growth(path) {
        Growth::Lines => Kind::Lines,
        Growth::Whole => Kind::Whole,
    }
}

fn failed(key: &str, new: bool, why: String) -> Read {
    Read { writes: Vec::new(), session: None, unreadable: None, failed: vec![(key.to_owned(), why)], native: None, new }
}

/// A database session: its rows, as one whole file.
fn read_row(found: &Found, row: &FoundRow, known: Option<&KnownFile>, new: bool) -> Read {
    let source = found.source.source();
    let key = found.key();
    let dump = match source.rows(&row.database, &row.id) {
        Ok(dump) => dump,
        Err(err) => return failed(&key, new, err.to_string()),
    };
    let bytes = serde_json::to_vec(&dump).unwrap_or_default();
    let write = whole(found.source.as_str(), &key, Kind::Rows, known, bytes, row.version);
    let (meta, docs, unreadable) = match source.index_row(&row.database, &row.id) {
        Ok(indexed) => indexed_meta(indexed, row.version),
        Err(why) => {
            (Meta { session_id: row.id.clone(), modified_ms: row.version, ..Meta::default() }, Vec::new(), Some(why))
        }
    };
    Read {
        writes: vec![write],
        session: Some(SessionWrite {
            source: found.source.as_str().to_owned(),
            path: key.clone(),
            members: vec![key],
            change: SessionChange::Whole { meta, docs },
        }),
        unreadable,
        failed: Vec::new(),
        native: None,
        new,
    }
}

/// What the lines `write` appended to the main file of `found` (after its
/// first `lines_before` lines) add, read alone; `None` when its source reads
/// its files only whole.
fn grown(found: &Found, write: &FileWrite, lines_before: usize, mtime_ns: i64) -> Option<Grown> {
    let tail = sess_catalog::tail(found.source, &found.id, &write.chunk, lines_before)?;
    Some(Grown {
        title: tail.title,
        message_count: i64::try_from(tail.message_count).unwrap_or(i64::MAX),
        modified_ms: mtime_ns / 1_000_000,
        docs: docs_of(tail.docs),
    })
}

fn docs_of(docs: Vec<sess_catalog::Doc>) -> Vec<Doc> {
    docs.into_iter().map(|d| Doc { entry_id: d.entry_id, role: d.role.to_owned(), body: d.body }).collect()
}

/// The listing and text of the session file at `path`.
fn index_file(source: &dyn Source, path: &Path, id: &str, mtime_ns: i64) -> (Meta, Vec<Doc>, Option<String>) {
    let modified_ms = mtime_ns / 1_000_000;
    let indexed = source.read_whole(path).map_err(|e| e.to_string()).and_then(|bytes| source.index(path, &bytes));
    match indexed {
        Ok(indexed) => indexed_meta(indexed, modified_ms),
        Err(why) => (Meta { session_id: id.to_owned(), modified_ms, ..Meta::default() }, Vec::new(), Some(why)),
    }
}

fn indexed_meta(indexed: sess_sources::Indexed, modified_ms: i64) -> (Meta, Vec<Doc>, Option<String>) {
    let full = sess_catalog::full_of(indexed);
    let meta = Meta {
        session_id: full.session_id,
        title: full.title,
        cwd: full.cwd,
        created: full.created,
        message_count: i64::try_from(full.message_count).unwrap_or(i64::MAX),
        modified_ms,
    };
    (meta, docs_of(full.docs), None)
}
