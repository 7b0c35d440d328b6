//! Lenient line reading for the agents' JSONL files.
//!
//! Each line is parsed on its own: a line that does not parse is reported with
//! its number and skipped, and a last line without a newline that does not parse
//! is a write still in progress or cut off by a crash. Blank lines, CRLF endings
//! and a UTF-8 byte order mark are accepted.

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;
use sess_core::{FileKind, IssueKind, LineIssue, replace_lone_surrogate_escapes};

use crate::error::{Error, Result};

/// One non-blank line of a JSONL file.
#[derive(Clone, Debug)]
pub struct RawLine<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The line without its line ending (invalid UTF-8 replaced by U+FFFD).
    pub text: Cow<'a, str>,
    /// False for a last line without a newline.
    pub terminated: bool,
}

impl RawLine<'_> {
    /// Parses the line as `T`; a failure is the issue to report for the line.
    pub fn parse<'de, T: Deserialize<'de>>(&'de self) -> Result<T, LineIssue> {
        serde_json::from_str(&self.text).map_err(|err| {
            let kind = if !self.terminated && err.is_eof() {
                IssueKind::TruncatedLastLine
            } else {
                IssueKind::InvalidJson(err.to_string())
            };
            LineIssue { line: self.number, kind }
        })
    }

    /// Parses the line as `T`, which must be a JSON object: JSON of another
    /// kind is [`IssueKind::NotAnObject`] (serde would read an array as a
    /// struct's fields in order).
    pub(crate) fn parse_object<'de, T: Deserialize<'de>>(&'de self) -> Result<T, LineIssue> {
        if !self.text.starts_with('{') {
            self.parse::<IgnoredAny>()?;
            return Err(LineIssue { line: self.number, kind: IssueKind::NotAnObject });
        }
        self.parse()
    }

    /// [`parse_object`](Self::parse_object); a line that only fails because of
    /// a lone UTF-16 surrogate escape (a string cut inside an emoji) is read
    /// with U+FFFD in its place.
    pub(crate) fn parse_object_mended<T: DeserializeOwned>(&self) -> Result<T, LineIssue> {
        self.parse_object().or_else(|issue| match replace_lone_surrogate_escapes(&self.text) {
            Cow::Owned(fixed) => serde_json::from_str(&fixed).map_err(|_| issue),
            Cow::Borrowed(_) => Err(issue),
        })
    }
}

/// The non-blank lines of a JSONL file held in memory.
#[derive(Clone, Debug)]
pub struct JsonLines<'a> {
    rest: &'a [u8],
    number: usize,
}

impl<'a> JsonLines<'a> {
    /// Lines of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { rest: bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes), number: 0 }
    }

    /// Lines of `bytes`, which follow the first `lines_before` lines of a file:
    /// the first is numbered `lines_before + 1`.
    pub fn after(bytes: &'a [u8], lines_before: usize) -> Self {
        Self { rest: bytes, number: lines_before }
    }
}

impl<'a> Iterator for JsonLines<'a> {
    type Item = RawLine<'a>;

    fn next(&mut self) -> Option<RawLine<'a>> {
        while !self.rest.is_empty() {
            self.number += 1;
            let (line, terminated) = match self.rest.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    let line = &self.rest[..end];
                    self.rest = &self.rest[end + 1..];
                    (line, true)
                }
                None => (std::mem::take(&mut self.rest), false),
            };
            let line = line.trim_ascii();
            if line.is_empty() {
                continue;
            }
            return Some(RawLine { number: self.number, text: String::from_utf8_lossy(line), terminated });
        }
        None
    }
}

/// Reads a whole file, which must be a regular file ([`open_regular`]).
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::with_capacity(file.metadata().map_or(0, |m| usize::try_from(m.len()).unwrap_or(0)));
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|err| Error::io(path, err))?;
    Ok(bytes)
}

/// Opens `path` for reading if it is a regular file (links followed): the
/// kind is checked before the open, so a FIFO (which would block) or a device
/// (`/dev/zero` never ends) is refused with [`Error::NotASessionFile`] without
/// being opened. Every read of another agent's file goes through here.
pub fn open_regular(path: &Path) -> Result<std::fs::File> {
    let kind = std::fs::metadata(path).map(|m| FileKind::of(m.file_type())).map_err(|err| Error::io(path, err))?;
    if !kind.is_regular() {
        return Err(Error::NotASessionFile { path: path.to_owned(), kind });
    }
    std::fs::File::open(path).map_err(|err| Error::io(path, err))
}

/// Whether a directory entry is a regular file, links followed (a dangling
/// link is a [`FileKind::Symlink`]).
pub(crate) fn entry_kind(entry: &std::fs::DirEntry) -> Option<FileKind> {
    let own = entry.file_type().ok()?;
    if own.is_symlink() {
        return Some(std::fs::metadata(entry.path()).map_or(FileKind::Symlink, |m| FileKind::of(m.file_type())));
    }
    Some(FileKind::of(own))
}

/// JavaScript truthiness: `null`, `false`, `0`, `NaN` and `""` are falsy.
pub(crate) fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn skips_blank_lines_and_handles_crlf_and_bom() {
        let bytes = b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \r\n{\"b\":2}";
        let lines: Vec<_> = JsonLines::new(bytes).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].number, &*lines[0].text, lines[0].terminated), (1, "{\"a\":1}", true));
        assert_eq!((lines[1].number, &*lines[1].text, lines[1].terminated), (4, "{\"b\":2}", false));
    }

    #[test]
    fn a_cut_last_line_is_truncated_and_a_bad_middle_line_invalid() {
        let bytes = b"{\"a\":\n{\"b\":2}\n{\"c\":";
        let results: Vec<Result<Value, LineIssue>> = JsonLines::new(bytes).map(|l| l.parse()).collect();
        assert!(matches!(&results[0], Err(LineIssue { line: 1, kind: IssueKind::InvalidJson(_) })));
        assert!(results[1].is_ok());
        assert_eq!(results[2], Err(LineIssue { line: 3, kind: IssueKind::TruncatedLastLine }));
    }
}
