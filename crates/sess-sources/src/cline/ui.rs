//! A task's `ui_messages.json`: what the extension showed, one record
//! `{ts, type: say|ask, say|ask, text, conversationHistoryIndex, …}` each.
//! It dates the task and the messages that carry no time, and holds what the
//! conversation does not: errors, compactions, and the usage of each request.

use std::collections::HashMap;

use serde_json::Value;
use sess_core::format_iso_millis;

use crate::transcript::{Block, Message, Role};
use crate::usage::{Call, Calls, Counter};

/// What a task's UI records say.
#[derive(Debug, Default)]
pub(crate) struct Ui {
    /// The time of the first record, in ms since the Unix epoch.
    pub(crate) first_ts: Option<i64>,
    /// The time of the last record.
    pub(crate) last_ts: Option<i64>,
    /// The prompt of the first `say: task` record.
    pub(crate) task: Option<String>,
    /// Notices to show among the messages: each after the message of the
    /// conversation with this index (`conversationHistoryIndex`), or by its
    /// time when the record has none.
    pub(crate) notices: Vec<Notice>,
    /// The model calls of the `api_req_started` records.
    pub(crate) calls: Vec<Call>,
    /// For each index of the conversation, the time of the last record
    /// said while that was the conversation's last message: about when the
    /// message after it was added.
    pub(crate) after_index: HashMap<usize, i64>,
}

/// A system message the UI records give.
#[derive(Debug)]
pub(crate) struct Notice {
    /// The conversation's last message when it was said.
    pub(crate) index: Option<usize>,
    /// When it was said, in ms since the Unix epoch.
    pub(crate) ts: i64,
    /// Whether it was said while the model's response to that message was
    /// being made (a tool's error, a compaction): it then shows after that
    /// response. A failed request shows before it.
    pub(crate) in_response: bool,
    /// The message.
    pub(crate) message: Message,
}

impl Ui {
    /// The UI records `records` (the array of `ui_messages.json`).
    pub(crate) fn read(records: &[Value]) -> Self {
        let mut ui = Self::default();
        let mut calls = Calls::default();
        for record in records {
            let Some(ts) = record.get("ts").and_then(Value::as_i64) else { continue };
            ui.first_ts = Some(ui.first_ts.map_or(ts, |first| first.min(ts)));
            ui.last_ts = Some(ui.last_ts.map_or(ts, |last| last.max(ts)));
            let index =
                record.get("conversationHistoryIndex").and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok());
            if let Some(index) = index {
                ui.after_index.insert(index, ts);
            }
            let text = record.get("text").and_then(Value::as_str).unwrap_or_default();
            let kind = match record.get("type").and_then(Value::as_str) {
                Some("say") => record.get("say").and_then(Value::as_str).map(|say| (false, say)),
                Some("ask") => record.get("ask").and_then(Value::as_str).map(|ask| (true, ask)),
                _ => None,
            };
            let Some((ask, what)) = kind else { continue };
            // Cline adds the model's response to the conversation once it
            // is complete, after running its tools: what its tools said
            // names the message before it.
            let in_response =
                !matches!((ask, what), (false, "api_req_started") | (true, "api_req_failed" | "mistake_limit_reached"));
            let block = match (ask, what) {
                (false, "task") => {
                    if ui.task.is_none() && !text.trim().is_empty() {
                        ui.task = Some(text.to_owned());
                    }
                    None
                }
                (false, "api_req_started") => {
                    let info: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                    calls.push_opt(call(&info, record, ts));
                    request_error(&info)
                }
                (
                    false,
                    "error" | "diff_error" | "clineignore_error" | "rooignore_error" | "condense_context_error",
                )
                | (true, "api_req_failed" | "mistake_limit_reached") => {
                    (!text.trim().is_empty()).then(|| Block::Error { text: text.to_owned() })
                }
                (false, "condense_context") => {
                    let summary = record.pointer("/contextCondense/summary").and_then(Value::as_str);
                    summary.filter(|s| !s.trim().is_empty()).map(|s| Block::Summary { text: s.to_owned() })
                }
                (true, "condense" | "summarize_task") => {
                    (!text.trim().is_empty()).then(|| Block::Summary { text: text.to_owned() })
                }
                _ => None,
            };
            if let Some(block) = block {
                let message = Message::new(Role::System).at(None, Some(format_iso_millis(ts))).with(block);
                ui.notices.push(Notice { index, ts, in_response, message });
            }
        }
        ui.calls = calls.finish();
        ui
    }
}

/// The error an `api_req_started` record's info says the request ended
/// with: its `streamingFailedMessage`, or that the person cancelled it.
fn request_error(info: &Value) -> Option<Block> {
    if let Some(message) = info.get("streamingFailedMessage").and_then(Value::as_str).filter(|m| !m.trim().is_empty()) {
        return Some(Block::Error { text: message.to_owned() });
    }
    match info.get("cancelReason").and_then(Value::as_str) {
        Some("user_cancelled") => Some(Block::Error { text: "Request cancelled".to_owned() }),
        Some("streaming_failed") => Some(Block::Error { text: "Request failed while streaming".to_owned() }),
        _ => None,
    }
}

/// The model call an `api_req_started` record's info (`{tokensIn,
/// tokensOut, cacheWrites, cacheReads, cost}`) records. Roo Code says with
/// `apiProtocol: "openai"` that its `tokensIn` counts the cached input too,
/// which the rule of [`Call`] keeps apart.
fn call(info: &Value, record: &Value, ts: i64) -> Option<Call> {
    if !info.is_object() {
        return None;
    }
    let counter = Counter::default();
    let mut input = counter.count("tokensIn", info.get("tokensIn"));
    let output = counter.count("tokensOut", info.get("tokensOut"));
    let cache_creation = counter.count("cacheWrites", info.get("cacheWrites"));
    let cache_read = counter.count("cacheReads", info.get("cacheReads"));
    if info.get("apiProtocol").and_then(Value::as_str) == Some("openai") {
        input = input.saturating_sub(cache_read).saturating_sub(cache_creation);
    }
    let model = record
        .pointer("/modelInfo/modelId")
        .or_else(|| info.pointer("/modelInfo/modelId"))
        .or_else(|| info.get("model"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some(Call {
        key: None,
        timestamp: Some(format_iso_millis(ts)),
        model,
        input,
        output,
        cache_creation,
        cache_read,
        reasoning: 0,
        cost: info.get("cost").and_then(Value::as_f64),
        not_counts: counter.take(),
    })
}

/// Puts `notices` among `messages` (each tagged with the position of the
/// conversation record it comes from): after the last message of the record
/// the notice's index names, else by time, else at the end.
pub(crate) fn place(messages: Vec<(usize, Message)>, notices: Vec<Notice>) -> Vec<Message> {
    if notices.is_empty() {
        return messages.into_iter().map(|(_, m)| m).collect();
    }
    // Each message's key: (record, 0) for the conversation's; a notice goes
    // after every message of the records up to its index, by (index, 1).
    let mut keyed: Vec<((usize, u8, i64), Message)> = messages.into_iter().map(|(at, m)| ((at, 0, 0), m)).collect();
    let times: Vec<(usize, i64)> = keyed
        .iter()
        .filter_map(|((at, _, _), m)| Some((*at, m.timestamp.as_deref().and_then(sess_core::parse_iso_millis)?)))
        .collect();
    for notice in notices {
        let at = match notice.index {
            Some(index) => index + usize::from(notice.in_response),
            // The record of the last message said before it, by time.
            None if times.is_empty() => usize::MAX,
            None => times.iter().filter(|(_, t)| *t <= notice.ts).map(|(at, _)| *at).max().unwrap_or(0),
        };
        keyed.push(((at, 1, notice.ts), notice.message));
    }
    // Stable: messages of one record keep their order.
    keyed.sort_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, m)| m).collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_are_calls_and_errors_are_notices() {
        let records = vec![
            json!({"ts": 1000, "type": "say", "say": "task", "text": "Fix it"}),
            json!({"ts": 1100, "type": "say", "say": "api_req_started", "conversationHistoryIndex": 0,
                   "text": "{\"request\":\"x\",\"tokensIn\":10,\"tokensOut\":5,\"cacheWrites\":3,\"cacheReads\":2,\"cost\":0.01}"}),
            json!({"ts": 1200, "type": "ask", "ask": "api_req_failed", "conversationHistoryIndex": 1, "text": "500 Internal"}),
            json!({"ts": 1300, "type": "say", "say": "api_req_started", "conversationHistoryIndex": 1,
                   "text": "{\"tokensIn\":100,\"tokensOut\":1,\"cacheReads\":60,\"apiProtocol\":\"openai\"}"}),
        ];
        let ui = Ui::read(&records);
        assert_eq!(ui.task.as_deref(), Some("Fix it"));
        assert_eq!((ui.first_ts, ui.last_ts), (Some(1000), Some(1300)));
        let counts: Vec<_> =
            ui.calls.iter().map(|c| (c.input, c.output, c.cache_creation, c.cache_read, c.cost)).collect();
        assert_eq!(counts, [(10, 5, 3, 2, Some(0.01)), (40, 1, 0, 60, None)]);
        assert_eq!(ui.notices.len(), 1);
        assert_eq!(ui.notices[0].message.blocks, [Block::Error { text: "500 Internal".into() }]);
        assert_eq!(ui.after_index.get(&1), Some(&1300));
    }

    #[test]
    fn notices_go_after_the_record_they_name() {
        let messages =
            vec![(0, Message::new(Role::User)), (1, Message::new(Role::Assistant)), (3, Message::new(Role::Assistant))];
        let notice = Notice { index: Some(1), ts: 0, in_response: false, message: Message::new(Role::System) };
        let roles: Vec<Role> = place(messages, vec![notice]).iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::System, Role::Assistant]);
    }
}
