//! `sess append SESSION [--leaf ID]`: entries from stdin.
//!
//! Lines already read are appended together: one write under the file lock for
//! a whole batch, then their ids are printed. A line is never acknowledged
//! before it reached the OS, and a producer that writes one line at a time gets
//! each id as soon as its line is written.

use std::io::{self, BufRead, BufReader, Read as _, Write};
use std::sync::mpsc;

use anyhow::{Context as _, anyhow};
use serde_json::Value;
use sess_core::{EntryId, JsonText};
use sess_store::SessionManager;

use crate::Outcome;
use crate::cli::AppendArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::stdout;

/// At most this many lines, or about this many bytes, go in one write.
const MAX_BATCH_LINES: usize = 4096;
const MAX_BATCH_BYTES: usize = 4 << 20;

/// The longest stdin line accepted by default (`--max-line-bytes`): far above
/// any real message, low enough that an endless line (`< /dev/zero`) stops
/// before it takes the machine's memory.
pub(crate) const DEFAULT_MAX_LINE_BYTES: u64 = 256 << 20;

pub(crate) fn run(args: &AppendArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = sess::session::open_or_start(&args.session, store, host(), &Printed)?;
    if let Some(leaf) = &args.leaf {
        manager.branch(leaf).with_context(|| format!("`{}` has no entry `{leaf}`", args.session))?;
    }
    // A second thread reads and checks the lines while this one appends the
    // previous batch. It is not joined: on an error it may be waiting for input.
    // Batches go back to it to be freed where they were allocated (freeing
    // across threads makes the allocator lock).
    let (send, batches) = mpsc::sync_channel(2);
    let (give_back, returned) = mpsc::channel();
    let max_line_bytes = args.max_line_bytes;
    std::thread::spawn(move || read_stdin(&send, &returned, max_line_bytes));
    let mut out = stdout();
    for mut batch in batches {
        let (ids, failure) = manager
            .append_batch(|manager| {
                let mut ids = Vec::with_capacity(batch.len());
                // Runs of messages go in together, other lines one by one.
                let mut run: Vec<&JsonText> = Vec::new();
                for line in &mut batch {
                    if let Line::Message(message) = line {
                        run.push(message);
                        continue;
                    }
                    if let Err(err) = append_run(manager, &mut run, &mut ids) {
                        return (ids, Some(err));
                    }
                    match append_line(manager, line) {
                        Ok(Some(id)) => ids.push(id),
                        Ok(None) => {}
                        Err(err) => return (ids, Some(err)),
                    }
                }
                let failure = append_run(manager, &mut run, &mut ids).err();
                (ids, failure)
            })
            .with_context(|| format!("cannot write to `{}`", args.session))?;
        // The reader may have stopped after a bad line; the batch is then freed here.
        let _ = give_back.send(batch);
        sess::session::tell_notices(&mut manager, &Printed);
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
    // The process ends next: freeing every entry one by one would only cost time.
    std::mem::forget(manager);
    Ok(Outcome::Clean)
}

/// A stdin line, checked and sorted.
enum Line {
    Blank,
    /// A message (an object with `role`), with a `timestamp` added when it had none.
    Message(JsonText),
    /// An entry of a type.
    Entry(String, serde_json::Map<String, Value>),
    /// A line that cannot be appended, and why (the error names the line).
    Invalid(anyhow::Error),
}

/// Reads stdin in batches and sends them checked: the next line (waiting for
/// it), then every further complete line the buffer already holds. Stops after
/// a line that cannot be appended, and at a line longer than `max_line_bytes`
/// without reading the rest of it.
fn read_stdin(send: &mpsc::SyncSender<Vec<Line>>, returned: &mpsc::Receiver<Vec<Line>>, max_line_bytes: u64) {
    let mut input = BufReader::with_capacity(1 << 20, io::stdin());
    let mut number = 0;
    let mut raw = Vec::new();
    loop {
        // Free the batches already appended.
        while returned.try_recv().is_ok() {}
        let mut batch = Vec::new();
        let mut bytes = 0;
        let mut stop = false;
        while !stop {
            raw.clear();
            match read_line(&mut input, &mut raw, max_line_bytes) {
                Ok(0) => break,
                Ok(read) => bytes += read,
                Err(err) => {
                    batch.push(Line::Invalid(anyhow::Error::new(err).context("cannot read stdin")));
                    stop = true;
                    continue;
                }
            }
            number += 1;
            if line_len(&raw) > max_line_bytes {
                batch.push(Line::Invalid(anyhow!(
                    "stdin line {number}: longer than {max_line_bytes} bytes (--max-line-bytes); nothing of it was written"
                )));
                stop = true;
                continue;
            }
            let line = match simdutf8::basic::from_utf8(&raw) {
                Ok(text) => check_line(number, text),
                Err(_) => Line::Invalid(anyhow!("stdin line {number}: not UTF-8")),
            };
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

/// Reads the next line of `input`, through its newline, into `raw`, but
/// stops after `max_line_bytes + 1` bytes without one: a longer line is never
/// held whole. Returns the bytes read (0 at the end of the input).
fn read_line(input: &mut impl BufRead, raw: &mut Vec<u8>, max_line_bytes: u64) -> io::Result<usize> {
    input.take(max_line_bytes.saturating_add(1)).read_until(b'\n', raw)
}

/// The length of a line read by [`read_line`], without its newline.
fn line_len(raw: &[u8]) -> u64 {
    let len = raw.len() - usize::from(raw.last() == Some(&b'\n'));
    u64::try_from(len).unwrap_or(u64::MAX)
}

/// What stdin line `number` asks for: one pass checks it is JSON and finds its
/// keys.
///
/// A message (`role`) is kept as it was written, with a `timestamp` in ms
/// added at the end when it has none; an entry (`type`) has its fields put in
/// the agents' key order when it is appended.
fn check_line(number: usize, text: &str) -> Line {
    if text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r')).is_empty() {
        return Line::Blank;
    }
    let invalid = |message: &str| Line::Invalid(anyhow!("stdin line {number}: {message}"));
    let is_object = text.trim_start().starts_with('{');
    let (mut role, mut timestamp) = (false, false);
    let json = match JsonText::parse_with(text.to_owned(), |key| match key {
        "role" => role = true,
        "timestamp" => timestamp = true,
        _ => {}
    }) {
        Ok(json) => json,
        Err(err) => return invalid(&format!("not JSON ({err})")),
    };
    if !is_object {
        return invalid("not a JSON object");
    }
    if role {
        if timestamp {
            return Line::Message(json);
        }
        // Agent messages carry their own time in milliseconds.
        return match json.with_number_field("timestamp", now_ms()) {
            Some(json) => Line::Message(json),
            None => invalid("not a JSON object"),
        };
    }
    match serde_json::from_str(json.as_str()) {
        Ok(Value::Object(object)) => match object.get("type").and_then(Value::as_str).map(str::to_owned) {
            Some(entry_type) => Line::Entry(entry_type, object),
            None => invalid("an object needs a `role` (a message) or a `type` (an entry)"),
        },
        Ok(_) => invalid("not a JSON object"),
        Err(err) => invalid(&format!("not JSON ({err})")),
    }
}

/// Appends the messages of `run` (emptying it) and adds their ids to `ids`.
fn append_run(manager: &mut SessionManager, run: &mut Vec<&JsonText>, ids: &mut Vec<EntryId>) -> anyhow::Result<()> {
    if !run.is_empty() {
        ids.extend(manager.append_messages_json(run)?);
        run.clear();
    }
    Ok(())
}

/// Appends one checked line; `None` for a blank line. What the line holds
/// is freed with its batch.
fn append_line(manager: &mut SessionManager, line: &mut Line) -> anyhow::Result<Option<EntryId>> {
    Ok(match line {
        Line::Blank => None,
        Line::Message(message) => Some(manager.append_message_json(message)?),
        Line::Entry(entry_type, object) => Some(manager.append_raw(entry_type, std::mem::take(object))?),
        Line::Invalid(err) => return Err(std::mem::replace(err, anyhow!("reported"))),
    })
}

fn now_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
