//! `sess verify PATH… [--json]`: each file checked by the rules of the agent
//! that wrote it.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sess_core::FileKind;
use sess_core::integrity::{self, Finding, Severity};
use sess_sources::SourceKind;
use sess_store::storage::regular_file;
use sess_store::{Error, FileStorage, SessionStorage as _, discovery, read_session_file};

use crate::Outcome;
use crate::cli::VerifyArgs;
use crate::output::{Hint, print_json, stdout, warn, warn_skipped};
use sess::resolve::DETECT_BYTES;

#[derive(Serialize)]
struct FileReport {
    path: PathBuf,
    /// The agent whose rules the file was checked by: `pi`, `claude`, `codex`;
    /// `null` for a file no agent wrote.
    agent: Option<SourceKind>,
    ok: bool,
    entries: usize,
    findings: Vec<Finding>,
}

pub(crate) fn run(args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let mut files = Vec::new();
    for path in &args.paths {
        collect(path, &mut files)?;
    }
    let reports: Vec<FileReport> = files.iter().filter_map(|(path, named)| verify_file(path, *named)).collect();
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
            let agent = report.agent.map_or("no agent's session", SourceKind::agent_name);
            writeln!(out, "`{}`: {status} ({agent}, {} entries)", report.path.display(), report.entries)?;
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

/// What is wrong in another agent's session file that has no check of its
/// own: what its reader skipped while it read the file as a transcript (a
/// database: each session it holds).
fn read_as_transcript(kind: SourceKind, path: &Path) -> sess_sources::Result<sess_sources::Checked> {
    let source = kind.source();
    let ids = source.row_ids(path).unwrap_or_default();
    let transcripts = if ids.is_empty() {
        vec![source.load(path)?]
    } else {
        ids.iter().map(|id| source.load_row(path, id)).collect::<sess_sources::Result<Vec<_>>>()?
    };
    Ok(sess_sources::Checked {
        entries: transcripts.iter().map(|t| t.messages.len()).sum(),
        findings: transcripts.iter().flat_map(|t| t.issues.iter().map(integrity::line_finding)).collect(),
    })
}

/// Checks one file by the rules of the agent that wrote it. A file found in
/// a folder that is not a session of any agent is skipped with a warning
/// (`None`); one named on the command line is reported as such.
fn verify_file(path: &Path, named: bool) -> Option<FileReport> {
    let report = |agent, entries, findings: Vec<Finding>| {
        let ok = findings.iter().all(|f| f.severity != Severity::Error);
        FileReport { path: path.to_owned(), agent, ok, entries, findings }
    };
    let unreadable = |agent, message: String| {
        let finding = Finding { severity: Severity::Error, code: "unreadable", line: None, entry_id: None, message };
        report(agent, 0, vec![finding])
    };
    let head = match FileStorage.read_range(path, 0, DETECT_BYTES) {
        Ok(head) => head,
        Err(err) => return Some(unreadable(None, Error::from_io("reading", path, err).to_string())),
    };
    let detected = sess_sources::detect(path, &head);
    let other = match detected {
        Some(kind) if !kind.is_native() => {
            Some(kind.source().verify(path).unwrap_or_else(|| read_as_transcript(kind, path)))
        }
        _ => None,
    };
    if let (Some(checked), Some(agent)) = (other, detected) {
        return Some(match checked {
            Ok(checked) => report(Some(agent), checked.entries, checked.findings),
            Err(err) => unreadable(Some(agent), err.to_string()),
        });
    }
    let outcome = match read_session_file(path) {
        Ok(outcome) => outcome,
        Err(err) => return Some(unreadable(Some(SourceKind::native()), err.to_string())),
    };
    let entries = outcome.file.entries();
    // Lines with ids but no `type` and no header: JSON lines of something else
    // (Codex's `session_index.jsonl`, say), not a damaged pi-family session.
    let foreign = detected.is_none()
        && outcome.file.header().is_none()
        && !entries.is_empty()
        && entries.iter().all(|e| e.type_name().is_empty());
    if foreign && !named {
        warn(format_args!("`{}` is not a session of any agent; skipped", path.display()));
        return None;
    }
    if foreign {
        let finding = Finding {
            severity: Severity::Error,
            code: "not-a-session",
            line: None,
            entry_id: None,
            message: format!("not a session of any agent sess reads ({})", sess::resolve::agent_names()),
        };
        return Some(report(None, 0, vec![finding]));
    }
    Some(report(Some(SourceKind::native()), entries.len(), integrity::check(&outcome)))
}

/// `path` itself, or every `*.jsonl` file below it (sorted; symlinked
/// directories are not followed).
///
/// A named path must be a session file or a folder holding some: a FIFO, a
/// device, a folder named like a session file (`x.jsonl`) and a folder with no
/// session file below it are errors. In a folder, `*.jsonl` names that are not
/// regular files are skipped with a warning.
fn collect(path: &Path, files: &mut Vec<(PathBuf, bool)>) -> anyhow::Result<()> {
    let stat = FileStorage.stat(path).map_err(|e| Error::from_io("reading", path, e))?;
    let named_like_a_session = path.extension().is_some_and(|e| e == "jsonl");
    if stat.kind != FileKind::Directory || named_like_a_session {
        regular_file(&FileStorage, path).map_err(|e| Error::from_io("reading", path, e))?;
        files.push((path.to_owned(), true));
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
    files.extend(found.into_iter().map(|file| (file, false)));
    Ok(())
}
