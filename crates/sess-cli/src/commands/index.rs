//! `sess index`: build or refresh the search catalog.

use std::io::Write;

use serde::Serialize;
use sess_catalog::RefreshReport;

use crate::Outcome;
use crate::catalog;
use crate::cli::IndexArgs;
use crate::output::{print_json, stdout, warn};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Json<'a> {
    catalog: &'a std::path::Path,
    sessions: usize,
    millis: u128,
    #[serde(flatten)]
    report: &'a RefreshReport,
}

pub(crate) fn run(args: &IndexArgs) -> anyhow::Result<Outcome> {
    let path = catalog::path(args.catalog.path.as_deref());
    let mut catalog = catalog::open(&path)?;
    let refreshed = catalog::refresh(&mut catalog)?;
    let report = &refreshed.report;
    let sessions = catalog.len()?;
    if args.json {
        print_json(&Json { catalog: &path, sessions, millis: refreshed.took.as_millis(), report }, false)?;
        return Ok(Outcome::Clean);
    }
    for problem in &report.problems {
        warn(format_args!("`{}`: {}; not in the catalog", problem.path.display(), problem.reason));
    }
    let mut out = stdout();
    writeln!(out, "{} sessions in `{}`", sessions, path.display())?;
    writeln!(
        out,
        "{} files: {} new, {} grown, {} read again, {} unchanged, {} removed, {} unreadable; {} messages indexed in {} ms",
        report.files,
        report.added,
        report.grown,
        report.reread,
        report.unchanged,
        report.removed,
        report.problems.len(),
        report.messages,
        refreshed.took.as_millis()
    )?;
    out.flush()?;
    Ok(Outcome::Clean)
}
