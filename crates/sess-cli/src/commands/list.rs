//! `sess list [--source pi] [--cwd DIR | --all-projects] [--json] [--limit N]`.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sess_core::format_iso_millis;
use sess_store::discovery::{self, PiAgent};
use sess_store::{FileStorage, SessionSummary};

use crate::Outcome;
use crate::cli::ListArgs;
use crate::env::environment;
use crate::output::{print_json, stdout};
use crate::summary::one_line;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'static str>,
    path: &'a Path,
    id: &'a str,
    cwd: &'a str,
    title: Option<&'a str>,
    created: Option<&'a str>,
    modified: String,
    message_count: usize,
    first_message: &'a str,
    parent_session: Option<&'a str>,
}

pub(crate) fn run(args: &ListArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let cwd = match &args.cwd {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir()?,
    };
    let (source, mut sessions) = if let Some(url) = store {
        let backend = crate::store::open(url)?;
        let all = backend.list_sessions()?.into_iter().map(|s| (None, s));
        let cwd_text = cwd.display().to_string();
        // A store lists every project unless a directory is asked for.
        let wanted = |s: &SessionSummary| args.all_projects || args.cwd.is_none() || s.cwd == cwd_text;
        (backend.kind(), all.filter(|(_, s)| wanted(s)).collect::<Vec<_>>())
    } else {
        let found = pi_sessions(if args.all_projects { None } else { Some(&cwd) });
        ("pi", found.into_iter().map(|(agent, s)| (Some(agent), s)).collect())
    };
    sessions.sort_by(|a, b| b.1.modified_ms.cmp(&a.1.modified_ms).then_with(|| a.1.path.cmp(&b.1.path)));
    if let Some(limit) = args.limit {
        sessions.truncate(limit);
    }
    let items: Vec<Item<'_>> = sessions
        .iter()
        .map(|(agent, s)| Item {
            source,
            agent: agent.map(PiAgent::name),
            path: &s.path,
            id: &s.id,
            cwd: &s.cwd,
            title: s.title.as_deref(),
            created: s.created.as_deref(),
            modified: format_iso_millis(s.modified_ms),
            message_count: s.message_count,
            first_message: &s.first_message,
            parent_session: s.parent_session.as_deref(),
        })
        .collect();
    if args.json {
        print_json(&items, false)?;
        return Ok(Outcome::Clean);
    }
    let mut out = stdout();
    if items.is_empty() {
        let scope = if args.all_projects { "on this machine".to_owned() } else { format!("for `{}`", cwd.display()) };
        writeln!(out, "no sessions {scope}")?;
    }
    for item in &items {
        let when = item.modified.get(..16).unwrap_or(&item.modified).replace('T', " ");
        let name = one_line(item.title.unwrap_or(item.first_message), 60);
        let id: String = item.id.chars().take(8).collect();
        writeln!(out, "{when}  {:>5}  {id:<8}  {:<9} {name}", item.message_count, item.agent.unwrap_or(item.source))?;
        if args.all_projects {
            writeln!(out, "{:>32}{}", "", item.cwd)?;
        }
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// pi-family sessions of one project (`Some(cwd)`) or of every project.
pub(crate) fn pi_sessions(cwd: Option<&Path>) -> Vec<(PiAgent, SessionSummary)> {
    let env = environment();
    let roots = discovery::all_session_roots(&env, &FileStorage);
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for (agent, root) in roots {
        let listed = match cwd {
            None => discovery::list_all(&FileStorage, &root),
            Some(cwd) => discovery::candidate_dir_names(cwd, &env, &canonical)
                .into_iter()
                .flat_map(|name| discovery::list_sessions(&FileStorage, &root.join(name)))
                .collect(),
        };
        for summary in listed {
            if seen.insert(summary.path.clone()) {
                found.push((agent, summary));
            }
        }
    }
    found
}

/// Every pi-family session file on the machine, for resolving an id.
pub(crate) fn all_summaries() -> Vec<SessionSummary> {
    pi_sessions(None).into_iter().map(|(_, s)| s).collect()
}

/// Whether `arg` names a file rather than an id.
pub(crate) fn looks_like_path(arg: &str) -> bool {
    let path = PathBuf::from(arg);
    arg.contains(std::path::MAIN_SEPARATOR)
        || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
        || path.exists()
}
