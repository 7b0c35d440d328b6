//! The most recently modified sessions of a directory, read from a prefix of
//! each file (xcsh's `getSortedSessions`, `getRecentSessions`,
//! `findMostRecentSession`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::line::{self, Parsed};
use super::listing::is_session_file;
use super::summary::is_json_whitespace;
use crate::storage::SessionStorage;

/// How much of each file the recent-session scan reads. A header longer than
/// this makes the session invisible to it, as in xcsh.
pub const RECENT_PREFIX_BYTES: usize = 4096;

/// Display names longer than this many characters are shortened by
/// [`RecentSession::short_name`].
const SHORT_NAME_CHARS: usize = 40;

/// A session as the "recent sessions" view shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecentSession {
    /// The session file.
    pub path: PathBuf,
    /// The file's modification time, where the storage keeps one.
    pub modified: Option<SystemTime>,
    /// The first of these that is not empty once sanitised (first line only,
    /// control characters removed, trimmed): the title (oh-my-pi's title slot
    /// when the file begins with a valid one, else the header's), the first
    /// user prompt within the prefix, the header's `id`; else the file name
    /// without `.jsonl`.
    pub name: String,
}

impl RecentSession {
    /// The name shortened for display as xcsh does: up to 40 characters, else
    /// the first 39 followed by `…`.
    pub fn short_name(&self) -> Cow<'_, str> {
        if self.name.chars().count() <= SHORT_NAME_CHARS {
            return Cow::Borrowed(&self.name);
        }
        let mut short: String = self.name.chars().take(SHORT_NAME_CHARS - 1).collect();
        short.push('…');
        Cow::Owned(short)
    }
}

/// Up to `limit` sessions directly in `dir` (`*.jsonl`), most recently modified
/// first (ties by path; files without a modification time last).
///
/// Only the first [`RECENT_PREFIX_BYTES`] of each file are read. Files whose
/// first value there is not a session header (oh-my-pi's title line may come
/// first) and files that cannot be read are left out; a missing `dir` gives an
/// empty list.
pub fn recent_sessions(storage: &dyn SessionStorage, dir: &Path, limit: usize) -> Vec<RecentSession> {
    let Ok(entries) = storage.list_dir(dir) else { return Vec::new() };
    let mut sessions: Vec<RecentSession> = entries
        .into_iter()
        .filter(|e| e.kind.is_regular() && is_session_file(&e.path))
        .filter_map(|e| recent(storage, e.path))
        .collect();
    sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
    sessions.truncate(limit);
    sessions
}

/// The most recently modified session in `dir` (see [`recent_sessions`]), or
/// `None` when it has none.
pub fn most_recent(storage: &dyn SessionStorage, dir: &Path) -> Option<PathBuf> {
    recent_sessions(storage, dir, 1).into_iter().next().map(|s| s.path)
}

/// What the prefix says about the session.
struct Prefix {
    id: String,
    title: Option<String>,
    first_prompt: Option<String>,
}

fn recent(storage: &dyn SessionStorage, path: PathBuf) -> Option<RecentSession> {
    let bytes = storage.read_range(&path, 0, RECENT_PREFIX_BYTES).ok()?;
    let prefix = read_prefix(&String::from_utf8_lossy(&bytes))?;
    let modified = storage.stat(&path).ok()?.modified;
    let name = [prefix.title.as_deref(), prefix.first_prompt.as_deref(), Some(prefix.id.as_str())]
        .into_iter()
        .flatten()
        .find_map(sanitize)
        .unwrap_or_else(|| file_stem(&path));
    Some(RecentSession { path, modified, name })
}

/// Reads the header and, when the header has no title, the first user prompt.
/// `None` when the first value is not a session header.
fn read_prefix(text: &str) -> Option<Prefix> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut header: Option<Prefix> = None;
    let mut title_line_seen = false;
    // A valid title slot names the session instead of the header (an empty one: no name).
    let mut slot: Option<sess_core::TitleSlot> = None;
    for raw in text.split('\n') {
        let raw = raw.trim_matches(is_json_whitespace);
        if raw.is_empty() {
            continue;
        }
        let parsed = line::parse(raw);
        let Some(prefix) = &mut header else {
            match parsed {
                Parsed::Invalid => continue,
                Parsed::Object(line) if line.is("title") && !title_line_seen => {
                    title_line_seen = true;
                    slot = sess_core::TitleSlot::parse(raw);
                }
                Parsed::Object(line) if line.is_header() => {
                    let title = match &slot {
                        Some(slot) => slot.name().map(str::to_owned),
                        None => line::lossy_string(line.title).map(Cow::into_owned),
                    };
                    // xcsh looks for a prompt only when `header.title` is falsy.
                    let titled = if slot.is_some() { title.is_some() } else { line::truthy(line.title) };
                    header = Some(Prefix {
                        id: line::string(line.id).map(Cow::into_owned).unwrap_or_default(),
                        title,
                        first_prompt: None,
                    });
                    if titled {
                        break;
                    }
                }
                Parsed::Object(_) | Parsed::Other => return None,
            }
            continue;
        };
        let Parsed::Object(line) = parsed else { continue };
        if !line.is("message") {
            continue;
        }
        let Some(message) = &line.message else { continue };
        if line::string(message.role).as_deref() != Some("user") {
            continue;
        }
        if let Some(prompt) = line::first_text(message.content) {
            prefix.first_prompt = Some(prompt);
            break;
        }
    }
    header
}

/// xcsh's `sanitizeSessionName`: the first line, without control characters,
/// trimmed; `None` when nothing is left.
fn sanitize(value: &str) -> Option<String> {
    let first_line = value.split('\n').next().unwrap_or_default();
    let first_line = first_line.strip_suffix('\r').unwrap_or(first_line);
    let kept: String = first_line.chars().filter(|c| !matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}')).collect();
    // JavaScript's `trim` also removes U+FEFF.
    let trimmed = kept.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// The file name without its first `.jsonl`.
fn file_stem(path: &Path) -> String {
    path.file_name().map_or_else(String::new, |name| name.to_string_lossy().replacen(".jsonl", "", 1))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use pretty_assertions::assert_eq;
    use rstest::rstest;

    use super::*;
    use crate::discovery::test_storage::{ClockStorage, Layout as _};

    const DIR: &str = "/sessions/--p--";

    fn names(sessions: &[RecentSession]) -> Vec<&str> {
        sessions.iter().map(|s| s.name.as_str()).collect()
    }

    fn name_of(text: &str) -> Option<String> {
        let storage = ClockStorage::new();
        storage.file("/d/2026-01-01T00-00-00-000Z_abc.jsonl", text, 1);
        recent_sessions(&storage, Path::new("/d"), 10).pop().map(|s| s.name)
    }

    #[test]
    fn sorts_by_mtime_and_limits() {
        let storage = ClockStorage::new();
        storage
            .file(&format!("{DIR}/a.jsonl"), r#"{"type":"session","id":"a"}"#, 2_000)
            .file(&format!("{DIR}/b.jsonl"), r#"{"type":"session","id":"b"}"#, 3_000)
            .file(&format!("{DIR}/c.jsonl"), r#"{"type":"session","id":"c"}"#, 1_000)
            .file(&format!("{DIR}/d.jsonl"), r#"{"type":"session","id":"d"}"#, 3_000)
            .file(&format!("{DIR}/invalid.jsonl"), r#"{"type":"message","id":"x"}"#, 9_000)
            .file(&format!("{DIR}/other.txt"), r#"{"type":"session","id":"t"}"#, 9_000)
            .file(&format!("{DIR}/nested/n.jsonl"), r#"{"type":"session","id":"n"}"#, 9_000);
        let dir = Path::new(DIR);
        assert_eq!(names(&recent_sessions(&storage, dir, 10)), ["b", "d", "a", "c"]);
        assert_eq!(names(&recent_sessions(&storage, dir, 2)), ["b", "d"]);
        let first = &recent_sessions(&storage, dir, 1)[0];
        assert_eq!(first.modified, Some(UNIX_EPOCH + Duration::from_secs(3)));
        assert_eq!(most_recent(&storage, dir), Some(PathBuf::from(format!("{DIR}/b.jsonl"))));
    }

    #[rstest]
    #[case::missing_dir("/nowhere")]
    #[case::no_sessions("/empty")]
    fn no_sessions_means_none(#[case] dir: &str) {
        let storage = ClockStorage::new();
        storage.dir("/empty").file("/empty/x.jsonl", "garbage\n", 1);
        assert_eq!(most_recent(&storage, Path::new(dir)), None);
        assert_eq!(recent_sessions(&storage, Path::new(dir), 3), []);
    }

    #[test]
    fn only_a_4_kib_prefix_is_read() {
        let storage = ClockStorage::new();
        let padding = "x".repeat(RECENT_PREFIX_BYTES);
        let long_header = format!(r#"{{"type":"session","id":"long","pad":"{padding}"}}"#);
        let late_prompt = format!(
            "{{\"type\":\"session\",\"id\":\"late\"}}\n{{\"type\":\"custom\",\"id\":\"c\",\"data\":\"{padding}\"}}\n{}\n",
            r#"{"type":"message","id":"m","message":{"role":"user","content":"too late"}}"#
        );
        storage.file("/d/long.jsonl", &long_header, 2).file("/d/late.jsonl", &late_prompt, 1);
        assert_eq!(names(&recent_sessions(&storage, Path::new("/d"), 10)), ["late"]);
    }

    #[rstest]
    #[case::header_title(r#"{"type":"session","id":"s","title":"  My title \nsecond line"}"#, "My title")]
    #[case::first_user_prompt(
        "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"assistant\",\"content\":\"no\"}}\n{\"type\":\"message\",\"id\":\"b\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"image\"},{\"type\":\"text\",\"text\":\"fix\\tthe bug\"}]}}\n",
        "fixthe bug"
    )]
    #[case::prompt_without_text_is_passed_over(
        "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"image\"}]}}\n{\"type\":\"message\",\"id\":\"b\",\"message\":{\"role\":\"user\",\"content\":\"second\"}}\n",
        "second"
    )]
    #[case::empty_prompt_falls_back_to_the_id(
        "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\" \\u0007 \"}}\n{\"type\":\"message\",\"id\":\"b\",\"message\":{\"role\":\"user\",\"content\":\"second\"}}\n",
        "s"
    )]
    #[case::truthy_blank_title_skips_the_prompt(
        "{\"type\":\"session\",\"id\":\"s\",\"title\":\"  \"}\n{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"prompt\"}}\n",
        "s"
    )]
    #[case::non_string_title(
        "{\"type\":\"session\",\"id\":\"s\",\"title\":7}\n{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"prompt\"}}\n",
        "s"
    )]
    #[case::id(r#"{"type":"session","id":"the-id"}"#, "the-id")]
    #[case::file_stem(r#"{"type":"session","id":"  "}"#, "2026-01-01T00-00-00-000Z_abc")]
    #[case::title_line_first(
        "{\"type\":\"title\",\"title\":\"x\"}\n{\"type\":\"session\",\"id\":\"s\",\"title\":\"T\"}\n",
        "T"
    )]
    #[case::title_slot_over_the_header(
        "{\"type\":\"title\",\"v\":1,\"title\":\"Slot\",\"updatedAt\":\"u\",\"pad\":\"  \"}\n{\"type\":\"session\",\"id\":\"s\",\"title\":\"T\"}\n",
        "Slot"
    )]
    #[case::empty_title_slot_clears_the_header(
        "{\"type\":\"title\",\"v\":1,\"title\":\"\",\"updatedAt\":\"u\",\"pad\":\"  \"}\n{\"type\":\"session\",\"id\":\"s\",\"title\":\"T\"}\n{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"prompt\"}}\n",
        "prompt"
    )]
    #[case::crlf_title("{\"type\":\"session\",\"id\":\"s\",\"title\":\"a\\r\\nb\"}\r\n", "a")]
    fn display_names(#[case] text: &str, #[case] expected: &str) {
        assert_eq!(name_of(text).as_deref(), Some(expected));
    }

    #[rstest]
    #[case::entry_first(r#"{"type":"message","id":"a"}"#)]
    #[case::scalar_first("1\n{\"type\":\"session\",\"id\":\"s\"}\n")]
    #[case::empty("")]
    fn files_without_a_header_are_skipped(#[case] text: &str) {
        assert_eq!(name_of(text), None);
    }

    #[rstest]
    #[case::short("short", "short")]
    #[case::exactly_40(&"a".repeat(40), &"a".repeat(40))]
    #[case::long(&"é".repeat(41), &format!("{}…", "é".repeat(39)))]
    fn short_names(#[case] name: &str, #[case] expected: &str) {
        let session = RecentSession { path: PathBuf::new(), modified: None, name: name.to_owned() };
        assert_eq!(session.short_name(), expected);
    }
}
