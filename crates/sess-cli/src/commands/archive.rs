//! `sess archive [--store URL] [--source S] [--json] [--watch]`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use sess_archive::{Machine, Report, Vault};
use sess_sources::SourceKind;

use crate::Outcome;
use crate::cli::ArchiveArgs;
use crate::embedded::Embedded;
use crate::env::host;
use crate::env::sources_env;
use crate::output::Printed;
use crate::output::{Progress, print_json, shell_word, stdout, warn};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Json<'a> {
    store: &'a str,
    machine: &'a Machine,
    #[serde(flatten)]
    report: &'a Report,
    /// pi-family sessions also kept as entries in the store.
    entries_copied: usize,
    millis: u128,
    /// What `--model` embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    embedded: Option<&'a Embedded>,
}

/// The embedding model of `--model`, and its folder.
type Embedding = Option<(sess_embed::Model, PathBuf)>;

pub(crate) fn run(args: &ArchiveArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let url = store.map_or_else(|| sess::archive::default_url(&host().data_dir), str::to_owned);
    let mut vault = sess::archive::open(&url)?;
    let machine = host().machine()?;
    let kinds = args.source.kinds();
    let model = crate::catalog::model_dir(args.model.dir.as_deref())
        .map(|dir| sess::meaning::load_model(&dir).map(|model| (model, dir)))
        .transpose()?;
    let outcome = once(vault.as_mut(), (&url, &machine), &kinds, &model, args.json, true)?;
    if !args.watch {
        return Ok(outcome);
    }
    crate::commands::watch::run(&kinds, &mut || {
        once(vault.as_mut(), (&url, &machine), &kinds, &model, args.json, false).map(|_| ())
    })
}

/// Embeds the archive's messages that have no vector with `model` (in
/// `dir`), a progress bar on a terminal.
fn embed(vault: &mut dyn Vault, model: &sess_embed::Model, dir: &Path) -> anyhow::Result<Embedded> {
    let started = Instant::now();
    let bar = Progress::new(0, "messages embedded");
    let report = sess_archive::embed(vault, model, &mut |done, total| {
        bar.set_len(u64::try_from(total).unwrap_or(u64::MAX));
        bar.set(u64::try_from(done).unwrap_or(u64::MAX));
    });
    bar.finish();
    Ok(Embedded::new(dir, &report?, started))
}

/// One archive run, with its report printed (with `quiet`, a run that
/// changed nothing prints nothing: `--watch`).
fn once(
    vault: &mut dyn Vault,
    (url, machine): (&str, &Machine),
    kinds: &[SourceKind],
    model: &Embedding,
    json: bool,
    first: bool,
) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let bar = Progress::new(0, "sessions");
    let report = sess_archive::archive(vault, sources_env(), machine, kinds, now_ms(), &|done, total| {
        bar.set_len(total as u64);
        bar.set(done as u64);
    })?;
    bar.finish();
    let copied = keep_entries(url, &report.native_changed)?;
    let took = started.elapsed();
    if !first && report.added + report.updated + report.newly_gone == 0 && report.failed.is_empty() {
        return Ok(Outcome::Clean);
    }
    let embedded = model.as_ref().map(|(model, dir)| embed(vault, model, dir)).transpose()?;
    for (path, why) in &report.failed {
        warn(format_args!("cannot archive `{path}`: {why}"));
    }
    if json {
        let millis = took.as_millis();
        let embedded = embedded.as_ref();
        print_json(&Json { store: url, machine, report: &report, entries_copied: copied, millis, embedded }, true)?;
    } else {
        print_report(url, machine, &report, took)?;
        if let Some(embedded) = &embedded {
            embedded.print(&mut stdout())?;
        }
    }
    Ok(if report.failed.is_empty() { Outcome::Clean } else { Outcome::Findings })
}

fn print_report(url: &str, machine: &Machine, report: &Report, took: Duration) -> anyhow::Result<()> {
    let mut out = stdout();
    writeln!(
        out,
        "archived {} sessions of `{}` into `{url}`: {} new, {} changed, {} unchanged; {} files, {} stored",
        report.sessions,
        machine.name,
        report.added,
        report.updated,
        report.unchanged,
        report.files_stored,
        bytes(report.bytes_stored)
    )?;
    if report.newly_gone > 0 {
        writeln!(out, "{} sessions were deleted by their agents since the last run", report.newly_gone)?;
    }
    if report.kept_gone > 0 {
        writeln!(
            out,
            "{} sessions the agents no longer have are kept in the archive (`sess --store {} list --all-projects`)",
            report.kept_gone,
            shell_word(url)
        )?;
    }
    if !report.unreadable.is_empty() {
        writeln!(
            out,
            "{} files are kept as bytes only: their text could not be read as a session",
            report.unreadable.len()
        )?;
    }
    if report.raced > 0 {
        writeln!(out, "{} files were being archived by another run; the next run takes them", report.raced)?;
    }
    writeln!(out, "in {} ms", took.as_millis())?;
    out.flush()?;
    Ok(())
}

/// `n` bytes in words.
fn bytes(n: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // A size in words needs one decimal.
    let mb = n as f64 / 1e6;
    if n < 1_000_000 { format!("{n} bytes") } else { format!("{mb:.1} MB") }
}

/// Keeps the pi-family sessions `paths` also as entries in the store `url`
/// (the model the write verbs work on); returns how many were copied. A
/// session the store holds with other entries is left and said.
fn keep_entries(url: &str, paths: &[std::path::PathBuf]) -> anyhow::Result<usize> {
    if paths.is_empty() {
        return Ok(0);
    }
    let backend = sess::store::open(url, sess::store::Missing::Created, &Printed)?;
    let mut copied = 0;
    for path in paths {
        let Ok(session) = crate::commands::copy::session_file(Path::new(path)) else { continue };
        match crate::commands::copy::copy_session(backend.as_ref(), url, &session, &mut |_| {})? {
            Ok(_) => copied += 1,
            Err(reason) => warn(format_args!("{reason} (its bytes are archived)")),
        }
    }
    Ok(copied)
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
