//! Auggie's edit tools as [`FileEdit`]s (their fields from the tools'
//! declarations in `@augmentcode/auggie` 0.36.0):
//!
//! - `str-replace-editor` with `command` `str_replace`: `{path, old_str_1,
//!   new_str_1, old_str_2, new_str_2, …}` (the line numbers beside them
//!   only place each piece), applied in order; a single `old_str`/`new_str`
//!   pair is read too;
//! - the same tool with `command` `insert`: `{path, insert_line_1,
//!   new_str_1, …}`, each piece's lines added;
//! - `save-file`: `{path, file_content, add_last_line_newline}` (a final
//!   newline added unless that is false), the whole file;
//! - `remove-files`: `{file_paths}`, each deleted.

use serde_json::Value;

use crate::diff::{DiffLine, LineKind};
use crate::edit::{Change, FileEdit, PatchHunk, Replacement, text};
use crate::transcript::ToolCall;

/// The files `call` changes, when it is one of Auggie's edit tools.
pub(super) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    let input = &call.input;
    match call.name.as_str() {
        "str-replace-editor" => match text(input, "command") {
            Some("str_replace") => replace(input).into_iter().collect(),
            Some("insert") => insert(input).into_iter().collect(),
            _ => Vec::new(),
        },
        "save-file" => save(input).into_iter().collect(),
        "remove-files" => input
            .get("file_paths")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|path| FileEdit { path: path.to_owned(), moved_to: None, change: Change::Delete })
            .collect(),
        _ => Vec::new(),
    }
}

/// The numbered fields `<key>_1`, `<key>_2`, … of `input`, until one is
/// missing.
fn numbered<'a>(input: &'a Value, key: &'a str) -> impl Iterator<Item = (usize, &'a Value)> + 'a {
    (1..).map_while(move |n| input.get(format!("{key}_{n}")).map(|v| (n, v)))
}

fn replace(input: &Value) -> Option<FileEdit> {
    let path = text(input, "path")?;
    let mut replacements: Vec<Replacement> = numbered(input, "old_str")
        .map(|(n, old)| {
            let new = input.get(format!("new_str_{n}")).and_then(Value::as_str)?;
            Some(Replacement { old: old.as_str()?.to_owned(), new: new.to_owned(), all: false })
        })
        .collect::<Option<_>>()?;
    if replacements.is_empty() {
        replacements.push(Replacement {
            old: text(input, "old_str")?.to_owned(),
            new: text(input, "new_str")?.to_owned(),
            all: false,
        });
    }
    Some(FileEdit::replacements(path, replacements))
}

fn insert(input: &Value) -> Option<FileEdit> {
    let path = text(input, "path")?;
    let hunks: Vec<PatchHunk> = numbered(input, "insert_line")
        .filter_map(|(n, _)| input.get(format!("new_str_{n}")).and_then(Value::as_str))
        .map(|new| PatchHunk {
            lines: new.lines().map(|line| DiffLine { kind: LineKind::Add, text: line.to_owned() }).collect(),
        })
        .collect();
    (!hunks.is_empty()).then(|| FileEdit { path: path.to_owned(), moved_to: None, change: Change::Patch(hunks) })
}

fn save(input: &Value) -> Option<FileEdit> {
    let path = text(input, "path")?;
    let mut content = text(input, "file_content")?.to_owned();
    let newline = input.get("add_last_line_newline").and_then(Value::as_bool).unwrap_or(true);
    if newline && !content.ends_with('\n') {
        content.push('\n');
    }
    Some(FileEdit::write(path, content))
}
