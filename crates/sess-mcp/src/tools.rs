//! The four tools and the server that offers them.
//!
//! | tool | arguments | answer |
//! |---|---|---|
//! | `search_sessions` | `query`, `source?`, `cwd?`, `since?`, `limit?`, `max_chars?` | ranked hits, one per session: its `ref`, agent, session id, time, project, title, and the matching entry with its snippet |
//! | `list_sessions` | `source?`, `cwd?`, `since?`, `limit?`, `max_chars?` | sessions, newest first, with titles and message counts |
//! | `read_session` | `id`, `around_entry?`, `offset?`, `limit?`, `max_chars?` | a window of the transcript, one message per entry, with the cursor of the next window |
//! | `session_context` | `id`, `entry?`, `max_chars?` | a pi-family session's model context at an entry, as JSON |

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use sess::{Library, SearchParams, SessionCard, SessionsParams};
use sess_sources::SourceKind;

use crate::params::{ContextArgs, ListArgs, ReadArgs, SearchArgs, since_ms};
use crate::render::{self, Answer};

/// The model context of the pi-family session with this session id at an
/// entry (or its last), as JSON; `Err` says why there is none.
pub type ContextFn = Arc<dyn Fn(&str, Option<&str>) -> Result<serde_json::Value, String> + Send + Sync>;

/// How many messages before the one asked for a window starts.
const BEFORE_ENTRY: usize = 3;

/// The `sess` MCP server.
#[derive(Clone)]
pub struct Sess {
    library: Arc<dyn Library>,
    context: ContextFn,
    project: Option<String>,
    #[allow(dead_code)] // Read by the code `tool_handler` writes.
    tool_router: ToolRouter<Self>,
}

impl Sess {
    /// A server over `library` and `context`, whose default scope is the
    /// project `project` (`None`: every project).
    pub fn new(library: Arc<dyn Library>, context: ContextFn, project: Option<String>) -> Self {
        Self { library, context, project, tool_router: Self::tool_router() }
    }

    /// The project a tool's `cwd` argument names: the default scope when
    /// absent, every project for `*`.
    fn project(&self, cwd: Option<&str>) -> Option<String> {
        match cwd {
            None => self.project.clone(),
            Some("*" | "") => None,
            Some(dir) => Some(dir.trim_end_matches('/').to_owned()).filter(|d| !d.is_empty()).or(Some("/".to_owned())),
        }
    }

    /// The card of the session `id` names: a `ref`, or an agent's session id
    /// or prefix.
    fn find(&self, id: &str) -> Result<SessionCard, String> {
        let id = id.trim();
        if id.is_empty() {
            return Err("`id` is empty: give a session's ref or id".to_owned());
        }
        if let Ok(page) = self.library.session(id, None) {
            return Ok(page.session);
        }
        let params = SessionsParams { text: Some(id.to_owned()), limit: 10_000, ..SessionsParams::default() };
        let cards = self.library.sessions(&params).map_err(|e| e.to_string())?.sessions;
        let mut found: Vec<SessionCard> = cards.into_iter().filter(|c| c.session_id.starts_with(id)).collect();
        if found.iter().any(|c| c.session_id == id) {
            found.retain(|c| c.session_id == id);
        }
        match found.len() {
            0 => Err(format!("no session has the ref or id `{id}` (search_sessions or list_sessions give them)")),
            1 => Ok(found.remove(0)),
            n => Err(format!(
                "`{id}` names {n} sessions: {}; give its ref",
                found
                    .iter()
                    .map(|c| format!("ref {} ({} {})", c.id, c.source.as_str(), c.session_id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

fn source(name: Option<&str>) -> Result<Option<SourceKind>, String> {
    match name {
        None | Some("" | "all") => Ok(None),
        Some(name) => SourceKind::from_name(name).map(Some).ok_or_else(|| {
            let names: Vec<&str> = sess_sources::registry().map(SourceKind::as_str).collect();
            format!("`source` is one of {}; not `{name}`", names.join(", "))
        }),
    }
}

fn since(since: Option<&str>) -> Result<Option<i64>, String> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    since.map(|s| since_ms(s, now)).transpose()
}

/// A tool's answer: its text, or a tool error saying what was wrong.
fn answer(result: Result<String, String>) -> CallToolResult {
    match result {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    }
}

/// `head`, then as many of `items` as fit in `max_chars`, and how many of
/// them (`what`) were left out.
fn lines(max_chars: Option<usize>, head: &str, items: impl ExactSizeIterator<Item = String>, what: &str) -> String {
    let total = items.len();
    let mut out = Answer::new(max_chars);
    out.push(head);
    let mut shown = 0;
    for item in items {
        if !out.push(&item) {
            break;
        }
        shown += 1;
    }
    let note = (shown < total).then(|| {
        format!("left out: {} more {what} (the budget); ask with a larger max_chars or a smaller limit", total - shown)
    });
    out.finish(note)
}

fn scope_note(project: Option<&str>) -> String {
    project.map_or_else(|| "every project".to_owned(), |p| format!("project {p} (cwd \"*\" for every project)"))
}

/// The longest a search may run before it is cancelled and answered with a
/// tool error.
pub const SEARCH_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// The most characters of the query an answer repeats.
const QUERY_SHOWN: usize = 200;

/// Runs `work` on tokio's blocking pool: it reads files and databases, and
/// the server must go on reading stdin meanwhile.
async fn off_thread(work: impl FnOnce() -> Result<String, String> + Send + 'static) -> Result<String, String> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(format!("the tool failed: {e}")))
}

impl Sess {
    /// The search `args` asks for, stopped when the client cancels its
    /// request (`notifications/cancelled`: `rmcp` cancels the request's
    /// token, `cancelled`) or its budget runs out.
    async fn search(&self, args: SearchArgs, cancelled: impl Future<Output = ()>) -> Result<String, String> {
        if args.query.trim().is_empty() {
            return Err("`query` is empty: give words to search for".to_owned());
        }
        let scope = &args.scope;
        let since = since(scope.since.as_deref())?;
        let limit = scope.limit.unwrap_or(10).clamp(1, 200);
        let project = self.project(scope.cwd.as_deref());
        let params = SearchParams {
            query: args.query.clone(),
            source: source(scope.source.as_deref())?,
            project: project.clone(),
            machine: None,
            limit: if since.is_some() { limit * 4 } else { limit },
            offset: 0,
            mode: args.mode.as_deref().map(str::parse).transpose().map_err(|e: sess::Error| e.to_string())?,
        };
        // Dropping the search's future tells the search (`search_within`).
        let mut hits = tokio::select! {
            hits = sess::search_within(&self.library, params, SEARCH_BUDGET) => hits.map_err(|e| e.to_string())?,
            () = cancelled => return Err("the search was cancelled".to_owned()),
        };
        if let Some(since) = since {
            hits.retain(|h| h.session.modified_ms >= since);
        }
        hits.truncate(limit);
        let query = render::one_line(&args.query, QUERY_SHOWN);
        let head = format!("{} sessions match `{query}` in {}:\n", hits.len(), scope_note(project.as_deref()));
        Ok(lines(scope.max_chars, &head, hits.iter().map(render::hit), "hits"))
    }

    fn list(&self, args: &ListArgs) -> Result<String, String> {
        let scope = &args.scope;
        let since = since(scope.since.as_deref())?;
        let limit = scope.limit.unwrap_or(20).clamp(1, 1_000);
        let project = self.project(scope.cwd.as_deref());
        let params = SessionsParams {
            source: source(scope.source.as_deref())?,
            project: project.clone(),
            limit: if since.is_some() { 10_000 } else { limit },
            ..SessionsParams::default()
        };
        let mut cards = self.library.sessions(&params).map_err(|e| e.to_string())?.sessions;
        if let Some(since) = since {
            cards.retain(|c| c.modified_ms >= since);
        }
        cards.truncate(limit);
        let head = format!("{} sessions in {}, newest first:\n", cards.len(), scope_note(project.as_deref()));
        Ok(lines(scope.max_chars, &head, cards.iter().map(render::card), "sessions"))
    }

    fn read(&self, args: &ReadArgs) -> Result<String, String> {
        let card = self.find(&args.id)?;
        // Every message: a window is cut from the whole transcript, never from the page's newest.
        let page = self.library.whole_session(&card.id).map_err(|e| e.to_string())?;
        let offset = match (&args.around_entry, args.offset) {
            (Some(entry), _) => {
                let at = page.transcript.messages.iter().position(|m| {
                    m.id.as_deref() == Some(entry.as_str())
                        || m.blocks
                            .iter()
                            .any(|b| matches!(b, sess_sources::Block::ToolCall(call) if call.id == *entry))
                });
                at.ok_or_else(|| format!("session ref {} has no message with entry `{entry}`", card.id))?
                    .saturating_sub(BEFORE_ENTRY)
            }
            (None, offset) => offset.unwrap_or(0),
        };
        let limit = args.limit.unwrap_or(40).clamp(1, 1_000);
        Ok(render::window(&card.id, &page.session, &page.transcript, offset, limit, Answer::new(args.max_chars)))
    }

    fn context(&self, args: &ContextArgs) -> Result<String, String> {
        let card = self.find(&args.id)?;
        if !card.source.is_native() {
            return Err(format!(
                "session_context works on pi-family sessions; ref {} is a {} session (read_session reads it)",
                card.id,
                card.source.agent_name()
            ));
        }
        let context = (self.context)(&card.session_id, args.entry.as_deref())?;
        let text = serde_json::to_string(&context).map_err(|e| e.to_string())?;
        let mut out = Answer::new(args.max_chars);
        if out.push(&text) {
            return Ok(out.finish(None));
        }
        let messages = context.get("messages").and_then(serde_json::Value::as_array).map_or(0, Vec::len);
        Ok(out.finish(Some(format!(
            "the context ({} characters, {messages} messages) is larger than max_chars; ask with a larger max_chars, \
             or read the session with read_session",
            text.chars().count()
        ))))
    }
}

#[tool_router]
impl Sess {
    /// Ranked hits, one per session.
    #[tool(description = "Search the coding agents' past sessions (every agent sess reads, the archive included): \
        words (all must match), \"a phrase\", prefix*, OR, NOT; at most 64 different words, and a search that \
        runs 10 s is stopped. One hit per session, best first, with its ref \
        (for read_session), agent, session id, time, project, title, and the matching entry with a snippet \
        ([[…]] marks the words). With the server's embedding model, mode \"semantic\" or \"hybrid\" (its \
        default) also finds sessions about the same thing in other words. Default scope: the current project; cwd \"*\" searches every project.")]
    async fn search_sessions(
        &self,
        Parameters(args): Parameters<SearchArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        answer(self.search(args, context.ct.cancelled()).await)
    }

    /// Sessions, newest first.
    #[tool(description = "List the coding agents' sessions, newest first, with ref (for read_session), agent, \
        session id, time, message count, project and title. Default scope: the current project; cwd \"*\" lists \
        every project.")]
    async fn list_sessions(&self, Parameters(args): Parameters<ListArgs>) -> CallToolResult {
        let me = self.clone();
        answer(off_thread(move || me.list(&args)).await)
    }

    /// A window of a transcript.
    #[tool(description = "Read a session as compact text: one block per message (role, time, entry id; text; \
        tool calls on one line each with their status; thinking and long outputs folded). A window of `limit` \
        messages from `offset`, or around the message with entry `around_entry` (a search hit's entry); the \
        answer ends with the cursor of the next window.")]
    async fn read_session(&self, Parameters(args): Parameters<ReadArgs>) -> CallToolResult {
        let me = self.clone();
        answer(off_thread(move || me.read(&args)).await)
    }

    /// A pi-family session's model context.
    #[tool(description = "The model context of a pi-family session (pi, oh-my-pi, xcsh) at an entry (default: \
        its last): the messages the agent would send, as JSON.")]
    async fn session_context(&self, Parameters(args): Parameters<ContextArgs>) -> CallToolResult {
        let me = self.clone();
        answer(off_thread(move || me.context(&args)).await)
    }
}

#[tool_handler]
impl ServerHandler for Sess {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sess", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "The history of the coding agents on this machine (read-only). search_sessions finds past \
                 sessions by their words; list_sessions lists them; read_session reads one a window at a time; \
                 session_context gives a pi-family session's model context.",
            )
    }
}
