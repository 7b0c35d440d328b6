//! `sess list [--source NAME|all] [--cwd DIR | --all-projects] [--json] [--limit N] [--no-catalog | --catalog PATH]`.

use std::collections::HashMap;
use std::io::Write;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context as _;
use serde::Serialize;
use sess_core::{Leaf, SessionFile, format_iso_millis};
use sess_sources::{Catalogued, Listing, Scope, SessionInfo, SourceKind};
use sess_store::{Backend, FileStorage, SessionStorage as _, SessionSummary};

use crate::Outcome;
use crate::catalog;
use crate::cli::ListArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::{print_json, stdout, warn};
use crate::summary::one_line;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'static str>,
    path: &'a Path,
    id: &'a str,
    cwd: Option<&'a str>,
    title: Option<&'a str>,
    created: Option<&'a str>,
    modified: String,
    message_count: usize,
    /// pi-family only: how many messages `sess show --all` shows (the leaf's path).
    #[serde(skip_serializing_if = "Option::is_none")]
    shown_messages: Option<usize>,
    first_message: Option<&'a str>,
    parent_session: Option<&'a str>,
}

/// A session found by one of the sources.
struct Row {
    source: &'static str,
    agent: Option<&'static str>,
    info: SessionInfo,
    /// Where a pi-family session is, to count the messages `sess show` shows.
    pi: Option<PiSession>,
    /// That count, for `--json`.
    shown: Option<usize>,
}

/// A pi-family session: a file, or a session of the store being listed.
enum PiSession {
    File,
    Stored,
}

pub(crate) fn run(args: &ListArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    if let Some(url) = store
        && let Some(mut vault) = sess::archive::existing(url)?
    {
        return crate::commands::archived::list(args, vault.as_mut());
    }
    if args.machine.is_some() {
        anyhow::bail!("--machine lists the sessions of an archive: name it with --store URL");
    }
    let cwd = match &args.scope.cwd {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir()?,
    };
    let backend = store.map(|url| sess::store::open(url, sess::store::Missing::Refused, &Printed)).transpose()?;
    let mut rows = match &backend {
        Some(backend) => store_rows(backend.as_ref(), args, &cwd)?,
        None if args.no_catalog => source_rows(args, &cwd),
        None => catalog_rows(args, &cwd).unwrap_or_else(|err| {
            warn(format_args!("{err:#}; listing by reading the session files"));
            source_rows(args, &cwd)
        }),
    };
    rows.sort_by(|a, b| b.info.modified_ms.cmp(&a.info.modified_ms).then_with(|| a.info.path.cmp(&b.info.path)));
    if let Some(limit) = args.limit {
        rows.truncate(limit);
    }
    if args.json {
        count_shown_messages(&mut rows, backend.as_deref());
    }
    if !args.reveal_secrets {
        let redactor = sess_export::Redactor::bundled();
        for row in &mut rows {
            crate::redact::text(&redactor, &mut row.info.title);
            crate::redact::text(&redactor, &mut row.info.first_message);
        }
    }
    let items: Vec<Item<'_>> = rows
        .iter()
        .map(|row| {
            let s = &row.info;
            Item {
                source: row.source,
                agent: row.agent,
                path: &s.path,
                id: &s.id,
                cwd: s.cwd.as_deref(),
                title: s.title.as_deref(),
                created: s.created.as_deref(),
                modified: format_iso_millis(s.modified_ms),
                message_count: s.message_count,
                shown_messages: row.shown,
                first_message: s.first_message.as_deref(),
                parent_session: s.parent_session.as_deref(),
            }
        })
        .collect();
    if args.json {
        print_json(&items, false)?;
        return Ok(Outcome::Clean);
    }
    let id_width = unique_prefix_len(items.iter().map(|i| i.id), SHORT_ID);
    let mut out = stdout();
    if items.is_empty() {
        let scope =
            if args.scope.all_projects { "on this machine".to_owned() } else { format!("for `{}`", cwd.display()) };
        writeln!(out, "no sessions {scope}")?;
    }
    for item in &items {
        let when = item.modified.get(..16).unwrap_or(&item.modified).replace('T', " ");
        let name = one_line(item.title.or(item.first_message).unwrap_or(""), 60);
        let id: String = item.id.chars().take(id_width).collect();
        writeln!(
            out,
            "{when}  {:>5}  {id:<id_width$}  {:<9} {name}",
            item.message_count,
            item.agent.unwrap_or(item.source)
        )?;
        if args.scope.all_projects {
            writeln!(out, "{:>width$}{}", "", item.cwd.unwrap_or("?"), width = 24 + id_width)?;
        }
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// How many characters of an id the text listing shows at least.
const SHORT_ID: usize = 8;

/// The shortest prefix length, at least `min`, that tells every id apart (ids
/// minted in the same minute, such as `UUIDv7`s, share their first characters).
fn unique_prefix_len<'a>(ids: impl Iterator<Item = &'a str>, min: usize) -> usize {
    let mut ids: Vec<Vec<char>> = ids.map(|id| id.chars().collect()).collect();
    ids.sort_unstable();
    ids.dedup();
    let shared = |a: &[char], b: &[char]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    ids.windows(2).map(|w| (shared(&w[0], &w[1]) + 1).min(w[0].len().max(w[1].len()))).fold(min, usize::max)
}

/// The sessions of a store: every project unless a directory is asked for.
fn store_rows(backend: &dyn Backend, args: &ListArgs, cwd: &Path) -> anyhow::Result<Vec<Row>> {
    let source = backend.kind();
    let cwd_text = cwd.display().to_string();
    let wanted = |s: &SessionSummary| args.scope.all_projects || args.scope.cwd.is_none() || s.cwd == cwd_text;
    Ok(backend
        .list_sessions()?
        .into_iter()
        .filter(wanted)
        .map(|s| Row {
            source,
            agent: None,
            info: sess_sources::pi::summary_info(s),
            pi: Some(PiSession::Stored),
            shown: None,
        })
        .collect())
}

/// The sessions the agents keep on this machine, each file read.
fn source_rows(args: &ListArgs, cwd: &Path) -> Vec<Row> {
    let scope = if args.scope.all_projects { Scope::All } else { Scope::Project(cwd) };
    let mut rows = Vec::new();
    for kind in args.scope.source.kinds() {
        add_rows(&mut rows, kind, kind.source().list(&host().env, scope), &HashMap::new());
    }
    rows
}

/// The sessions the agents keep on this machine, from the search catalog,
/// brought up to date first (as `sess search` does); a source that is not
/// listed from the catalog is listed by reading its files. An error when the
/// catalog cannot be opened or written.
fn catalog_rows(args: &ListArgs, cwd: &Path) -> anyhow::Result<Vec<Row>> {
    let mut catalog = catalog::open(&catalog::path(args.catalog.path.as_deref())?)?;
    let (found, _, env) = catalog::refresh_found(&mut catalog, catalog::Bar::Shown)?;
    let scope = if args.scope.all_projects { Scope::All } else { Scope::Project(cwd) };
    let mut rows = Vec::new();
    for kind in args.scope.source.kinds() {
        let listed =
            catalog.listed(kind).with_context(|| format!("cannot read the catalog `{}`", catalog.path().display()))?;
        let mut shown = HashMap::new();
        let mut sessions = Vec::with_capacity(listed.sessions.len());
        for (info, count) in listed.sessions {
            if let Some(count) = count {
                shown.insert(info.path.clone(), count);
            }
            sessions.push(info);
        }
        let skipped = found.skipped.iter().filter(|(of, _)| *of == kind).flat_map(|(_, s)| s.clone()).collect();
        let mut unreadable = listed.unreadable;
        // A file the refresh could not even look at (a dangling link).
        for file in
            found.files.iter().filter(|f| f.source == kind && f.row.is_none() && !listed.known.contains(&f.path))
        {
            if let Err(err) = std::fs::metadata(&file.path) {
                unreadable.push((file.path.clone(), sess_sources::Error::io(&file.path, err).to_string()));
            }
        }
        let catalogued = Catalogued { sessions, skipped, unreadable };
        let listing =
            kind.source().list_catalogued(&env, scope, catalogued).unwrap_or_else(|| kind.source().list(&env, scope));
        add_rows(&mut rows, kind, listing, &shown);
    }
    Ok(rows)
}

/// Adds `kind`'s `listing` to `rows`, warning about its problems; `shown`
/// holds the counts of shown messages the catalog knows.
fn add_rows(rows: &mut Vec<Row>, kind: SourceKind, listing: Listing, shown: &HashMap<PathBuf, usize>) {
    for problem in &listing.problems {
        warn(format_args!("{kind}: {problem}"));
    }
    rows.extend(listing.sessions.into_iter().map(|info| {
        let shown = shown.get(&info.path).copied();
        Row {
            source: kind.as_str(),
            agent: info.flavor,
            pi: (kind.is_native() && shown.is_none()).then_some(PiSession::File),
            shown,
            info,
        }
    }));
}

/// How many messages `sess show --all` shows of each pi-family session (its
/// transcript at the last entry), read on several threads; a session that
/// cannot be read now gets none.
fn count_shown_messages(rows: &mut [Row], backend: Option<&dyn Backend>) {
    let shown = |file: &SessionFile| sess_sources::pi::shown_message_count(file, Leaf::Last);
    if let Some(backend) = backend {
        for row in rows.iter_mut().filter(|r| matches!(r.pi, Some(PiSession::Stored))) {
            let id = row.info.id.as_str();
            let file = backend.session(id).and_then(|stored| {
                let entries = backend.read_session(id)?;
                Ok(SessionFile::from_entries(Some(stored.header), stored.title_line.as_deref(), entries))
            });
            row.shown = file.ok().map(|file| shown(&file));
        }
    }
    let count = |path: &Path| {
        let bytes = FileStorage.read(path).ok()?;
        Some(shown(&sess_core::read(&bytes).file))
    };
    let files: Vec<(usize, &Path)> = rows
        .iter()
        .enumerate()
        .filter(|(_, row)| matches!(row.pi, Some(PiSession::File)))
        .map(|(index, row)| (index, row.info.path.as_path()))
        .collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut counted = Vec::new();
        while let Some(&(index, path)) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
            counted.push((index, count(path)));
        }
        counted
    };
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get).min(files.len()).max(1);
    let counted: Vec<(usize, Option<usize>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        // A panic in a worker is a bug; surface it on this thread.
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    for (index, shown) in counted {
        rows[index].shown = shown;
    }
}

#[cfg(test)]
mod tests {
    use super::unique_prefix_len;

    #[test]
    fn ids_are_cut_where_they_stay_apart() {
        assert_eq!(unique_prefix_len(["0199c3a1-aa", "0199c4f0-bb"].into_iter(), 8), 8);
        assert_eq!(unique_prefix_len(["01a22bd9-1882", "01a22bd9-19ce", "01a22bd9-1dad"].into_iter(), 8), 11);
        assert_eq!(unique_prefix_len(["abc", "abc"].into_iter(), 8), 8);
        assert_eq!(unique_prefix_len(std::iter::empty(), 8), 8);
    }
}
