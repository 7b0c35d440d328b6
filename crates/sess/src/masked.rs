//! Secrets kept out of what a [`Library`] answers: [`Masked`] wraps any
//! library, so that `sess serve`'s page and `sess mcp`'s tools mask the same
//! things in one place.
//!
//! Listings and search snippets are masked by default (a title, a first
//! prompt or a snippet is shown to whoever looks over the list, and a
//! snippet is cut from any message); with [`Masked::everything`], so is every
//! transcript (`sess mcp --redact`: what a model reads may leave the
//! machine). Masks are [`Redactor::bundled`]'s.

use std::sync::Arc;

use sess_export::Redactor;
use sess_usage::Report;

use crate::Cancel;
use crate::Result;
use crate::library::{
    ExportParams, Exported, Forked, Library, MachineCard, ProjectCard, SearchHit, SearchParams, SessionCard,
    SessionList, SessionPage, SessionsParams, UsageParams,
};

/// A library whose answers have their secrets masked.
pub struct Masked {
    library: Arc<dyn Library>,
    transcripts: bool,
    redactor: Redactor,
}

impl Masked {
    /// `library` with the secrets of its listings and snippets masked:
    /// session titles (the cards of lists, hits and pages, the sessions of
    /// a usage report) and search snippets.
    pub fn listings(library: Arc<dyn Library>) -> Self {
        Self { library, transcripts: false, redactor: Redactor::bundled() }
    }

    /// `library` with every secret it answers masked: the listings', and
    /// every transcript's (its title, texts, tool inputs and results,
    /// subagents) and tree's previews and labels.
    pub fn everything(library: Arc<dyn Library>) -> Self {
        Self { transcripts: true, ..Self::listings(library) }
    }

    fn card(&self, card: &mut SessionCard) {
        mask(&self.redactor, &mut card.title);
    }

    fn hit(&self, hit: &mut SearchHit) {
        self.card(&mut hit.session);
        let mut pieces: Vec<&mut String> = hit.snippet.iter_mut().map(|p| &mut p.text).collect();
        self.redactor.redact_pieces(&mut pieces);
    }

    fn page(&self, mut page: SessionPage) -> SessionPage {
        self.card(&mut page.session);
        if self.transcripts {
            self.redactor.redact_transcript(&mut page.transcript);
            for node in &mut page.tree {
                if let std::borrow::Cow::Owned(masked) = self.redactor.redact(&node.preview) {
                    node.preview = masked;
                }
                mask(&self.redactor, &mut node.label);
            }
        }
        page
    }
}

/// `text` with its secrets masked, when it has some.
fn mask(redactor: &Redactor, text: &mut Option<String>) {
    if let Some(value) = text
        && let std::borrow::Cow::Owned(masked) = redactor.redact(value)
    {
        *value = masked;
    }
}

impl Library for Masked {
    fn projects(&self) -> Result<Vec<ProjectCard>> {
        self.library.projects()
    }

    fn sessions(&self, params: &SessionsParams) -> Result<SessionList> {
        let mut list = self.library.sessions(params)?;
        for card in &mut list.sessions {
            self.card(card);
        }
        Ok(list)
    }

    fn session(&self, id: &str, leaf: Option<&str>) -> Result<SessionPage> {
        Ok(self.page(self.library.session(id, leaf)?))
    }

    fn whole_session(&self, id: &str) -> Result<SessionPage> {
        Ok(self.page(self.library.whole_session(id)?))
    }

    fn search(&self, params: &SearchParams, cancel: &Cancel) -> Result<Vec<SearchHit>> {
        let mut hits = self.library.search(params, cancel)?;
        for hit in &mut hits {
            self.hit(hit);
        }
        Ok(hits)
    }

    fn machines(&self) -> Result<Vec<MachineCard>> {
        self.library.machines()
    }

    fn search_modes(&self) -> Vec<crate::meaning::SearchMode> {
        self.library.search_modes()
    }

    fn usage(&self, params: &UsageParams) -> Result<Report> {
        let mut report = self.library.usage(params)?;
        for group in &mut report.groups {
            if let Some(session) = &mut group.session {
                mask(&self.redactor, &mut session.title);
            }
        }
        Ok(report)
    }

    /// As the library writes it: an export masks its secrets as
    /// [`ExportParams::redact`] says.
    fn export(&self, id: &str, params: &ExportParams) -> Result<Exported> {
        self.library.export(id, params)
    }

    fn fork(&self, id: &str, entry_id: &str) -> Result<Forked> {
        self.library.fork(id, entry_id)
    }

    fn report(&self, error: &crate::Error) {
        self.library.report(error);
    }
}

#[cfg(test)]
mod tests {
    use sess_sources::{Block, Message, Role, Transcript};

    use super::*;
    use crate::{Error, SnippetPart};

    const KEY: &str = "ghp_7Hq2LmXv9Rt4Bn8Kc1Wz5Yd3Pf6Js0AeGuVb";

    /// One session titled with a secret, whose message and snippet hold it too.
    struct Leaky;

    fn card() -> SessionCard {
        SessionCard {
            id: "1".into(),
            source: sess_sources::pi::SOURCE,
            session_id: "s".into(),
            title: Some(format!("use {KEY}")),
            cwd: None,
            created: None,
            modified_ms: 0,
            message_count: 1,
            forkable: false,
            store: None,
            machine: None,
            original: None,
            restore_command: None,
            state: None,
        }
    }

    impl Library for Leaky {
        fn projects(&self) -> Result<Vec<ProjectCard>> {
            Ok(Vec::new())
        }
        fn sessions(&self, _: &SessionsParams) -> Result<SessionList> {
            Ok(SessionList { sessions: vec![card()], total: 1 })
        }
        fn session(&self, _: &str, _: Option<&str>) -> Result<SessionPage> {
            let mut transcript = Transcript::new(sess_sources::pi::SOURCE, "s");
            transcript.messages.push(Message::new(Role::User).with(Block::text(format!("token {KEY}"))));
            Ok(SessionPage { session: card(), transcript, tree: Vec::new(), leaf: None, usage: None, resume: None })
        }
        fn search(&self, _: &SearchParams, _: &Cancel) -> Result<Vec<SearchHit>> {
            let (head, tail) = KEY.split_at(6);
            let snippet = vec![
                SnippetPart { text: format!("token {head}"), hit: false },
                SnippetPart { text: tail.into(), hit: true },
            ];
            Ok(vec![SearchHit { session: card(), entry_id: None, role: None, snippet, matched: Vec::new() }])
        }
        fn fork(&self, id: &str, _: &str) -> Result<Forked> {
            Err(Error::NotFound { what: id.into() })
        }
    }

    fn shown(value: &impl serde::Serialize) -> String {
        serde_json::to_string(value).unwrap_or_default()
    }

    /// Issue 26, item 8: the page's lists and the MCP tools showed secrets
    /// unmasked.
    #[test]
    fn listings_and_snippets_are_masked_and_everything_masks_transcripts() {
        let listings = Masked::listings(Arc::new(Leaky));
        let list = listings.sessions(&SessionsParams::default()).unwrap_or_default();
        let hits = listings.search(&SearchParams::default(), &Cancel::new()).unwrap_or_default();
        for text in [shown(&list.sessions), shown(&hits)] {
            assert!(!text.contains(KEY) && text.contains("[redacted github-token]"), "{text}");
        }
        let page = listings.session("1", None).map(|p| shown(&p)).unwrap_or_default();
        assert!(page.contains(&format!("token {KEY}")), "a transcript is shown as written: {page}");
        let everything = Masked::everything(Arc::new(Leaky));
        for page in [everything.session("1", None), everything.whole_session("1")] {
            let text = page.map(|p| shown(&p)).unwrap_or_default();
            assert!(!text.is_empty() && !text.contains(KEY), "{text}");
        }
    }
}
