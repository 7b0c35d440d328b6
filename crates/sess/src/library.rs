//! What the browser shows and where it comes from: the [`Library`] trait and
//! the cards, pages and hits it returns.

use serde::Serialize;
use sess_sources::{SessionState, SourceKind, Transcript};
use sess_usage::{By, Date, Report, Sum, TimeZone};

use crate::meaning::{SearchMode, Side};
use crate::{Cancel, Result};

/// The sessions the browser shows. `sess serve` implements it over its search
/// catalog, an archive, or both; tests implement it over a few values in
/// memory.
///
/// Every method is synchronous and may block on disk: the server calls them
/// from [`tokio::task::spawn_blocking`]. Ids are the catalog's opaque ids
/// ([`SessionCard::id`]), never paths. A method that cannot find what it is
/// asked for returns [`Error::NotFound`](crate::Error::NotFound); a request it
/// cannot make sense of (a leaf that is not in the session) returns
/// [`Error::Invalid`](crate::Error::Invalid).
pub trait Library: Send + Sync + 'static {
    /// Projects (working directories) that have sessions, most recently active first.
    fn projects(&self) -> Result<Vec<ProjectCard>>;

    /// Sessions, newest first, filtered by `params`: a page of
    /// [`SessionsParams::limit`] from [`SessionsParams::offset`] on, and how
    /// many the filters select in all.
    fn sessions(&self, params: &SessionsParams) -> Result<SessionList>;

    /// One session's transcript at `leaf` (pi-family and store sessions; None: the default leaf), with its tree.
    /// The page shows the newest messages: a library may keep only the last
    /// [`DEFAULT_MAX_MESSAGES`](sess_sources::DEFAULT_MAX_MESSAGES), counting
    /// the others in [`Transcript::truncated`].
    fn session(&self, id: &str, leaf: Option<&str>) -> Result<SessionPage>;

    /// One session at its default leaf with every message, for a reader that
    /// pages through all of it (`sess mcp`'s `read_session`); its tree and
    /// usage may be left empty.
    ///
    /// By default, [`Library::session`]'s page when it left no message out,
    /// and [`Error::Unsupported`](crate::Error::Unsupported) when it did: a
    /// window of the newest messages is never passed off as the whole.
    fn whole_session(&self, id: &str) -> Result<SessionPage> {
        let page = self.session(id, None)?;
        if page.transcript.truncated > 0 {
            return Err(crate::Error::Unsupported { operation: "reading every message of a long session".to_owned() });
        }
        Ok(page)
    }

    /// Ranked search hits: [`SearchParams::limit`] of them from
    /// [`SearchParams::offset`] on, each page ranked as the first
    /// `offset + limit` hits would be.
    ///
    /// A search can be slow: when `cancel` is raised (its client went away,
    /// or its time budget ran out) the library stops it soon and returns
    /// [`Error::Cancelled`](crate::Error::Cancelled). A query that asks too
    /// much (too many words) is [`Error::Invalid`](crate::Error::Invalid).
    fn search(&self, params: &SearchParams, cancel: &Cancel) -> Result<Vec<SearchHit>>;

    /// The ways [`Library::search`] can rank hits, the one it takes when a
    /// search names none first. Lexical alone by default; a library with
    /// an embedding model searches by meaning too, hybrid first.
    fn search_modes(&self) -> Vec<SearchMode> {
        vec![SearchMode::Lexical]
    }

    /// The machines whose sessions an archive holds, for the page's machine
    /// filter ([`SessionsParams::machine`]), by name. None by default: a
    /// library over one machine's sessions has nothing to filter.
    fn machines(&self) -> Result<Vec<MachineCard>> {
        Ok(Vec::new())
    }

    /// Tokens and cost of the model calls `params` selects, summed as it
    /// says (`sess usage`'s report).
    ///
    /// A library that keeps no model calls returns
    /// [`Error::Unsupported`](crate::Error::Unsupported), which it does by
    /// default: an empty report would say that nothing was spent.
    fn usage(&self, params: &UsageParams) -> Result<Report> {
        let _ = params;
        Err(crate::Error::Unsupported { operation: "reporting tokens and cost".to_owned() })
    }

    /// Session `id` (at `params.leaf`; every message) written as a file to
    /// download: Markdown or one self-contained HTML file, its secrets masked
    /// first when [`ExportParams::redact`] says so.
    ///
    /// A library that cannot write sessions returns
    /// [`Error::Unsupported`](crate::Error::Unsupported), which it does by
    /// default.
    fn export(&self, id: &str, params: &ExportParams) -> Result<Exported> {
        let _ = (id, params);
        Err(crate::Error::Unsupported { operation: "exporting a session".to_owned() })
    }

    /// Writes a new session branched at `entry_id` of session `id`.
    ///
    /// Sessions that are not [`SessionCard::forkable`] return
    /// [`Error::Unsupported`](crate::Error::Unsupported).
    fn fork(&self, id: &str, entry_id: &str) -> Result<Forked>;

    /// Hears of a call that failed with [`Error::Failed`](crate::Error::Failed):
    /// the response says only that the server failed (the error can name
    /// files), so this is where its details go, e.g. to the server's terminal.
    /// Does nothing by default.
    fn report(&self, error: &crate::Error) {
        let _ = error;
    }
}

/// Which sessions to list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionsParams {
    /// Only this agent's sessions.
    pub source: Option<SourceKind>,
    /// Only sessions in this working directory.
    pub project: Option<String>,
    /// Only sessions whose title, first prompt or directory contains this text.
    pub text: Option<String>,
    /// Only sessions an archive holds from the machine of this name
    /// ([`MachineCard::name`]).
    pub machine: Option<String>,
    /// At most this many.
    pub limit: usize,
    /// After skipping this many of them, newest first: the next page.
    pub offset: usize,
}

impl Default for SessionsParams {
    fn default() -> Self {
        Self { source: None, project: None, text: None, machine: None, limit: 200, offset: 0 }
    }
}

/// A page of sessions ([`Library::sessions`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionList {
    /// The page's sessions, newest first.
    pub sessions: Vec<SessionCard>,
    /// How many sessions the filters select in all, whatever the page's
    /// `limit` and `offset`.
    pub total: usize,
}

/// A search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchParams {
    /// The words to find.
    pub query: String,
    /// Only this agent's sessions.
    pub source: Option<SourceKind>,
    /// Only sessions in this working directory.
    pub project: Option<String>,
    /// Only sessions an archive holds from the machine of this name
    /// ([`MachineCard::name`]).
    pub machine: Option<String>,
    /// At most this many hits.
    pub limit: usize,
    /// After skipping this many of the best hits: the next page.
    pub offset: usize,
    /// How the hits are ranked; `None`: hybrid when the library has an
    /// embedding model ([`Host::model`](crate::Host::model)), else lexical.
    pub mode: Option<SearchMode>,
}

impl Default for SearchParams {
    fn default() -> Self {
        Self { query: String::new(), source: None, project: None, machine: None, limit: 50, offset: 0, mode: None }
    }
}

/// Which model calls a usage report sums, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct UsageParams {
    /// What it sums by: days, months, sessions, projects or models.
    pub by: By,
    /// Only this agent's calls.
    pub source: Option<SourceKind>,
    /// Only the calls of sessions in this working directory.
    pub project: Option<String>,
    /// Only the calls of sessions an archive holds from the machine of this
    /// name ([`MachineCard::name`]).
    pub machine: Option<String>,
    /// The first day counted (in `zone`).
    pub since: Option<Date>,
    /// The last day counted.
    pub until: Option<Date>,
    /// The zone days and months are counted in: the one the request names,
    /// else the server's.
    pub zone: TimeZone,
}

impl Default for UsageParams {
    fn default() -> Self {
        Self {
            by: By::Daily,
            source: None,
            project: None,
            machine: None,
            since: None,
            until: None,
            zone: TimeZone::system(),
        }
    }
}

/// A working directory that has sessions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectCard {
    /// The directory.
    pub cwd: String,
    /// How many sessions ran there.
    pub sessions: usize,
    /// When the newest of them last changed, in milliseconds since the Unix epoch.
    pub last_modified_ms: i64,
    /// The agents that ran there.
    pub sources: Vec<SourceKind>,
}

/// A session in a listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCard {
    /// The catalog id: opaque, never a path. It is what the API's
    /// `/api/sessions/{id}` takes.
    pub id: String,
    /// The agent that wrote it.
    pub source: SourceKind,
    /// The agent's own session id.
    pub session_id: String,
    /// The title, when the session has one.
    pub title: Option<String>,
    /// The directory the agent worked in.
    pub cwd: Option<String>,
    /// When it started, as written in the session (ISO 8601).
    pub created: Option<String>,
    /// When its file last changed, in milliseconds since the Unix epoch.
    pub modified_ms: i64,
    /// How many messages it has.
    pub message_count: usize,
    /// Whether [`Library::fork`] can branch it.
    pub forkable: bool,
    /// The store that holds it (`sess --store URL`), when it is not a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// The machine it was archived from, when it comes from an archive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// Whether its agent still has it, when it comes from an archive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original: Option<Original>,
    /// The command that writes an archived session back where its agent
    /// reads it (`sess restore …`): what forking or resuming it needs first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_command: Option<String>,
    /// Whether its agent is at work, waiting for its user or done, when
    /// the library read it for that (see [`SessionState`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<SessionState>,
}

/// Whether the agent still has an archived session (`"present"` or
/// `"deleted"` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Original {
    /// Its files are still where the agent keeps them.
    Present,
    /// The agent deleted them; only the archive keeps the session.
    Deleted,
}

/// A machine whose sessions an archive holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MachineCard {
    /// Its name, as [`SessionsParams::machine`] takes it.
    pub name: String,
    /// How many of its sessions the archive holds.
    pub sessions: usize,
}

/// One session, ready to show.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionPage {
    /// The session.
    pub session: SessionCard,
    /// Its messages on the branch that ends at `leaf`.
    pub transcript: Transcript,
    /// Its entry tree; empty when the source has no tree.
    pub tree: Vec<TreeNode>,
    /// The leaf the transcript was read at, when the source has a tree.
    pub leaf: Option<String>,
    /// The tokens and cost of the model calls the session made (each
    /// response once, and not those a report counts in the session they
    /// were copied from), with its models; absent when it recorded none or
    /// the library does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Sum>,
    /// The shell command that resumes it in its agent (`cd DIR && claude
    /// --resume ID`); absent when the agent resumes no session by a command,
    /// or the session is not where the agent keeps it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
}

/// An entry of a session's tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    /// The entry id.
    pub id: String,
    /// The entry it follows; `None` for a root.
    pub parent_id: Option<String>,
    /// What it is: `message`, `compaction`, …
    pub kind: String,
    /// Who speaks, for a message: `user`, `assistant`, …
    pub role: Option<String>,
    /// The start of its text, on one line.
    pub preview: String,
    /// The label the user gave it.
    pub label: Option<String>,
    /// When it was written (ISO 8601).
    pub timestamp: Option<String>,
    /// Whether it is on the branch the transcript shows.
    pub on_branch: bool,
}

/// A search result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The session it is in.
    pub session: SessionCard,
    /// The entry or message it is in, to scroll to.
    pub entry_id: Option<String>,
    /// Who wrote the text: `user`, `assistant`, …
    pub role: Option<String>,
    /// The text around the match, in pieces; a hit by meaning alone has the
    /// message's first words, none of them marked.
    pub snippet: Vec<SnippetPart>,
    /// Which sides of the search found it: its words, its meaning, or both.
    pub matched: Vec<Side>,
}

/// A piece of a snippet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// Whether it matched the query.
    pub hit: bool,
}

/// What [`Library::export`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// One self-contained HTML file that looks like the page's session view.
    Html,
    /// Markdown, to paste in an issue or hand to another agent.
    #[serde(rename = "md")]
    Markdown,
}

impl ExportFormat {
    /// The name the API takes: `html` or `md`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Html => "html",
            Self::Markdown => "md",
        }
    }

    /// The extension of the file: `html` or `md`.
    pub fn extension(self) -> &'static str {
        self.as_str()
    }

    /// The file's media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Html => "text/html; charset=utf-8",
            Self::Markdown => "text/markdown; charset=utf-8",
        }
    }
}

/// How a session is exported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportParams {
    /// What is written.
    pub format: ExportFormat,
    /// Whether secrets are masked first.
    pub redact: bool,
    /// The leaf to read the session at (pi-family sessions); `None`: the
    /// default one.
    pub leaf: Option<String>,
}

/// A session written by [`Library::export`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The file's name without its extension (the session's id, say); the
    /// server keeps only the characters a file name can safely have.
    pub name: String,
    /// The file.
    pub bytes: Vec<u8>,
    /// How many secrets were masked, when they were looked for.
    pub masked: Option<usize>,
}

/// A session written by [`Library::fork`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forked {
    /// The new session's id.
    pub session_id: String,
    /// Its file.
    pub path: String,
    /// The command that resumes it in its agent.
    pub resume_command: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    /// A library whose one session leaves `left_out` messages out of its page.
    struct Window {
        left_out: usize,
    }

    impl Library for Window {
        fn projects(&self) -> Result<Vec<ProjectCard>> {
            Ok(Vec::new())
        }
        fn sessions(&self, _: &SessionsParams) -> Result<SessionList> {
            Ok(SessionList::default())
        }
        fn session(&self, id: &str, _: Option<&str>) -> Result<SessionPage> {
            let mut transcript = Transcript::new(sess_sources::pi::SOURCE, id);
            transcript.truncated = self.left_out;
            let session = SessionCard {
                id: id.to_owned(),
                source: sess_sources::pi::SOURCE,
                session_id: id.to_owned(),
                title: None,
                cwd: None,
                created: None,
                modified_ms: 0,
                message_count: 0,
                forkable: false,
                store: None,
                machine: None,
                original: None,
                restore_command: None,
                state: None,
            };
            Ok(SessionPage { session, transcript, tree: Vec::new(), leaf: None, usage: None, resume: None })
        }
        fn search(&self, _: &SearchParams, _: &crate::Cancel) -> Result<Vec<SearchHit>> {
            Ok(Vec::new())
        }
        fn fork(&self, id: &str, _: &str) -> Result<Forked> {
            Err(Error::NotFound { what: id.into() })
        }
    }

    /// Issue 26, item 6: the default `whole_session` never passes the page's
    /// newest messages off as the whole session.
    #[test]
    fn whole_session_by_default_is_the_page_only_when_it_left_nothing_out() {
        assert!(Window { left_out: 0 }.whole_session("s").is_ok());
        let refused = Window { left_out: 5 }.whole_session("s").unwrap_err();
        assert!(matches!(refused, Error::Unsupported { .. }), "{refused}");
    }
}
