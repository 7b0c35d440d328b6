//! The page over an archive: with `--store ARCHIVE` every machine's
//! sessions, without it the default archive's sessions whose originals are
//! gone. They are read from the archive, never forked.

use crate::meaning::{SearchMode, Side};
use std::collections::{BTreeMap, BTreeSet, HashSet};

use std::sync::Arc;

use sess_archive::{ArchivedSession, Filter, StoredFile, Vault};
use sess_catalog::Stop;
use sess_sources::{SourceKind, Transcript};
use sess_usage::{Report, Row};

use super::boxed;
use super::pool::{Lease, Pool};
use crate::usage::Scope;
use crate::{
    Cancel, ExportParams, Exported, Forked, Host, Library, MachineCard, Original, ProjectCard, Result, SearchHit,
    SearchParams, SessionCard, SessionList, SessionPage, SessionsParams, SnippetPart, Tell, UsageParams, shell_word,
};

/// The prefix of an archived session's id on the page, which keeps it apart
/// from the catalog's ids (plain numbers).
const ID_PREFIX: char = 'a';

/// Which of an archive's sessions the page shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shown {
    /// All of them (`--store ARCHIVE`).
    Every,
    /// Those whose originals are gone (the default archive, beside the
    /// catalog).
    Gone,
}

/// An archive as the page reads it.
pub(super) struct Archive {
    /// A connection for each request at a time (see [`Pool`]).
    vaults: Pool<Box<dyn Vault>>,
    /// The URL to show and to give `sess --store` (a password left out);
    /// `None` for the default archive.
    store: Option<String>,
    /// Where the cards say the session is (`SessionCard::store`).
    shown_store: String,
    shown: Shown,
    /// Where a session that cannot be read for its usage is told.
    tell: Arc<dyn Tell>,
    /// The embedding model of search by meaning ([`Host::model`]).
    model: Option<Arc<sess_embed::Model>>,
}

impl Archive {
    /// The archive `vault` at `url`; `default` when it is the default one,
    /// which `sess restore` reads without `--store`.
    /// Searched by meaning with `model` when it has its vectors.
    pub(super) fn new(
        vault: Box<dyn Vault>,
        url: &str,
        (default, shown): (bool, Shown),
        tell: Arc<dyn Tell>,
        model: Option<Arc<sess_embed::Model>>,
    ) -> Self {
        let shown_url = without_password(url);
        let url = url.to_owned();
        let vaults = Pool::new(vault, move || crate::archive::open(&url));
        Self { vaults, store: (!default).then(|| shown_url.clone()), shown_store: shown_url, shown, tell, model }
    }

    /// How it can be searched: by meaning too when it has vectors of the
    /// model, its default first.
    pub(super) fn search_modes(&self) -> Result<Vec<SearchMode>> {
        crate::meaning::archive_modes(self.vault()?.as_mut(), self.model.as_deref())
    }

    fn vault(&self) -> Result<Lease<'_, Box<dyn Vault>>> {
        self.vaults.lease()
    }

    fn filter(&self, source: Option<SourceKind>, machine: Option<&str>) -> Filter {
        Filter {
            machine: machine.map(str::to_owned),
            source: source.map(|kind| kind.as_str().to_owned()),
            id_prefix: None,
            gone: self.shown == Shown::Gone,
        }
    }

    /// The sessions `filter` selects whose agents this sess reads, newest first.
    fn read(&self, filter: &Filter) -> Result<Vec<ArchivedSession>> {
        let mut sessions = self.vault()?.sessions(filter).map_err(boxed)?;
        sessions.retain(|s| SourceKind::from_name(&s.source).is_some());
        Ok(sessions)
    }

    /// How many sessions the page shows of it.
    pub(super) fn len(&self) -> Result<usize> {
        Ok(self.read(&self.filter(None, None))?.len())
    }

    /// The machines of the sessions shown, by name.
    pub(super) fn machines(&self) -> Result<Vec<MachineCard>> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for session in self.read(&self.filter(None, None))? {
            *counts.entry(session.machine).or_default() += 1;
        }
        Ok(counts.into_iter().map(|(name, sessions)| MachineCard { name, sessions }).collect())
    }

    /// The working directories of the sessions shown, most recently active first.
    pub(super) fn projects(&self) -> Result<Vec<ProjectCard>> {
        let mut projects: BTreeMap<String, (usize, i64, BTreeSet<SourceKind>)> = BTreeMap::new();
        for session in self.read(&self.filter(None, None))? {
            let (Some(cwd), Some(kind)) = (session.meta.cwd, SourceKind::from_name(&session.source)) else {
                continue;
            };
            let project = projects.entry(cwd).or_insert((0, i64::MIN, BTreeSet::new()));
            project.0 += 1;
            project.1 = project.1.max(session.meta.modified_ms);
            project.2.insert(kind);
        }
        let mut cards: Vec<ProjectCard> = projects
            .into_iter()
            .map(|(cwd, (sessions, last_modified_ms, sources))| ProjectCard {
                cwd,
                sessions,
                last_modified_ms,
                sources: sources.into_iter().collect(),
            })
            .collect();
        sort_projects(&mut cards);
        Ok(cards)
    }

    /// The sessions shown that `params` selects, newest first: the page it
    /// asks for, and how many there are in all.
    pub(super) fn sessions(&self, params: &SessionsParams) -> Result<SessionList> {
        let text = params.text.as_deref().map(str::to_lowercase);
        let mut list = SessionList::default();
        for session in self.read(&self.filter(params.source, params.machine.as_deref()))? {
            if params.project.is_some() && session.meta.cwd != params.project {
                continue;
            }
            if let Some(text) = &text {
                let haystack = format!(
                    "{} {} {}",
                    session.meta.title.as_deref().unwrap_or(""),
                    session.meta.cwd.as_deref().unwrap_or(""),
                    session.meta.session_id
                );
                if !haystack.to_lowercase().contains(text.as_str()) {
                    continue;
                }
            }
            let Some(card) = self.card(&session) else { continue };
            if list.total >= params.offset && list.sessions.len() < params.limit {
                list.sessions.push(card);
            }
            list.total += 1;
        }
        Ok(list)
    }

    /// The sessions shown whose text matches, best first: `params.limit` of
    /// them from `params.offset` on, ranked as `params.mode` says (by words
    /// and meaning when it has vectors of the model, else by words). The
    /// default archive's deleted sessions, shown beside the catalog's, are
    /// found by their words alone when it has no vectors.
    /// It stops when `cancel` is raised.
    pub(super) fn search(&self, params: &SearchParams, cancel: &Cancel) -> Result<Vec<SearchHit>> {
        let filter = self.filter(params.source, params.machine.as_deref());
        let wanted = params.offset.saturating_add(params.limit);
        let stop = Stop::never().or_when(cancel.flag());
        let mut vault = self.vault()?;
        let beside = self.shown == Shown::Gone;
        let Some(mode) = crate::meaning::archive_mode(vault.as_mut(), self.model.as_deref(), params.mode, beside)?
        else {
            return Ok(Vec::new());
        };
        let hits = crate::meaning::search_archive(
            vault.as_mut(),
            self.model.as_deref(),
            mode,
            &params.query,
            &filter,
            wanted,
            &stop,
        )?;
        Ok(hits
            .into_iter()
            .filter(|fused| params.project.is_none() || fused.hit.session.meta.cwd == params.project)
            .filter_map(|fused| {
                let matched = Side::of(&fused);
                let hit = fused.hit;
                Some(SearchHit {
                    session: self.card(&hit.session)?,
                    entry_id: hit.entry_id,
                    role: Some(hit.role),
                    snippet: hit.snippet.into_iter().map(|p| SnippetPart { text: p.text, hit: p.hit }).collect(),
                    matched,
                })
            })
            .skip(params.offset)
            .take(params.limit)
            .collect())
    }

    /// The archived session `id` (an id of [`Archive::card`]).
    fn find(&self, id: &str) -> Result<ArchivedSession> {
        let not_found = || crate::Error::NotFound { what: format!("session {id}") };
        let key = key(id).ok_or_else(not_found)?;
        self.read(&self.filter(None, None))?.into_iter().find(|s| s.key == key).ok_or_else(not_found)
    }

    /// The archived session `id`, read with its agent's reader. An archive
    /// keeps no entry tree to pick a leaf from: asked for one, it says so.
    pub(super) fn page(&self, id: &str, leaf: Option<&str>) -> Result<SessionPage> {
        let (session, files, mut transcript) = self.read_whole(id, leaf)?;
        let card = self.card(&session).ok_or_else(|| crate::Error::NotFound { what: format!("session {id}") })?;
        transcript.keep_newest(sess_sources::DEFAULT_MAX_MESSAGES);
        sess_sources::add_diffs(&mut transcript);
        // Its own calls: the files are at hand, but not those of the sessions it may share a response with.
        let usage = match crate::usage::session_rows(&session, &files) {
            Ok(rows) => crate::usage::session_sum(rows, &session.path),
            Err(err) => {
                self.tell.warning(&format!(
                    "the archived session `{}` could not be read for its usage: {}",
                    session.meta.session_id,
                    crate::chain(&err)
                ));
                None
            }
        };
        Ok(SessionPage { session: card, transcript, tree: Vec::new(), leaf: None, usage, resume: None })
    }

    /// The archived session `id` with every message, without the diffs of
    /// edits or the usage.
    pub(super) fn whole(&self, id: &str) -> Result<SessionPage> {
        let (session, _, transcript) = self.read_whole(id, None)?;
        let card = self.card(&session).ok_or_else(|| crate::Error::NotFound { what: format!("session {id}") })?;
        Ok(SessionPage { session: card, transcript, tree: Vec::new(), leaf: None, usage: None, resume: None })
    }

    /// The archived session `id` and its files, read whole with its agent's
    /// reader. An archive keeps no entry tree to pick a leaf from: asked for
    /// one, it says so.
    fn read_whole(&self, id: &str, leaf: Option<&str>) -> Result<(ArchivedSession, Vec<StoredFile>, Transcript)> {
        let session = self.find(id)?;
        if leaf.is_some() {
            return Err(crate::Error::Unsupported { operation: "reading an archived session at a leaf".to_owned() });
        }
        let files = self.vault()?.files(session.key).map_err(boxed)?;
        let transcript = crate::archive::read(&session, &files).map_err(boxed)?;
        Ok((session, files, transcript))
    }

    /// The archived session `id` written as the page's Export asks.
    pub(super) fn export(&self, id: &str, params: &ExportParams) -> Result<Exported> {
        let (_, _, transcript) = self.read_whole(id, params.leaf.as_deref())?;
        Ok(crate::export::export(transcript, params))
    }

    /// The model calls of the sessions shown that `scope` selects: each
    /// one's files are read (the archive keeps no calls of its own). Beside
    /// the catalog, the sessions shown are this machine's that the catalog
    /// does not have (`present`: its paths), as `sess usage` counts them.
    pub(super) fn usage(&self, scope: &Scope, present: &HashSet<String>, host: &Host) -> Result<Vec<Row>> {
        let tell = self.tell.as_ref();
        let rows = if self.shown == Shown::Gone {
            let machine = host.machine().map_err(boxed)?.id;
            let gone = |s: &ArchivedSession| s.machine_id == machine && !present.contains(&s.path);
            crate::usage::archived(self.vault()?.as_mut(), scope, &gone, tell, &mut |_, _| {})
        } else {
            crate::usage::archived(self.vault()?.as_mut(), scope, &|_| true, tell, &mut |_, _| {})
        };
        rows.map_err(boxed)
    }

    /// Forking reads a session where its agent keeps it: an archived one is
    /// written back first, so the fork is refused with the command that does.
    pub(super) fn refuse_fork(&self, id: &str) -> crate::Error {
        match self.find(id) {
            Ok(session) => crate::Error::Unsupported {
                operation: format!(
                    "forking a session read from the archive before `{}` writes it back",
                    self.restore_command(&session)
                ),
            },
            Err(err) => err,
        }
    }

    /// `sess restore` for `session`, naming the archive unless it is the
    /// default one and the machine when the page shows several machines'.
    fn restore_command(&self, session: &ArchivedSession) -> String {
        let store = self.store.as_deref().map(|url| format!("--store {} ", shell_word(url))).unwrap_or_default();
        let machine = match self.shown {
            Shown::Every => format!(" --machine {}", shell_word(&session.machine)),
            Shown::Gone => String::new(),
        };
        format!("sess {store}restore {}{machine}", shell_word(&session.meta.session_id))
    }

    /// An archived session as the page lists it; `None` for an agent this
    /// sess does not read.
    fn card(&self, s: &ArchivedSession) -> Option<SessionCard> {
        Some(SessionCard {
            id: format!("{ID_PREFIX}{}", s.key),
            source: SourceKind::from_name(&s.source)?,
            session_id: s.meta.session_id.clone(),
            title: s.meta.title.clone(),
            cwd: s.meta.cwd.clone(),
            created: s.meta.created.clone(),
            modified_ms: s.meta.modified_ms,
            message_count: usize::try_from(s.meta.message_count).unwrap_or(0),
            forkable: false,
            store: Some(self.shown_store.clone()),
            machine: Some(s.machine.clone()),
            original: Some(if s.deleted_ms.is_some() { Original::Deleted } else { Original::Present }),
            restore_command: Some(self.restore_command(s)),
            state: None,
        })
    }
}

/// The archive's key in a page id of an archived session.
fn key(id: &str) -> Option<i64> {
    id.strip_prefix(ID_PREFIX)?.parse().ok()
}

/// Whether `id` names an archived session (not one of the catalog's).
pub(super) fn is_archived(id: &str) -> bool {
    key(id).is_some()
}

/// Projects most recently active first, then by directory.
pub(super) fn sort_projects(projects: &mut [ProjectCard]) {
    projects.sort_by(|a, b| b.last_modified_ms.cmp(&a.last_modified_ms).then_with(|| a.cwd.cmp(&b.cwd)));
}

/// `url` with the password of a `postgres://user:password@host` URL left
/// out: it would be shown on the page.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://").filter(|(scheme, _)| scheme.starts_with("postgres")) else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else { return url.to_owned() };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}@{host}{tail}"),
        None => url.to_owned(),
    }
}

/// `sess --store ARCHIVE serve`: every machine's sessions, read from the archive.
pub(super) struct ArchiveLibrary(pub(super) Archive, pub(super) Host);

impl Library for ArchiveLibrary {
    fn projects(&self) -> Result<Vec<ProjectCard>> {
        self.0.projects()
    }

    fn sessions(&self, params: &SessionsParams) -> Result<SessionList> {
        self.0.sessions(params)
    }

    fn session(&self, id: &str, leaf: Option<&str>) -> Result<SessionPage> {
        self.0.page(id, leaf)
    }

    fn whole_session(&self, id: &str) -> Result<SessionPage> {
        self.0.whole(id)
    }

    fn search(&self, params: &SearchParams, cancel: &Cancel) -> Result<Vec<SearchHit>> {
        self.0.search(params, cancel)
    }

    /// By meaning too when the archive has vectors of the model.
    fn search_modes(&self) -> Vec<SearchMode> {
        self.0.search_modes().unwrap_or_else(|err| {
            self.report(&err);
            vec![SearchMode::Lexical]
        })
    }

    fn machines(&self) -> Result<Vec<MachineCard>> {
        self.0.machines()
    }

    /// Every archived session's calls: each one's files are read.
    fn usage(&self, params: &UsageParams) -> Result<Report> {
        Ok(crate::usage::report(self.0.usage(&Scope::of(params), &HashSet::new(), &self.1)?, params))
    }

    fn export(&self, id: &str, params: &ExportParams) -> Result<Exported> {
        self.0.export(id, params)
    }

    fn fork(&self, id: &str, _entry_id: &str) -> Result<Forked> {
        Err(self.0.refuse_fork(id))
    }

    fn report(&self, error: &crate::Error) {
        super::report(self.0.tell.as_ref(), error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_left_out_of_urls() {
        for (url, shown) in [
            (
                "postgres://sess:hunter2@db.lan:5432/sess?sslmode=require",
                "postgres://sess@db.lan:5432/sess?sslmode=require",
            ),
            ("postgresql://sess@db.lan/sess", "postgresql://sess@db.lan/sess"),
            ("postgres://db.lan/sess", "postgres://db.lan/sess"),
            ("postgres://u:p@ss@db.lan/x", "postgres://u@db.lan/x"),
            ("sqlite:/home/u/archive.sqlite", "sqlite:/home/u/archive.sqlite"),
            ("sqlite:///home/u/a@b:c.sqlite", "sqlite:///home/u/a@b:c.sqlite"),
        ] {
            assert_eq!(without_password(url), shown, "{url}");
        }
    }

    #[test]
    fn archived_ids_are_apart_from_the_catalogs() {
        assert_eq!(key("a42"), Some(42));
        assert!(is_archived("a7"));
        for id in ["42", "a", "ax", "", "b42"] {
            assert!(!is_archived(id), "{id}");
        }
    }
}
