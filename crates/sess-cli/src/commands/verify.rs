//! `sess verify PATH… [--json]`.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Serialize;
use sess_core::integrity::{self, Finding, Severity};
use sess_store::{RandomIds, read_session_file};

use crate::Outcome;
use crate::cli::VerifyArgs;
use crate::output::{print_json, stdout};

#[derive(Serialize)]
struct FileReport {
    path: PathBuf,
    ok: bool,
    entries: usize,
    findings: Vec<Finding>,
}

pub(crate) fn run(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let mut files = Vec::new();
    for path in &args.paths {
        collect(path, &mut files)?;
    }
    let reports: Vec<FileReport> = files.iter().map(|path| verify_file(path)).collect();
    let clean = reports.iter().all(|r| r.ok);
    if args.json {
        print_json(&reports, false)?;
    } else {
        let mut out = stdout();
        for report in &reports {
            let errors = report.findings.iter().filter(|f| f.severity == Severity::Error).count();
            let warnings = report.findings.len() - errors;
            let status = match (errors, warnings) {
                (0, 0) => "ok".to_owned(),
                (0, w) => format!("ok, {w} {}", plural(w, "warning")),
                (e, 0) => format!("{e} {}", plural(e, "problem")),
                (e, w) => format!("{e} {}, {w} {}", plural(e, "problem"), plural(w, "warning")),
            };
            writeln!(out, "`{}`: {status} ({} entries)", report.path.display(), report.entries)?;
            for finding in &report.findings {
                let severity = match finding.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                match finding.line {
                    Some(line) => writeln!(out, "  line {line}: {severity}: {}", finding.message)?,
                    None => writeln!(out, "  {severity}: {}", finding.message)?,
                }
            }
        }
        if reports.len() > 1 {
            let bad = reports.iter().filter(|r| !r.ok).count();
            writeln!(out, "{} files checked, {bad} with problems", reports.len())?;
        }
        out.flush()?;
    }
    Ok(if clean { Outcome::Clean } else { Outcome::Findings })
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { word.to_owned() } else { format!("{word}s") }
}

fn verify_file(path: &Path) -> FileReport {
    match read_session_file(path, &mut RandomIds::new()) {
        Ok(outcome) => {
            let findings = integrity::check(&outcome);
            let ok = findings.iter().all(|f| f.severity != Severity::Error);
            FileReport { path: path.to_owned(), ok, entries: outcome.file.entries().len(), findings }
        }
        Err(err) => FileReport {
            path: path.to_owned(),
            ok: false,
            entries: 0,
            findings: vec![Finding {
                severity: Severity::Error,
                code: "unreadable",
                line: None,
                entry_id: None,
                message: err.to_string(),
            }],
        },
    }
}

/// `path` itself, or every `*.jsonl` file below it (sorted; symlinked
/// directories are not followed).
fn collect(path: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let meta = fs::metadata(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    if !meta.is_dir() {
        files.push(path.to_owned());
        return Ok(());
    }
    let mut found = Vec::new();
    let mut dirs = vec![path.to_owned()];
    while let Some(dir) = dirs.pop() {
        let listing = fs::read_dir(&dir).with_context(|| format!("cannot list `{}`", dir.display()))?;
        for item in listing {
            let item = item.with_context(|| format!("cannot list `{}`", dir.display()))?;
            let kind = item.file_type().with_context(|| format!("cannot read `{}`", item.path().display()))?;
            let child = item.path();
            if kind.is_dir() {
                dirs.push(child);
            } else if child.extension().is_some_and(|e| e == "jsonl") {
                found.push(child);
            }
        }
    }
    found.sort();
    files.extend(found);
    Ok(())
}
