//! `sess migrate FILE… [--check] [--drop-invalid]`.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context as _, bail};
use sess_core::{CURRENT_VERSION, ReadOutcome};
use sess_store::{RandomIds, durable, read_session_file};

use crate::Outcome;
use crate::cli::MigrateArgs;
use crate::output::{Hint, report_error, stdout};

/// What happened to one file.
enum Done {
    Current,
    NeedsMigration(f64),
    Migrated { from: f64, entries: usize, backup: Option<String> },
}

pub(crate) fn run(args: &MigrateArgs) -> anyhow::Result<Outcome> {
    let mut out = stdout();
    let mut failed = 0;
    let mut pending = 0;
    for path in &args.files {
        match migrate_file(path, args) {
            Ok(Done::Current) => writeln!(out, "`{}`: already version {CURRENT_VERSION}", path.display())?,
            Ok(Done::NeedsMigration(from)) => {
                pending += 1;
                writeln!(out, "`{}`: needs migration (version {from} → {CURRENT_VERSION})", path.display())?;
            }
            Ok(Done::Migrated { from, entries, backup }) => {
                writeln!(out, "`{}`: migrated version {from} → {CURRENT_VERSION} ({entries} entries)", path.display())?;
                if let Some(backup) = backup {
                    writeln!(out, "  the original bytes are kept in `{backup}`")?;
                }
            }
            Err(err) => {
                out.flush()?;
                failed += 1;
                report_error(&err);
            }
        }
    }
    out.flush()?;
    if failed > 0 {
        bail!("{failed} of {} files could not be migrated", args.files.len());
    }
    Ok(if pending > 0 { Outcome::Findings } else { Outcome::Clean })
}

fn migrate_file(path: &Path, args: &MigrateArgs) -> anyhow::Result<Done> {
    // A FIFO or a device is refused here, before anything opens it.
    let before = sess_store::storage::regular_file(&sess_store::FileStorage, path)
        .map_err(|e| sess_store::Error::from_io("reading", path, e))?;
    crate::sources::refuse_other_agents(path)?;
    let outcome =
        read_session_file(path, &mut RandomIds::new()).with_context(|| format!("cannot read `{}`", path.display()))?;
    let Some(from) = outcome.migrated_from.map(|v| v.0) else {
        if outcome.file.header().is_none() {
            return Err(anyhow::Error::new(Hint(format!("run `sess verify {}`", path.display())))
                .context(format!("`{}` has no valid session header", path.display())));
        }
        return Ok(Done::Current);
    };
    if args.check {
        return Ok(Done::NeedsMigration(from));
    }
    let backup = keep_dropped_lines(path, &outcome, args.drop_invalid)?;
    // The file must not have grown while it was read: an agent may be writing to it.
    let now = fs::metadata(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    if now.len() != before.len || now.modified().ok() != before.modified {
        return Err(anyhow::Error::new(Hint("run the migration again when the agent is idle".to_owned()))
            .context(format!("`{}` changed while it was being migrated; nothing was written", path.display())));
    }
    durable::write_atomic(path, outcome.file.to_jsonl().as_bytes())?;
    Ok(Done::Migrated { from, entries: outcome.file.entries().len(), backup })
}

/// Refuses to drop unreadable lines unless asked; when asked, keeps the
/// original bytes in `<file>.pre-migrate` first.
fn keep_dropped_lines(path: &Path, outcome: &ReadOutcome, drop_invalid: bool) -> anyhow::Result<Option<String>> {
    let skipped: Vec<_> = outcome.issues.iter().filter(|i| i.kind.is_skipped()).collect();
    if skipped.is_empty() {
        return Ok(None);
    }
    if !drop_invalid {
        let lines: Vec<String> = skipped.iter().take(10).map(|i| i.line.to_string()).collect();
        let more = if skipped.len() > 10 { ", …" } else { "" };
        return Err(anyhow::Error::new(Hint(format!(
            "see `sess verify {}`; repair those lines, or pass --drop-invalid to migrate without them",
            path.display()
        )))
        .context(format!(
            "`{}` has {} unreadable lines (line {}{more}); migrating would drop them",
            path.display(),
            skipped.len(),
            lines.join(", ")
        )));
    }
    let mut backup = path.as_os_str().to_owned();
    backup.push(".pre-migrate");
    let backup = Path::new(&backup);
    let bytes = fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    durable::write_atomic(backup, &bytes)?;
    Ok(Some(backup.display().to_string()))
}
