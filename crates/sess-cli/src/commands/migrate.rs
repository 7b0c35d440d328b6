//! `sess migrate FILE… [--check] [--drop-invalid]`.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use sess_core::{CURRENT_VERSION, IssueKind, ReadOutcome};
use sess_store::{durable, read_session_file};

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
    sess::resolve::refuse_other_agents(path)?;
    let outcome = read_session_file(path).with_context(|| format!("cannot read `{}`", path.display()))?;
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

/// Refuses to drop unreadable lines, or to replace bytes that are not UTF-8
/// with U+FFFD, unless asked; when asked, keeps the original bytes in
/// `<file>.pre-migrate` first (and never overwrites an earlier such copy).
fn keep_dropped_lines(path: &Path, outcome: &ReadOutcome, drop_invalid: bool) -> anyhow::Result<Option<String>> {
    let skipped: Vec<usize> = outcome.issues.iter().filter(|i| i.kind.is_skipped()).map(|i| i.line).collect();
    let not_utf8: Vec<usize> =
        outcome.issues.iter().filter(|i| i.kind == IssueKind::InvalidUtf8).map(|i| i.line).collect();
    if skipped.is_empty() && not_utf8.is_empty() {
        return Ok(None);
    }
    if !drop_invalid {
        let mut found = Vec::new();
        if !skipped.is_empty() {
            found.push(format!("{} unreadable lines ({})", skipped.len(), line_list(&skipped)));
        }
        if !not_utf8.is_empty() {
            found.push(format!("{} lines that are not valid UTF-8 ({})", not_utf8.len(), line_list(&not_utf8)));
        }
        let loss = match (skipped.is_empty(), not_utf8.is_empty()) {
            (false, true) => "drop them",
            (true, false) => "replace their invalid bytes with U+FFFD",
            _ => "drop or change them",
        };
        return Err(anyhow::Error::new(Hint(format!(
            "see `sess verify {}`; repair those lines, or pass --drop-invalid to migrate without them \
             (the original bytes are then kept in `{}`)",
            path.display(),
            backup_path(path).display()
        )))
        .context(format!("`{}` has {}; migrating would {loss}", path.display(), found.join(" and "))));
    }
    let backup = backup_path(path);
    let bytes = fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    match fs::read(&backup) {
        Ok(earlier) if earlier == bytes => {}
        Ok(_) => {
            return Err(anyhow::Error::new(Hint("move it away, then run the migration again".to_owned()))
                .context(format!("`{}` exists and holds other bytes; nothing was written", backup.display())));
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => durable::write_atomic(&backup, &bytes)?,
        Err(err) => return Err(err).with_context(|| format!("cannot read `{}`", backup.display())),
    }
    Ok(Some(backup.display().to_string()))
}

/// `<file>.pre-migrate`, where the original bytes are kept.
fn backup_path(path: &Path) -> PathBuf {
    let mut backup = path.as_os_str().to_owned();
    backup.push(".pre-migrate");
    PathBuf::from(backup)
}

/// "line 3, 7, …": the first ten line numbers.
fn line_list(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(10).map(usize::to_string).collect();
    let more = if lines.len() > 10 { ", …" } else { "" };
    format!("line {}{more}", shown.join(", "))
}
