//! `sess serve`: the web history browser over the catalog, with the default
//! archive's sessions whose originals are gone; or over an archive
//! (`--store ARCHIVE`), every machine's sessions.

mod archive;
mod pool;

use std::io::Write as _;
use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sess::{
    Cancel, ExportParams, Exported, Forked, Library, MachineCard, ProjectCard, SearchHit, SearchParams, SessionCard,
    SessionList, SessionPage, SessionsParams, SnippetPart, TreeNode, UsageParams,
};
use sess_catalog::{Catalog, ListParams, SessionRow, Stop, Stopped};
use sess_core::{EntryIndex, EntryKind};
use sess_sources::Transcript;
use sess_store::FileStorage;
use sess_store::discovery::{self, PiAgent};
use sess_usage::{By, Options, Prices, Report, Row, Sum, TimeZone};
use sess_web::ServeConfig;

use self::archive::{Archive, ArchiveLibrary, Shown};
use self::pool::{Lease, Pool};

use crate::Outcome;
use crate::catalog;
use crate::cli::ServeArgs;
use crate::env::environment;
use crate::output::{shell_word, stdout, warn};
use crate::resolve::Located;
use crate::summary::describe;
use crate::usage::Scope;

/// How long a refreshed catalog counts as fresh: pages that load several API
/// routes at once refresh once.
const FRESH_FOR: Duration = Duration::from_secs(2);

pub(crate) fn run(args: &ServeArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let (library, said) = library(store, args.catalog.path.as_deref(), catalog::Bar::Shown)?;
    // The page's lists and snippets show no secret; a transcript shows what was written.
    listen_and_serve(args, &said, Arc::new(sess::Masked::listings(library)))
}

/// What the page (and `sess mcp`) reads: an archive (`--store ARCHIVE`), where
/// it is; else the catalog (at `catalog_path`, refreshed now) with `store`'s
/// sessions, or with the default archive's sessions whose originals are
/// gone. Also what it holds, in words.
pub(crate) fn library(
    store: Option<&str>,
    catalog_path: Option<&Path>,
    bar: catalog::Bar,
) -> anyhow::Result<(Arc<dyn Library>, String)> {
    // An archive is read where it is: the catalog is not involved.
    if let Some(url) = store
        && let Some(vault) = crate::archive::existing(url)?
    {
        let archive = Archive::new(vault, url, false, Shown::Every);
        let count = archive.len()?;
        let machines = archive.machines()?.len();
        let said = format!("{count} archived sessions from {machines} machine{}", if machines == 1 { "" } else { "s" });
        return Ok((Arc::new(ArchiveLibrary(archive)), said));
    }
    let path = catalog::path(catalog_path)?;
    let mut opened = catalog::open(&path)?;
    catalog::warn_problems(&catalog::refresh(&mut opened, store, bar)?);
    let gone = if store.is_none() { default_archive() } else { None };
    let said = match &gone {
        Some(gone) => format!("{} sessions and {} the agents deleted, kept in the archive", opened.len()?, gone.len()?),
        None => format!("{} sessions", opened.len()?),
    };
    let library = CatalogLibrary {
        pool: Pool::new(opened, move || catalog::open(&path)),
        refreshed: Mutex::new(Instant::now()),
        store: store.map(str::to_owned),
        gone,
    };
    Ok((Arc::new(library), said))
}

/// The default archive, whose sessions the agents deleted are shown beside
/// the catalog's; `None` when there is none or it cannot be read (said).
fn default_archive() -> Option<Archive> {
    let url = crate::archive::default_present()?;
    match crate::archive::open(&url) {
        Ok(vault) => Some(Archive::new(vault, &url, true, Shown::Gone)),
        Err(err) => {
            warn(format_args!("the sessions kept in the default archive are not shown: {err:#}"));
            None
        }
    }
}

/// Binds the port, says `said` and where it serves, and serves `library`.
fn listen_and_serve(args: &ServeArgs, said: &str, library: Arc<dyn Library>) -> anyhow::Result<Outcome> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, args.port)).map_err(|err| {
        anyhow::Error::new(crate::output::Hint("`--port 0` picks a free port".to_owned()))
            .context(format!("cannot listen on 127.0.0.1:{}: {err}", args.port))
    })?;
    let port = listener.local_addr()?.port();
    let url = format!("http://127.0.0.1:{port}/");
    let mut out = stdout();
    writeln!(out, "{said}; serving {url} (Ctrl-C stops)")?;
    out.flush()?;
    drop(out);
    if args.open {
        open_browser(&url);
    }
    let config = ServeConfig {
        header_read_timeout: args.header_timeout,
        idle_timeout: args.idle_timeout,
        ..ServeConfig::new(port)
    };
    sess_web::serve(listener, library, config)?;
    Ok(Outcome::Clean)
}

/// Opens `url` in the desktop's browser, or says why it cannot. The opener
/// is waited for on a thread of its own (it may run as long as the browser),
/// so it never stays behind as a zombie, and its failure is reported.
fn open_browser(url: &str) {
    use std::process::{Command, Stdio};
    let macos = cfg!(target_os = "macos");
    let desktop =
        ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    if !macos && !desktop {
        warn(format_args!("no desktop to open a browser on (DISPLAY and WAYLAND_DISPLAY are not set); open {url}"));
        return;
    }
    let opener = if macos { "open" } else { "xdg-open" };
    let mut child =
        match Command::new(opener).arg(url).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn() {
            Ok(child) => child,
            Err(err) => {
                warn(format_args!("cannot start `{opener}` ({err}); open {url} in a browser"));
                return;
            }
        };
    // What the opener says on failure; read apart from the wait, as a browser it
    // started may keep the pipe open.
    let (said, heard) = std::sync::mpsc::channel();
    if let Some(stderr) = child.stderr.take() {
        std::thread::spawn(move || {
            let mut first = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stderr), &mut first);
            let _ = said.send(first.trim().to_owned());
        });
    }
    let url = url.to_owned();
    std::thread::spawn(move || match child.wait() {
        Ok(status) if status.success() => {}
        Ok(status) => {
            let said = heard.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
            let said = if said.is_empty() { String::new() } else { format!(": {said}") };
            warn(format_args!("`{opener}` could not open a browser ({status}{said}); open {url}"));
        }
        Err(err) => warn(format_args!("waiting for `{opener}`: {err}; open {url} in a browser")),
    });
}

/// The catalog as the web page sees it, with the sessions the agents
/// deleted that the default archive keeps.
struct CatalogLibrary {
    /// A connection for each request at a time: requests run side by side
    /// (SQLite's WAL lets readers read while another connection writes), so
    /// a slow search keeps no other request waiting.
    pool: Pool<Catalog>,
    /// When the catalog was last refreshed; held while it is.
    refreshed: Mutex<Instant>,
    /// The store given with `--store`, whose sessions are shown too.
    store: Option<String>,
    /// The default archive (without `--store`), for the sessions whose
    /// originals are gone.
    gone: Option<Archive>,
}

impl CatalogLibrary {
    /// A connection to the catalog, refreshed unless it was a moment ago.
    fn catalog(&self) -> sess::Result<Lease<'_, Catalog>> {
        let mut catalog = self.pool.lease()?;
        let mut refreshed = self.refreshed.lock().map_err(|_| failed("the catalog lock is poisoned"))?;
        if refreshed.elapsed() > FRESH_FOR {
            catalog::refresh(&mut catalog, self.store.as_deref(), catalog::Bar::Hidden).map_err(anyhow_boxed)?;
            *refreshed = Instant::now();
        }
        Ok(catalog)
    }

    /// The catalog's hits of `params`' search: `limit` of them from `offset`
    /// on; it stops when `cancel` is raised.
    fn catalog_hits(
        &self,
        params: &SearchParams,
        (offset, limit): (usize, usize),
        cancel: &Cancel,
    ) -> sess::Result<Vec<SearchHit>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let search = sess_catalog::SearchParams {
            query: params.query.clone(),
            source: params.source,
            cwd: params.project.clone(),
            store: None,
            limit,
            offset,
            stop: Stop::never().or_when(cancel.flag()),
        };
        let hits = self.catalog()?.search(&search).map_err(search_error)?;
        Ok(hits
            .into_iter()
            .map(|hit| SearchHit {
                session: card(&hit.session),
                entry_id: hit.entry_id,
                role: Some(hit.role),
                snippet: hit.snippet.into_iter().map(|p| SnippetPart { text: p.text, hit: p.hit }).collect(),
            })
            .collect())
    }

    fn row(&self, id: &str) -> sess::Result<SessionRow> {
        let key: i64 = id.parse().map_err(|_| sess::Error::NotFound { what: format!("session {id}") })?;
        self.catalog()?
            .session(key)
            .map_err(boxed)?
            .ok_or_else(|| sess::Error::NotFound { what: format!("session {id}") })
    }
}

impl Library for CatalogLibrary {
    fn projects(&self) -> sess::Result<Vec<ProjectCard>> {
        let projects = self.catalog()?.projects().map_err(boxed)?;
        let mut cards: Vec<ProjectCard> = projects
            .into_iter()
            .map(|p| ProjectCard {
                cwd: p.cwd,
                sessions: p.sessions,
                last_modified_ms: p.last_modified_ms,
                sources: p.sources,
            })
            .collect();
        if let Some(gone) = &self.gone {
            merge_projects(&mut cards, gone.projects()?);
        }
        Ok(cards)
    }

    fn sessions(&self, params: &SessionsParams) -> sess::Result<SessionList> {
        let list = |offset, limit| ListParams {
            source: params.source,
            cwd: params.project.clone(),
            text: params.text.clone(),
            limit,
            offset,
        };
        // The catalog's sessions are this machine's, of no archived machine.
        let mine = params.machine.is_none();
        let Some(gone) = &self.gone else {
            if !mine {
                return Ok(SessionList::default());
            }
            let catalog = self.catalog()?;
            let page = list(params.offset, params.limit);
            let sessions = catalog.sessions(&page).map_err(boxed)?.iter().map(card).collect();
            return Ok(SessionList { sessions, total: catalog.session_count(&page).map_err(boxed)? });
        };
        // Beside the deleted sessions, the page is in the first `offset +
        // limit` of both, newest first.
        let wanted = params.offset.saturating_add(params.limit);
        let mut merged = SessionList::default();
        if mine {
            let catalog = self.catalog()?;
            let first = list(0, wanted);
            merged.sessions.extend(catalog.sessions(&first).map_err(boxed)?.iter().map(card));
            merged.total = catalog.session_count(&first).map_err(boxed)?;
        }
        let deleted = gone.sessions(&SessionsParams { offset: 0, limit: wanted, ..params.clone() })?;
        merged.sessions.extend(deleted.sessions);
        merged.total += deleted.total;
        merged.sessions.sort_by_key(|c| std::cmp::Reverse(c.modified_ms));
        merged.sessions = merged.sessions.into_iter().skip(params.offset).take(params.limit).collect();
        Ok(merged)
    }

    fn machines(&self) -> sess::Result<Vec<MachineCard>> {
        self.gone.as_ref().map_or_else(|| Ok(Vec::new()), Archive::machines)
    }

    fn session(&self, id: &str, leaf: Option<&str>) -> sess::Result<SessionPage> {
        if let Some(gone) = &self.gone
            && archive::is_archived(id)
        {
            return gone.page(id, leaf);
        }
        let row = self.row(id)?;
        let (mut transcript, tree, leaf) = read_whole(&row, id, leaf)?;
        transcript.keep_newest(sess_sources::DEFAULT_MAX_MESSAGES);
        sess_sources::add_diffs(&mut transcript);
        let calls = sess_catalog::UsageParams { session: Some(row.key), ..Default::default() };
        let rows = self.catalog()?.usage(&calls).map_err(boxed)?;
        let usage = session_sum(rows, &row.path.to_string_lossy());
        Ok(SessionPage { session: card(&row), transcript, tree, leaf, usage })
    }

    /// Every message, without the diffs of edits or the usage.
    fn whole_session(&self, id: &str) -> sess::Result<SessionPage> {
        if let Some(gone) = &self.gone
            && archive::is_archived(id)
        {
            return gone.whole(id);
        }
        let row = self.row(id)?;
        let (transcript, tree, leaf) = read_whole(&row, id, None)?;
        Ok(SessionPage { session: card(&row), transcript, tree, leaf, usage: None })
    }

    fn export(&self, id: &str, params: &ExportParams) -> sess::Result<Exported> {
        if let Some(gone) = &self.gone
            && archive::is_archived(id)
        {
            return gone.export(id, params);
        }
        let row = self.row(id)?;
        let (transcript, _, _) = read_whole(&row, id, params.leaf.as_deref())?;
        exported(transcript, params)
    }

    fn search(&self, params: &SearchParams, cancel: &Cancel) -> sess::Result<Vec<SearchHit>> {
        // The catalog's sessions are this machine's, of no archived machine.
        let mut hits = match params.machine {
            Some(_) => Vec::new(),
            None => self.catalog_hits(params, (params.offset, params.limit), cancel)?,
        };
        // The catalog ranks its hits first; the deleted sessions follow them.
        if let Some(gone) = &self.gone
            && hits.len() < params.limit
        {
            // Where the catalog's hits end: after this page's, or (a page
            // past them) where a search for the first `offset` says.
            let before = match (hits.is_empty(), params.machine.is_some()) {
                (_, true) => 0,
                (false, false) => params.offset + hits.len(),
                (true, false) => self.catalog_hits(params, (0, params.offset), cancel)?.len(),
            };
            let more = SearchParams {
                offset: params.offset.saturating_sub(before),
                limit: params.limit - hits.len(),
                ..params.clone()
            };
            hits.extend(gone.search(&more, cancel)?);
        }
        Ok(hits)
    }

    /// The catalog's calls, then those of the default archive's sessions
    /// whose originals are gone (each of their files read for it).
    fn usage(&self, params: &UsageParams) -> sess::Result<Report> {
        let scope = scope(params);
        let catalog = self.catalog()?;
        let mut rows = crate::usage::catalog_rows(&catalog, self.store.as_deref(), &scope).map_err(anyhow_boxed)?;
        if let Some(gone) = &self.gone {
            let present = catalog.session_paths().map_err(|e| anyhow_boxed(e.into()))?;
            drop(catalog);
            rows.extend(gone.usage(&scope, &present)?);
        }
        Ok(usage_report(rows, params))
    }

    fn fork(&self, id: &str, entry_id: &str) -> sess::Result<Forked> {
        if let Some(gone) = &self.gone
            && archive::is_archived(id)
        {
            return Err(gone.refuse_fork(id));
        }
        let row = self.row(id)?;
        if !row.source.is_native() {
            return Err(sess::Error::Unsupported { operation: format!("forking a {} session", row.source) });
        }
        let (session, store) = match &row.store {
            Some(url) => (row.id.clone(), Some(url.as_str())),
            None => (row.path.display().to_string(), None),
        };
        let forked = crate::commands::fork::new_session(&session, store, entry_id).map_err(|err| {
            if err.is::<crate::commands::fork::NoSuchEntry>() {
                sess::Error::NotFound { what: format!("entry `{entry_id}` of session {id}") }
            } else {
                anyhow_boxed(err)
            }
        })?;
        let (path, resume_command) = match (&forked.path, store) {
            (Some(path), _) => (path.display().to_string(), resume_command(path, row.cwd.as_deref())),
            // A stored session goes on with whatever appends to it.
            (None, Some(url)) => {
                (format!("{url}#{}", forked.id), format!("sess --store {} append {}", shell_word(url), forked.id))
            }
            (None, None) => (String::new(), String::new()),
        };
        Ok(Forked { session_id: forked.id, path, resume_command })
    }

    fn report(&self, error: &sess::Error) {
        report(error);
    }
}

/// The catalog's session `row` (the page's `id`) at `leaf`, every message;
/// for a pi-family one, with its entry tree and the leaf read.
fn read_whole(
    row: &SessionRow,
    id: &str,
    leaf: Option<&str>,
) -> sess::Result<(Transcript, Vec<TreeNode>, Option<String>)> {
    let not_an_entry = |leaf: &str| sess::Error::NotFound { what: format!("entry {leaf} of session {id}") };
    if !row.source.is_native() {
        if leaf.is_some() {
            return Err(sess::Error::Unsupported { operation: format!("reading a {} session at a leaf", row.source) });
        }
        let found = Located {
            kind: row.source,
            recognised: true,
            path: row.path.clone(),
            row: row.database_row.then(|| row.id.clone()),
        };
        return Ok((crate::sources::transcript(&found, None).map_err(anyhow_boxed)?, Vec::new(), None));
    }
    let file = match &row.store {
        Some(url) => crate::load::load(&row.id, Some(url)).map_err(anyhow_boxed)?.file,
        None => crate::load::load_path(&row.path).map_err(anyhow_boxed)?.file,
    };
    let entries = file.entries();
    if let Some(leaf) = leaf
        && !entries.iter().any(|e| e.id().as_str() == leaf)
    {
        return Err(not_an_entry(leaf));
    }
    let name = row.path.display().to_string();
    let transcript = crate::sources::pi_transcript(&file, leaf, &name).map_err(anyhow_boxed)?;
    let leaf = leaf.map(str::to_owned).or_else(|| entries.last().map(|e| e.id().to_string()));
    Ok((transcript, tree_nodes(entries, leaf.as_deref()), leaf))
}

/// `transcript` written as the page's Export asks: secrets masked first
/// when it says so, then Markdown or HTML, as `sess export` writes them.
fn exported(mut transcript: Transcript, params: &ExportParams) -> sess::Result<Exported> {
    let masked = crate::commands::export::prepare(&mut transcript, params.redact);
    let format = match params.format {
        sess::ExportFormat::Html => crate::cli::ExportFormat::Html,
        sess::ExportFormat::Markdown => crate::cli::ExportFormat::Md,
    };
    let bytes = crate::commands::export::file(&transcript, format).map_err(anyhow_boxed)?;
    Ok(Exported { name: transcript.id.clone(), bytes, masked })
}

/// Whose calls the page's report sums.
fn scope(params: &UsageParams) -> Scope {
    Scope { sources: params.source.into_iter().collect(), cwd: params.project.clone(), machine: params.machine.clone() }
}

/// `rows` summed as `params` say, priced with the bundled table where their
/// agents recorded no cost.
fn usage_report(rows: Vec<Row>, params: &UsageParams) -> Report {
    let prices = Prices::bundled();
    let options =
        Options { by: params.by, zone: params.zone.clone(), since: params.since, until: params.until, prices: &prices };
    Report::build(rows, &options)
}

/// What the calls of the session whose file is `path` come to, among `rows`
/// (its own, and those of the sessions that share a response with it: a
/// response counts in the session that began first); `None` when it has
/// no call of its own.
fn session_sum(rows: Vec<Row>, path: &str) -> Option<Sum> {
    let prices = Prices::bundled();
    let options = Options { by: By::Session, zone: TimeZone::UTC, since: None, until: None, prices: &prices };
    let report = Report::build(rows, &options);
    report.groups.into_iter().find(|g| g.session.as_ref().is_some_and(|s| s.path == path)).map(|g| g.sum)
}

/// Says on the terminal why a request failed, with every cause.
fn report(error: &sess::Error) {
    let mut message = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(next) = cause {
        message = format!("{message}: {next}");
        cause = next.source();
    }
    warn(format_args!("a request failed: {message}"));
}

/// Adds the projects of the archive's deleted sessions to the catalog's.
fn merge_projects(cards: &mut Vec<ProjectCard>, more: Vec<ProjectCard>) {
    for project in more {
        match cards.iter_mut().find(|c| c.cwd == project.cwd) {
            Some(card) => {
                card.sessions += project.sessions;
                card.last_modified_ms = card.last_modified_ms.max(project.last_modified_ms);
                for source in project.sources {
                    if !card.sources.contains(&source) {
                        card.sources.push(source);
                    }
                }
                card.sources.sort();
            }
            None => cards.push(project),
        }
    }
    archive::sort_projects(cards);
}

/// The command that goes on with a pi-family session in its agent.
fn resume_command(path: &Path, cwd: Option<&str>) -> String {
    let env = environment();
    let agent = discovery::all_session_roots(&env, &FileStorage)
        .into_iter()
        .find(|(_, root)| path.starts_with(root))
        .map_or(PiAgent::PiMono, |(agent, _)| agent);
    let program = agent.program();
    let command = format!("{program} --session {}", shell_word(&path.display().to_string()));
    match cwd {
        Some(dir) => format!("cd {} && {command}", shell_word(dir)),
        None => command,
    }
}

fn card(row: &SessionRow) -> SessionCard {
    SessionCard {
        id: row.key.to_string(),
        source: row.source,
        session_id: row.id.clone(),
        title: row.title.clone(),
        cwd: row.cwd.clone(),
        created: row.created.clone(),
        modified_ms: row.modified_ms,
        message_count: row.message_count,
        forkable: row.source.is_native(),
        store: row.store.clone(),
        machine: None,
        original: None,
        restore_command: None,
    }
}

/// The entries a reader picks a leaf from: messages, compactions, branch
/// summaries and custom messages, each under its nearest shown ancestor.
fn tree_nodes(entries: &[sess_core::Entry], leaf: Option<&str>) -> Vec<TreeNode> {
    let index = EntryIndex::new(entries);
    let on_branch: std::collections::HashSet<usize> = leaf
        .and_then(|l| index.position(l))
        .map(|l| index.path(entries, l).entries.into_iter().collect())
        .unwrap_or_default();
    let shown = |e: &sess_core::Entry| {
        matches!(
            e.kind(),
            EntryKind::Message(_)
                | EntryKind::Compaction(_)
                | EntryKind::BranchSummary(_)
                | EntryKind::CustomMessage(_)
        )
    };
    let mut nodes = Vec::new();
    for (position, entry) in entries.iter().enumerate() {
        if !shown(entry) {
            continue;
        }
        // The nearest shown ancestor, walking at most the whole file (a loop
        // stops there).
        let mut parent = index.parent_of(entry);
        let mut steps = 0;
        while let Some(p) = parent {
            if shown(&entries[p]) || steps > entries.len() {
                break;
            }
            parent = index.parent_of(&entries[p]);
            steps += 1;
        }
        let role = match entry.kind() {
            EntryKind::Message(m) => m
                .message
                .as_ref()
                .and_then(|m| m.decode::<serde_json::Value>().ok())
                .and_then(|m| m.get("role").and_then(|r| r.as_str()).map(str::to_owned)),
            _ => None,
        };
        nodes.push(TreeNode {
            id: entry.id().to_string(),
            parent_id: parent.filter(|p| shown(&entries[*p])).map(|p| entries[p].id().to_string()),
            kind: entry.type_name().to_owned(),
            role,
            preview: describe(entry),
            label: index.label(entry.id().as_str()).map(str::to_owned),
            timestamp: entry.timestamp().map(str::to_owned),
            on_branch: on_branch.contains(&position),
        });
    }
    nodes
}

/// A search's error as the page's: a query it refused is a bad request; a
/// stopped one says why.
fn search_error(err: sess_catalog::Error) -> sess::Error {
    match err {
        sess_catalog::Error::EmptyQuery { .. }
        | sess_catalog::Error::TooManyWords { .. }
        | sess_catalog::Error::BadQuery { .. } => sess::Error::Invalid { reason: err.to_string() },
        sess_catalog::Error::Stopped { reason: Stopped::Cancelled } => sess::Error::Cancelled,
        sess_catalog::Error::Stopped { reason: Stopped::OutOfTime { budget } } => sess::Error::OutOfTime { budget },
        other => boxed(other),
    }
}

fn failed(message: &str) -> sess::Error {
    sess::Error::Failed(message.to_owned().into())
}

fn boxed(err: sess_catalog::Error) -> sess::Error {
    sess::Error::Failed(Box::new(err))
}

fn anyhow_boxed(err: anyhow::Error) -> sess::Error {
    sess::Error::Failed(err.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 26, item 1: the catalog was one `Mutex<Catalog>`, so a slow
    /// search kept every other request of the page waiting for it.
    #[test]
    fn a_request_is_answered_while_another_holds_a_connection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.sqlite");
        let library = Arc::new(CatalogLibrary {
            pool: Pool::new(catalog::open(&path).unwrap(), move || catalog::open(&path)),
            refreshed: Mutex::new(Instant::now()),
            store: None,
            gone: None,
        });
        // What a search does while it runs.
        let busy = library.catalog().unwrap();
        let (said, heard) = std::sync::mpsc::channel();
        let other = Arc::clone(&library);
        std::thread::spawn(move || said.send(other.projects().map(|p| p.len()).map_err(|e| e.to_string())));
        let answer = heard.recv_timeout(Duration::from_secs(10));
        assert_eq!(answer, Ok(Ok(0)), "another request waited for the busy connection");
        drop(busy);
        assert_eq!(library.pool.idle(), 2, "both connections are kept for the next requests");
    }
}
