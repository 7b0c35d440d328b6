//! The model calls of a Qwen Code session.
//!
//! Qwen Code writes the usage of a model response twice: as the
//! `usageMetadata` of the `assistant` record it made of the response, and
//! as a `system` record of subtype `ui_telemetry` whose
//! `systemPayload.uiEvent` is the `qwen-code.api_response` event (`model`,
//! `input_token_count`, `output_token_count`, `cached_content_token_count`,
//! `thoughts_token_count`, `total_token_count`), which the CLI replays to
//! rebuild its `/stats` on a resume. Only the event is written for the
//! requests that make no record of their own, a compression's and those of
//! the subagents the session runs (with their `subagent_id`): the events
//! are the session's calls. A record's `usageMetadata` counts only when no
//! event of the same lines has its counts (prompt and candidates), so that
//! files of builds that wrote no events lose nothing. Each call's key is
//! its record's `uuid`, which a fork copies with the record: a copied call
//! counts once.
//!
//! The counts are Gemini API counts, which Qwen Code fills from the
//! provider's: the prompt counts the cached input too, so `input` is the
//! prompt less its cached part (plus a tool-use prompt, where one is
//! counted) and `cache_read` the cached part; the candidates of an
//! OpenAI-compatible provider (`completion_tokens`) hold the thoughts, as
//! the total shows (prompt plus candidates), and the thoughts are added to
//! the output only where the total counts them apart. The model is the
//! event's, or the record's `model`. No cost is recorded.
//!
//! A subagent's transcript (`subagents/<session id>/agent-<id>.jsonl`)
//! records its responses too: they count from there only when the
//! session's file has no event of that subagent with their counts.
//!
//! Read as lines added to a file, an event and its record that the earlier
//! read split count twice (Qwen Code writes them a few milliseconds apart).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::jsonl::{JsonLines, read_file};
use crate::lenient::string;
use crate::usage::{Call, Calls, Counter, with_reasoning};

/// The prompt and candidate tokens of a response, by which an event and the
/// record of the same response are matched.
type Pair = (u64, u64);

/// A call of the file, and where it was read from.
struct Read {
    call: Call,
    counts: Pair,
    /// From a telemetry event (else from a record's `usageMetadata`).
    event: bool,
    /// The subagent that made it.
    agent: Option<String>,
}

/// The fields of a record that hold a call.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    #[serde(default, deserialize_with = "string")]
    uuid: Option<String>,
    #[serde(default, deserialize_with = "string")]
    timestamp: Option<String>,
    #[serde(rename = "type", default, deserialize_with = "string")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "string")]
    subtype: Option<String>,
    #[serde(default, deserialize_with = "string")]
    model: Option<String>,
    #[serde(default, deserialize_with = "string")]
    agent_id: Option<String>,
    #[serde(default)]
    usage_metadata: Value,
    #[serde(default)]
    system_payload: Value,
}

/// The calls of a session file's lines (or of lines added to one).
pub(super) fn calls(bytes: &[u8]) -> Vec<Call> {
    let items = read(bytes);
    let mut events = counts_of(items.iter().filter(|r| r.event));
    let mut calls = Calls::default();
    for item in items {
        if item.event || !take(&mut events, item.counts) {
            calls.push(item.call);
        }
    }
    calls.finish()
}

/// The calls of a subagent's transcript at `path` whose bytes are `bytes`:
/// those the session's file has no event of.
pub(super) fn subagent_calls(path: &Path, bytes: &[u8]) -> Vec<Call> {
    let items = read(bytes);
    let agent = items.iter().find_map(|r| r.agent.clone());
    let session = session_file(path).and_then(|file| read_file(&file).ok()).unwrap_or_default();
    let session = read(&session);
    let mut events = counts_of(session.iter().filter(|r| r.event && r.agent.is_some() && r.agent == agent));
    let mut calls = Calls::default();
    for item in items {
        if !item.event && !take(&mut events, item.counts) {
            calls.push(item.call);
        }
    }
    calls.finish()
}

/// How many calls have each pair of counts.
fn counts_of<'a>(read: impl Iterator<Item = &'a Read>) -> HashMap<Pair, usize> {
    let mut counts = HashMap::new();
    for item in read {
        *counts.entry(item.counts).or_insert(0) += 1;
    }
    counts
}

/// Takes one call with `counts` out of `events`, if there is one left.
fn take(events: &mut HashMap<Pair, usize>, counts: Pair) -> bool {
    match events.get_mut(&counts) {
        Some(left) if *left > 0 => {
            *left -= 1;
            true
        }
        _ => false,
    }
}

/// The session file of the subagent transcript at `path`
/// (`<project>/subagents/<session id>/agent-….jsonl`):
/// `<project>/chats/<session id>.jsonl`, or the archived one.
fn session_file(path: &Path) -> Option<PathBuf> {
    let folder = path.parent()?;
    let session = folder.file_name()?.to_str()?;
    let project = folder.parent().filter(|p| p.file_name().is_some_and(|n| n == "subagents"))?.parent()?;
    let chats = project.join("chats");
    let name = format!("{session}.jsonl");
    [chats.join(&name), chats.join("archive").join(&name)].into_iter().find(|file| file.is_file())
}

/// The calls of the telemetry events and of the records with a usage, in
/// file order.
fn read(bytes: &[u8]) -> Vec<Read> {
    let mut read = Vec::new();
    for raw in JsonLines::new(bytes) {
        let text = raw.text.as_bytes();
        if memchr::memmem::find(text, b"usageMetadata").is_none()
            && memchr::memmem::find(text, b"api_response").is_none()
        {
            continue;
        }
        let Ok(record) = raw.parse_object_mended::<Record>() else { continue };
        read.extend(event_of(&record).or_else(|| usage_of(&record)));
    }
    read
}

/// The call of a `qwen-code.api_response` telemetry record.
fn event_of(record: &Record) -> Option<Read> {
    if record.kind.as_deref() != Some("system") || record.subtype.as_deref() != Some("ui_telemetry") {
        return None;
    }
    let event = record.system_payload.get("uiEvent")?;
    if event.get("event.name").and_then(Value::as_str) != Some("qwen-code.api_response") {
        return None;
    }
    let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
    let counter = Counter::default();
    let count = |key: &str| counter.count(key, event.get(key));
    let counts = Counts {
        prompt: count("input_token_count"),
        output: count("output_token_count"),
        cached: count("cached_content_token_count"),
        thoughts: count("thoughts_token_count"),
        tool: count("tool_token_count"),
        total: count("total_token_count"),
    };
    let timestamp = text("event.timestamp").or_else(|| record.timestamp.clone());
    let mut read = counts.read(record.uuid.clone(), timestamp, text("model"), true, text("subagent_id"));
    read.call.not_counts = counter.take();
    Some(read)
}

/// The call of an `assistant` record's `usageMetadata`.
fn usage_of(record: &Record) -> Option<Read> {
    let usage = &record.usage_metadata;
    if record.kind.as_deref() != Some("assistant") || !usage.is_object() {
        return None;
    }
    let counter = Counter::default();
    let count = |key: &str| counter.count(key, usage.get(key));
    let counts = Counts {
        prompt: count("promptTokenCount"),
        output: count("candidatesTokenCount"),
        cached: count("cachedContentTokenCount"),
        thoughts: count("thoughtsTokenCount"),
        tool: count("toolUsePromptTokenCount"),
        total: count("totalTokenCount"),
    };
    let (uuid, timestamp, model) = (record.uuid.clone(), record.timestamp.clone(), record.model.clone());
    let mut read = counts.read(uuid, timestamp, model, false, record.agent_id.clone());
    read.call.not_counts = counter.take();
    Some(read)
}

/// A response's counts as Qwen Code records them.
struct Counts {
    prompt: u64,
    output: u64,
    cached: u64,
    thoughts: u64,
    tool: u64,
    total: u64,
}

impl Counts {
    fn read(
        &self,
        key: Option<String>,
        timestamp: Option<String>,
        model: Option<String>,
        event: bool,
        agent: Option<String>,
    ) -> Read {
        let cache_read = self.cached.min(self.prompt);
        let (output, reasoning) =
            with_reasoning(self.output, self.thoughts, self.prompt.saturating_add(self.tool), self.total, false);
        let call = Call {
            key,
            timestamp,
            model,
            input: self.prompt - cache_read + self.tool,
            output,
            cache_creation: 0,
            cache_read,
            reasoning,
            cost: None,
            not_counts: Vec::new(),
        };
        Read { call, counts: (self.prompt, self.output), event, agent }
    }
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
