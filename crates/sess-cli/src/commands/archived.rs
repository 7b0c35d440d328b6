//! The read verbs on an archive (`--store` naming one): `list`, `show` and
//! `search` over every agent's archived sessions, those whose originals are
//! gone included.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;
use sess::meaning::{SearchMode, Side};
use sess_archive::{ArchivedSession, Filter, Vault};
use sess_catalog::{Hit, SessionRow};
use sess_core::format_iso_millis;
use sess_sources::SourceKind;

use crate::Outcome;
use crate::cli::ListArgs;
use crate::output::{print_json, stdout};
use crate::summary::one_line;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    source: &'a str,
    machine: &'a str,
    machine_id: &'a str,
    path: &'a str,
    id: &'a str,
    cwd: Option<&'a str>,
    title: Option<&'a str>,
    created: Option<&'a str>,
    modified: String,
    message_count: i64,
    /// `present`, or `deleted` when the agent no longer has it.
    original: &'static str,
    archived: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<String>,
}

/// `sess --store ARCHIVE list`: the archived sessions, newest first; every
/// project unless `--cwd` names one.
pub(crate) fn list(args: &ListArgs, vault: &mut dyn Vault) -> anyhow::Result<Outcome> {
    let filter = Filter {
        machine: args.machine.clone(),
        source: args.scope.source.single().map(|k| k.as_str().to_owned()),
        ..Filter::default()
    };
    let mut sessions = vault.sessions(&filter)?;
    if let Some(dir) = &args.scope.cwd {
        let dir = std::path::absolute(dir)?.display().to_string();
        sessions.retain(|s| s.meta.cwd.as_deref() == Some(dir.as_str()));
    }
    if let Some(limit) = args.limit {
        sessions.truncate(limit);
    }
    if !args.reveal_secrets {
        let redactor = sess_export::Redactor::bundled();
        for session in &mut sessions {
            crate::redact::text(&redactor, &mut session.meta.title);
        }
    }
    let items: Vec<Item<'_>> = sessions.iter().map(item).collect();
    if args.json {
        print_json(&items, false)?;
        return Ok(Outcome::Clean);
    }
    let mut out = stdout();
    if items.is_empty() {
        writeln!(out, "no archived sessions")?;
    }
    for item in &items {
        let when = item.modified.get(..16).unwrap_or(&item.modified).replace('T', " ");
        let name = one_line(item.title.unwrap_or(""), 60);
        let id = crate::summary::short(item.id);
        let gone = if item.original == "deleted" { "  [deleted]" } else { "" };
        writeln!(
            out,
            "{when}  {:>5}  {id:<8}  {:<9} {:<12} {name}{gone}",
            item.message_count,
            item.source,
            one_line(item.machine, 12)
        )?;
        writeln!(out, "{:>32}{}", "", item.cwd.unwrap_or("?"))?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

fn item(s: &ArchivedSession) -> Item<'_> {
    Item {
        source: &s.source,
        machine: &s.machine,
        machine_id: &s.machine_id,
        path: &s.path,
        id: &s.meta.session_id,
        cwd: s.meta.cwd.as_deref(),
        title: s.meta.title.as_deref(),
        created: s.meta.created.as_deref(),
        modified: format_iso_millis(s.meta.modified_ms),
        message_count: s.meta.message_count,
        original: sess::archive::original(s),
        archived: format_iso_millis(s.archived_ms),
        deleted: s.deleted_ms.map(format_iso_millis),
    }
}

/// The archive's hits for `query`, as the catalog's (the store is `url`),
/// ranked as `mode` says (with `model` for the meaning), with the sides
/// that found each.
pub(crate) fn search(
    vault: &mut dyn Vault,
    url: &str,
    (query, filter): (&str, &Filter),
    (limit, stop): (usize, &sess_catalog::Stop),
    (mode, model): (SearchMode, Option<&sess_embed::Model>),
) -> anyhow::Result<Vec<(Hit, Vec<Side>)>> {
    let hits = sess::meaning::search_archive(vault, model, mode, query, filter, limit, stop)?;
    Ok(hits
        .into_iter()
        .filter_map(|fused| {
            let matched = Side::of(&fused);
            let hit = fused.hit;
            let row = row(&hit.session, url)?;
            Some((
                Hit { session: row, entry_id: hit.entry_id, role: hit.role, snippet: hit.snippet, score: 0.0 },
                matched,
            ))
        })
        .collect())
}

/// An archived session as a row of the catalog's listings.
pub(crate) fn row(s: &ArchivedSession, url: &str) -> Option<SessionRow> {
    Some(SessionRow {
        key: s.key,
        source: SourceKind::from_name(&s.source)?,
        id: s.meta.session_id.clone(),
        path: PathBuf::from(&s.path),
        store: Some(url.to_owned()),
        database_row: false,
        title: s.meta.title.clone(),
        cwd: s.meta.cwd.clone(),
        created: s.meta.created.clone(),
        modified_ms: s.meta.modified_ms,
        message_count: usize::try_from(s.meta.message_count).unwrap_or(0),
    })
}
