//! `sess index`: build or refresh the search catalog.

use std::io::Write;

use serde::Serialize;
use sess_catalog::RefreshReport;

use crate::Outcome;
use crate::catalog;
use crate::cli::IndexArgs;
use crate::embedded::Embedded;
use crate::output::{print_json, stdout};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Json<'a> {
    catalog: &'a std::path::Path,
    sessions: usize,
    millis: u128,
    #[serde(flatten)]
    report: &'a RefreshReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<&'a RefreshReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    embedded: Option<Embedded>,
}

pub(crate) fn run(args: &IndexArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let path = catalog::path(args.catalog.path.as_deref())?;
    let mut catalog = catalog::open(&path)?;
    let refreshed = catalog::refresh(&mut catalog, store, catalog::Bar::Shown)?;
    let report = &refreshed.report;
    let sessions = catalog.len()?;
    let model = catalog::model_dir(args.model.dir.as_deref());
    let embedded = model.map(|dir| embed(&mut catalog, &dir)).transpose()?;
    if args.json {
        let millis = refreshed.took.as_millis();
        let store = refreshed.store.as_ref();
        print_json(&Json { catalog: &path, sessions, millis, report, store, embedded }, false)?;
        return Ok(Outcome::Clean);
    }
    catalog::warn_problems(&refreshed);
    let mut out = stdout();
    writeln!(out, "{} sessions in `{}`", sessions, path.display())?;
    writeln!(out, "{} files: {}", report.files, counts(report, true))?;
    if let (Some(url), Some(report)) = (store, &refreshed.store) {
        writeln!(out, "{} sessions of `{url}`: {}", report.files, counts(report, false))?;
    }
    writeln!(out, "in {} ms", refreshed.took.as_millis())?;
    if let Some(done) = embedded {
        done.print(&mut out)?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// Embeds the catalog's messages that have no vector with the model in `dir`.
fn embed(catalog: &mut sess_catalog::Catalog, dir: &std::path::Path) -> anyhow::Result<Embedded> {
    let started = std::time::Instant::now();
    let model = sess::meaning::load_model(dir)?;
    let report = catalog::embed(catalog, &model)?;
    Ok(Embedded::new(dir, &report, started))
}

/// What a refresh did, in words (`grown` only where files can grow).
fn counts(report: &RefreshReport, grown: bool) -> String {
    let grown = if grown { format!(" {} grown,", report.grown) } else { String::new() };
    format!(
        "{} new,{grown} {} read again, {} unchanged, {} removed, {} unreadable; {} messages indexed",
        report.added,
        report.reread,
        report.unchanged,
        report.removed,
        report.problems.len(),
        report.messages
    )
}
