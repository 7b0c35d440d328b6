//! `sess verify PATH… [--json]`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sess_core::FileKind;
use sess_core::integrity::{self, Finding, Severity};
use sess_store::storage::regular_file;
use sess_store::{Error, FileStorage, SessionStorage as _, discovery, read_session_file};

use crate::Outcome;
use crate::cli::VerifyArgs;
use crate::output::{Hint, print_json, stdout, warn_skipped};

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
    match read_session_file(path) {
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
///
/// A named path must be a session file or a folder holding some: a FIFO, a
/// device, a folder named like a session file (`x.jsonl`) and a folder with no
/// session file below it are errors. In a folder, `*.jsonl` names that are not
/// regular files are skipped with a warning.
fn collect(path: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let stat = FileStorage.stat(path).map_err(|e| Error::from_io("reading", path, e))?;
    let named_like_a_session = path.extension().is_some_and(|e| e == "jsonl");
    if stat.kind != FileKind::Directory || named_like_a_session {
        regular_file(&FileStorage, path).map_err(|e| Error::from_io("reading", path, e))?;
        files.push(path.to_owned());
        return Ok(());
    }
    let found = discovery::find_session_files(&FileStorage, path, discovery::Depth::All);
    warn_skipped(&found.skipped);
    let mut found = found.files;
    if found.is_empty() {
        return Err(anyhow::Error::new(Hint("give a session file, or a folder that holds some".to_owned()))
            .context(format!("`{}` holds no session files (*.jsonl)", path.display())));
    }
    found.sort();
    files.extend(found);
    Ok(())
}
