//! Edits as unified diffs: what each edit tool call changed, file by file,
//! in hunks with three lines of context, for `sess show`, the page and
//! exports.
//!
//! A session holds what a call sent, not the file it changed, so a diff is
//! between the texts the call names:
//!
//! - a replacement ([`Change::Replace`]) is the diff of the old text and the
//!   new, and its hunks count lines from the start of that text (line 1 is
//!   the first line of the replaced text, not of the file);
//! - a whole file written ([`Change::Write`]) is all added lines against
//!   nothing known (`new_file`), whether the file was new or overwritten;
//! - a patch ([`Change::Patch`]) keeps its hunks as the patch wrote them,
//!   each numbered from its own first line, since the patch places them by
//!   context, not by number;
//! - a deleted file has no hunks.
//!
//! Lines are compared without their endings: `\n` and `\r\n` are the same
//! line, and a missing newline at the end of the text changes nothing.
//!
//! Diffs are not made when a session is loaded (listing and indexing never
//! need them) but by [`add_diffs`], which the readers of one transcript
//! call.

use std::time::{Duration, Instant};

use serde::Serialize;
use similar::{Algorithm, ChangeTag, DiffOp};

use crate::edit::{Change, FileEdit, PatchHunk, Replacement};
use crate::source::Source;
use crate::transcript::{Block, Message, Transcript};

/// Lines of unchanged text kept around each change.
pub const CONTEXT_LINES: usize = 3;

/// How long one diff may take before it settles for a coarser one (a huge
/// replacement in a hostile file must not stall a page).
const TIME_LIMIT: Duration = Duration::from_millis(500);

/// One file's change by one tool call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    /// The file as the call names it; a file a patch moved is `old → new`.
    pub path: String,
    /// Whether the diff is against nothing known: the whole file was written
    /// (new, or overwritten), so every line is added.
    pub new_file: bool,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The changes. Empty only for a deleted file (not `new_file`) and for an
    /// empty file written (`new_file`).
    pub hunks: Vec<Hunk>,
}

/// A run of changed lines with the lines around them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// The first old line shown (from 1; for a hunk with no old lines, the
    /// line after which the new lines go, 0 at the start).
    pub old_start: usize,
    /// How many old lines the hunk shows (kept and removed).
    pub old_lines: usize,
    /// The first new line shown, counted as `old_start` is.
    pub new_start: usize,
    /// How many new lines the hunk shows (kept and added).
    pub new_lines: usize,
    /// The lines, in order.
    pub lines: Vec<DiffLine>,
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    /// Kept, added or removed.
    pub kind: LineKind,
    /// The line, without its line ending.
    pub text: String,
}

/// What happened to a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    /// Kept, shown around a change (` ` in a unified diff).
    Context,
    /// Added (`+`).
    Add,
    /// Removed (`-`).
    Remove,
}

impl LineKind {
    /// The line's mark in a unified diff: ` `, `+` or `-`.
    pub fn mark(self) -> char {
        match self {
            Self::Context => ' ',
            Self::Add => '+',
            Self::Remove => '-',
        }
    }
}

impl Hunk {
    /// The hunk's header: `@@ -1,3 +1,4 @@`.
    pub fn header(&self) -> String {
        format!("@@ -{},{} +{},{} @@", self.old_start, self.old_lines, self.new_start, self.new_lines)
    }
}

impl FileDiff {
    /// The diff of `edit`; `None` when it changes no line (a replacement by
    /// the same text, a patch whose hunks only keep lines).
    pub fn of(edit: &FileEdit) -> Option<Self> {
        let path = match &edit.moved_to {
            Some(to) if *to != edit.path => format!("{} → {to}", edit.path),
            _ => edit.path.clone(),
        };
        let (new_file, hunks): (bool, Vec<Hunk>) = match &edit.change {
            Change::Replace(replacements) => (false, replacements.iter().flat_map(replacement_hunks).collect()),
            Change::Write(content) => (true, written_hunk(content).into_iter().collect()),
            Change::Patch(hunks) => (false, hunks.iter().filter_map(patch_hunk).collect()),
            Change::Delete => return Some(Self { path, new_file: false, added: 0, removed: 0, hunks: Vec::new() }),
        };
        if hunks.is_empty() && !new_file {
            return None;
        }
        let count = |kind| hunks.iter().flat_map(|h: &Hunk| &h.lines).filter(|l| l.kind == kind).count();
        Some(Self { path, new_file, added: count(LineKind::Add), removed: count(LineKind::Remove), hunks })
    }
}

/// Fills [`ToolCall::diffs`](crate::ToolCall::diffs) of every tool call in
/// `transcript` (its subagents' calls too) with the edits its agent's
/// [`Source::edits`] reads in it.
pub fn add_diffs(transcript: &mut Transcript) {
    add_to(transcript.source.source(), &mut transcript.messages);
}

fn add_to(source: &dyn Source, messages: &mut [Message]) {
    for block in messages.iter_mut().flat_map(|m| &mut m.blocks) {
        if let Block::ToolCall(call) = block {
            call.diffs = source.edits(call).iter().filter_map(FileDiff::of).collect();
            add_to(source, &mut call.subagent);
        }
    }
}

/// The lines of `text` without their endings (`\n` or `\r\n`); a last line
/// without a newline is a line, an empty text has none.
fn lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect()
}

/// The hunks that turn `replacement.old` into `replacement.new`.
fn replacement_hunks(replacement: &Replacement) -> Vec<Hunk> {
    let old = lines(&replacement.old);
    let new = lines(&replacement.new);
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(Instant::now() + TIME_LIMIT));
    similar::group_diff_ops(ops, CONTEXT_LINES)
        .iter()
        .filter(|group| group.iter().any(|op| !matches!(op, DiffOp::Equal { .. })))
        .filter_map(|group| grouped_hunk(group, &old, &new))
        .collect()
}

/// One group of operations as a hunk.
fn grouped_hunk(group: &[DiffOp], old: &[&str], new: &[&str]) -> Option<Hunk> {
    let (first, last) = (group.first()?, group.last()?);
    let old_range = first.old_range().start..last.old_range().end;
    let new_range = first.new_range().start..last.new_range().end;
    let lines = group
        .iter()
        .flat_map(|op| op.iter_changes(old, new))
        .map(|change| {
            let kind = match change.tag() {
                ChangeTag::Equal => LineKind::Context,
                ChangeTag::Insert => LineKind::Add,
                ChangeTag::Delete => LineKind::Remove,
            };
            DiffLine { kind, text: change.value().to_owned() }
        })
        .collect();
    Some(Hunk {
        old_start: start(&old_range),
        old_lines: old_range.len(),
        new_start: start(&new_range),
        new_lines: new_range.len(),
        lines,
    })
}

/// A range's first line as a hunk header counts it: from 1, or the line
/// before it when the range is empty.
fn start(range: &std::ops::Range<usize>) -> usize {
    if range.is_empty() { range.start } else { range.start + 1 }
}

/// A whole file written: every line added; `None` for an empty file.
fn written_hunk(content: &str) -> Option<Hunk> {
    let lines: Vec<DiffLine> =
        lines(content).into_iter().map(|text| DiffLine { kind: LineKind::Add, text: text.to_owned() }).collect();
    if lines.is_empty() {
        return None;
    }
    Some(Hunk { old_start: 0, old_lines: 0, new_start: 1, new_lines: lines.len(), lines })
}

/// A patch's hunk as written, numbered from its first line; `None` when it
/// changes no line.
fn patch_hunk(hunk: &PatchHunk) -> Option<Hunk> {
    if hunk.lines.iter().all(|line| line.kind == LineKind::Context) {
        return None;
    }
    let old_lines = hunk.lines.iter().filter(|line| line.kind != LineKind::Add).count();
    let new_lines = hunk.lines.iter().filter(|line| line.kind != LineKind::Remove).count();
    Some(Hunk {
        old_start: usize::from(old_lines > 0),
        old_lines,
        new_start: usize::from(new_lines > 0),
        new_lines,
        lines: hunk.lines.clone(),
    })
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
