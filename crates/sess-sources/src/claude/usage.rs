//! The model calls of a Claude Code session file.
//!
//! Claude Code writes one response as several `assistant` lines, one per
//! content block, each with the response's `message.id`, the `requestId` of
//! the API request and the `message.usage` known when the line was written:
//! output tokens grow from the first line to the last. A response counts
//! once, with the usage of its last line (its key is `id:requestId`). A
//! line the CLI made up to report an API error (model `<synthetic>`) is no
//! call.

use serde_json::Value;

use super::line::Line;
use crate::usage::{Call, Counter};

/// The calls of a file's lines, in the order their responses began; a
/// later line of a response replaces what an earlier one said.
#[derive(Debug, Default)]
pub(super) struct Calls(crate::usage::Calls);

impl Calls {
    /// Takes the usage of `line`, if it has some.
    pub(super) fn see(&mut self, line: &Line) {
        if line.kind.as_deref() != Some("assistant") {
            return;
        }
        if let Some(call) = call_of(line) {
            self.0.push(call);
        }
    }

    /// The calls, each response once.
    pub(super) fn finish(self) -> Vec<Call> {
        self.0.finish()
    }
}

/// The call an assistant line records: `None` when it has no usage or is
/// the CLI's own.
fn call_of(line: &Line) -> Option<Call> {
    let message = line.message.as_ref()?;
    let usage = message.get("usage").filter(|u| u.is_object())?;
    let model = message.get("model").and_then(Value::as_str).map(str::to_owned);
    if model.as_deref() == Some("<synthetic>") {
        return None;
    }
    // A response served in fast mode is priced apart: the model's name says so.
    let fast = usage.get("speed").and_then(Value::as_str) == Some("fast");
    let model = model.map(|m| if fast { format!("{m}-fast") } else { m });
    let id = message.get("id").and_then(Value::as_str);
    let key = id.map(|id| format!("{id}:{}", line.request_id.as_deref().unwrap_or_default()));
    let thinking = usage.pointer("/output_tokens_details/thinking_tokens");
    let counter = Counter::default();
    let count = |key: &str| counter.count(key, usage.get(key));
    Some(Call {
        key,
        timestamp: line.timestamp.clone(),
        model,
        input: count("input_tokens"),
        output: count("output_tokens"),
        cache_creation: count("cache_creation_input_tokens"),
        cache_read: count("cache_read_input_tokens"),
        reasoning: counter.count("thinking_tokens", thinking),
        cost: line.cost_usd,
        not_counts: counter.take(),
    })
}

/// The calls of the complete lines `bytes` of a file read for its usage
/// only (a subagent's transcript).
pub(super) fn of_bytes(bytes: &[u8]) -> Vec<Call> {
    let mut calls = Calls::default();
    for raw in crate::jsonl::JsonLines::new(bytes) {
        // Only assistant lines with a usage are parsed.
        if memchr::memmem::find(raw.text.as_bytes(), b"\"usage\"").is_none() {
            continue;
        }
        if let Ok(line) = raw.parse_object_mended::<Line>() {
            calls.see(&line);
        }
    }
    calls.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(json: &str) -> String {
        json.to_owned() + "\n"
    }

    #[test]
    fn a_response_counts_once_with_its_last_lines_usage() {
        let bytes = [
            line(
                r#"{"type":"assistant","timestamp":"2026-01-02T03:04:05Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000},"content":[{"type":"thinking"}]}}"#,
            ),
            line(
                r#"{"type":"assistant","timestamp":"2026-01-02T03:04:06Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":42,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens_details":{"thinking_tokens":7}},"content":[{"type":"text"}]}}"#,
            ),
            line(
                r#"{"type":"assistant","timestamp":"2026-01-02T03:05:00Z","requestId":"req_2","message":{"id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":1,"output_tokens":2,"speed":"fast"}},"costUSD":0.5}"#,
            ),
            line(
                r#"{"type":"assistant","timestamp":"2026-01-02T03:06:00Z","message":{"id":"msg_3","model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}}}"#,
            ),
            line(r#"{"type":"user","message":{"usage":{"input_tokens":5}}}"#),
        ]
        .concat();
        let calls = of_bytes(bytes.as_bytes());
        assert_eq!(calls.len(), 2, "{calls:#?}");
        assert_eq!(calls[0].key.as_deref(), Some("msg_1:req_1"));
        assert_eq!(
            (calls[0].input, calls[0].output, calls[0].cache_creation, calls[0].cache_read),
            (10, 42, 100, 1000)
        );
        assert_eq!(calls[0].reasoning, 7);
        assert_eq!(calls[0].timestamp.as_deref(), Some("2026-01-02T03:04:06Z"));
        assert_eq!(calls[1].model.as_deref(), Some("claude-sonnet-4-5-fast"));
        assert_eq!(calls[1].cost, Some(0.5));
    }
}
