//! A user's prompt as Cursor hands it to the model (the CLI's transcripts and
//! `store.db` keep it so): the words typed in `<user_query>`, the time in
//! `<timestamp>` (`Sunday, Aug 2, 2026, 3:51 AM (UTC-7)`), and what Cursor
//! added around them in other tags (`<user_info>`, attached files, rules).

use sess_core::{format_iso_millis, parse_iso_millis};

use crate::transcript::Block;

/// A prompt taken apart.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Prompt {
    /// The words typed, then what Cursor added (as context).
    pub(crate) blocks: Vec<Block>,
    /// When it was sent (ISO 8601, UTC), where it says.
    pub(crate) timestamp: Option<String>,
}

/// `text` taken apart: without a `<user_query>`, all of it (but the
/// timestamp) is the text.
pub(crate) fn prompt(text: &str) -> Prompt {
    let (stamp, rest) = cut_tag(text, "timestamp");
    let timestamp = stamp.and_then(timestamp_iso);
    let (query, added) = cut_tag(&rest, "user_query");
    let mut blocks = Vec::new();
    match query {
        Some(query) => {
            blocks.push(Block::text(query.trim()));
            let added = added.trim();
            if !added.is_empty() {
                blocks.push(Block::Context { title: "Context".to_owned(), text: added.to_owned() });
            }
        }
        None => blocks.push(Block::text(added.trim())),
    }
    Prompt { blocks, timestamp }
}

/// The inside of the first `<tag>…</tag>` of `text`, and `text` without it.
fn cut_tag<'a>(text: &'a str, tag: &str) -> (Option<&'a str>, String) {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let Some(start) = text.find(&open) else { return (None, text.to_owned()) };
    let inner = start + open.len();
    let Some(end) = text[inner..].find(&close).map(|at| inner + at) else { return (None, text.to_owned()) };
    let mut rest = String::with_capacity(text.len());
    rest.push_str(&text[..start]);
    rest.push_str(&text[end + close.len()..]);
    (Some(&text[inner..end]), rest)
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// `Sunday, Aug 2, 2026, 3:51 AM (UTC-7)` as ISO 8601 in UTC; `None` when
/// it is not in that shape (the weekday and the offset may be missing: UTC).
pub(crate) fn timestamp_iso(text: &str) -> Option<String> {
    let text = text.trim();
    let (text, offset) = match text.rfind('(') {
        Some(at) => (text[..at].trim(), offset(text[at + 1..].trim_end_matches(')'))?),
        None => (text, "+00:00".to_owned()),
    };
    let mut parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() == 4 {
        parts.remove(0);
    }
    let [month_day, year, time] = parts.as_slice() else { return None };
    let (month, day) = month_day.split_once(' ')?;
    let month = MONTHS.iter().position(|m| month.to_ascii_lowercase().starts_with(m))? + 1;
    let day: u32 = day.trim().parse().ok()?;
    let year: i32 = year.parse().ok()?;
    let (clock, half) = time.split_once(' ').map_or((*time, ""), |(c, h)| (c, h.trim()));
    let mut pieces = clock.split(':');
    let mut hour: u32 = pieces.next()?.parse().ok()?;
    let minute: u32 = pieces.next()?.parse().ok()?;
    let second: u32 = pieces.next().map_or(Some(0), |s| s.parse().ok())?;
    match half.to_ascii_uppercase().as_str() {
        "AM" if hour == 12 => hour = 0,
        "PM" if hour < 12 => hour += 12,
        "AM" | "PM" | "" => {}
        _ => return None,
    }
    let iso = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{offset}");
    parse_iso_millis(&iso).map(format_iso_millis)
}

/// `UTC-7`, `UTC+5:30`, `UTC` as `±HH:MM`.
fn offset(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("UTC").or_else(|| text.trim().strip_prefix("GMT"))?;
    if rest.is_empty() {
        return Some("+00:00".to_owned());
    }
    let (sign, rest) = rest.split_at(1);
    if sign != "+" && sign != "-" {
        return None;
    }
    let (hours, minutes) = rest.split_once(':').unwrap_or((rest, "0"));
    let hours: u32 = hours.parse().ok()?;
    let minutes: u32 = minutes.parse().ok()?;
    Some(format!("{sign}{hours:02}:{minutes:02}"))
}
