//! The page over the search catalog: every agent's sessions on this
//! machine, refreshed as a request comes, with the default archive's
//! sessions whose originals are gone.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sess_catalog::{Catalog, ListParams, SessionRow, Stop};
use sess_sources::Transcript;
use sess_usage::Report;

use super::archive::Archive;
use super::pool::{Lease, Pool};
use super::{boxed, failed, tree::tree_nodes};
use crate::meaning::{SearchMode, Side};
use crate::resolve::Located;
use crate::usage::Scope;
use crate::{
    Cancel, Error, ExportParams, Exported, Forked, Host, Library, MachineCard, ProjectCard, Result, SearchHit,
    SearchParams, SessionCard, SessionList, SessionPage, SessionsParams, SnippetPart, Tell, TreeNode, UsageParams,
    shell_word,
};

/// How long a refreshed catalog counts as fresh: pages that load several API
/// routes at once refresh once.
const FRESH_FOR: Duration = Duration::from_secs(2);

/// The catalog as the web page sees it, with the sessions the agents
/// deleted that the default archive keeps.
pub(super) struct CatalogLibrary {
    /// A connection for each request at a time: requests run side by side
    /// (SQLite's WAL lets readers read while another connection writes), so
    /// a slow search keeps no other request waiting.
    pub(super) pool: Pool<Catalog>,
    /// When the catalog was last refreshed; held while it is.
    pub(super) refreshed: Mutex<Instant>,
    /// The store given with `--store`, whose sessions are shown too.
    pub(super) store: Option<String>,
    /// The default archive (without `--store`), for the sessions whose
    /// originals are gone.
    pub(super) gone: Option<Archive>,
    /// The machine read.
    pub(super) host: Host,
    /// Where the refreshes' skipped names and the failed requests are told.
    pub(super) tell: Arc<dyn Tell>,
    /// The states of the sessions listed ([`crate::state`]).
    pub(super) states: crate::state::States,
    /// The embedding model of search by meaning ([`Host::model`]): the
    /// messages a refresh adds are embedded with it.
    pub(super) model: Option<Arc<sess_embed::Model>>,
}

impl CatalogLibrary {
    /// A connection to the catalog, refreshed unless it was a moment ago.
    fn catalog(&self) -> Result<Lease<'_, Catalog>> {
        let mut catalog = self.pool.lease()?;
        let mut refreshed = self.refreshed.lock().map_err(|_| failed("the catalog lock is poisoned"))?;
        if refreshed.elapsed() > FRESH_FOR {
            let done = crate::catalog::refresh(&mut catalog, &self.host.env, self.store.as_deref(), &mut |_| {})
                .map_err(boxed)?;
            for (_, skipped) in &done.skipped {
                self.tell.skipped(skipped);
            }
            if let Some(model) = &self.model {
                crate::catalog::embed(&mut catalog, model, &mut |_, _| {})?;
            }
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
    ) -> Result<Vec<SearchHit>> {
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
        let mode = params.mode.unwrap_or(SearchMode::default_for(self.model.is_some()));
        let hits = crate::meaning::search(&*self.catalog()?, self.model.as_deref(), mode, &search)?;
        Ok(hits
            .into_iter()
            .map(|fused| {
                let matched = Side::of(&fused);
                let hit = fused.hit;
                SearchHit {
                    session: card(&hit.session),
                    entry_id: hit.entry_id,
                    role: Some(hit.role),
                    snippet: hit.snippet.into_iter().map(|p| SnippetPart { text: p.text, hit: p.hit }).collect(),
                    matched,
                }
            })
            .collect())
    }

    fn row(&self, id: &str) -> Result<SessionRow> {
        let key: i64 = id.parse().map_err(|_| Error::NotFound { what: format!("session {id}") })?;
        self.catalog()?.session(key).map_err(boxed)?.ok_or_else(|| Error::NotFound { what: format!("session {id}") })
    }
}

impl Library for CatalogLibrary {
    fn projects(&self) -> Result<Vec<ProjectCard>> {
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

    fn sessions(&self, params: &SessionsParams) -> Result<SessionList> {
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
            let sessions = catalog.sessions(&page).map_err(boxed)?.iter().map(|row| self.listed(row)).collect();
            return Ok(SessionList { sessions, total: catalog.session_count(&page).map_err(boxed)? });
        };
        // Beside the deleted sessions, the page is in the first `offset +
        // limit` of both, newest first.
        let wanted = params.offset.saturating_add(params.limit);
        let mut merged = SessionList::default();
        if mine {
            let catalog = self.catalog()?;
            let first = list(0, wanted);
            merged.sessions.extend(catalog.sessions(&first).map_err(boxed)?.iter().map(|row| self.listed(row)));
            merged.total = catalog.session_count(&first).map_err(boxed)?;
        }
        let deleted = gone.sessions(&SessionsParams { offset: 0, limit: wanted, ..params.clone() })?;
        merged.sessions.extend(deleted.sessions);
        merged.total += deleted.total;
        merged.sessions.sort_by_key(|c| std::cmp::Reverse(c.modified_ms));
        merged.sessions = merged.sessions.into_iter().skip(params.offset).take(params.limit).collect();
        Ok(merged)
    }

    fn machines(&self) -> Result<Vec<MachineCard>> {
        self.gone.as_ref().map_or_else(|| Ok(Vec::new()), Archive::machines)
    }

    fn search_modes(&self) -> Vec<SearchMode> {
        match self.model {
            Some(_) => vec![SearchMode::Hybrid, SearchMode::Semantic, SearchMode::Lexical],
            None => vec![SearchMode::Lexical],
        }
    }

    fn session(&self, id: &str, leaf: Option<&str>) -> Result<SessionPage> {
        if let Some(gone) = &self.gone
            && super::archive::is_archived(id)
        {
            return gone.page(id, leaf);
        }
        let row = self.row(id)?;
        let (mut transcript, tree, leaf) = self.read_whole(&row, id, leaf)?;
        let mut session = card(&row);
        session.state = Some(crate::state::of(row.source, &transcript, row.modified_ms));
        transcript.keep_newest(sess_sources::DEFAULT_MAX_MESSAGES);
        sess_sources::add_diffs(&mut transcript);
        let calls = sess_catalog::UsageParams { session: Some(row.key), ..Default::default() };
        let rows = self.catalog()?.usage(&calls).map_err(boxed)?;
        let usage = crate::usage::session_sum(rows, &row.path.to_string_lossy());
        let resume = self.resume(&row);
        Ok(SessionPage { session, transcript, tree, leaf, usage, resume })
    }

    /// Every message, without the diffs of edits or the usage.
    fn whole_session(&self, id: &str) -> Result<SessionPage> {
        if let Some(gone) = &self.gone
            && super::archive::is_archived(id)
        {
            return gone.whole(id);
        }
        let row = self.row(id)?;
        let (transcript, tree, leaf) = self.read_whole(&row, id, None)?;
        let mut session = card(&row);
        session.state = Some(crate::state::of(row.source, &transcript, row.modified_ms));
        let resume = self.resume(&row);
        Ok(SessionPage { session, transcript, tree, leaf, usage: None, resume })
    }

    fn export(&self, id: &str, params: &ExportParams) -> Result<Exported> {
        if let Some(gone) = &self.gone
            && super::archive::is_archived(id)
        {
            return gone.export(id, params);
        }
        let row = self.row(id)?;
        let (transcript, _, _) = self.read_whole(&row, id, params.leaf.as_deref())?;
        Ok(crate::export::export(transcript, params))
    }

    fn search(&self, params: &SearchParams, cancel: &Cancel) -> Result<Vec<SearchHit>> {
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
    fn usage(&self, params: &UsageParams) -> Result<Report> {
        let scope = Scope::of(params);
        let catalog = self.catalog()?;
        let mut rows = crate::usage::catalog_rows(&catalog, self.store.as_deref(), &scope).map_err(boxed)?;
        if let Some(gone) = &self.gone {
            let present = catalog.session_paths().map_err(boxed)?;
            drop(catalog);
            rows.extend(gone.usage(&scope, &present, &self.host)?);
        }
        Ok(crate::usage::report(rows, params))
    }

    fn fork(&self, id: &str, entry_id: &str) -> Result<Forked> {
        if let Some(gone) = &self.gone
            && super::archive::is_archived(id)
        {
            return Err(gone.refuse_fork(id));
        }
        let row = self.row(id)?;
        if !row.source.is_native() {
            return Err(Error::Unsupported { operation: format!("forking a {} session", row.source) });
        }
        let (session, store) = match &row.store {
            Some(url) => (row.id.clone(), Some(url.as_str())),
            None => (row.path.display().to_string(), None),
        };
        let tell = self.tell.as_ref();
        let forked =
            crate::session::fork_new_session(&session, store, entry_id, &self.host, tell).map_err(|err| match err {
                Error::NotFound { .. } => Error::NotFound { what: format!("entry `{entry_id}` of session {id}") },
                other => boxed(other),
            })?;
        let (path, resume_command) = match (&forked.path, store) {
            (Some(path), _) => {
                let resume = crate::handoff::resume(row.source, &forked.id, path, row.cwd.as_deref(), &self.host);
                (path.display().to_string(), resume.map(|r| r.shell()).unwrap_or_default())
            }
            // A stored session goes on with whatever appends to it.
            (None, Some(url)) => {
                (format!("{url}#{}", forked.id), format!("sess --store {} append {}", shell_word(url), forked.id))
            }
            (None, None) => (String::new(), String::new()),
        };
        Ok(Forked { session_id: forked.id, path, resume_command })
    }

    fn report(&self, error: &Error) {
        super::report(self.tell.as_ref(), error);
    }
}

impl CatalogLibrary {
    /// The catalog's session `row` as a listing shows it, with its state
    /// when it was written lately.
    fn listed(&self, row: &SessionRow) -> SessionCard {
        let mut listed = card(row);
        let key = listed.id.clone();
        listed.state = self.states.get(&key, row.source, row.modified_ms, || {
            self.read_whole(row, &key, None).ok().map(|(transcript, _, _)| transcript)
        });
        listed
    }

    /// The catalog's session `row` (the page's `id`) at `leaf`, every message;
    /// for a pi-family one, with its entry tree and the leaf read.
    fn read_whole(
        &self,
        row: &SessionRow,
        id: &str,
        leaf: Option<&str>,
    ) -> Result<(Transcript, Vec<TreeNode>, Option<String>)> {
        let not_an_entry = |leaf: &str| Error::NotFound { what: format!("entry {leaf} of session {id}") };
        let tell = self.tell.as_ref();
        if !row.source.is_native() {
            if leaf.is_some() {
                return Err(Error::Unsupported { operation: format!("reading a {} session at a leaf", row.source) });
            }
            let found = Located::of_row(row);
            let transcript = crate::load::transcript(&found, None, &self.host, tell).map_err(boxed)?;
            return Ok((transcript, Vec::new(), None));
        }
        let file = match &row.store {
            Some(url) => {
                let session = crate::resolve::session(&row.id, Some(url), &self.host, tell).map_err(boxed)?;
                crate::load::load_session(session, &self.host, tell).map_err(boxed)?
            }
            None => crate::load::load_path(&row.path, &self.host, tell).map_err(boxed)?.file,
        };
        let entries = file.entries();
        if let Some(leaf) = leaf
            && !entries.iter().any(|e| e.id().as_str() == leaf)
        {
            return Err(not_an_entry(leaf));
        }
        let name = row.path.display().to_string();
        let transcript = crate::load::pi_transcript(&file, leaf, &name).map_err(boxed)?;
        let leaf = leaf.map(str::to_owned).or_else(|| entries.last().map(|e| e.id().to_string()));
        Ok((transcript, tree_nodes(entries, leaf.as_deref()), leaf))
    }

    /// The shell command that resumes the catalog's session `row` in its
    /// agent; `None` for a store's session, or an agent that resumes none.
    fn resume(&self, row: &SessionRow) -> Option<String> {
        if row.store.is_some() {
            return None;
        }
        let resume = crate::handoff::resume(row.source, &row.id, &row.path, row.cwd.as_deref(), &self.host)?;
        Some(resume.shell())
    }
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
    super::archive::sort_projects(cards);
}

/// A catalog's session as a listing shows it.
pub(crate) fn card(row: &SessionRow) -> SessionCard {
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
        state: None,
    }
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
            pool: Pool::new(crate::catalog::open(&path).unwrap(), move || crate::catalog::open(&path)),
            refreshed: Mutex::new(Instant::now()),
            store: None,
            gone: None,
            host: Host::at_home(dir.path()),
            tell: Arc::new(crate::Quiet),
            states: crate::state::States::default(),
            model: None,
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
