//! The edit tools of Cline (CLI and extension) and of the extensions that
//! keep its shape, as [`FileEdit`]s.
//!
//! - The CLI's `editor`: `{path, old_text, new_text, insert_line}`: `old_text`
//!   replaced by `new_text`; without `old_text`, the file created with
//!   `new_text`, or, with `insert_line`, `new_text` inserted there (the call
//!   of the real 3.0.65 session in `fixtures/cline/real-3.0.65/`).
//! - The CLI's `apply_patch`: `{input}`, the `*** Begin Patch` format.
//! - The extensions' `write_to_file`: `{path, content}`; Cline's
//!   `replace_in_file` and Roo Code's `apply_diff`: `{path, diff}`, blocks of
//!   `------- SEARCH` (or `<<<<<<< SEARCH`) text, `=======`, and the text
//!   that replaces it, closed by `+++++++ REPLACE` (or `>>>>>>> REPLACE`),
//!   Roo Code's with `:start_line:` lines; Roo Code's `insert_content`
//!   (`{path, line, content}`) and `search_and_replace` (`{path, search,
//!   replace}`).

use serde_json::Value;

use crate::diff::{DiffLine, LineKind};
use crate::edit::{Change, FileEdit, PatchHunk, Replacement, replace_from, text, write_from};
use crate::patch::parse_patch;
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of these agents' edit tools.
pub(crate) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    match call.name.as_str() {
        "editor" => editor(input).into_iter().collect(),
        "apply_patch" => text(input, "input").map(parse_patch).unwrap_or_default(),
        "write_to_file" => write_from(input, "path", "content").into_iter().collect(),
        "replace_in_file" | "apply_diff" => {
            let (Some(path), Some(diff)) = (text(input, "path"), text(input, "diff")) else { return Vec::new() };
            let replacements = search_replace(diff);
            if replacements.is_empty() { Vec::new() } else { vec![FileEdit::replacements(path, replacements)] }
        }
        "search_and_replace" => replace_from(input, "path", "search", "replace", None).into_iter().collect(),
        "insert_content" => {
            let (Some(path), Some(content)) = (text(input, "path"), text(input, "content")) else { return Vec::new() };
            vec![insertion(path, content)]
        }
        _ => Vec::new(),
    }
}

/// The CLI's `editor` call.
fn editor(input: &Value) -> Option<FileEdit> {
    let path = text(input, "path")?;
    let new = text(input, "new_text")?;
    match text(input, "old_text") {
        Some(old) => Some(FileEdit::replace(path, old, new, false)),
        None if input.get("insert_line").is_some_and(|line| !line.is_null()) => Some(insertion(path, new)),
        None => Some(FileEdit::write(path, new)),
    }
}

/// `content` inserted into the file at `path`: its lines added.
fn insertion(path: &str, content: &str) -> FileEdit {
    let lines = content.lines().map(|line| DiffLine { kind: LineKind::Add, text: line.to_owned() }).collect();
    FileEdit { path: path.to_owned(), moved_to: None, change: Change::Patch(vec![PatchHunk { lines }]) }
}

/// Where a line of a search/replace diff is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Outside,
    Search,
    Replace,
}

/// The replacements of a search/replace `diff`, in order.
pub(crate) fn search_replace(diff: &str) -> Vec<Replacement> {
    let mut out = Vec::new();
    let (mut part, mut old, mut new) = (Part::Outside, Vec::<&str>::new(), Vec::<&str>::new());
    let mut just_opened = false;
    for line in diff.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        let marker = line.trim();
        if is_marker(marker, &['-', '<'], "SEARCH") {
            (part, just_opened) = (Part::Search, true);
            old.clear();
            new.clear();
            continue;
        }
        match part {
            Part::Outside => {}
            Part::Search => {
                if marker.starts_with(":start_line:") || marker.starts_with(":end_line:") {
                    continue;
                }
                if just_opened && marker.len() >= 3 && marker.chars().all(|c| c == '-') {
                    just_opened = false;
                    continue;
                }
                just_opened = false;
                if marker.len() >= 3 && marker.chars().all(|c| c == '=') {
                    part = Part::Replace;
                } else {
                    old.push(line);
                }
            }
            Part::Replace => {
                if is_marker(marker, &['+', '>'], "REPLACE") {
                    out.push(Replacement { old: old.join("\n"), new: new.join("\n"), all: false });
                    part = Part::Outside;
                } else {
                    new.push(line);
                }
            }
        }
    }
    out
}

/// Whether `line` is at least three of one of `marks`, a space and `word`
/// (`------- SEARCH`, `<<<<<<< SEARCH`, `+++++++ REPLACE`).
fn is_marker(line: &str, marks: &[char], word: &str) -> bool {
    let Some(run) = line.strip_suffix(word).map(str::trim_end) else { return false };
    run.len() >= 3 && marks.iter().any(|&mark| run.chars().all(|c| c == mark))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_the_cli_editor() {
        let replace =
            ToolCall::running("c", "editor", json!({"path": "/p/a.py", "old_text": "a = 1", "new_text": "a = 2"}));
        assert_eq!(edits(&replace), [FileEdit::replace("/p/a.py", "a = 1", "a = 2", false)]);
        let create =
            ToolCall::running("c", "editor", json!({"path": "/p/b.txt", "new_text": "hi\n", "old_text": null}));
        assert_eq!(edits(&create), [FileEdit::write("/p/b.txt", "hi\n")]);
        let insert = ToolCall::running("c", "editor", json!({"path": "/p/b.txt", "new_text": "x", "insert_line": 2}));
        assert!(matches!(&edits(&insert)[0].change, Change::Patch(hunks) if hunks[0].lines.len() == 1));
    }

    #[test]
    fn reads_search_replace_blocks_of_cline_and_roo_code() {
        let cline = "------- SEARCH\nold line\n=======\nnew line\n+++++++ REPLACE\n\n------- SEARCH\na\n=======\nb\nc\n+++++++ REPLACE";
        let call = ToolCall::running("c", "replace_in_file", json!({"path": "src/x.ts", "diff": cline}));
        assert_eq!(
            edits(&call),
            [FileEdit::replacements(
                "src/x.ts",
                vec![
                    Replacement { old: "old line".into(), new: "new line".into(), all: false },
                    Replacement { old: "a".into(), new: "b\nc".into(), all: false }
                ]
            )]
        );
        let roo = "<<<<<<< SEARCH\n:start_line:3\n-------\nfn a() {}\n=======\nfn b() {}\n>>>>>>> REPLACE";
        assert_eq!(search_replace(roo), [Replacement { old: "fn a() {}".into(), new: "fn b() {}".into(), all: false }]);
        let write = ToolCall::running("c", "write_to_file", json!({"path": "n.md", "content": "# N\n"}));
        assert_eq!(edits(&write), [FileEdit::write("n.md", "# N\n")]);
    }
}
