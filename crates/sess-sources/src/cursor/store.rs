//! The CLI's chat stores: `chats/<workspace hash>/<session>/store.db`, one
//! session each. `meta(key, value)` holds the session's record as JSON in
//! hex (`agentId`, `name`, `createdAt`, the
//! `latestRootBlobId`, and a `blobEncryptionKey` that is never read into
//! anything `sess` shows or keeps); `blobs(id, data)` is a content-addressed
//! tree: a node is a protobuf message whose field 1 lists its children's ids
//! (32 bytes each) and whose field 9 names the workspace (`file://` URI); a
//! leaf is a message as JSON in the AI SDK's shape (`role` `system`, `user`,
//! `assistant` with `text`, `reasoning` and `tool-call` parts, `tool` with
//! `tool-result` parts).

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;
use sess_core::{IssueKind, LineIssue};

use super::composer::{SECRET_FIELDS, file_path};
use super::prompt::prompt;
use crate::error::{Error, Result};
use crate::rows::{Cell, RowDump, TableRows};
use crate::sqlite::Database;
use crate::transcript::{Block, Message, Role, ToolCall, content_text, finish_pending};

/// The name of a chat store.
pub(crate) const DATABASE: &str = "store.db";

/// How deep the tree may go before it is taken for a loop.
const MAX_DEPTH: usize = 64;

/// The session record of `meta`, as read (only these fields).
#[derive(Debug, Default)]
pub(crate) struct Meta {
    pub(crate) id: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) created_ms: Option<i64>,
    root: Option<String>,
}

/// The record of `meta`: the first of its values that is hex-encoded JSON.
pub(crate) fn meta(db: &Database) -> Result<Meta> {
    let values = db.query("select value from meta order by rowid", [], |row| crate::sqlite::text(row, 0))?;
    let Some(record) = values.iter().find_map(|value| decode(value)) else { return Ok(Meta::default()) };
    let text = |key: &str| record.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(ToOwned::to_owned);
    Ok(Meta {
        id: text("agentId"),
        name: text("name"),
        created_ms: record.get("createdAt").and_then(Value::as_i64),
        root: text("latestRootBlobId"),
    })
}

/// Hex-encoded JSON, decoded (JSON as it is is read too).
fn decode(text: &str) -> Option<Value> {
    let text = text.trim();
    let bytes = hex_bytes(text).unwrap_or_else(|| text.as_bytes().to_vec());
    serde_json::from_slice::<Value>(&bytes).ok().filter(Value::is_object)
}

fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len()).step_by(2).map(|at| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok()).collect()
}

fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// A store read.
#[derive(Debug, Default)]
pub(crate) struct Store {
    pub(crate) meta: Meta,
    pub(crate) messages: Vec<Message>,
    pub(crate) issues: Vec<LineIssue>,
    pub(crate) cwd: Option<String>,
}

/// The session of the store `db`: the messages under its latest root.
pub(crate) fn read(db: &Database) -> Result<Store> {
    let meta = meta(db)?;
    let mut walk = Walk { db, seen: HashSet::new(), raw: Vec::new(), issues: Vec::new(), cwd: None };
    if let Some(root) = meta.root.clone() {
        walk.blob(&root, 0)?;
    }
    let messages = messages(&walk.raw);
    Ok(Store { meta, messages, issues: walk.issues, cwd: walk.cwd })
}

struct Walk<'a> {
    db: &'a Database,
    seen: HashSet<String>,
    raw: Vec<Value>,
    issues: Vec<LineIssue>,
    cwd: Option<String>,
}

impl Walk<'_> {
    fn blob(&mut self, id: &str, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH || !self.seen.insert(id.to_owned()) {
            return Ok(());
        }
        let data = self.db.query("select data from blobs where id = ?1", [id], |row| {
            Ok(match row.get_ref(0)? {
                rusqlite::types::ValueRef::Blob(b) | rusqlite::types::ValueRef::Text(b) => b.to_vec(),
                _ => Vec::new(),
            })
        })?;
        let Some(data) = data.into_iter().next() else {
            self.issue(format!("blob {id} is missing"));
            return Ok(());
        };
        if data.first() == Some(&b'{') {
            match serde_json::from_slice::<Value>(&data) {
                Ok(value) => self.raw.push(value),
                Err(err) => self.issue(format!("blob {id}: {err}")),
            }
            return Ok(());
        }
        let Some(fields) = fields(&data) else {
            self.issue(format!("blob {id} is neither JSON nor a node"));
            return Ok(());
        };
        for (number, bytes) in fields {
            match number {
                1 if bytes.len() == 32 => self.blob(&to_hex(bytes), depth + 1)?,
                9 if self.cwd.is_none() => self.cwd = std::str::from_utf8(bytes).ok().and_then(file_path),
                _ => {}
            }
        }
        Ok(())
    }

    fn issue(&mut self, message: String) {
        self.issues.push(LineIssue { line: self.issues.len() + 1, kind: IssueKind::InvalidJson(message) });
    }
}

/// The length-delimited fields of a protobuf message, in order (numbers and
/// bytes); `None` when the bytes are not one.
fn fields(data: &[u8]) -> Option<Vec<(u64, &[u8])>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let key = varint(data, &mut at)?;
        let (number, wire) = (key >> 3, key & 7);
        match wire {
            0 => {
                varint(data, &mut at)?;
            }
            1 => at = at.checked_add(8).filter(|&end| end <= data.len())?,
            2 => {
                let len = usize::try_from(varint(data, &mut at)?).ok()?;
                let end = at.checked_add(len).filter(|&end| end <= data.len())?;
                out.push((number, &data[at..end]));
                at = end;
            }
            5 => at = at.checked_add(4).filter(|&end| end <= data.len())?,
            _ => return None,
        }
    }
    Some(out)
}

fn varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *data.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The messages of the tree, in its order.
fn messages(raw: &[Value]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for value in raw {
        let content = value.get("content").unwrap_or(&Value::Null);
        match value.get("role").and_then(Value::as_str) {
            Some("system") => {
                let text = content_text(content);
                out.push(Message::new(Role::System).with(Block::Context { title: "System prompt".into(), text }));
            }
            Some("user") => {
                let text = content_text(content);
                let prompt = prompt(&text);
                let only_context = !text.contains("<user_query>") && text.trim_start().starts_with('<');
                let message = if only_context {
                    Message::new(Role::System)
                        .with(Block::Context { title: "Context".into(), text: text.trim().to_owned() })
                } else {
                    Message { blocks: prompt.blocks, ..Message::new(Role::User).at(None, prompt.timestamp) }
                };
                out.push(message);
            }
            Some("assistant") => out.push(assistant(content)),
            Some("tool") => {
                for part in content.as_array().into_iter().flatten() {
                    let id = part.get("toolCallId").and_then(Value::as_str).unwrap_or_default();
                    let failed = part.get("isError").and_then(Value::as_bool).unwrap_or(false);
                    let result = content_text(part.get("result").unwrap_or(&Value::Null));
                    let call = out.iter_mut().rev().flat_map(|m| &mut m.blocks).find_map(|b| match b {
                        Block::ToolCall(call) if call.id == id => Some(call),
                        _ => None,
                    });
                    if let Some(call) = call {
                        call.complete(Some(result), failed, None);
                    }
                }
            }
            _ => {
                out.push(
                    Message::new(Role::System).with(Block::Unknown { what: "message".into(), raw: value.clone() }),
                );
            }
        }
    }
    finish_pending(&mut out);
    out
}

fn assistant(content: &Value) -> Message {
    let mut message = Message::new(Role::Assistant);
    let parts = match content {
        Value::String(text) => return message.with(Block::text(text.clone())),
        Value::Array(parts) => parts.as_slice(),
        _ => &[],
    };
    for part in parts {
        let text = part.get("text").and_then(Value::as_str).unwrap_or_default().to_owned();
        message.blocks.push(match part.get("type").and_then(Value::as_str) {
            Some("text") => Block::Text { text },
            Some("reasoning") => Block::Thinking { text },
            Some("redacted-reasoning") => Block::Thinking { text: "[redacted thinking]".into() },
            Some("tool-call") => {
                let id = part.get("toolCallId").and_then(Value::as_str).unwrap_or_default();
                let name = part.get("toolName").and_then(Value::as_str).unwrap_or_default();
                Block::ToolCall(ToolCall::running(id, name, part.get("args").cloned().unwrap_or(Value::Null)))
            }
            _ => Block::Unknown {
                what: part.get("type").and_then(Value::as_str).unwrap_or("part").to_owned(),
                raw: part.clone(),
            },
        });
    }
    message
}

/// Every row of the store, as stored, but for the fields of
/// [`SECRET_FIELDS`], which are taken out of the record in `meta` (written
/// back encoded as it was: hex, as Cursor writes it).
pub(crate) fn rows(db: &Database, path: &Path) -> Result<RowDump> {
    let fail = |err: rusqlite::Error| db.fail(&err);
    let conn = db.connection();
    let mut dump = RowDump::default();
    for table in ["meta", "blobs"] {
        if !crate::rows::has_table(conn, table).map_err(fail)? {
            return Err(Error::Database { path: path.to_owned(), message: format!("no table `{table}`") });
        }
        let columns = crate::rows::columns(conn, table).map_err(fail)?;
        let width = columns.len();
        let sql = format!("select * from {table} order by rowid");
        let mut rows: Vec<Vec<Cell>> =
            db.query(&sql, [], |row| (0..width).map(|at| row.get_ref(at).map(Cell::of)).collect())?;
        if table == "meta"
            && let Some(value) = columns.iter().position(|c| c == "value")
        {
            for row in &mut rows {
                row[value] = without_secrets(&row[value]);
            }
        }
        dump.tables.push(TableRows { name: table.to_owned(), columns, rows });
    }
    Ok(dump)
}

/// A `meta` value without the fields of [`SECRET_FIELDS`]: hex-encoded JSON
/// is decoded, cleaned and encoded again; any other value is kept.
fn without_secrets(cell: &Cell) -> Cell {
    let text = match cell {
        Cell::Text(text) => text.clone(),
        Cell::Blob(bytes) | Cell::TextBytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Cell::Null | Cell::Integer(_) | Cell::Real(_) => return cell.clone(),
    };
    let hex = hex_bytes(text.trim()).is_some();
    let Some(Value::Object(mut map)) = decode(&text) else { return cell.clone() };
    if !SECRET_FIELDS.iter().any(|field| map.contains_key(*field)) {
        return cell.clone();
    }
    for field in SECRET_FIELDS {
        map.remove(field);
    }
    let json = Value::Object(map).to_string();
    let text = if hex { to_hex(json.as_bytes()) } else { json };
    match cell {
        Cell::Blob(_) => Cell::Blob(text.into_bytes()),
        _ => Cell::Text(text),
    }
}
