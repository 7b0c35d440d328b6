//! The lenient JSONL reader.
//!
//! Each line is parsed on its own, so no line can swallow its neighbour. Blank
//! lines, CRLF endings, a UTF-8 byte order mark, oh-my-pi's title line before the
//! header and a truncated last line are all handled; every line that is skipped
//! or repaired is reported with its number and the reason.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::entry::{Entry, EntryError, is_json_whitespace};
use crate::envelope::{Envelope, EnvelopeError, Field};
use crate::header::SessionHeader;
use crate::header::Version;
use crate::id::IdSource;
use crate::migrate::migrate_values;
use crate::session_file::SessionFile;

/// A line the reader skipped or repaired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIssue {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub kind: IssueKind,
}

/// What was wrong with a line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IssueKind {
    /// Not valid JSON (skipped).
    InvalidJson(String),
    /// The last line has no newline and does not parse: a write that was cut
    /// off (skipped).
    TruncatedLastLine,
    /// JSON, but not an object (skipped).
    NotAnObject,
    /// An object without a string `id` (skipped).
    MissingId,
    /// A second `"type":"session"` line (skipped).
    ExtraHeader,
    /// The first object of the file is not a valid session header. It is read
    /// as an entry if it can be one.
    NotAHeader,
    /// Bytes that are not UTF-8 were replaced with U+FFFD (the line is kept).
    InvalidUtf8,
    /// Longer than 4 GiB (skipped).
    TooLong,
}

impl IssueKind {
    /// Whether the line was left out of the session.
    pub fn is_skipped(&self) -> bool {
        !matches!(self, Self::InvalidUtf8 | Self::NotAHeader)
    }
}

impl fmt::Display for IssueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidJson(message) => write!(f, "invalid JSON ({message}); line skipped"),
            Self::TruncatedLastLine => f.write_str("truncated last line (an interrupted write); line skipped"),
            Self::NotAnObject => f.write_str("not a JSON object; line skipped"),
            Self::MissingId => f.write_str("entry has no string id; line skipped"),
            Self::ExtraHeader => f.write_str("a second session header; line skipped"),
            Self::NotAHeader => f.write_str("the first line is not a valid session header"),
            Self::InvalidUtf8 => f.write_str("invalid UTF-8 replaced with U+FFFD"),
            Self::TooLong => f.write_str("line longer than 4 GiB; line skipped"),
        }
    }
}

impl fmt::Display for LineIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}

/// The result of reading a session file.
#[derive(Debug)]
pub struct ReadOutcome {
    /// The session, migrated to the current version.
    pub file: SessionFile,
    /// Lines that were skipped or repaired.
    pub issues: Vec<LineIssue>,
    /// The version the file had when a migration ran.
    pub migrated_from: Option<Version>,
    /// Whether the file ends with a line that has no newline.
    pub unterminated_tail: bool,
    /// Bytes read.
    pub len: u64,
    /// Where the last line starts, when it has no newline and does not parse
    /// (a write that was cut off): cutting the file here removes it.
    pub torn_tail_at: Option<u64>,
}

/// Reads a whole JSONL file held in memory.
pub fn read(bytes: &[u8], ids: &mut dyn IdSource) -> ReadOutcome {
    let mut reader = SessionReader::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        if let Some(end) = rest.iter().position(|&b| b == b'\n') {
            reader.push_line(&rest[..end], true);
            rest = &rest[end + 1..];
        } else {
            reader.push_line(rest, false);
            rest = &[];
        }
    }
    reader.finish(ids)
}

/// Reads a session file line by line, so a caller can stream it from disk.
#[derive(Default)]
pub struct SessionReader {
    line_no: usize,
    title_line: Option<Box<str>>,
    header: Option<SessionHeader>,
    header_seen: bool,
    legacy: Option<Vec<(usize, Value, Arc<str>)>>,
    entries: Vec<Entry>,
    lines: Vec<usize>,
    issues: Vec<LineIssue>,
    unterminated_tail: bool,
    len: u64,
    torn_tail_at: Option<u64>,
}

impl SessionReader {
    /// A reader at line 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next line, without its `\n`. `terminated` is false only for a
    /// last line that had no newline.
    pub fn push_line(&mut self, bytes: &[u8], terminated: bool) {
        self.line_no += 1;
        let line_no = self.line_no;
        self.unterminated_tail = !terminated;
        let line_start = self.len;
        self.len += bytes.len() as u64 + u64::from(terminated);
        let mut bytes = bytes;
        if line_no == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            return;
        }
        if u32::try_from(bytes.len()).is_err() {
            self.issue(line_no, IssueKind::TooLong);
            return;
        }
        // The fast check first; the lossy decoding only for a line that fails it.
        let text = if let Ok(text) = std::str::from_utf8(bytes) {
            Cow::Borrowed(text)
        } else {
            self.issue(line_no, IssueKind::InvalidUtf8);
            String::from_utf8_lossy(bytes)
        };
        let line: Arc<str> = Arc::from(text.trim_matches(is_json_whitespace));
        let envelope = match Envelope::parse(&line) {
            Ok(envelope) => envelope,
            Err(EnvelopeError::NotAnObject) => return self.issue(line_no, IssueKind::NotAnObject),
            Err(EnvelopeError::Json(_)) if !terminated => {
                self.torn_tail_at = Some(line_start);
                return self.issue(line_no, IssueKind::TruncatedLastLine);
            }
            Err(EnvelopeError::Json(err)) => {
                return self.issue(line_no, IssueKind::InvalidJson(err.to_string()));
            }
        };
        let is_session = envelope.string(Field::Type).as_deref() == Some("session");
        if !self.header_seen {
            if envelope.string(Field::Type).as_deref() == Some("title") && self.title_line.is_none() {
                self.title_line = Some(Box::from(&*line));
                return;
            }
            self.header_seen = true;
            if let Some(header) = SessionHeader::from_envelope(&line, &envelope) {
                if header.version().needs_migration() {
                    self.legacy = Some(Vec::new());
                }
                self.header = Some(header);
                return;
            }
            self.issue(line_no, IssueKind::NotAHeader);
        } else if is_session {
            return self.issue(line_no, IssueKind::ExtraHeader);
        }
        if let Some(legacy) = &mut self.legacy {
            match serde_json::from_str::<Value>(&crate::raw::replace_lone_surrogate_escapes(&line)) {
                Ok(value) => legacy.push((line_no, value, line)),
                Err(err) => self.issue(line_no, IssueKind::InvalidJson(err.to_string())),
            }
            return;
        }
        match Entry::from_envelope(&line, &envelope) {
            Ok(entry) => {
                self.entries.push(entry);
                self.lines.push(line_no);
            }
            Err(EntryError::MissingId) => self.issue(line_no, IssueKind::MissingId),
            Err(EntryError::NotAnObject) => self.issue(line_no, IssueKind::NotAnObject),
            Err(EntryError::Json(err)) => {
                self.issue(line_no, IssueKind::InvalidJson(err.to_string()));
            }
        }
    }

    /// Ends the file: migrates a legacy file and returns the session.
    pub fn finish(mut self, ids: &mut dyn IdSource) -> ReadOutcome {
        let mut migrated_from = None;
        let legacy = self.legacy.take();
        let legacy_header = if legacy.is_some() { self.header.take() } else { None };
        if let Some((legacy, header)) = legacy.zip(legacy_header) {
            let header_value: Value = serde_json::from_str(header.json()).unwrap_or(Value::Null);
            let mut values: Vec<Value> =
                std::iter::once(header_value).chain(legacy.iter().map(|(_, value, _)| value.clone())).collect();
            let migration = migrate_values(&mut values, ids);
            migrated_from = migration.as_ref().map(|m| m.from);
            let changed = migration.map(|m| m.changed).unwrap_or_default();
            let text = |index: usize, original: &str| {
                if changed.get(index).copied().unwrap_or(false) {
                    serde_json::to_string(&values[index]).unwrap_or_else(|_| original.to_owned())
                } else {
                    original.to_owned()
                }
            };
            self.header = SessionHeader::parse(&text(0, header.json())).or(Some(header));
            for (offset, (line_no, _, original)) in legacy.iter().enumerate() {
                match Entry::parse(&text(offset + 1, original)) {
                    Ok(entry) => {
                        self.entries.push(entry);
                        self.lines.push(*line_no);
                    }
                    Err(EntryError::MissingId) => self.issue(*line_no, IssueKind::MissingId),
                    Err(_) => self.issue(*line_no, IssueKind::NotAnObject),
                }
            }
            self.issues.sort_by_key(|issue| issue.line);
        }
        ReadOutcome {
            file: SessionFile::from_parts(self.title_line, self.header, self.entries, self.lines),
            issues: self.issues,
            migrated_from,
            unterminated_tail: self.unterminated_tail,
            len: self.len,
            torn_tail_at: self.torn_tail_at,
        }
    }

    fn issue(&mut self, line: usize, kind: IssueKind) {
        self.issues.push(LineIssue { line, kind });
    }
}

#[cfg(test)]
#[path = "jsonl_tests.rs"]
mod tests;
