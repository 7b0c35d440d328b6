//! The metadata of one session file, as pi-mono's `buildSessionInfo` computes it.

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use sess_core::{SessionNames, parse_iso_millis};

use super::line::{self, Line, Parsed};
use crate::storage::SessionStorage;

/// What `sess list` shows about a session (pi-mono's `SessionInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session file.
    pub path: PathBuf,
    /// The header's `id`.
    pub id: String,
    /// The header's `cwd`; `""` when it is absent or not a string.
    pub cwd: String,
    /// The session's name ([`sess_core::SessionNames::name`]): oh-my-pi's
    /// title slot when the file has a valid one (an empty one means none),
    /// else the newest `title_change` entry's title, else `header.title`
    /// (xcsh, oh-my-pi) when it is a non-empty string, else the display name
    /// set by the last `session_info` entry, trimmed (pi-mono's `name`; a
    /// later `session_info` without a name clears it).
    pub title: Option<String>,
    /// The header's `parentSession`: a session id or a file path.
    pub parent_session: Option<String>,
    /// The header's `timestamp` as written.
    pub created: Option<String>,
    /// Last activity in milliseconds since the Unix epoch: the latest user or
    /// assistant message, by its numeric `message.timestamp` or else its entry
    /// `timestamp` (pi-mono's `getSessionModifiedDate`), but never earlier than
    /// the header's timestamp (pi-mono reports a message stamped before the
    /// header as is: a session would then be modified before it was created);
    /// without a message time (or when it is not after the epoch) the header's
    /// timestamp; without that the file's modification time.
    pub modified_ms: i64,
    /// The number of `message` entries, of any role.
    pub message_count: usize,
    /// The text of the first user message whose text is not empty, else
    /// `"(no messages)"`.
    pub first_message: String,
    /// The texts of all user and assistant messages, joined with `" "`.
    pub all_messages_text: String,
}

/// What `first_message` says when no user message has text.
pub const NO_MESSAGES: &str = "(no messages)";

/// Whether a listing gathers [`SessionSummary::all_messages_text`], the one
/// field that needs the text of every message (pi-mono's session search reads
/// it). Without it a listing decodes only the first prompt's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MessageText {
    /// Join every user and assistant text, as pi-mono's listings do.
    #[default]
    Collect,
    /// Leave `all_messages_text` empty.
    Skip,
}

/// Reads `path` once, line by line, and summarises it. `None` when the file
/// cannot be read or its first value is not a session header (oh-my-pi's title
/// line before the header is allowed).
pub(super) fn summarize(storage: &dyn SessionStorage, path: &Path, text: MessageText) -> Option<SessionSummary> {
    let mut builder = Builder { collect_text: text == MessageText::Collect, ..Builder::default() };
    scan(storage, path, &mut builder).ok()?;
    let Stage::Body(header) = builder.stage else { return None };
    let modified = || storage.stat(path).ok().map(|stat| stat.modified.map_or(0, system_time_ms));
    build(header, builder.names, builder.tally, builder.all_messages_text, path.to_owned(), modified)
}

/// The summary a listing makes of a session file (see
/// [`summarize_sessions`](super::summarize_sessions)), of its bytes read
/// already (the search catalog's listing): the same lines, the same rules,
/// without [`SessionSummary::all_messages_text`]. `modified_fallback` is
/// called only when no message and no header timestamp give the last
/// activity (a listing gives the file's modification time).
pub fn summarize_bytes(
    bytes: &[u8],
    path: PathBuf,
    modified_fallback: impl FnOnce() -> Option<i64>,
) -> Option<SessionSummary> {
    let mut builder = Builder { collect_text: false, ..Builder::default() };
    scan_lines(bytes, &mut builder).ok()?;
    let Stage::Body(header) = builder.stage else { return None };
    build(header, builder.names, builder.tally, builder.all_messages_text, path, modified_fallback)
}

fn scan(storage: &dyn SessionStorage, path: &Path, builder: &mut Builder) -> io::Result<()> {
    scan_lines(BufReader::with_capacity(1 << 16, storage.open_read(path)?), builder)
}

fn scan_lines(mut input: impl BufRead, builder: &mut Builder) -> io::Result<()> {
    let mut buffer = Vec::new();
    let mut first = true;
    loop {
        buffer.clear();
        if input.read_until(b'\n', &mut buffer)? == 0 {
            return Ok(());
        }
        let mut bytes = buffer.as_slice();
        if first {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            first = false;
        }
        // The fast check first; the lossy decoding only for a line that fails it.
        let text = simdutf8::basic::from_utf8(bytes).map_or_else(|_| String::from_utf8_lossy(bytes), Cow::Borrowed);
        if builder.push(&text) == Flow::Stop {
            return Ok(());
        }
    }
}

/// Whether to keep reading.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    Stop,
}

/// Where the reader is in the file.
#[derive(Default)]
enum Stage {
    /// No value yet (an oh-my-pi title line may come first).
    #[default]
    BeforeHeader,
    /// The title line was seen; the next value must be the header.
    AfterTitleLine,
    /// The header was read.
    Body(Header),
    /// The first value is not a header: the file is not a session.
    Rejected,
}

struct Header {
    id: String,
    cwd: String,
    title: Option<String>,
    parent_session: Option<String>,
    created: Option<String>,
}

/// Accumulates a summary line by line.
#[derive(Default)]
struct Builder {
    stage: Stage,
    tally: SummaryTally,
    /// The title slot and the `title_change` entries.
    names: SessionNames,
    collect_text: bool,
    all_messages_text: String,
}

impl Builder {
    fn push(&mut self, text: &str) -> Flow {
        let text = text.trim_matches(is_json_whitespace);
        if text.is_empty() {
            return Flow::Continue;
        }
        let line = match line::parse(text) {
            Parsed::Invalid => return Flow::Continue,
            Parsed::Other => None,
            Parsed::Object(line) => Some(line),
        };
        match (&self.stage, line) {
            (Stage::Rejected, _) => Flow::Stop,
            (Stage::Body(_), Some(line)) => {
                if line.is("title_change") {
                    self.names.title_change(line::lossy_string(line.title).as_deref());
                }
                if let Some(text) = self.tally.entry(&line, self.collect_text) {
                    join_text(&mut self.all_messages_text, &text);
                }
                Flow::Continue
            }
            (Stage::Body(_), None) => Flow::Continue,
            (Stage::BeforeHeader, Some(line)) if line.is("title") => {
                self.names.slot_line(text);
                self.stage = Stage::AfterTitleLine;
                Flow::Continue
            }
            (Stage::BeforeHeader | Stage::AfterTitleLine, Some(line)) if line.is_header() => {
                self.stage = Stage::Body(header(&line));
                Flow::Continue
            }
            (Stage::BeforeHeader | Stage::AfterTitleLine, _) => {
                self.stage = Stage::Rejected;
                Flow::Stop
            }
        }
    }
}

/// The running totals a [`SessionSummary`] needs from a session's entries, for
/// stores that learn of entries one at a time: a database backend keeps them in
/// a row, adds each appended entry with [`push`](Self::push), stores the text
/// it returns, and builds the summary with [`summarize`](Self::summarize). The
/// file listing uses the same code, so both give the same summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryTally {
    /// The display name set by the latest `session_info` entry, trimmed; `None`
    /// when there is none or the latest one has no (non-blank) name.
    pub name: Option<String>,
    /// The number of `message` entries, of any role.
    pub message_count: usize,
    /// The text of the first user message whose text is not empty.
    pub first_message: Option<String>,
    /// The latest activity of a user or assistant message, in milliseconds
    /// since the Unix epoch (fractional as written); `0.0` when there is none.
    pub last_activity: f64,
}

impl SummaryTally {
    /// Counts the entry whose JSON text is `entry_json` (surrounding JSON
    /// whitespace is fine; text that is not a JSON object counts for nothing).
    /// Returns the text it adds to
    /// [`all_messages_text`](SessionSummary::all_messages_text): the non-empty
    /// text of a user or assistant message. The summary's text is these,
    /// in entry order, joined with `" "`.
    pub fn push(&mut self, entry_json: &str) -> Option<String> {
        match line::parse(entry_json.trim_matches(is_json_whitespace)) {
            Parsed::Object(line) => self.entry(&line, true),
            Parsed::Other | Parsed::Invalid => None,
        }
    }

    /// Counts `line`; returns its text when `want_text` (the first prompt's
    /// text is always read).
    fn entry(&mut self, line: &Line<'_>, want_text: bool) -> Option<String> {
        if line.is("session_info") {
            // The latest entry wins, including one that clears the name.
            self.name = line::lossy_string(line.name).map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
            return None;
        }
        if !line.is("message") {
            return None;
        }
        self.message_count += 1;
        let message = line.message.as_ref()?;
        // pi-mono's `isMessageWithContent`: a string role and a `content` key.
        let role = line::string(message.role)?;
        message.content?;
        let is_user = role == "user";
        if !is_user && role != "assistant" {
            return None;
        }
        let activity = line::number(message.timestamp)
            .or_else(|| line::string(line.timestamp).and_then(|t| parse_iso_millis(&t)).map(|ms| ms as f64));
        if let Some(activity) = activity {
            self.last_activity = self.last_activity.max(activity);
        }
        let first_prompt = is_user && self.first_message.is_none();
        if !want_text && !first_prompt {
            return None;
        }
        let text = line::joined_text(message.content).filter(|t| !t.is_empty())?;
        if first_prompt {
            self.first_message = Some(text.clone());
        }
        want_text.then_some(text)
    }

    /// The summary of the session whose header line is `header_json`, with
    /// these totals, `all_messages_text` (the texts [`push`](Self::push)
    /// returned, joined with `" "`) and `path`. `modified_fallback` gives the
    /// last-resort [`modified_ms`](SessionSummary::modified_ms) (a file's
    /// modification time) when no message and no header timestamp does; it is
    /// called only then, and its `None` means no summary. `None` too when
    /// `header_json` is not a session header.
    pub fn summarize(
        self,
        header_json: &str,
        all_messages_text: String,
        path: PathBuf,
        modified_fallback: impl FnOnce() -> Option<i64>,
    ) -> Option<SessionSummary> {
        let Parsed::Object(line) = line::parse(header_json.trim_matches(is_json_whitespace)) else { return None };
        if !line.is_header() {
            return None;
        }
        build(header(&line), SessionNames::default(), self, all_messages_text, path, modified_fallback)
    }
}

/// Appends `text` to the space-joined `all`.
fn join_text(all: &mut String, text: &str) {
    if !all.is_empty() {
        all.push(' ');
    }
    all.push_str(text);
}

/// The summary; `names` holds the title slot and `title_change` entries
/// (the header's title and the `session_info` name are added here).
fn build(
    header: Header,
    mut names: SessionNames,
    tally: SummaryTally,
    all_messages_text: String,
    path: PathBuf,
    modified_fallback: impl FnOnce() -> Option<i64>,
) -> Option<SessionSummary> {
    let created_ms = header.created.as_deref().and_then(parse_iso_millis);
    let modified_ms = if tally.last_activity > 0.0 {
        // `new Date(ms)` drops the fraction; the cast saturates out-of-range values.
        #[allow(clippy::cast_possible_truncation)]
        let ms = tally.last_activity.trunc() as i64;
        created_ms.map_or(ms, |created| ms.max(created))
    } else if let Some(ms) = created_ms {
        ms
    } else {
        modified_fallback()?
    };
    names.header_title(header.title.as_deref());
    names.session_info(tally.name.as_deref());
    Some(SessionSummary {
        path,
        id: header.id,
        cwd: header.cwd,
        title: names.name().map(str::to_owned),
        parent_session: header.parent_session,
        created: header.created,
        modified_ms,
        message_count: tally.message_count,
        first_message: tally.first_message.unwrap_or_else(|| NO_MESSAGES.to_owned()),
        all_messages_text,
    })
}

fn header(line: &Line<'_>) -> Header {
    Header {
        id: owned(line.id).unwrap_or_default(),
        cwd: owned(line.cwd).unwrap_or_default(),
        title: line::lossy_string(line.title).map(Cow::into_owned).filter(|t| !t.is_empty()),
        parent_session: owned(line.parent_session),
        created: owned(line.timestamp),
    }
}

fn owned(raw: Option<&serde_json::value::RawValue>) -> Option<String> {
    line::string(raw).map(Cow::into_owned)
}

/// Milliseconds since the Unix epoch (negative before it).
pub(super) fn system_time_ms(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
    }
}

/// The whitespace `JSON.parse` allows around a value.
pub(super) fn is_json_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
