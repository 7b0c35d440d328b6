//! An edit's diff as the lines of a unified diff, for the Markdown and HTML
//! writers: the file header (`--- a/…`, `+++ b/…`), a note for a file
//! written whole or deleted, then each hunk's `@@` header and its lines. As
//! `sess show` prints it.

use sess_sources::{FileDiff, LineKind};

/// What a line of a unified diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `--- a/path` or `+++ b/path`.
    Header,
    /// `whole file written` or `file deleted`: said, not part of the diff.
    Note,
    /// `@@ -1,3 +1,4 @@`.
    Hunk,
    /// A line kept (` `), added (`+`) or removed (`-`).
    Line(LineKind),
}

/// The lines of `diff`, each with its kind.
pub(crate) fn lines(diff: &FileDiff) -> Vec<(Kind, String)> {
    let (from, to) = diff.path.split_once(" → ").unwrap_or((&diff.path, &diff.path));
    let side = |prefix: &str, path: &str| format!("{prefix}{}", path.strip_prefix('/').unwrap_or(path));
    let deleted = diff.hunks.is_empty() && !diff.new_file;
    let mut out = vec![
        (Kind::Header, format!("--- {}", side("a/", from))),
        (Kind::Header, format!("+++ {}", if deleted { "/dev/null".to_owned() } else { side("b/", to) })),
    ];
    if diff.new_file {
        out.push((Kind::Note, "whole file written".to_owned()));
    } else if deleted {
        out.push((Kind::Note, "file deleted".to_owned()));
    }
    for hunk in &diff.hunks {
        out.push((Kind::Hunk, hunk.header()));
        for line in &hunk.lines {
            out.push((Kind::Line(line.kind), format!("{}{}", line.kind.mark(), line.text)));
        }
    }
    out
}
