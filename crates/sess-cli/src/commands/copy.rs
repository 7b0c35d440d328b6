//! `sess copy FROM TO`: every session of FROM into TO, losslessly.

use std::io::Write;
use std::path::Path;

use anyhow::{Context as _, bail};
use sess_core::{Entry, SessionHeader};
use sess_store::Backend;

use crate::Outcome;
use crate::cli::CopyArgs;
use crate::output::{Progress, stdout, warn};

/// One session to copy.
struct Source {
    header: SessionHeader,
    title_line: Option<String>,
    entries: Vec<Entry>,
}

pub(crate) fn run(args: &CopyArgs) -> anyhow::Result<Outcome> {
    let to = crate::store::open_with(&args.to, crate::store::Missing::Created)?;
    let sources = read_sources(&args.from)?;
    let total: u64 = sources.iter().map(|s| s.entries.len() as u64).sum();
    let progress = Progress::new(total, "entries");
    let (mut copied, mut present, mut entries) = (0, 0, 0u64);
    for source in sources {
        let id = source.header.id().to_owned();
        if let Ok(existing) = to.read_session(&id) {
            if existing.len() == source.entries.len() {
                present += 1;
                progress.add(source.entries.len() as u64);
                continue;
            }
            bail!("session {id} is already in `{}` with different entries; nothing of it was copied", args.to);
        }
        to.import_session(&source.header, source.title_line.as_deref(), &source.entries, &mut |n| progress.add(n))
            .with_context(|| format!("cannot copy session {id} into `{}`", args.to))?;
        copied += 1;
        entries += source.entries.len() as u64;
    }
    progress.finish();
    let mut out = stdout();
    writeln!(out, "copied {copied} sessions ({entries} entries) from `{}` to `{}`", args.from, args.to)?;
    if present > 0 {
        writeln!(out, "{present} sessions were already there")?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// The sessions of a store URL, or of one session file.
fn read_sources(from: &str) -> anyhow::Result<Vec<Source>> {
    if from.contains(':') && !Path::new(from).exists() {
        let backend = crate::store::open(from)?;
        return read_store(backend.as_ref());
    }
    let loaded = crate::load::load_path(Path::new(from))?;
    let header = loaded.file.header().cloned().with_context(|| format!("`{from}` has no valid session header"))?;
    let skipped = loaded.issues.iter().filter(|i| i.kind.is_skipped()).count();
    if skipped > 0 {
        warn(format_args!("`{from}`: {skipped} unreadable lines are not entries and are not copied"));
    }
    let title_line = loaded.file.title_line().map(str::to_owned);
    Ok(vec![Source { header, title_line, entries: loaded.file.into_entries() }])
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
