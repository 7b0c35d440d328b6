//! The lenient JSONL reader.
//!
//! Each line is parsed on its own, so no line can swallow its neighbour. Blank
//! lines, CRLF endings, a UTF-8 byte order mark, oh-my-pi's title line before the
//! header and a truncated last line are all handled; every line that is skipped
//! or repaired is reported with its number and the reason.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

use crate::entry::{Entry, EntryError, is_json_whitespace, offset_in};
use crate::envelope::{Envelope, EnvelopeError, Field};
use crate::header::SessionHeader;
use crate::header::Version;
use crate::migrate::{Origin, migrate_values};
use crate::raw::Text;
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

    /// Whether writing the session back would not give the line's bytes
    /// again: it was left out, or its bytes that are not UTF-8 were replaced.
    /// A truncated last line (an interrupted write, cut on purpose) is not.
    pub fn is_lost_by_rewrite(&self) -> bool {
        !matches!(self, Self::NotAHeader | Self::TruncatedLastLine)
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
pub fn read(bytes: &[u8]) -> ReadOutcome {
    let mut reader = SessionReader::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let cut = block_end(rest, BLOCK_BYTES);
        reader.push_block(&rest[..cut], cut == rest.len());
        rest = &rest[cut..];
    }
    reader.finish()
}

/// About how many bytes of lines [`read`] and file readers hand to
/// [`SessionReader::push_block`] at once: entries share one allocation per
/// block instead of one each.
pub const BLOCK_BYTES: usize = 4 << 20;

/// Where a block of about `size` bytes of `bytes` ends: after the last newline
/// within `size` bytes, or after the first newline beyond (a long line), or at
/// the end.
pub fn block_end(bytes: &[u8], size: usize) -> usize {
    if bytes.len() <= size {
        return bytes.len();
    }
    match memrchr_newline(&bytes[..size]) {
        Some(at) => at + 1,
        None => bytes[size..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |at| size + at + 1),
    }
}

fn memrchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().rposition(|&b| b == b'\n')
}

/// A block of whole lines of a session file, checked and copied once for the
/// entries to share.
#[derive(Debug)]
pub struct Lines {
    /// The text, or the bytes when some line is not UTF-8.
    text: Result<Text, Vec<u8>>,
    ends_file: bool,
}

impl Lines {
    /// `block` holds whole lines, each ending with `\n`, except a last line
    /// without one when `ends_file`.
    pub fn new(block: &[u8], ends_file: bool) -> Self {
        let text = simdutf8::basic::from_utf8(block).map(|text| Arc::new(text.to_owned())).map_err(|_| block.to_vec());
        Self { text, ends_file }
    }

    /// [`Lines::new`] for a block read into a buffer of its own, which the
    /// entries then share without a copy.
    pub fn from_vec(block: Vec<u8>, ends_file: bool) -> Self {
        let text = String::from_utf8(block).map(Arc::new).map_err(std::string::FromUtf8Error::into_bytes);
        Self { text, ends_file }
    }
}

/// Reads a session file line by line, so a caller can stream it from disk.
#[derive(Default)]
pub struct SessionReader {
    line_no: usize,
    title_line: Option<Box<str>>,
    header: Option<SessionHeader>,
    header_line: usize,
    header_seen: bool,
    legacy: Option<Vec<(usize, Value, String)>>,
    entries: Vec<Entry>,
    lines: Vec<usize>,
    issues: Vec<LineIssue>,
    unterminated_tail: bool,
    len: u64,
    torn_tail_at: Option<u64>,
    /// At most this many threads parse a block; `None`: as many as the
    /// machine has.
    parse_threads: Option<usize>,
}

impl SessionReader {
    /// A reader at line 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a block's lines on at most `threads` threads (at least one),
    /// for a caller that keeps some of the machine's cores busy itself, such
    /// as a thread reading the next block.
    #[must_use]
    pub fn with_parse_threads(mut self, threads: usize) -> Self {
        self.parse_threads = Some(threads.max(1));
        self
    }

    /// Feeds the next line, without its `\n`. `terminated` is false only for a
    /// last line that had no newline.
    pub fn push_line(&mut self, bytes: &[u8], terminated: bool) {
        let bytes = if self.line_no == 0 { bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes) } else { bytes };
        // The fast check first; the lossy decoding only for a line that fails it.
        let text = if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
            Cow::Borrowed(text)
        } else {
            self.issue(self.line_no + 1, IssueKind::InvalidUtf8);
            String::from_utf8_lossy(bytes)
        };
        let text: Text = Arc::new(text.into_owned());
        let len = text.len();
        self.push_span(&text, 0..len, bytes.len() + usize::from(terminated), terminated);
    }

    /// Feeds the next lines: `block` holds whole lines, each ending with `\n`,
    /// except a last line without one when `ends_file`. Their entries share
    /// one copy of the block.
    pub fn push_block(&mut self, block: &[u8], ends_file: bool) {
        self.push_lines(Lines::new(block, ends_file));
    }

    /// Feeds a block of lines prepared by [`Lines::new`] (which may run on
    /// another thread, while this one reads the previous block).
    pub fn push_lines(&mut self, lines: Lines) {
        let ends_file = lines.ends_file;
        let text = match lines.text {
            Ok(text) => text,
            Err(block) => {
                // Some line is not UTF-8: each line on its own, repaired.
                let mut rest = block.as_slice();
                while !rest.is_empty() {
                    if let Some(end) = rest.iter().position(|&b| b == b'\n') {
                        self.push_line(&rest[..end], true);
                        rest = &rest[end + 1..];
                    } else {
                        self.push_line(rest, !ends_file);
                        rest = &[];
                    }
                }
                return;
            }
        };
        let mut lines = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let (end, next, terminated) = match memchr::memchr(b'\n', &text.as_bytes()[start..]) {
                Some(at) => (start + at, start + at + 1, true),
                None => (text.len(), text.len(), !ends_file),
            };
            let mut line = start..end;
            if self.line_no == 0 && lines.is_empty() && text[line.clone()].starts_with('\u{feff}') {
                line.start += '\u{feff}'.len_utf8();
            }
            lines.push(BlockLine { span: line, raw_len: next - start, terminated });
            start = next;
        }
        // The header (and a title line) decide how later lines are read, so
        // lines are read in order until the header is known; after it, a v3
        // file's lines are independent and are parsed on several threads.
        let mut first = 0;
        while first < lines.len() && (!self.header_seen || self.legacy.is_some()) {
            let BlockLine { span, raw_len, terminated } = lines[first].clone();
            self.push_span(&text, span, raw_len, terminated);
            first += 1;
        }
        let rest = &lines[first..];
        for (line, parsed) in rest.iter().zip(parse_lines(&text, rest, self.parse_threads)) {
            let (line_no, line_start) = self.count_line(line.raw_len, line.terminated);
            self.record(line_no, line_start, parsed);
        }
    }

    /// Counts a line that took `raw_len` bytes of the file; returns its number
    /// and where it starts.
    fn count_line(&mut self, raw_len: usize, terminated: bool) -> (usize, u64) {
        self.line_no += 1;
        self.unterminated_tail = !terminated;
        let line_start = self.len;
        self.len += raw_len as u64;
        (self.line_no, line_start)
    }

    /// Keeps what reading line `line_no` (starting at `line_start`) gave.
    fn record(&mut self, line_no: usize, line_start: u64, parsed: Parsed) {
        match parsed {
            Parsed::Not(NoEntry::Blank) => {}
            Parsed::Not(NoEntry::Issue(kind)) => self.issue(line_no, kind),
            Parsed::Not(NoEntry::Torn) => {
                self.torn_tail_at = Some(line_start);
                self.issue(line_no, IssueKind::TruncatedLastLine);
            }
            Parsed::Entry(entry) => {
                self.entries.push(entry);
                self.lines.push(line_no);
            }
        }
    }

    /// Reads the line at `span` of `text`, which took `raw_len` bytes of the
    /// file (its newline included), in order: the title line, the header and a
    /// legacy file's lines depend on what came before.
    fn push_span(&mut self, text: &Text, span: Range<usize>, raw_len: usize, terminated: bool) {
        let (line_no, line_start) = self.count_line(raw_len, terminated);
        if self.header_seen && self.legacy.is_none() {
            let parsed = parse_line(text, span, terminated);
            return self.record(line_no, line_start, parsed);
        }
        let (span, envelope) = match envelope_of(text, span, terminated) {
            Ok(found) => found,
            Err(none) => return self.record(line_no, line_start, Parsed::Not(none)),
        };
        let line = &text[span.clone()];
        if !self.header_seen {
            // oh-my-pi's title slot has no id; a `title` object with one is an
            // entry, so a file whose first entry is one writes back and reads
            // again the same.
            let slot = envelope.string(Field::Type).as_deref() == Some("title") && envelope.string(Field::Id).is_none();
            if slot && self.title_line.is_none() {
                self.title_line = Some(Box::from(line));
                return;
            }
            self.header_seen = true;
            if let Some(header) = SessionHeader::from_envelope(&Arc::new(line.to_owned()), &envelope) {
                if header.version().needs_migration() {
                    self.legacy = Some(Vec::new());
                }
                self.header = Some(header);
                self.header_line = line_no;
                return;
            }
            self.issue(line_no, IssueKind::NotAHeader);
        } else if envelope.string(Field::Type).as_deref() == Some("session") {
            return self.issue(line_no, IssueKind::ExtraHeader);
        }
        if let Some(legacy) = &mut self.legacy {
            match serde_json::from_str::<Value>(&crate::raw::replace_lone_surrogate_escapes(line)) {
                Ok(value) => legacy.push((line_no, value, line.to_owned())),
                Err(err) => self.issue(line_no, IssueKind::InvalidJson(err.to_string())),
            }
            return;
        }
        let parsed = entry_of(text, span, &envelope);
        self.record(line_no, line_start, parsed);
    }

    /// Ends the file: migrates a legacy file (its new ids derived from its lines,
    /// see [`crate::line_id`]) and returns the session.
    pub fn finish(mut self) -> ReadOutcome {
        let mut migrated_from = None;
        let legacy = self.legacy.take();
        let legacy_header = if legacy.is_some() { self.header.take() } else { None };
        if let Some((legacy, header)) = legacy.zip(legacy_header) {
            let header_value: Value = serde_json::from_str(header.json()).unwrap_or(Value::Null);
            let mut values: Vec<Value> =
                std::iter::once(header_value).chain(legacy.iter().map(|(_, value, _)| value.clone())).collect();
            let origins: Vec<Origin<'_>> = std::iter::once(Origin { line: self.header_line, text: header.json() })
                .chain(legacy.iter().map(|(line, _, text)| Origin { line: *line, text }))
                .collect();
            let migration = migrate_values(&mut values, &origins);
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

/// A line of a block: where its text is, how many bytes of the file it took
/// (its newline included), and whether it ended with a newline.
#[derive(Clone)]
struct BlockLine {
    span: Range<usize>,
    raw_len: usize,
    terminated: bool,
}

/// What one line of a v3 file (after its header) gives.
enum Parsed {
    /// An entry.
    Entry(Entry),
    /// No entry, and why.
    Not(NoEntry),
}

/// Why a line gives no entry.
enum NoEntry {
    /// Blank: nothing.
    Blank,
    /// Skipped or repaired, and why.
    Issue(IssueKind),
    /// A last line without a newline that does not parse: a cut write.
    Torn,
}

/// Below this many bytes a block's lines are parsed on the calling thread.
const PARALLEL_BYTES: usize = 1 << 20;

/// The threads this machine runs at once (asked of the system once: it
/// reads the cgroup files on each call, which a listing of thousands of small
/// files would pay for each).
pub fn machine_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// Parses `lines` of `text` (all after a v3 header), on up to `threads`
/// threads (the machine's for `None`) when there is enough text; in order.
fn parse_lines(text: &Text, lines: &[BlockLine], threads: Option<usize>) -> Vec<Parsed> {
    let bytes: usize = lines.iter().map(|l| l.raw_len).sum();
    let one = |lines: &[BlockLine]| -> Vec<Parsed> {
        lines.iter().map(|l| parse_line(text, l.span.clone(), l.terminated)).collect()
    };
    if bytes < PARALLEL_BYTES || lines.len() < 2 {
        return one(lines);
    }
    let threads = threads.unwrap_or_else(machine_threads);
    if threads < 2 {
        return one(lines);
    }
    // Contiguous groups of about equal bytes, one per thread.
    let share = bytes.div_ceil(threads);
    let mut groups = Vec::with_capacity(threads);
    let (mut from, mut taken) = (0, 0);
    for (at, line) in lines.iter().enumerate() {
        taken += line.raw_len;
        if taken >= share && groups.len() + 1 < threads {
            groups.push(&lines[from..=at]);
            from = at + 1;
            taken = 0;
        }
    }
    groups.push(&lines[from..]);
    std::thread::scope(|scope| {
        let mut workers = groups.iter().skip(1).map(|group| scope.spawn(|| one(group))).collect::<Vec<_>>();
        let mut parsed = one(groups[0]);
        for worker in workers.drain(..) {
            // A panic in a worker is a bug; it goes on in this thread.
            parsed.extend(worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        parsed
    })
}

/// Reads one line of a v3 file after its header.
fn parse_line(text: &Text, span: Range<usize>, terminated: bool) -> Parsed {
    match envelope_of(text, span, terminated) {
        Err(none) => Parsed::Not(none),
        Ok((_, envelope)) if envelope.string(Field::Type).as_deref() == Some("session") => {
            Parsed::Not(NoEntry::Issue(IssueKind::ExtraHeader))
        }
        Ok((span, envelope)) => entry_of(text, span, &envelope),
    }
}

/// The line's span without surrounding whitespace and its envelope, or what
/// the line gives when it has none (blank, too long, not JSON, cut).
fn envelope_of(text: &Text, span: Range<usize>, terminated: bool) -> Result<(Range<usize>, Envelope<'_>), NoEntry> {
    let line = &text[span];
    if line.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
        return Err(NoEntry::Blank);
    }
    if u32::try_from(line.len()).is_err() {
        return Err(NoEntry::Issue(IssueKind::TooLong));
    }
    let trimmed = line.trim_matches(is_json_whitespace);
    let start = offset_in(text, trimmed);
    match Envelope::parse(trimmed) {
        Ok(envelope) => Ok((start..start + trimmed.len(), envelope)),
        Err(EnvelopeError::NotAnObject) => Err(NoEntry::Issue(IssueKind::NotAnObject)),
        Err(EnvelopeError::Json(_)) if !terminated => Err(NoEntry::Torn),
        Err(EnvelopeError::Json(err)) => Err(NoEntry::Issue(IssueKind::InvalidJson(err.to_string()))),
    }
}

/// The entry on `span` of `text`, whose envelope is `envelope`.
fn entry_of(text: &Text, span: Range<usize>, envelope: &Envelope<'_>) -> Parsed {
    match Entry::from_envelope(text, span, envelope) {
        Ok(entry) => Parsed::Entry(entry),
        Err(EntryError::MissingId) => Parsed::Not(NoEntry::Issue(IssueKind::MissingId)),
        Err(EntryError::NotAnObject) => Parsed::Not(NoEntry::Issue(IssueKind::NotAnObject)),
        Err(EntryError::Json(err)) => Parsed::Not(NoEntry::Issue(IssueKind::InvalidJson(err.to_string()))),
    }
}

#[cfg(test)]
#[path = "jsonl_tests.rs"]
mod tests;
