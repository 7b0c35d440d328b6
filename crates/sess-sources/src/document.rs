//! Sessions kept as one JSON document that the agent rewrites whole at every
//! save, the conversation an array under one key (the Continue CLI's
//! `history`, Auggie's `chatHistory`): how one is recognised, the document
//! read, its text fields, and its id.

use std::path::Path;

use serde_json::Value;

use crate::detect::Head;
use crate::error::{Error, Result};
use crate::jsonl::read_file;

/// Whether `head` starts a JSON document written over several lines (`{`
/// alone on the first) whose head holds every key of `keys` (each with its
/// quotes, as `"sessionId"`).
pub(crate) fn starts(head: &Head<'_>, keys: &[&[u8]]) -> bool {
    head.lines.first().is_some_and(|l| l.text.trim() == "{")
        && keys.iter().all(|key| memchr::memmem::find(head.bytes, key).is_some())
}

/// `read` of the session file at `path` from `bytes`, its complete lines,
/// else from the whole file: the agent ends the document without a
/// newline, so its complete lines lack the closing brace.
pub(crate) fn read_whole<T>(path: &Path, bytes: &[u8], read: impl Fn(&Path, &[u8]) -> Result<T>) -> Result<T, String> {
    match read(path, bytes) {
        Ok(read) => Ok(read),
        Err(_) => read(path, &read_file(path).map_err(|err| err.to_string())?).map_err(|err| err.to_string()),
    }
}

/// The document `bytes` of the file at `path`, when it parses and holds an
/// array under `key`; otherwise why it is not `what` (`a Continue session`).
pub(crate) fn parse(path: &Path, bytes: &[u8], what: &str, key: &str) -> Result<Value> {
    let not_a_session = |message: String| Error::NotARecord { path: path.to_owned(), message };
    let document: Value = serde_json::from_slice(bytes).map_err(|err| not_a_session(format!("not {what}: {err}")))?;
    if !document.get(key).is_some_and(Value::is_array) {
        return Err(not_a_session(format!("not {what}: no `{key}` array")));
    }
    Ok(document)
}

/// The items of the array under `key` ([`parse`] made sure there is one).
pub(crate) fn items<'a>(document: &'a Value, key: &str) -> &'a [Value] {
    document.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The string field `key` of the document, when it holds more than blanks.
pub(crate) fn text<'a>(document: &'a Value, key: &str) -> Option<&'a str> {
    document.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty())
}

/// The session's id: its `sessionId`, else what `id_of` reads from the
/// file's name, else empty.
pub(crate) fn id(document: &Value, path: &Path, id_of: fn(&str) -> Option<&str>) -> String {
    text(document, "sessionId")
        .map(ToOwned::to_owned)
        .or_else(|| path.file_name().and_then(|n| id_of(&n.to_string_lossy()).map(ToOwned::to_owned)))
        .unwrap_or_default()
}
