//! The patch format of the `apply_patch` tool, which Codex and the GitHub
//! Copilot CLI give their models: a patch that names files and changes their
//! lines by context rather than by line number.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: notes.txt
//! +first note
//! *** Update File: src/app.py
//! *** Move to: src/main.py
//! @@ def main():
//! -    print("hi")
//! +    print("hello")
//! *** Delete File: old.txt
//! *** End Patch
//! ```
//!
//! Reading is lenient, as the tools are: text before `*** Begin Patch` (a
//! shell heredoc's first line) and after `*** End Patch` is ignored, a
//! missing marker is no error, a line of an update without a `+`, `-` or
//! space prefix is a kept line as written, and CRLF line endings are read as
//! LF. The text after `@@` (a line the hunk is near, for the tool to find
//! it) is not a line of the hunk and is not kept.

use crate::diff::{DiffLine, LineKind};
use crate::edit::{Change, FileEdit, PatchHunk};

/// The files `text` changes, in the order it names them; empty when it names
/// none.
pub fn parse_patch(text: &str) -> Vec<FileEdit> {
    let mut lines = text.lines().map(|line| line.strip_suffix('\r').unwrap_or(line)).peekable();
    if text.lines().any(|line| line.trim() == "*** Begin Patch") {
        for line in lines.by_ref() {
            if line.trim() == "*** Begin Patch" {
                break;
            }
        }
    }
    let mut edits: Vec<FileEdit> = Vec::new();
    for line in lines {
        if line.trim() == "*** End Patch" {
            break;
        }
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            edits.push(FileEdit::write(path.trim(), String::new()));
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            edits.push(FileEdit { path: path.trim().to_owned(), moved_to: None, change: Change::Delete });
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            edits.push(FileEdit { path: path.trim().to_owned(), moved_to: None, change: Change::Patch(Vec::new()) });
        } else if let Some(path) = line.strip_prefix("*** Move to: ") {
            if let Some(edit) = edits.last_mut() {
                edit.moved_to = Some(path.trim().to_owned());
            }
        } else if line.starts_with("*** ") {
            // `*** End of File` and markers this reader does not know.
        } else if let Some(edit) = edits.last_mut() {
            body_line(&mut edit.change, line);
        }
    }
    edits
}

/// A line of a file's section: a line of an added file's content, or of an
/// update's hunks.
fn body_line(change: &mut Change, line: &str) {
    match change {
        Change::Write(content) => {
            content.push_str(line.strip_prefix('+').unwrap_or(line));
            content.push('\n');
        }
        Change::Patch(hunks) => {
            if line.starts_with("@@") {
                hunks.push(PatchHunk::default());
                return;
            }
            let (kind, text) = match line.chars().next() {
                Some('+') => (LineKind::Add, &line[1..]),
                Some('-') => (LineKind::Remove, &line[1..]),
                Some(' ') => (LineKind::Context, &line[1..]),
                _ => (LineKind::Context, line),
            };
            if hunks.is_empty() {
                hunks.push(PatchHunk::default());
            }
            if let Some(hunk) = hunks.last_mut() {
                hunk.lines.push(DiffLine { kind, text: text.to_owned() });
            }
        }
        Change::Replace(_) | Change::Delete => {}
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn line(kind: LineKind, text: &str) -> DiffLine {
        DiffLine { kind, text: text.to_owned() }
    }

    #[test]
    fn reads_every_kind_of_section() {
        let patch = "*** Begin Patch\n*** Add File: notes.txt\n+first note\n+second note\n\
                     *** Update File: src/app.py\n*** Move to: src/main.py\n@@ def main():\n \
                     def main():\n-    print(\"hi\")\n+    print(\"hello\")\n@@\n-x = 1\n+x = 2\n*** End of File\n\
                     *** Delete File: old.txt\n*** End Patch\n";
        let edits = parse_patch(patch);
        assert_eq!(
            edits,
            vec![
                FileEdit::write("notes.txt", "first note\nsecond note\n"),
                FileEdit {
                    path: "src/app.py".into(),
                    moved_to: Some("src/main.py".into()),
                    change: Change::Patch(vec![
                        PatchHunk {
                            lines: vec![
                                line(LineKind::Context, "def main():"),
                                line(LineKind::Remove, "    print(\"hi\")"),
                                line(LineKind::Add, "    print(\"hello\")"),
                            ]
                        },
                        PatchHunk { lines: vec![line(LineKind::Remove, "x = 1"), line(LineKind::Add, "x = 2")] },
                    ]),
                },
                FileEdit { path: "old.txt".into(), moved_to: None, change: Change::Delete },
            ]
        );
    }

    #[test]
    fn tolerates_a_heredoc_crlf_and_missing_markers() {
        let heredoc = "apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Update File: a.txt\r\n-old\r\n+new\r\n\
                       *** End Patch\r\nEOF\r\n";
        assert_eq!(
            parse_patch(heredoc),
            vec![FileEdit {
                path: "a.txt".into(),
                moved_to: None,
                change: Change::Patch(vec![PatchHunk {
                    lines: vec![line(LineKind::Remove, "old"), line(LineKind::Add, "new")]
                }]),
            }]
        );
        // No markers at all, and a line with no prefix kept as written.
        assert_eq!(
            parse_patch("*** Update File: b.txt\n@@\nkept\n+added"),
            vec![FileEdit {
                path: "b.txt".into(),
                moved_to: None,
                change: Change::Patch(vec![PatchHunk {
                    lines: vec![line(LineKind::Context, "kept"), line(LineKind::Add, "added")]
                }]),
            }]
        );
        assert_eq!(parse_patch("not a patch at all"), Vec::new());
        assert_eq!(parse_patch(""), Vec::new());
    }
}
