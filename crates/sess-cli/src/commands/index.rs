//! `sess index`: build or refresh the search catalog.

use std::io::Write;

use serde::Serialize;
use sess_catalog::RefreshReport;

use crate::Outcome;
use crate::catalog;
use crate::cli::IndexArgs;
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
}

pub(crate) fn run(args: &IndexArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let path = catalog::path(args.catalog.path.as_deref())?;
    let mut catalog = catalog::open(&path)?;
    let refreshed = catalog::refresh(&mut catalog, store, catalog::Bar::Shown)?;
    let report = &refreshed.report;
    let sessions = catalog.len()?;
    if args.json {
        let millis = refreshed.took.as_millis();
        print_json(&Json { catalog: &path, sessions, millis, report, store: refreshed.store.as_ref() }, false)?;
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
    out.flush()?;
    Ok(Outcome::Clean)
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
