//! What `sess verify` checks in a Codex rollout.

use sess_core::integrity::line_finding;

use super::rollout;
use crate::jsonl::JsonLines;
use crate::verify::Checked;

/// Checks a rollout's (decompressed) bytes: lines that are not JSON, or
/// whose payload does not have the shape its type promises, and a torn last
/// line. `entries` counts the lines read without a problem.
pub fn verify(bytes: &[u8]) -> Checked {
    let issues = rollout::read(bytes).transcript.issues;
    let lines = JsonLines::new(bytes).count();
    let mut findings: Vec<_> = issues.iter().map(line_finding).collect();
    findings.sort_by_key(|f| f.line);
    Checked { entries: lines.saturating_sub(issues.len()), findings }
}
