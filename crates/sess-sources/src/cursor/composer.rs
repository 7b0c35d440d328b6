//! The IDE's conversations ("composers"): rows of the key-value table
//! `cursorDiskKV` of `state.vscdb`. `composerData:<id>` holds a
//! conversation's header, `bubbleId:<id>:<bubble>` each of its messages.
//! Only those keys are read, by ranges of the table's key index: the
//! database holds much else (and secrets in `ItemTable`, never read).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;
use sess_core::{IssueKind, LineIssue, format_iso_millis};

use crate::error::{Error, Result};
use crate::rows::{Cell, RowDump, TableRows};
use crate::sqlite::{Database, iso_ms};
use crate::transcript::{Block, Image, Message, Role, ToolCall, finish_pending};
use crate::usage::{Call, Calls, Counter};

/// The table of conversations.
pub(crate) const TABLE: &str = "cursorDiskKV";

/// Fields of a header that hold keys Cursor encrypts with: never read into a
/// transcript, and left out of the rows the archive keeps.
pub(crate) const SECRET_FIELDS: [&str; 2] = ["blobEncryptionKey", "speculativeSummarizationEncryptionKey"];

/// A conversation's header, as read.
#[derive(Debug, Default)]
pub(crate) struct Header {
    pub(crate) id: String,
    pub(crate) name: Option<String>,
    pub(crate) created_ms: Option<i64>,
    pub(crate) updated_ms: Option<i64>,
    /// Its messages' ids in order.
    bubbles: Vec<String>,
    /// Its messages, where the header holds them (older conversations).
    inline: Vec<Value>,
    /// The conversations it ran (subagents).
    pub(crate) children: Vec<String>,
    model: Option<String>,
    cwd: Option<String>,
}

impl Header {
    /// Whether it holds no message: Cursor makes one each time its panel
    /// opens.
    pub(crate) fn is_empty(&self) -> bool {
        self.bubbles.is_empty() && self.inline.is_empty()
    }
}

/// Whether `db` has the table of conversations (a workspace's database of
/// the first chats may not).
fn has_table(db: &Database) -> Result<bool> {
    crate::rows::has_table(db.connection(), TABLE).map_err(|e| db.fail(&e))
}

/// The `key` range of rows whose keys start with `prefix`.
fn range(prefix: &str) -> (String, String) {
    let mut end = prefix.to_owned();
    end.pop();
    end.push(';'); // The character after `:`.
    (prefix.to_owned(), end)
}

fn json(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Option<Value>> {
    Ok(match row.get_ref(at)? {
        rusqlite::types::ValueRef::Text(bytes) | rusqlite::types::ValueRef::Blob(bytes) => {
            serde_json::from_slice(bytes).ok()
        }
        _ => None,
    })
}

/// Every conversation header of `db`, in key order; a header that is not
/// JSON is left out.
pub(crate) fn headers(db: &Database) -> Result<Vec<Header>> {
    if !has_table(db)? {
        return Ok(Vec::new());
    }
    let (from, to) = range("composerData:");
    let sql = format!("select key, value from {TABLE} where key >= ?1 and key < ?2 order by key");
    let rows = db.query(&sql, [from, to], |row| Ok((row.get::<_, String>(0)?, json(row, 1)?)))?;
    Ok(rows.into_iter().filter_map(|(key, value)| Some(header(key.strip_prefix("composerData:")?, &value?))).collect())
}

/// The header of conversation `id`.
pub(crate) fn header_of(db: &Database, id: &str) -> Result<Option<Header>> {
    if !has_table(db)? {
        return Ok(None);
    }
    let sql = format!("select value from {TABLE} where key = ?1");
    let rows = db.query(&sql, [format!("composerData:{id}")], |row| json(row, 0))?;
    Ok(rows.into_iter().flatten().next().map(|value| header(id, &value)))
}

fn header(id: &str, value: &Value) -> Header {
    let text =
        |key: &str| value.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(ToOwned::to_owned);
    let bubbles = value
        .get("fullConversationHeadersOnly")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("bubbleId").and_then(Value::as_str).map(ToOwned::to_owned))
        .collect();
    let inline = value.get("conversation").and_then(Value::as_array).cloned().unwrap_or_default();
    let children = value
        .get("subComposerIds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(ToOwned::to_owned))
        .collect();
    let model =
        value.get("modelConfig").and_then(|m| m.get("modelName")).and_then(Value::as_str).map(ToOwned::to_owned);
    Header {
        id: id.to_owned(),
        name: text("name"),
        created_ms: time(value.get("createdAt")),
        updated_ms: time(value.get("lastUpdatedAt")),
        bubbles,
        inline,
        children,
        model,
        cwd: workspace(value),
    }
}

/// A time as Cursor writes it: ms since the epoch, or ISO 8601 text.
#[allow(clippy::cast_possible_truncation)] // A time in range; out of range saturates.
fn time(value: Option<&Value>) -> Option<i64> {
    match value? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => iso_ms(s),
        _ => None,
    }
}

/// The folder the conversation worked in: its `workspaceIdentifier`'s
/// `uri` (`fsPath`, else `path`), else its first tracked git repository.
fn workspace(value: &Value) -> Option<String> {
    let uri = value.get("workspaceIdentifier").and_then(|w| w.get("uri"));
    let path = uri.and_then(|u| u.get("fsPath").or_else(|| u.get("path"))).and_then(Value::as_str);
    let repo = || value.get("trackedGitRepos")?.as_array()?.first()?.get("repoPath")?.as_str();
    path.or_else(repo).filter(|p| !p.is_empty()).map(ToOwned::to_owned)
}

/// A conversation read.
#[derive(Debug, Default)]
pub(crate) struct Composer {
    pub(crate) messages: Vec<Message>,
    pub(crate) issues: Vec<LineIssue>,
    pub(crate) usage: Vec<Call>,
    pub(crate) cwd: Option<String>,
}

/// The messages of the conversation `header` names, in its order.
pub(crate) fn read(db: &Database, header: &Header) -> Result<Composer> {
    let prefix = format!("bubbleId:{}:", header.id);
    let (from, to) = range(&prefix);
    let sql = format!("select key, value from {TABLE} where key >= ?1 and key < ?2 order by rowid");
    let rows = db.query(&sql, [from, to], |row| Ok((row.get::<_, String>(0)?, json(row, 1)?)))?;
    let mut stored: HashMap<String, Option<Value>> = HashMap::new();
    let mut order = Vec::new();
    for (key, value) in rows {
        let id = key[prefix.len()..].to_owned();
        order.push(id.clone());
        stored.insert(id, value);
    }
    let mut issues = Vec::new();
    let bubbles: Vec<Value> = if !header.bubbles.is_empty() {
        let mut found = Vec::new();
        for (at, id) in header.bubbles.iter().enumerate() {
            match stored.remove(id) {
                Some(Some(bubble)) if bubble.is_object() => found.push(bubble),
                // Cursor leaves `null` in place of a bubble it dropped.
                Some(Some(Value::Null)) => {}
                Some(Some(_)) => issues.push(issue(at, id, "is not a JSON object")),
                Some(None) => issues.push(issue(at, id, "is not JSON")),
                None => issues.push(issue(at, id, "is missing")),
            }
        }
        found
    } else if !header.inline.is_empty() {
        header.inline.clone()
    } else {
        order.iter().filter_map(|id| stored.remove(id).flatten()).filter(Value::is_object).collect()
    };
    Ok(convert(header, &bubbles, issues))
}

fn issue(at: usize, id: &str, what: &str) -> LineIssue {
    LineIssue { line: at + 1, kind: IssueKind::InvalidJson(format!("message {id} {what}")) }
}

fn convert(header: &Header, bubbles: &[Value], issues: Vec<LineIssue>) -> Composer {
    let mut messages = Vec::new();
    let mut calls = Calls::default();
    let mut cwd = header.cwd.clone();
    for bubble in bubbles {
        let at = time(bubble.get("createdAt")).map(format_iso_millis);
        let id = bubble.get("bubbleId").and_then(Value::as_str).map(ToOwned::to_owned);
        let mut message = match bubble.get("type").and_then(Value::as_i64) {
            Some(1) => {
                if cwd.is_none() {
                    cwd = bubble
                        .get("workspaceUris")
                        .and_then(Value::as_array)
                        .and_then(|uris| uris.first())
                        .and_then(Value::as_str)
                        .and_then(file_path);
                }
                user(bubble)
            }
            Some(2) => {
                calls.push(call(bubble, header.model.clone(), at.clone().or(header.updated_ms.map(format_iso_millis))));
                assistant(bubble, at.as_deref())
            }
            _ => Message::new(Role::System).with(Block::Unknown { what: "bubble".into(), raw: bubble.clone() }),
        };
        if message.blocks.is_empty() {
            continue;
        }
        message.id = id;
        message.timestamp = at;
        messages.push(message);
    }
    finish_pending(&mut messages);
    Composer { messages, issues, usage: calls.finish(), cwd }
}

/// The path of a `file://` URI (`%XX` decoded); `None` for another scheme.
pub(crate) fn file_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[at] == b'%'
            && let (Some(hi), Some(lo)) =
                (bytes.get(at + 1).copied().and_then(hex), bytes.get(at + 2).copied().and_then(hex))
        {
            out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
            at += 3;
            continue;
        }
        out.push(bytes[at]);
        at += 1;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// A user's bubble: its `text` and the images attached.
fn user(bubble: &Value) -> Message {
    let mut message = Message::new(Role::User);
    if let Some(text) = bubble.get("text").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
        message.blocks.push(Block::text(text));
    }
    for image in bubble.get("images").and_then(Value::as_array).into_iter().flatten() {
        let path = image.get("path").or_else(|| image.get("uri").and_then(|u| u.get("path"))).and_then(Value::as_str);
        message.blocks.push(Block::Image(Image { media_type: None, data: None, url: path.map(ToOwned::to_owned) }));
    }
    message
}

/// An assistant's bubble: `thinking.text`, `text` and the call of
/// `toolFormerData`, started at the bubble's time `at`.
fn assistant(bubble: &Value, at: Option<&str>) -> Message {
    let mut message = Message::new(Role::Assistant);
    if let Some(thinking) = bubble.get("thinking").and_then(|t| t.get("text")).and_then(Value::as_str) {
        message.blocks.push(Block::Thinking { text: thinking.to_owned() });
    }
    if let Some(text) = bubble.get("text").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
        message.blocks.push(Block::text(text));
    }
    if let Some(tool) = bubble.get("toolFormerData").filter(|t| t.is_object()) {
        let mut call = tool_call(tool, bubble);
        call.started_at = at.map(ToOwned::to_owned);
        message.blocks.push(Block::ToolCall(call));
    }
    message
}

/// `toolFormerData`: `toolCallId`, `name`, the arguments in `rawArgs` (or
/// `params`; JSON text or JSON), `result` and `status`.
fn tool_call(tool: &Value, bubble: &Value) -> ToolCall {
    let id = tool.get("toolCallId").or_else(|| bubble.get("bubbleId")).and_then(Value::as_str).unwrap_or_default();
    let name = tool.get("name").or_else(|| tool.get("tool")).and_then(Value::as_str).unwrap_or("tool");
    let input = ["rawArgs", "params"].iter().find_map(|key| match tool.get(*key)? {
        Value::String(text) if !text.is_empty() => {
            Some(serde_json::from_str(text).unwrap_or(Value::String(text.clone())))
        }
        Value::String(_) | Value::Null => None,
        other => Some(other.clone()),
    });
    let mut call = ToolCall::running(id, name, input.unwrap_or(Value::Null));
    let result = match tool.get("result") {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let error = tool.get("error").and_then(Value::as_str).map(ToOwned::to_owned);
    let failed_by_data =
        tool.get("additionalData").and_then(|d| d.get("status")).and_then(Value::as_str) == Some("error");
    let status = tool.get("status").and_then(Value::as_str).unwrap_or_default();
    let failed =
        failed_by_data || matches!(status, "error" | "failed" | "cancelled" | "canceled" | "rejected" | "aborted");
    if failed {
        call.complete(result.or(error), true, None);
    } else if matches!(status, "completed" | "success" | "succeeded") || (status.is_empty() && result.is_some()) {
        call.complete(result, false, None);
    }
    call
}

/// The model call an assistant bubble's `tokenCount` records.
fn call(bubble: &Value, model: Option<String>, timestamp: Option<String>) -> Call {
    let usage = bubble.get("tokenCount").unwrap_or(&Value::Null);
    let counter = Counter::default();
    Call {
        model,
        timestamp,
        input: counter.count("inputTokens", usage.get("inputTokens")),
        output: counter.count("outputTokens", usage.get("outputTokens")),
        not_counts: counter.take(),
        ..Call::default()
    }
}

/// The rows of conversation `id` in `db`, as stored: its header (with the
/// fields of [`SECRET_FIELDS`] taken out, the rest as written) and its
/// messages, in rowid order.
pub(crate) fn rows(db: &Database, path: &Path, id: &str) -> Result<RowDump> {
    let prefix = format!("bubbleId:{id}:");
    let (from, to) = range(&prefix);
    let sql = format!("select key, value from {TABLE} where key = ?1 or (key >= ?2 and key < ?3) order by rowid");
    let rows = db.query(&sql, [format!("composerData:{id}"), from, to], |row| {
        Ok(vec![Cell::of(row.get_ref(0)?), Cell::of(row.get_ref(1)?)])
    })?;
    if !rows.iter().any(|row| matches!(&row[0], Cell::Text(key) if key.starts_with("composerData:"))) {
        return Err(Error::NotFound { path: path.join(id) });
    }
    let rows = rows
        .into_iter()
        .map(|mut row| {
            if matches!(&row[0], Cell::Text(key) if key.starts_with("composerData:")) {
                row[1] = without_secrets(&row[1]);
            }
            row
        })
        .collect();
    Ok(RowDump {
        tables: vec![TableRows { name: TABLE.to_owned(), columns: vec!["key".into(), "value".into()], rows }],
    })
}

/// A header's value without the fields of [`SECRET_FIELDS`] (of the same
/// type: text or bytes); one that is not JSON is kept as it is.
fn without_secrets(cell: &Cell) -> Cell {
    let bytes = match cell {
        Cell::Text(text) => text.as_bytes(),
        Cell::Blob(bytes) | Cell::TextBytes(bytes) => bytes,
        Cell::Null | Cell::Integer(_) | Cell::Real(_) => return cell.clone(),
    };
    let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(bytes) else { return cell.clone() };
    if !SECRET_FIELDS.iter().any(|field| map.contains_key(*field)) {
        return cell.clone();
    }
    for field in SECRET_FIELDS {
        map.remove(field);
    }
    let json = Value::Object(map).to_string();
    match cell {
        Cell::Blob(_) => Cell::Blob(json.into_bytes()),
        _ => Cell::Text(json),
    }
}
