//! What OpenCode keeps of a session, in the shape both layouts share: the
//! session's own record, and its messages with their parts as the JSON that
//! OpenCode wrote (the `data` of a row, or a file of `storage/`).

use serde_json::Value;
use sess_core::{IssueKind, LineIssue};

/// A session's record: a row of `session`, or `storage/session/…/<id>.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SessionRecord {
    /// `ses_…`.
    pub(crate) id: String,
    /// The session whose `task` call started this one (a subagent's).
    pub(crate) parent_id: Option<String>,
    /// The title OpenCode shows (`New session - <time>` until one is made).
    pub(crate) title: Option<String>,
    /// The directory OpenCode worked in.
    pub(crate) directory: Option<String>,
    /// When it was created, in ms since the Unix epoch.
    pub(crate) created: Option<i64>,
    /// When it last changed (OpenCode bumps it on every write to the
    /// session), in ms since the Unix epoch.
    pub(crate) updated: Option<i64>,
    /// When the user archived it.
    pub(crate) archived: Option<i64>,
    /// The message an /undo went back to: it and every later message are
    /// undone (OpenCode deletes them at the next prompt).
    pub(crate) revert_message: Option<String>,
}

impl SessionRecord {
    /// The record in a legacy session file, `None` without a string `id`.
    pub(crate) fn from_json(value: &Value) -> Option<Self> {
        let time = value.get("time");
        let ms = |key: &str| time.and_then(|t| t.get(key)).and_then(Value::as_i64);
        Some(Self {
            id: value.get("id")?.as_str()?.to_owned(),
            parent_id: string(value, "parentID"),
            title: string(value, "title"),
            directory: string(value, "directory"),
            created: ms("created"),
            updated: ms("updated"),
            archived: ms("archived"),
            revert_message: value.get("revert").and_then(|r| string(r, "messageID")),
        })
    }

    /// The title, unless it is the placeholder OpenCode gives a session
    /// before its title is made (`New session - 2026-…Z`, `Child session - …`).
    pub(crate) fn own_title(&self) -> Option<&str> {
        self.title.as_deref().filter(|title| !title.trim().is_empty() && !is_placeholder(title))
    }
}

/// Whether `title` is `New session - ` or `Child session - ` and an ISO 8601
/// time, as OpenCode names a session it has not titled yet.
fn is_placeholder(title: &str) -> bool {
    let Some(time) = title.strip_prefix("New session - ").or_else(|| title.strip_prefix("Child session - ")) else {
        return false;
    };
    sess_core::parse_iso_millis(time).is_some()
}

/// One message: its id, when it was created, its JSON and its parts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawMessage {
    /// `msg_…`.
    pub(crate) id: String,
    /// When it was created (ms), by which messages are ordered.
    pub(crate) created: i64,
    /// The message as OpenCode wrote it (`role`, `time`, `error`, …).
    pub(crate) data: Value,
    /// Its parts, in id order.
    pub(crate) parts: Vec<RawPart>,
}

/// One part of a message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawPart {
    /// `prt_…`.
    pub(crate) id: String,
    /// The part as OpenCode wrote it (`type`, `text`, `state`, …).
    pub(crate) data: Value,
}

/// A session's messages as read, and the records that could not be.
#[derive(Debug, Default)]
pub(crate) struct RawMessages {
    /// The messages, oldest first.
    pub(crate) messages: Vec<RawMessage>,
    /// Records skipped: numbered in reading order (messages first, then
    /// parts), with what was wrong.
    pub(crate) issues: Vec<LineIssue>,
}

impl RawMessages {
    /// Records a record that does not parse.
    pub(crate) fn skip(&mut self, number: usize, what: &str, error: impl std::fmt::Display) {
        self.issues.push(LineIssue { line: number, kind: IssueKind::InvalidJson(format!("{what}: {error}")) });
    }

    /// Puts the messages in OpenCode's order: by creation time, then id.
    pub(crate) fn sort(&mut self) {
        self.messages.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        for message in &mut self.messages {
            message.parts.sort_by(|a, b| a.id.cmp(&b.id));
        }
    }
}

/// A JSON object parsed from `text`, or why it is not one.
pub(crate) fn object(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("not a JSON object".to_owned()),
        Err(err) => Err(err.to_string()),
    }
}

/// The string field `key` of `value`.
pub(crate) fn string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(ToOwned::to_owned)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn placeholder_titles_are_not_titles() {
        let mut record =
            SessionRecord { title: Some("New session - 2026-12-01T08:39:02.037Z".into()), ..Default::default() };
        assert_eq!(record.own_title(), None);
        record.title = Some("Child session - 2026-12-01T08:39:02.037Z".into());
        assert_eq!(record.own_title(), None);
        record.title = Some("New session - about cats".into());
        assert_eq!(record.own_title(), Some("New session - about cats"));
        record.title = Some("  ".into());
        assert_eq!(record.own_title(), None);
    }

    #[test]
    fn a_legacy_session_file_gives_its_record() {
        let value = json!({
            "id": "ses_1", "parentID": "ses_0", "title": "T", "directory": "/p",
            "time": {"created": 1, "updated": 2, "archived": 3},
            "revert": {"messageID": "msg_9", "snapshot": "abc"}
        });
        let record = SessionRecord::from_json(&value).unwrap();
        assert_eq!(record.id, "ses_1");
        assert_eq!(record.parent_id.as_deref(), Some("ses_0"));
        assert_eq!((record.created, record.updated, record.archived), (Some(1), Some(2), Some(3)));
        assert_eq!(record.revert_message.as_deref(), Some("msg_9"));
        assert_eq!(SessionRecord::from_json(&json!({"title": "no id"})), None);
    }

    #[test]
    fn messages_sort_by_time_then_id() {
        let message = |id: &str, created| RawMessage { id: id.into(), created, data: json!({}), parts: Vec::new() };
        let mut raw =
            RawMessages { messages: vec![message("b", 2), message("c", 1), message("a", 2)], ..Default::default() };
        raw.sort();
        let ids: Vec<&str> = raw.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["c", "a", "b"]);
    }
}
