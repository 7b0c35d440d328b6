//! The IDE's first chats (before conversations were "composers"): one row of
//! `ItemTable`, `workbench.panel.aichat.view.aichat.chatdata`, in each
//! workspace's `state.vscdb` (`workspaceStorage/<hash>/`), holding that
//! workspace's chats as `{"tabs": [{"tabId", "chatTitle", "lastSendTime",
//! "bubbles": [{"type": "user" | "ai", "text"}]}]}`. The workspace's folder
//! is in `workspace.json` beside the database (`{"folder": "file://…"}`).

use std::path::Path;

use serde_json::Value;

use super::composer::file_path;
use crate::error::Result;
use crate::rows::{Cell, RowDump, TableRows, has_table};
use crate::sqlite::Database;
use crate::transcript::{Block, Message, Role};

/// The row that holds them.
pub(crate) const KEY: &str = "workbench.panel.aichat.view.aichat.chatdata";

/// A chat.
#[derive(Debug, Default)]
pub(crate) struct Tab {
    pub(crate) id: String,
    pub(crate) title: Option<String>,
    pub(crate) updated_ms: Option<i64>,
    pub(crate) messages: Vec<Message>,
}

/// The chats of `db`; none when it has no such row.
pub(crate) fn tabs(db: &Database) -> Result<Vec<Tab>> {
    if !has_table(db.connection(), "ItemTable").map_err(|e| db.fail(&e))? {
        return Ok(Vec::new());
    }
    let values = db.query("select value from ItemTable where key = ?1", [KEY], |row| crate::sqlite::text(row, 0))?;
    let Some(data) = values.first().and_then(|v| serde_json::from_str::<Value>(v).ok()) else { return Ok(Vec::new()) };
    let tabs = data.get("tabs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    Ok(tabs.iter().filter_map(tab).collect())
}

fn tab(value: &Value) -> Option<Tab> {
    let id = value.get("tabId").or_else(|| value.get("id")).and_then(Value::as_str).filter(|id| !id.is_empty())?;
    let title = value
        .get("chatTitle")
        .and_then(Value::as_str)
        .and_then(|t| t.lines().next())
        .filter(|t| !t.trim().is_empty())
        .map(ToOwned::to_owned);
    let mut messages = Vec::new();
    for bubble in value.get("bubbles").and_then(Value::as_array).into_iter().flatten() {
        let text = bubble.get("text").and_then(Value::as_str).unwrap_or_default();
        let role = match bubble.get("type").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("ai") => Role::Assistant,
            _ => {
                messages.push(
                    Message::new(Role::System).with(Block::Unknown { what: "bubble".into(), raw: bubble.clone() }),
                );
                continue;
            }
        };
        if !text.trim().is_empty() {
            messages.push(Message::new(role).with(Block::text(text)));
        }
    }
    Some(Tab { id: id.to_owned(), title, updated_ms: value.get("lastSendTime").and_then(Value::as_i64), messages })
}

/// The folder of the workspace whose database is at `database`.
pub(crate) fn folder(database: &Path) -> Option<String> {
    let bytes = std::fs::read(database.parent()?.join("workspace.json")).ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    file_path(value.get("folder")?.as_str()?)
}

/// The row that holds the chats, as stored.
pub(crate) fn rows(db: &Database) -> Result<RowDump> {
    let rows = db.query("select key, value from ItemTable where key = ?1", [KEY], |row| {
        Ok(vec![Cell::of(row.get_ref(0)?), Cell::of(row.get_ref(1)?)])
    })?;
    Ok(RowDump {
        tables: vec![TableRows { name: "ItemTable".to_owned(), columns: vec!["key".into(), "value".into()], rows }],
    })
}
