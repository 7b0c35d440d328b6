//! What a tool call did to a file, as the call itself says it: text replaced
//! by other text, a whole file written, lines changed by a patch, a file
//! deleted. Each agent's [`Source::edits`](crate::Source::edits) reads its own
//! tools' inputs into [`FileEdit`]s; [`crate::diff`] turns them into unified
//! diffs. Nothing here reads the files themselves: a session holds only what
//! the call sent.

/// One file's change by one tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEdit {
    /// The file, as the call names it (absolute or relative to the session's
    /// directory).
    pub path: String,
    /// Where a patch moved the file to, when it did.
    pub moved_to: Option<String>,
    /// What the call did to it.
    pub change: Change,
}

/// What a tool call did to a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Pieces of text replaced by others, in the order the call applies them
    /// (one for an `Edit`, several for a `MultiEdit`-like tool).
    Replace(Vec<Replacement>),
    /// The whole content written: a new file, or one overwritten (what it
    /// held before is not in the session).
    Write(String),
    /// Lines changed as a patch says, hunk by hunk, each hunk's lines as the
    /// patch wrote them.
    Patch(Vec<PatchHunk>),
    /// The file deleted (its lines are not in the session).
    Delete,
}

/// One piece of text replaced by another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// The text the call looked for.
    pub old: String,
    /// The text it put in its place.
    pub new: String,
    /// Whether every occurrence was replaced, not only the one: the diff
    /// shows the replaced text once either way.
    pub all: bool,
}

/// One hunk of a patch: its lines, each kept, added or removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchHunk {
    /// The lines, in order, without their line endings.
    pub lines: Vec<crate::diff::DiffLine>,
}

impl FileEdit {
    /// `old` replaced by `new` in the file at `path` (`all`: every
    /// occurrence).
    pub fn replace(path: impl Into<String>, old: impl Into<String>, new: impl Into<String>, all: bool) -> Self {
        Self::replacements(path, vec![Replacement { old: old.into(), new: new.into(), all }])
    }

    /// Several replacements in the file at `path`, in order.
    pub fn replacements(path: impl Into<String>, replacements: Vec<Replacement>) -> Self {
        Self { path: path.into(), moved_to: None, change: Change::Replace(replacements) }
    }

    /// The file at `path` written whole with `content`.
    pub fn write(path: impl Into<String>, content: impl Into<String>) -> Self {
        Self { path: path.into(), moved_to: None, change: Change::Write(content.into()) }
    }
}

/// The string field `key` of a tool call's `input`.
pub(crate) fn text<'a>(input: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(serde_json::Value::as_str)
}

/// The boolean field `key` of a tool call's `input`, false when absent.
pub(crate) fn flag(input: &serde_json::Value, key: &str) -> bool {
    input.get(key).and_then(serde_json::Value::as_bool).unwrap_or(false)
}

/// A replacement of the file named by `input[path_key]`, from the string
/// fields `old_key` and `new_key` (and the boolean `all_key`, when the tool
/// has one); `None` when a field is missing.
pub(crate) fn replace_from(
    input: &serde_json::Value,
    path_key: &str,
    old_key: &str,
    new_key: &str,
    all_key: Option<&str>,
) -> Option<FileEdit> {
    let all = all_key.is_some_and(|key| flag(input, key));
    Some(FileEdit::replace(text(input, path_key)?, text(input, old_key)?, text(input, new_key)?, all))
}

/// Several replacements of the file named by `input[path_key]`, applied in
/// order: the array `input[list_key]`, each item with the fields of
/// [`replace_from`]; `None` when a field is missing.
pub(crate) fn replacements_from(
    input: &serde_json::Value,
    path_key: &str,
    list_key: &str,
    [old_key, new_key]: [&str; 2],
    all_key: Option<&str>,
) -> Option<FileEdit> {
    let replacements = input
        .get(list_key)?
        .as_array()?
        .iter()
        .map(|item| {
            Some(Replacement {
                old: text(item, old_key)?.to_owned(),
                new: text(item, new_key)?.to_owned(),
                all: all_key.is_some_and(|key| flag(item, key)),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(FileEdit::replacements(text(input, path_key)?, replacements))
}

/// A whole file written: the file named by `input[path_key]` with the
/// content `input[content_key]`; `None` when a field is missing.
pub(crate) fn write_from(input: &serde_json::Value, path_key: &str, content_key: &str) -> Option<FileEdit> {
    Some(FileEdit::write(text(input, path_key)?, text(input, content_key)?))
}

/// Helpers for the agents' tests of their edit tools.
#[cfg(test)]
pub(crate) mod testing {
    use std::path::PathBuf;

    use crate::transcript::{Block, Message, ToolCall, Transcript};

    /// A file of the repository's `fixtures/`.
    pub(crate) fn fixture(path: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(path)
    }

    /// Every tool call of `transcript`, its subagents' too, in order.
    pub(crate) fn calls(transcript: &Transcript) -> Vec<&ToolCall> {
        fn walk<'a>(messages: &'a [Message], out: &mut Vec<&'a ToolCall>) {
            for block in messages.iter().flat_map(|m| &m.blocks) {
                if let Block::ToolCall(call) = block {
                    out.push(call);
                    walk(&call.subagent, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&transcript.messages, &mut out);
        out
    }
}
