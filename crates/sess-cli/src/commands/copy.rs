//! `sess copy FROM TO`: every session of FROM into TO, losslessly.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use sess_core::{Entry, SessionHeader};
use sess_store::{Backend, replay_rest};

use crate::Outcome;
use crate::cli::CopyArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::{Progress, stdout, warn};

/// One session to copy.
pub(crate) struct Source {
    header: SessionHeader,
    title_line: Option<String>,
    entries: Vec<Entry>,
}

/// Sessions and entries written.
#[derive(Default)]
struct Tally {
    sessions: usize,
    entries: usize,
}

impl Tally {
    fn add(&mut self, entries: usize) {
        self.sessions += 1;
        self.entries += entries;
    }
}

/// What became of one session.
pub(crate) enum Copied {
    /// It was not in the target: it is now, whole.
    New,
    /// The target held its first `stored` entries (an interrupted copy): the
    /// rest were added.
    Completed { stored: usize },
    /// The target holds all its entries.
    Present,
}

pub(crate) fn run(args: &CopyArgs) -> anyhow::Result<Outcome> {
    // The sources are read first: a source that cannot be read makes no target.
    let sources = read_sources(&args.from)?;
    let to = sess::store::open(&args.to, sess::store::Missing::Created, &Printed)?;
    let total: u64 = sources.iter().map(|s| s.entries.len() as u64).sum();
    let progress = Progress::new(total, "entries");
    let (mut copied, mut completed, mut present) = (Tally::default(), Tally::default(), 0);
    let mut refused = Vec::new();
    for source in &sources {
        match copy_session(to.as_ref(), &args.to, source, &mut |n| progress.add(n))? {
            Ok(Copied::New) => copied.add(source.entries.len()),
            Ok(Copied::Completed { stored }) => completed.add(source.entries.len() - stored),
            Ok(Copied::Present) => present += 1,
            Err(reason) => {
                warn(format_args!("{reason}"));
                refused.push(reason);
            }
        }
    }
    progress.finish();
    let mut out = stdout();
    writeln!(
        out,
        "copied {} sessions ({} entries) from `{}` to `{}`",
        copied.sessions, copied.entries, args.from, args.to
    )?;
    if completed.sessions > 0 {
        writeln!(
            out,
            "completed {} sessions an earlier copy had left unfinished ({} entries)",
            completed.sessions, completed.entries
        )?;
    }
    if present > 0 {
        writeln!(out, "{present} sessions were already there")?;
    }
    if !refused.is_empty() {
        writeln!(out, "{} sessions were not copied:", refused.len())?;
        for reason in &refused {
            writeln!(out, "  {reason}")?;
        }
    }
    out.flush()?;
    Ok(if refused.is_empty() { Outcome::Clean } else { Outcome::Findings })
}

/// Copies one session into `to` (the store `url` names). The inner `Err` is
/// why the session was not copied — the target holds another session with its
/// id, or refuses its entries — and the other sessions go on; the outer one is
/// a store that fails, which stops the copy.
pub(crate) fn copy_session(
    to: &dyn Backend,
    url: &str,
    source: &Source,
    progress: &mut dyn FnMut(u64),
) -> anyhow::Result<Result<Copied, String>> {
    let id = source.header.id();
    let existing = match to.read_session(id) {
        Ok(existing) => Some(existing),
        Err(sess_store::Error::SessionNotFound { .. }) => None,
        Err(err) => return Err(err).with_context(|| format!("cannot read session {id} in `{url}`")),
    };
    let done = match existing {
        None => to
            .import_session(&source.header, source.title_line.as_deref(), &source.entries, progress)
            .map(|()| Copied::New),
        Some(existing) => {
            // A copy writes a session's entries in their order, so an interrupted
            // one left a prefix of them.
            if existing.iter().zip(&source.entries).any(|(stored, entry)| stored.json() != entry.json()) {
                return Ok(Err(format!(
                    "session {id} is already in `{url}` with different entries; nothing of it was copied"
                )));
            }
            let stored = existing.len();
            progress(stored.min(source.entries.len()) as u64);
            if stored >= source.entries.len() {
                Ok(Copied::Present)
            } else {
                replay_rest(to, id, &source.entries, stored, progress).map(|()| Copied::Completed { stored })
            }
        }
    };
    match done {
        Ok(copied) => Ok(Ok(copied)),
        Err(
            err @ (sess_store::Error::Conflict { .. }
            | sess_store::Error::InvalidEntry { .. }
            | sess_store::Error::SegmentNotFound { .. }
            | sess_store::Error::EntryNotFound { .. }),
        ) => Ok(Err(format!("session {id} could not be copied into `{url}`: {err}"))),
        Err(err) => Err(err).with_context(|| format!("cannot copy session {id} into `{url}`")),
    }
}

/// The sessions of a store URL, or of one session file.
fn read_sources(from: &str) -> anyhow::Result<Vec<Source>> {
    if from.contains(':') && !Path::new(from).exists() {
        let backend = sess::store::open(from, sess::store::Missing::Refused, &Printed)?;
        return read_store(backend.as_ref());
    }
    Ok(vec![session_file(Path::new(from))?])
}

/// The pi-family session file at `path`, to copy.
pub(crate) fn session_file(path: &Path) -> anyhow::Result<Source> {
    let loaded = sess::load::load_path(path, host(), &Printed)?;
    let from = path.display();
    let header = loaded.file.header().cloned().with_context(|| format!("`{from}` has no valid session header"))?;
    let skipped = loaded.issues.iter().filter(|i| i.kind.is_skipped()).count();
    if skipped > 0 {
        warn(format_args!("`{from}`: {skipped} unreadable lines are not entries and are not copied"));
    }
    let title_line = loaded.file.title_line().map(str::to_owned);
    Ok(Source { header, title_line, entries: loaded.file.into_entries() })
}

fn read_store(backend: &dyn Backend) -> anyhow::Result<Vec<Source>> {
    let mut sources = Vec::new();
    for summary in backend.list_sessions()? {
        let stored = backend.session(&summary.id)?;
        let entries = backend.read_session(&summary.id)?;
        sources.push(Source { header: stored.header, title_line: stored.title_line, entries });
    }
    Ok(sources)
}
