//! The model calls of a Codex rollout, from its `token_count` events.
//!
//! After each model response Codex writes an `event_msg` of type
//! `token_count` whose `info` holds `last_token_usage` (the response's
//! usage) and `total_token_usage` (the thread's running total), each as
//! `input_tokens` (the cached and cache-written input included),
//! `cached_input_tokens`, `cache_write_input_tokens` (Codex 0.171),
//! `output_tokens` (reasoning included) and `reasoning_output_tokens`. It
//! writes the event again, with the same total and the same stale
//! `last_token_usage`, when a turn starts or fails without a response: an
//! event whose total is the one before it is such a repeat, and no call.
//! The `token_usage_record` lines of Codex 0.171 say the same as the events
//! (one per response) and are not read.
//!
//! A call's usage is `last_token_usage`; without it, its total less the
//! total before it (never below 0). An event whose usage counts nothing is
//! no call. In a call, `input` is `input_tokens` less the cached and
//! cache-written tokens, `cache_read` the cached ones, `cache_creation` the
//! cache-written ones, `output` is `output_tokens` and `reasoning` is
//! `reasoning_output_tokens`. The model is the event's own (`info.model`,
//! `info.model_name`) when it names one, else the one of the latest
//! `turn_context` line before it, else, in a rollout read whole, `gpt-5`
//! (what the CLI ran before it wrote the model).
//!
//! A call's key is the thread id and the total after it: a repeat read
//! with lines added later (whose earlier total is not known then) has the
//! key of the call it repeats, and replaces it with the same usage.
//!
//! Lines added to a rollout are read without what came before them: the
//! total before the first event is not known, so an event of those lines
//! without `last_token_usage` counts only once an earlier event of the same
//! lines gives the total before it, and a call whose `turn_context` is in
//! the earlier lines has no model.
//!
//! An older build's fork (a `session_meta` with `forked_from_id` and no
//! `history_base`) starts with copies of its parent's lines, the parent's
//! `token_count` events among them: those calls are the parent's. Read
//! whole, the fork's first events that have the counts of the parent's
//! first events, in order, are such copies and no calls of the fork; when
//! the parent cannot be read, they count here.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::files;
use super::lineage;
use super::rollout;
use crate::jsonl::JsonLines;
use crate::lenient::string;
use crate::usage::{Call, Calls, Counter};

/// The model of a rollout that never names one.
const DEFAULT_MODEL: &str = "gpt-5";

/// The calls of the whole rollout at `path`, whose (decompressed) bytes are
/// `bytes`, of thread `thread_id`.
pub(crate) fn of_rollout(path: &Path, bytes: &[u8], thread_id: &str) -> Vec<Call> {
    let meta = rollout::meta(bytes);
    let mut reader = Reader::new(thread_id, Some(DEFAULT_MODEL));
    match meta {
        // A fork by reference goes on counting from its base's total.
        Some(meta) if meta.history_base.is_some() => {}
        Some(meta) if meta.forked_from_id.is_some() => {
            reader.before = Some(Counts::default());
            let parent = meta.forked_from_id.as_deref().and_then(|id| parent_events(path, id));
            reader.copied = parent.unwrap_or_default();
        }
        _ => reader.before = Some(Counts::default()),
    }
    reader.read(bytes);
    reader.calls.finish()
}

/// The calls of lines added to a rollout of thread `thread_id`.
pub(crate) fn of_added(bytes: &[u8], thread_id: &str) -> Vec<Call> {
    let mut reader = Reader::new(thread_id, None);
    reader.read(bytes);
    reader.calls.finish()
}

/// The counts of the `token_count` events of the rollout of thread
/// `parent` in the Codex home of `path`, in order; `None` when it cannot be
/// read.
fn parent_events(path: &Path, parent: &str) -> Option<Vec<Event>> {
    let file = lineage::find(files::home_of(path)?, parent)?;
    let bytes = super::compression::read_rollout(&file).ok()?;
    let mut events = Vec::new();
    for_each_line(&bytes, |line| {
        if let Line::TokenCount { info, .. } = line {
            events.extend(Event::of(&info, &Counter::default()));
        }
    });
    Some(events)
}

/// Token counts as Codex writes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    input: u64,
    cached: u64,
    cache_write: u64,
    output: u64,
    reasoning: u64,
    total: u64,
}

impl Counts {
    /// The counts of a usage object; `None` when it is not an object.
    fn of(value: Option<&Value>, counter: &Counter) -> Option<Self> {
        let value = value.filter(|v| v.is_object())?;
        let count = |key: &str| counter.count(key, value.get(key));
        Some(Self {
            input: count("input_tokens"),
            cached: count("cached_input_tokens"),
            cache_write: count("cache_write_input_tokens"),
            output: count("output_tokens"),
            reasoning: count("reasoning_output_tokens"),
            total: count("total_tokens"),
        })
    }

    /// What these counts add to `earlier`, field by field (never below 0).
    fn since(self, earlier: Self) -> Self {
        Self {
            input: self.input.saturating_sub(earlier.input),
            cached: self.cached.saturating_sub(earlier.cached),
            cache_write: self.cache_write.saturating_sub(earlier.cache_write),
            output: self.output.saturating_sub(earlier.output),
            reasoning: self.reasoning.saturating_sub(earlier.reasoning),
            total: self.total.saturating_sub(earlier.total),
        }
    }

    /// The counts as the key part of a call.
    fn key(self) -> String {
        let Self { input, cached, cache_write, output, reasoning, total } = self;
        format!("{input}/{cached}/{cache_write}/{output}/{reasoning}/{total}")
    }
}

/// The counts of one `token_count` event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Event {
    total: Option<Counts>,
    last: Option<Counts>,
}

impl Event {
    /// The counts of an event's `info`; `None` when it has neither.
    fn of(info: &Value, counter: &Counter) -> Option<Self> {
        let event = Self {
            total: Counts::of(info.get("total_token_usage"), counter),
            last: Counts::of(info.get("last_token_usage"), counter),
        };
        (event.total.is_some() || event.last.is_some()).then_some(event)
    }
}

/// Reads the calls of some lines.
struct Reader<'a> {
    thread_id: &'a str,
    /// The model of a call when nothing before it names one.
    default_model: Option<&'static str>,
    /// The thread's total before the next event, when known.
    before: Option<Counts>,
    /// The model of the latest `turn_context`.
    model: Option<String>,
    /// The parent's events a fork's first events copy, in order; emptied at
    /// the first event that is not the next of them.
    copied: Vec<Event>,
    calls: Calls,
}

impl<'a> Reader<'a> {
    fn new(thread_id: &'a str, default_model: Option<&'static str>) -> Self {
        Self { thread_id, default_model, before: None, model: None, copied: Vec::new(), calls: Calls::default() }
    }

    fn read(&mut self, bytes: &[u8]) {
        for_each_line(bytes, |line| match line {
            Line::TurnContext { model } => {
                if model.is_some() {
                    self.model = model;
                }
            }
            Line::TokenCount { timestamp, info } => self.token_count(&info, timestamp),
        });
    }

    fn token_count(&mut self, info: &Value, timestamp: Option<String>) {
        let counter = Counter::default();
        let Some(event) = Event::of(info, &counter) else { return };
        if self.copied.first() == Some(&event) {
            self.copied.remove(0);
            self.before = event.total.or(self.before);
            return;
        }
        self.copied.clear();
        let before = self.before;
        if event.total.is_some() {
            self.before = event.total;
        }
        if event.total.is_some() && event.total == before {
            // Written again with nothing new.
            return;
        }
        let since = event.total.zip(before).map(|(total, before)| total.since(before));
        let Some(usage) = event.last.or(since) else { return };
        let model = ["model", "model_name"]
            .iter()
            .find_map(|key| info.get(key).and_then(Value::as_str))
            .map(str::to_owned)
            .or_else(|| self.model.clone())
            .or_else(|| self.default_model.map(str::to_owned));
        let cache_read = usage.cached.min(usage.input);
        let cache_creation = usage.cache_write.min(usage.input - cache_read);
        self.calls.push(Call {
            key: event.total.map(|total| format!("{}:{}", self.thread_id, total.key())),
            timestamp,
            model,
            input: usage.input - cache_read - cache_creation,
            output: usage.output,
            cache_creation,
            cache_read,
            reasoning: usage.reasoning.min(usage.output),
            cost: None,
            not_counts: counter.take(),
        });
    }
}

/// A line this reader uses.
enum Line {
    /// A `turn_context`, with its model.
    TurnContext { model: Option<String> },
    /// A `token_count` event, with its timestamp and `info`.
    TokenCount { timestamp: Option<String>, info: Value },
}

/// The envelope of a rollout line.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, deserialize_with = "string")]
    timestamp: Option<String>,
    #[serde(rename = "type", default, deserialize_with = "string")]
    kind: Option<String>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
}

/// Calls `see` with each `turn_context` and `token_count` line of `bytes`;
/// other lines, and lines that do not parse, are skipped.
fn for_each_line(bytes: &[u8], mut see: impl FnMut(Line)) {
    for raw in JsonLines::new(bytes) {
        let text = raw.text.as_bytes();
        let token_count = memchr::memmem::find(text, b"\"token_count\"").is_some();
        if !token_count && memchr::memmem::find(text, b"\"turn_context\"").is_none() {
            continue;
        }
        let Ok(envelope) = raw.parse::<Envelope<'_>>() else { continue };
        let Some(payload) = envelope.payload.and_then(|p| serde_json::from_str::<Value>(p.get()).ok()) else {
            continue;
        };
        match envelope.kind.as_deref() {
            Some("turn_context") => {
                let model = payload.get("model").and_then(Value::as_str).map(str::to_owned);
                see(Line::TurnContext { model });
            }
            Some("event_msg") if token_count && payload.get("type").and_then(Value::as_str) == Some("token_count") => {
                let info = payload.get("info").cloned().unwrap_or(Value::Null);
                see(Line::TokenCount { timestamp: envelope.timestamp, info });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
