//! Integrity checks: what `sess verify` reports. With no hash chain, a session is
//! sound when every line parses, ids are unique, every parent exists, and no
//! parent chain loops.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::entry::EntryKind;
use crate::header::{CURRENT_VERSION, Version};
use crate::id::EntryId;
use crate::jsonl::{IssueKind, LineIssue, ReadOutcome};
use crate::session_file::SessionFile;
use crate::tree::{EntryIndex, Tree};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the session is sound.
    Warning,
    /// The file is damaged or inconsistent.
    Error,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// A stable, machine-readable name: `invalid-json`, `duplicate-id`, …
    pub code: &'static str,
    /// The 1-based line it concerns, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The entry it concerns, if any.
    #[serde(rename = "entryId", skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// What is wrong, for people.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Checks a read session file.
pub fn check(outcome: &ReadOutcome) -> Vec<Finding> {
    let mut findings = Findings(Vec::new());
    check_lines(outcome, &mut findings);
    check_header(outcome, &mut findings);
    check_ids(&outcome.file, &mut findings);
    check_links(&outcome.file, &mut findings);
    let mut findings = findings.0;
    findings.sort_by_key(|f| (f.line.unwrap_or(0), std::cmp::Reverse(f.severity)));
    findings
}

struct Findings(Vec<Finding>);

impl Findings {
    fn add(
        &mut self,
        severity: Severity,
        code: &'static str,
        line: Option<usize>,
        entry: Option<&EntryId>,
        message: String,
    ) {
        let entry_id = entry.map(|id| id.as_str().to_owned());
        self.0.push(Finding { severity, code, line, entry_id, message });
    }
}

fn check_lines(outcome: &ReadOutcome, findings: &mut Findings) {
    findings.0.extend(outcome.issues.iter().map(line_finding));
}

/// A line the reader skipped or repaired, as an error finding.
pub fn line_finding(issue: &LineIssue) -> Finding {
    Finding {
        severity: Severity::Error,
        code: issue.kind.code(),
        line: Some(issue.line),
        entry_id: None,
        message: issue.kind.to_string(),
    }
}

impl IssueKind {
    /// The finding code of a line with this issue: `invalid-json`, …
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidJson(_) => "invalid-json",
            Self::TruncatedLastLine => "truncated-line",
            Self::NotAnObject => "not-an-object",
            Self::MissingId => "missing-id",
            Self::ExtraHeader => "extra-header",
            Self::NotAHeader => "bad-header",
            Self::InvalidUtf8 => "invalid-utf8",
            Self::TooLong => "line-too-long",
        }
    }
}

fn check_header(outcome: &ReadOutcome, findings: &mut Findings) {
    match outcome.file.header() {
        None if !outcome.issues.iter().any(|i| i.kind == IssueKind::NotAHeader) => {
            findings.add(Severity::Error, "missing-header", None, None, "the file has no session header".to_owned());
        }
        None => {}
        Some(header) => {
            let Version(version) = header.version();
            if header.version().is_newer_than_supported() {
                let message = format!("format version {version} is newer than this sess supports ({CURRENT_VERSION})");
                findings.add(Severity::Warning, "version-too-new", Some(1), None, message);
            } else if !header.version().is_number() {
                findings.add(
                    Severity::Error,
                    "bad-version",
                    Some(1),
                    None,
                    "the header's version is not a number".to_owned(),
                );
            }
        }
    }
    if let Some(from) = outcome.migrated_from {
        let message = format!("format version {} needs migrating to {CURRENT_VERSION} (run `sess migrate`)", from.0);
        findings.add(Severity::Warning, "needs-migration", Some(1), None, message);
    }
}

fn check_ids(file: &SessionFile, findings: &mut Findings) {
    let mut first_line: HashMap<&str, usize> = HashMap::new();
    for (position, entry) in file.entries().iter().enumerate() {
        let line = file.line_of(position);
        if let Some(&first) = first_line.get(entry.id().as_str()) {
            let message = format!("id {} is also used on line {first}", entry.id());
            findings.add(Severity::Error, "duplicate-id", Some(line), Some(entry.id()), message);
        } else {
            first_line.insert(entry.id().as_str(), line);
        }
    }
}

fn check_links(file: &SessionFile, findings: &mut Findings) {
    let entries = file.entries();
    let index = EntryIndex::new(entries);
    for (position, entry) in entries.iter().enumerate() {
        let line = Some(file.line_of(position));
        let id = Some(entry.id());
        if let Some(parent) = entry.parent_id() {
            if parent == entry.id() {
                findings.add(Severity::Error, "self-parent", line, id, format!("entry {parent} is its own parent"));
            } else if !index.contains(parent.as_str()) {
                findings.add(Severity::Error, "dangling-parent", line, id, format!("parent {parent} does not exist"));
            }
        }
        let missing = match entry.kind() {
            EntryKind::Label(label) => match &label.target_id {
                Some(target) if !index.contains(target.as_str()) => {
                    Some(("label-target-missing", format!("label target {target} does not exist")))
                }
                None => Some(("label-target-missing", "label has no targetId".to_owned())),
                Some(_) => None,
            },
            EntryKind::Compaction(compaction) => compaction
                .first_kept_entry_id
                .as_ref()
                .filter(|first| !index.contains(first.as_str()))
                .map(|first| ("first-kept-missing", format!("firstKeptEntryId {first} does not exist"))),
            _ => None,
        };
        if let Some((code, message)) = missing {
            findings.add(Severity::Warning, code, line, id, message);
        }
    }
    for &position in &Tree::build(entries, &index).cycle_breaks {
        let entry = &entries[position];
        // A self-parent is a root of the tree, reported above.
        let message = format!("the parent chain of entry {} loops back to itself", entry.id());
        findings.add(Severity::Error, "cycle", Some(file.line_of(position)), Some(entry.id()), message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::SequentialIds;
    use crate::jsonl::read;

    fn codes(text: &str) -> Vec<(&'static str, Option<usize>)> {
        check(&read(text.as_bytes(), &mut SequentialIds::new("m"))).iter().map(|f| (f.code, f.line)).collect()
    }

    const H: &str = r#"{"type":"session","version":3,"id":"s"}"#;

    #[test]
    fn a_sound_file_has_no_findings() {
        assert_eq!(codes(&format!("{H}\n{{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}}\n")), vec![]);
    }

    #[test]
    fn finds_each_kind_of_damage() {
        let text = format!(
            "{H}\n\
             {{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}}\n\
             {{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}}\n\
             {{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"nope\"}}\n\
             {{\"type\":\"message\",\"id\":\"c\",\"parentId\":\"d\"}}\n\
             {{\"type\":\"message\",\"id\":\"d\",\"parentId\":\"c\"}}\n\
             {{\"type\":\"message\",\"id\":\"e\",\"parentId\":\"e\"}}\n\
             {{\"type\":\"label\",\"id\":\"l\",\"parentId\":\"a\",\"targetId\":\"zz\",\"label\":\"x\"}}\n\
             {{broken\n"
        );
        assert_eq!(
            codes(&text),
            vec![
                ("duplicate-id", Some(3)),
                ("dangling-parent", Some(4)),
                ("cycle", Some(5)),
                ("self-parent", Some(7)),
                ("label-target-missing", Some(8)),
                ("invalid-json", Some(9)),
            ]
        );
    }

    #[test]
    fn reports_headers_and_versions() {
        assert_eq!(codes(""), vec![("missing-header", None)]);
        assert_eq!(codes("{\"type\":\"message\",\"id\":\"a\"}\n"), vec![("bad-header", Some(1))]);
        assert_eq!(codes("{\"type\":\"session\",\"version\":9,\"id\":\"s\"}\n"), vec![("version-too-new", Some(1))]);
        assert_eq!(codes("{\"type\":\"session\",\"version\":2,\"id\":\"s\"}\n"), vec![("needs-migration", Some(1))]);
    }
}
