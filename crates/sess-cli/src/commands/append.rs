//! `sess append SESSION [--leaf ID]`: entries from stdin.
//!
//! Lines already read are appended together: one write under the file lock for
//! a whole batch, then their ids are printed. A line is never acknowledged
//! before it reached the OS, and a producer that writes one line at a time gets
//! each id as soon as its line is written.

use std::io::{self, BufRead, BufReader, Write};
use std::sync::mpsc;

use anyhow::{Context as _, anyhow};
use serde_json::Value;
use serde_json::value::RawValue;
use sess_core::EntryId;
use sess_store::SessionManager;

use crate::Outcome;
use crate::cli::AppendArgs;
use crate::output::stdout;
use crate::session;

/// At most this many lines, or about this many bytes, go in one write.
const MAX_BATCH_LINES: usize = 4096;
const MAX_BATCH_BYTES: usize = 4 << 20;

pub(crate) fn run(args: &AppendArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = session::open(&args.session, store)?;
    if let Some(leaf) = &args.leaf {
        manager.branch(leaf).with_context(|| format!("`{}` has no entry `{leaf}`", args.session))?;
    }
    // A second thread reads and checks the lines while this one appends the
    // previous batch. It is not joined: on an error it may be waiting for input.
    let (send, batches) = mpsc::sync_channel(2);
    std::thread::spawn(move || read_stdin(&send));
    let mut out = stdout();
    for batch in batches {
        let (ids, failure) = manager
            .append_batch(|manager| {
                let mut ids = Vec::with_capacity(batch.len());
                for line in batch {
                    match append_line(manager, line) {
                        Ok(Some(id)) => ids.push(id),
                        Ok(None) => {}
                        Err(err) => return (ids, Some(err)),
                    }
                }
                (ids, None)
            })
            .with_context(|| format!("cannot write to `{}`", args.session))?;
        session::report(&mut manager);
        for id in ids {
            writeln!(out, "{id}")?;
        }
        out.flush()?;
        if let Some(err) = failure {
            manager.close().with_context(|| format!("cannot flush `{}`", args.session))?;
            return Err(err.context(format!("cannot append to `{}`", args.session)));
        }
    }
    manager.close().with_context(|| format!("cannot flush `{}`", args.session))?;
    Ok(Outcome::Clean)
}

/// A stdin line, checked and sorted.
enum Line {
    Blank,
    /// A message (an object with `role`), with a `timestamp` added when it had none.
    Message(Box<RawValue>),
    /// An entry of a type.
    Entry(String, serde_json::Map<String, Value>),
    /// A line that cannot be appended, and why (the error names the line).
    Invalid(anyhow::Error),
}

/// Reads stdin in batches and sends them checked: the next line (waiting for
/// it), then every further complete line the buffer already holds. Stops after
/// a line that cannot be appended.
fn read_stdin(send: &mpsc::SyncSender<Vec<Line>>) {
    let mut input = BufReader::with_capacity(1 << 20, io::stdin());
    let mut text = String::new();
    let mut number = 0;
    loop {
        let mut batch = Vec::new();
        let mut bytes = 0;
        let mut stop = false;
        while !stop {
            text.clear();
            match input.read_line(&mut text) {
                Ok(0) => break,
                Ok(read) => bytes += read,
                Err(err) => {
                    batch.push(Line::Invalid(anyhow::Error::new(err).context("cannot read stdin")));
                    stop = true;
                    continue;
                }
            }
            number += 1;
            let line = check_line(number, &text);
            stop = matches!(line, Line::Invalid(_));
            batch.push(line);
            if batch.len() >= MAX_BATCH_LINES || bytes >= MAX_BATCH_BYTES || !input.buffer().contains(&b'\n') {
                break;
            }
        }
        if batch.is_empty() || send.send(batch).is_err() || stop {
            return;
        }
    }
}

/// What stdin line `number` asks for.
///
/// A message (`role`) is kept as it was written, with a `timestamp` in ms
/// added at the end when it has none; an entry (`type`) has its fields put in
/// the agents' key order when it is appended.
fn check_line(number: usize, line: &str) -> Line {
    let line = line.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    if line.is_empty() {
        return Line::Blank;
    }
    let invalid = |message: &str| Line::Invalid(anyhow!("stdin line {number}: {message}"));
    let raw: &RawValue = match serde_json::from_str(line) {
        Ok(raw) => raw,
        Err(err) => return invalid(&format!("not JSON ({err})")),
    };
    if !raw.get().starts_with('{') {
        return invalid("not a JSON object");
    }
    let keys = top_level_keys(raw.get());
    if keys.iter().any(|k| k == "role") {
        if keys.iter().any(|k| k == "timestamp") {
            return Line::Message(raw.to_owned());
        }
        // Agent messages carry their own time in milliseconds.
        let close = line.rfind('}').unwrap_or(line.len());
        let stamped = format!("{},\"timestamp\":{}{}", &line[..close], now_ms(), &line[close..]);
        return match RawValue::from_string(stamped) {
            Ok(raw) => Line::Message(raw),
            Err(err) => invalid(&format!("not JSON ({err})")),
        };
    }
    match serde_json::from_str(line) {
        Ok(Value::Object(object)) => match object.get("type").and_then(Value::as_str).map(str::to_owned) {
            Some(entry_type) => Line::Entry(entry_type, object),
            None => invalid("an object needs a `role` (a message) or a `type` (an entry)"),
        },
        Ok(_) => invalid("not a JSON object"),
        Err(err) => invalid(&format!("not JSON ({err})")),
    }
}

/// Appends one checked line; `None` for a blank line.
fn append_line(manager: &mut SessionManager, line: Line) -> anyhow::Result<Option<EntryId>> {
    Ok(match line {
        Line::Blank => None,
        Line::Message(message) => Some(manager.append_message_json(&message)?),
        Line::Entry(entry_type, object) => Some(manager.append_raw(&entry_type, object)?),
        Line::Invalid(err) => return Err(err),
    })
}

/// The keys of the JSON object `object`, which must be valid JSON (it is a
/// [`RawValue`]): a scan for strings at depth one, without parsing values.
/// Keys written with escapes are decoded.
fn top_level_keys(object: &str) -> Vec<std::borrow::Cow<'_, str>> {
    let bytes = object.as_bytes();
    let mut keys = Vec::new();
    let (mut depth, mut at, mut expect_key) = (0_usize, 0, false);
    while let Some(found) = memchr::memchr3(b'"', b'{', b'}', &bytes[at..]).map(|i| at + i) {
        // Brackets and commas between the last stop and this one.
        for &b in &bytes[at..found] {
            match b {
                b'[' => depth += 1,
                b']' => depth -= 1,
                b',' if depth == 1 => expect_key = true,
                _ => {}
            }
        }
        match bytes[found] {
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
                at = found + 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                at = found + 1;
            }
            _ => {
                let end = string_end(bytes, found + 1);
                if depth == 1 && expect_key {
                    let key = &object[found + 1..end];
                    keys.push(if key.contains('\\') {
                        serde_json::from_str::<String>(&object[found..=end]).map_or(key.into(), Into::into)
                    } else {
                        key.into()
                    });
                    expect_key = false;
                }
                at = end + 1;
            }
        }
    }
    keys
}

/// The index of the quote that ends the string whose text starts at `from`.
fn string_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[at..]) {
        if bytes[at + i] == b'\\' {
            at += i + 2;
        } else {
            return at + i;
        }
    }
    bytes.len()
}

fn now_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::top_level_keys;

    #[test]
    fn finds_the_keys_of_the_outer_object_only() {
        let keys = |json: &str| top_level_keys(json).into_iter().map(std::borrow::Cow::into_owned).collect::<Vec<_>>();
        assert_eq!(
            keys(r#"{"role":"user","content":[{"type":"text","text":"a \"role\": {x}"}],"n":[1,{"timestamp":2}]}"#),
            ["role", "content", "n"]
        );
        assert_eq!(keys(r#" { "a" : { "b" : 1 } , "c\u0065" : "}" , "d":[["e"]] } "#), ["a", "ce", "d"]);
        assert_eq!(keys("{}"), Vec::<String>::new());
        assert_eq!(keys(r#"{"k\\":"v\\"}"#), ["k\\"]);
    }
}
