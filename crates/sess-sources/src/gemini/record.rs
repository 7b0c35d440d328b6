//! The records of a Gemini CLI session file: a JSONL log (metadata, messages
//! keyed by `id`, `$set` updates, `$rewindTo` truncations), or the single JSON
//! document older CLIs wrote.

use serde_json::{Map, Value};
use sess_core::{IssueKind, LineIssue};

use crate::jsonl::JsonLines;

/// One record, as the CLI's loader tells them apart (in this order).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Record {
    /// `{"$rewindTo": id}`: that message and every later one leave the
    /// conversation.
    Rewind(String),
    /// A message: an object with a string `id`. A later record with the same
    /// id replaces it.
    Message(Value),
    /// `{"$set": {...}}`: metadata updates; `messages` replaces the whole
    /// conversation.
    Set(Map<String, Value>),
    /// The session's metadata: `sessionId`, `projectHash`, `startTime`,
    /// `lastUpdated`, `kind`, `directories`, `summary`.
    Meta(Map<String, Value>),
}

/// The records of a file, each with its 1-based line, and the lines skipped.
#[derive(Debug, Default)]
pub(crate) struct Records {
    pub records: Vec<(usize, Record)>,
    pub issues: Vec<LineIssue>,
}

/// Reads `bytes`: one JSON object holding `messages` (an older CLI's `.json`
/// session) is its metadata followed by its messages; anything else is read
/// as JSONL, line by line, leniently: a line that is not JSON, not an object,
/// or none of the records is skipped and reported.
pub(crate) fn read(bytes: &[u8]) -> Records {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.trim_ascii_start().starts_with(b"{")
        && let Ok(Value::Object(document)) = serde_json::from_slice::<Value>(bytes)
        && document.contains_key("sessionId")
    {
        return Records {
            records: document_records(document).into_iter().map(|r| (1, r)).collect(),
            issues: Vec::new(),
        };
    }
    let mut out = Records::default();
    for line in JsonLines::new(bytes) {
        match line.parse::<Value>() {
            Ok(Value::Object(object)) => match classify(object) {
                Some(records) => out.records.extend(records.into_iter().map(|r| (line.number, r))),
                None => out.issues.push(LineIssue { line: line.number, kind: IssueKind::MissingId }),
            },
            Ok(_) => out.issues.push(LineIssue { line: line.number, kind: IssueKind::NotAnObject }),
            Err(issue) => out.issues.push(issue),
        }
    }
    out
}

/// The records of one JSON object; `None` when it is none of them.
fn classify(mut object: Map<String, Value>) -> Option<Vec<Record>> {
    if let Some(Value::String(id)) = object.get("$rewindTo") {
        return Some(vec![Record::Rewind(id.clone())]);
    }
    if object.get("id").is_some_and(Value::is_string) {
        return Some(vec![Record::Message(Value::Object(object))]);
    }
    if let Some(Value::Object(_)) = object.get("$set") {
        let Some(Value::Object(set)) = object.remove("$set") else { unreachable!() };
        return Some(vec![Record::Set(set)]);
    }
    let is_text = |key: &str| object.get(key).is_some_and(Value::is_string);
    if is_text("sessionId") && is_text("projectHash") {
        return Some(document_records(object));
    }
    None
}

/// A metadata object and the messages it holds (an older CLI's whole
/// session, or a metadata line that carries `messages`).
fn document_records(mut document: Map<String, Value>) -> Vec<Record> {
    let messages = match document.remove("messages") {
        Some(Value::Array(messages)) => messages,
        _ => Vec::new(),
    };
    let mut records = vec![Record::Meta(document)];
    records.extend(messages.into_iter().filter(|m| m.get("id").is_some_and(Value::is_string)).map(Record::Message));
    records
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn kinds(records: &Records) -> Vec<&'static str> {
        records
            .records
            .iter()
            .map(|(_, r)| match r {
                Record::Rewind(_) => "rewind",
                Record::Message(_) => "message",
                Record::Set(_) => "set",
                Record::Meta(_) => "meta",
            })
            .collect()
    }

    #[test]
    fn jsonl_lines_become_records_and_bad_lines_issues() {
        let bytes = b"{\"sessionId\":\"s\",\"projectHash\":\"h\",\"startTime\":\"t\"}\n\
            {\"id\":\"m1\",\"type\":\"user\",\"content\":\"hi\"}\n\
            not json\n\
            [1]\n\
            {\"other\":true}\n\
            {\"$set\":{\"summary\":\"S\"}}\n\
            {\"$rewindTo\":\"m1\"}\n\
            {\"id\":\"m2\",\"type\":\"gem";
        let records = read(bytes);
        assert_eq!(kinds(&records), ["meta", "message", "set", "rewind"]);
        let issues: Vec<_> = records.issues.iter().map(|i| (i.line, i.kind.clone())).collect();
        assert!(matches!(issues[0], (3, IssueKind::InvalidJson(_))));
        assert_eq!(
            issues[1..],
            [(4, IssueKind::NotAnObject), (5, IssueKind::MissingId), (8, IssueKind::TruncatedLastLine)]
        );
    }

    #[test]
    fn an_older_json_document_is_its_metadata_then_its_messages() {
        let document = json!({
            "sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "u",
            "messages": [{"id": "a", "type": "user", "content": "hi"}, {"type": "no id"}, {"id": "b", "type": "gemini", "content": "yo"}],
        });
        let records = read(serde_json::to_string_pretty(&document).unwrap().as_bytes());
        assert_eq!(kinds(&records), ["meta", "message", "message"]);
        assert!(records.issues.is_empty());
        let Record::Meta(meta) = &records.records[0].1 else { panic!() };
        assert!(!meta.contains_key("messages"));
    }
}
