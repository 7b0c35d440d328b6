//! A project's `crush.db`: its `sessions` and `messages` tables. Opened
//! read-only, never written, never checkpointed (`sqlite.rs`).

use std::collections::HashSet;
use std::path::Path;

use rusqlite::Row;
use serde_json::Value;
use sess_core::{IssueKind, LineIssue};

use crate::error::Result;
use crate::sqlite::{self, Database, optional, time_ms};

/// An open database.
pub(crate) struct Db(Database);

impl std::ops::Deref for Db {
    type Target = Database;

    fn deref(&self) -> &Database {
        &self.0
    }
}

/// A `sessions` row.
#[derive(Clone, Debug, Default)]
pub(crate) struct SessionRow {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) prompt_tokens: Option<i64>,
    pub(crate) completion_tokens: Option<i64>,
    pub(crate) cost: Option<f64>,
    pub(crate) created_ms: Option<i64>,
    pub(crate) updated_ms: Option<i64>,
    /// The folder the session worked in, where the row says.
    pub(crate) cwd: Option<String>,
}

/// A `messages` row.
#[derive(Clone, Debug)]
pub(crate) struct MessageRow {
    pub(crate) id: String,
    pub(crate) role: String,
    /// The parts, `[{"type", "data"}, …]`.
    pub(crate) parts: Vec<Value>,
    pub(crate) model: Option<String>,
    pub(crate) summary: bool,
    pub(crate) created_ms: Option<i64>,
}

impl Db {
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Database::open(path).map(Self)
    }

    /// Every session, in creation order.
    pub(crate) fn sessions(&self) -> Result<Vec<SessionRow>> {
        self.query("select * from sessions order by created_at, id", [], session_row)
    }

    pub(crate) fn session(&self, id: &str) -> Result<Option<SessionRow>> {
        Ok(self.query("select * from sessions where id = ?1", [id], session_row)?.pop())
    }

    /// The sessions whose parent is `id`, in creation order.
    pub(crate) fn children(&self, id: &str) -> Result<Vec<SessionRow>> {
        self.query("select * from sessions where parent_session_id = ?1 order by created_at, id", [id], session_row)
    }

    /// Session `id` and the sessions it ran, and theirs, each once.
    pub(crate) fn family(&self, id: &str) -> Result<Vec<String>> {
        let mut found = vec![id.to_owned()];
        let mut seen: HashSet<String> = found.iter().cloned().collect();
        let mut at = 0;
        while let Some(session) = found.get(at).cloned() {
            at += 1;
            let children = self.children(&session)?;
            found.extend(children.into_iter().map(|c| c.id).filter(|child| seen.insert(child.clone())));
        }
        Ok(found)
    }

    /// The messages of session `id` in Crush's order (creation time, then
    /// row); a row whose `parts` is not a JSON array is skipped and reported.
    pub(crate) fn messages(&self, id: &str) -> Result<(Vec<MessageRow>, Vec<LineIssue>)> {
        let sql = "select * from messages where session_id = ?1 order by created_at, rowid";
        let mut statement = self.connection().prepare(sql).map_err(|e| self.fail(&e))?;
        let rows = statement
            .query_map([id], |row| {
                let parts = row.as_ref().column_index("parts").and_then(|at| sqlite::text(row, at))?;
                let summary = optional::<i64>(row, "is_summary_message").is_some_and(|n| n != 0);
                Ok((
                    row.get::<_, String>("id")?,
                    optional::<String>(row, "role").unwrap_or_default(),
                    parts,
                    optional::<String>(row, "model").filter(|m| !m.is_empty()),
                    summary,
                    time_ms(row, "created_at"),
                ))
            })
            .map_err(|e| self.fail(&e))?;
        let (mut messages, mut issues) = (Vec::new(), Vec::new());
        for (number, row) in rows.enumerate() {
            let (id, role, parts, model, summary, created_ms) = row.map_err(|e| self.fail(&e))?;
            match serde_json::from_str::<Value>(&parts) {
                Ok(Value::Array(parts)) => messages.push(MessageRow { id, role, parts, model, summary, created_ms }),
                Ok(_) => issues.push(issue(number, &id, "parts are not a JSON array")),
                Err(err) => issues.push(issue(number, &id, &err.to_string())),
            }
        }
        Ok((messages, issues))
    }
}

fn issue(number: usize, id: &str, message: &str) -> LineIssue {
    LineIssue { line: number + 1, kind: IssueKind::InvalidJson(format!("message {id}: {message}")) }
}

fn session_row(row: &Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        id: row.get("id")?,
        parent: optional::<String>(row, "parent_session_id").filter(|p| !p.is_empty()),
        title: optional::<String>(row, "title").filter(|t| !t.trim().is_empty()),
        prompt_tokens: optional(row, "prompt_tokens"),
        completion_tokens: optional(row, "completion_tokens"),
        cost: optional(row, "cost"),
        created_ms: time_ms(row, "created_at"),
        updated_ms: time_ms(row, "updated_at"),
        cwd: optional::<String>(row, "workspace_cwd").filter(|c| !c.is_empty()),
    })
}
