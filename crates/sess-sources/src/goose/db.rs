//! Goose's database (1.10 and later): `sessions.db`, whose `sessions`,
//! `messages` and `usage_ledger` tables hold every session. Opened
//! read-only, never written, never checkpointed (`sqlite.rs`).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use rusqlite::Row;
use serde_json::Value;

use super::content::RawMessage;
use crate::error::Result;
use crate::shared_file::SharedFiles;
use crate::sqlite::{self, Database, optional, time_ms};
use crate::usage::{Call, Counter};
use sess_core::{IssueKind, LineIssue, format_iso_millis};

/// An open database.
pub(crate) struct Db(Database);

impl std::ops::Deref for Db {
    type Target = Database;

    fn deref(&self) -> &Database {
        &self.0
    }
}

/// A `sessions` row; columns a version of Goose lacks are `None`.
#[derive(Clone, Debug, Default)]
pub(crate) struct SessionRow {
    pub(crate) id: String,
    /// Its name (`description` before Goose named sessions).
    pub(crate) name: Option<String>,
    pub(crate) working_dir: Option<String>,
    pub(crate) created_ms: Option<i64>,
    pub(crate) updated_ms: Option<i64>,
    /// `user`, `scheduled`, `sub_agent`, `hidden`, …
    pub(crate) session_type: Option<String>,
    pub(crate) archived: bool,
    /// The call totals Goose kept on the session, for a database without
    /// `usage_ledger`.
    pub(crate) totals: Option<Call>,
}

impl Db {
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Database::open(path).map(Self)
    }

    /// Every session, in id order.
    pub(crate) fn sessions(&self) -> Result<Vec<SessionRow>> {
        self.query("select * from sessions order by id", [], session_row)
    }

    /// Session `id`, when there is one.
    pub(crate) fn session(&self, id: &str) -> Result<Option<SessionRow>> {
        Ok(self.query("select * from sessions where id = ?1", [id], session_row)?.pop())
    }

    /// The messages of session `id`, in Goose's order (time, then row); a
    /// row whose `content_json` is not JSON is skipped and reported.
    pub(crate) fn messages(&self, id: &str) -> Result<(Vec<RawMessage>, Vec<LineIssue>)> {
        let sql = "select * from messages where session_id = ?1 order by created_timestamp, id";
        let mut statement = self.connection().prepare(sql).map_err(|e| self.fail(&e))?;
        let rows = statement
            .query_map([id], |row| {
                let rowid: Option<i64> = optional(row, "id");
                let id = optional::<String>(row, "message_id").or_else(|| rowid.map(|n| n.to_string()));
                let content = row.as_ref().column_index("content_json").and_then(|at| sqlite::text(row, at))?;
                let metadata = optional::<String>(row, "metadata_json").unwrap_or_default();
                Ok((
                    id,
                    optional::<String>(row, "role").unwrap_or_default(),
                    time_ms(row, "created_timestamp"),
                    content,
                    metadata,
                ))
            })
            .map_err(|e| self.fail(&e))?;
        let (mut messages, mut issues) = (Vec::new(), Vec::new());
        for (number, row) in rows.enumerate() {
            let (id, role, created_ms, content, metadata) = row.map_err(|e| self.fail(&e))?;
            match serde_json::from_str::<Value>(&content) {
                Ok(content) => {
                    let metadata = serde_json::from_str(&metadata).unwrap_or(Value::Null);
                    messages.push(RawMessage { id, role, created_ms, content, metadata });
                }
                Err(err) => issues.push(LineIssue {
                    line: number + 1,
                    kind: IssueKind::InvalidJson(format!("message {}: {err}", id.unwrap_or_default())),
                }),
            }
        }
        Ok((messages, issues))
    }

    /// Session `id` and the sessions it ran (their `parent_session_id` is
    /// it), and theirs, each once.
    pub(crate) fn family(&self, id: &str) -> Result<Vec<String>> {
        let mut found = vec![id.to_owned()];
        let columns = crate::rows::columns(self.connection(), "sessions").map_err(|e| self.fail(&e))?;
        if !columns.iter().any(|c| c == "parent_session_id") {
            return Ok(found);
        }
        let mut seen: HashSet<String> = found.iter().cloned().collect();
        let mut statement = self
            .connection()
            .prepare("select id from sessions where parent_session_id = ?1 order by rowid")
            .map_err(|e| self.fail(&e))?;
        let mut at = 0;
        while let Some(session) = found.get(at).cloned() {
            at += 1;
            let children: Vec<String> = statement
                .query_map([&session], |row| row.get(0))
                .and_then(Iterator::collect)
                .map_err(|e| self.fail(&e))?;
            found.extend(children.into_iter().filter(|child| seen.insert(child.clone())));
        }
        Ok(found)
    }

    /// The model calls of the sessions `ids`: the rows of `usage_ledger`
    /// (one per provider call), or, in a database without that table, one
    /// call per session from the totals Goose kept on it.
    pub(crate) fn calls(&self, ids: &[String]) -> Result<Vec<Call>> {
        let ledger = crate::rows::has_table(self.connection(), "usage_ledger").map_err(|e| self.fail(&e))?;
        let whole = if ledger { self.ledger() } else { Arc::new(None) };
        let mut calls = crate::usage::Calls::default();
        for id in ids {
            if let Some(whole) = &*whole {
                for call in whole.get(id).into_iter().flatten() {
                    calls.push(call.clone());
                }
            } else if ledger {
                let sql = "select * from usage_ledger where session_id = ?1 order by rowid";
                let mut statement = self.connection().prepare(sql).map_err(|e| self.fail(&e))?;
                let rows = statement.query_map([id], |row| Ok(ledger_call(row))).map_err(|e| self.fail(&e))?;
                for call in rows {
                    calls.push(call.map_err(|e| self.fail(&e))?);
                }
            } else if let Some(session) = self.session(id)? {
                calls.push_opt(session.totals);
            }
        }
        Ok(calls.finish())
    }

    /// Every row of `usage_ledger`, by session, in the order written, read
    /// once per version of the database (Goose does not index the ledger by
    /// session: reading each session's rows read the whole table, for every
    /// session). `None` when it could not be read whole: the caller then
    /// reads each session's rows, and reports what fails.
    fn ledger(&self) -> Arc<Option<Ledger>> {
        static LEDGERS: SharedFiles<Option<Ledger>> = SharedFiles::new();
        let read = || -> rusqlite::Result<Ledger> {
            let mut statement = self.connection().prepare("select * from usage_ledger order by rowid")?;
            let mut ledger = Ledger::new();
            let mut rows = statement.query([])?;
            while let Some(row) = rows.next()? {
                ledger.entry(row.get("session_id")?).or_default().push(ledger_call(row));
            }
            Ok(ledger)
        };
        LEDGERS.get_database(self.path(), |_| read().ok())
    }
}

/// The calls of `usage_ledger`, by session id.
type Ledger = HashMap<String, Vec<Call>>;

fn session_row(row: &Row<'_>) -> rusqlite::Result<SessionRow> {
    let name = optional::<String>(row, "name").filter(|n| !n.trim().is_empty());
    let name = name.or_else(|| optional::<String>(row, "description").filter(|n| !n.trim().is_empty()));
    let archived = row
        .as_ref()
        .column_index("archived_at")
        .ok()
        .is_some_and(|at| !matches!(row.get_ref(at), Ok(rusqlite::types::ValueRef::Null) | Err(_)));
    Ok(SessionRow {
        id: row.get("id")?,
        name,
        working_dir: optional(row, "working_dir"),
        created_ms: time_ms(row, "created_at"),
        updated_ms: time_ms(row, "updated_at"),
        session_type: optional(row, "session_type"),
        archived,
        totals: totals(row),
    })
}

/// An integer column as JSON, for [`Counter`].
fn number(row: &Row<'_>, names: &[&str]) -> Option<Value> {
    names.iter().find_map(|name| {
        let at = row.as_ref().column_index(name).ok()?;
        match row.get_ref(at).ok()? {
            rusqlite::types::ValueRef::Integer(n) => Some(Value::from(n)),
            rusqlite::types::ValueRef::Real(f) => Some(Value::from(f)),
            rusqlite::types::ValueRef::Text(t) => Some(Value::from(String::from_utf8_lossy(t).into_owned())),
            _ => None,
        }
    })
}

/// The tokens of a row by Goose's rule, converted to [`Call`]'s: Goose counts
/// cache reads and writes inside its input tokens.
fn call_of(row: &Row<'_>, prefix: &str) -> Call {
    let counter = Counter::default();
    let name = |base: &str| format!("{prefix}{base}");
    let count = |base: &str, names: &[&str]| {
        let names: Vec<String> = names.iter().map(|n| name(n)).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        counter.count(base, number(row, &refs).as_ref())
    };
    let input = count("input_tokens", &["input_tokens"]);
    let output = count("output_tokens", &["output_tokens"]);
    let cache_read = count("cache_read_input_tokens", &["cache_read_input_tokens", "cache_read_tokens"]);
    let cache_creation = count("cache_write_input_tokens", &["cache_write_input_tokens", "cache_write_tokens"]);
    Call {
        input: input.saturating_sub(cache_read.saturating_add(cache_creation)),
        output,
        cache_read,
        cache_creation,
        not_counts: counter.take(),
        ..Call::default()
    }
}

/// A `usage_ledger` row: one provider call.
fn ledger_call(row: &Row<'_>) -> Call {
    let mut call = call_of(row, "");
    call.model = optional::<String>(row, "model").or_else(|| optional(row, "model_name"));
    call.cost = optional::<f64>(row, "cost").or_else(|| optional(row, "cost_usd"));
    call.timestamp = time_ms(row, "created_at").or_else(|| time_ms(row, "timestamp")).map(format_iso_millis);
    call
}

/// The session's accumulated totals (its last call's, before Goose
/// accumulated them), as one call at its last update.
fn totals(row: &Row<'_>) -> Option<Call> {
    let accumulated = number(row, &["accumulated_input_tokens", "accumulated_output_tokens"]).is_some();
    let mut call = call_of(row, if accumulated { "accumulated_" } else { "" });
    let config: Option<String> = optional(row, "model_config_json");
    call.model = config
        .and_then(|json| serde_json::from_str::<Value>(&json).ok())
        .and_then(|config| config.get("model_name").and_then(Value::as_str).map(ToOwned::to_owned));
    call.cost = optional(row, "accumulated_cost");
    call.timestamp = time_ms(row, "updated_at").map(format_iso_millis);
    (!call.is_empty()).then_some(call)
}
