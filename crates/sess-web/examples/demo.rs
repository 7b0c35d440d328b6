//! Serves the browser over made-up sessions, to look at the page or to run
//! end-to-end tests against it without real session files.
//!
//! ```text
//! cargo run -p sess-web --example demo -- 8765
//! ```
//!
//! The sessions hold every kind of block, a 300-message transcript, a branched
//! tree with labels, and hostile text (`<img onerror>`, `</script>`) that must
//! show as text.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use sess::{
    Error, Forked, Library, ProjectCard, Result, SearchHit, SearchParams, SessionCard, SessionList, SessionPage,
    SessionsParams, SnippetPart, TreeNode, UsageParams,
};
use sess_sources::{Block, Image, Message, Role, SourceKind, ToolCall, Transcript};
use sess_web::ServeConfig;

const HOSTILE: &str = "<img src=x onerror=alert(1)> </script><script>alert(2)</script> & \"quotes\"";
/// A 1×1 PNG.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// The price table of the demo's reports.
static PRICES: std::sync::LazyLock<sess_usage::Prices> = std::sync::LazyLock::new(sess_usage::Prices::bundled);

fn demo_options(by: Option<sess_usage::By>) -> sess_usage::Options<'static> {
    sess_usage::Options {
        by: by.unwrap_or(sess_usage::By::Session),
        zone: sess_usage::TimeZone::UTC,
        since: None,
        until: None,
        prices: &PRICES,
    }
}

/// Made-up model calls of the session `id`: one or two a day over the 120
/// days before 2026-03-05, of two priced models and one the table does not know.
fn demo_calls(id: &str) -> Vec<sess_usage::Row> {
    const DAY_MS: i64 = 86_400_000;
    const END_MS: i64 = 1_772_668_800_000;
    let seed = id.bytes().map(u64::from).sum::<u64>();
    let models = ["claude-sonnet-4-5", "claude-opus-4-6", "local-model-7b"];
    (0..120_u64)
        .filter(|day| (day + seed) % 3 != 0)
        .map(|day| {
            let model = models[usize::try_from((day + seed) % 5).unwrap_or(0) % 3];
            let size = (day * 37 + seed) % 90 + 10;
            sess_usage::Row {
                session: std::sync::Arc::new(sess_usage::SessionOf {
                    source: if seed % 2 == 0 { "claude" } else { "pi" }.into(),
                    session_id: id.into(),
                    path: format!("/demo/{id}"),
                    project: Some("/home/dev/shop".into()),
                    title: None,
                }),
                key: Some(sess_usage::key_hash(&format!("{id}:{day}"))),
                at_ms: END_MS - i64::try_from(day).unwrap_or(0) * DAY_MS,
                model: Some(model.into()),
                tokens: sess_usage::Tokens {
                    input: size * 100,
                    output: size * 40,
                    cache_creation: size * 300,
                    cache_read: size * 2_000,
                    reasoning: 0,
                },
                cost: None,
                not_counts: None,
            }
        })
        .collect()
}

struct Demo {
    sessions: Vec<(SessionCard, Transcript, Vec<TreeNode>)>,
    forks: AtomicUsize,
}

fn timestamp(minute: usize) -> String {
    format!("2026-03-0{}T{:02}:{:02}:{:02}.000Z", 1 + minute / 1440, minute / 60 % 24, minute % 60, minute % 7)
}

fn long_session() -> (SessionCard, Transcript, Vec<TreeNode>) {
    let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "c-long");
    transcript.cwd = Some("/home/dev/shop".into());
    transcript.truncated = 12;
    for i in 0..300 {
        let at = Some(timestamp(i));
        let id = Some(format!("c{i}"));
        let message = if i % 2 == 0 {
            Message::new(Role::User).at(id, at).with(Block::text(format!("Step {i}: please check the build output")))
        } else {
            let mut call = ToolCall::running(
                format!("t{i}"),
                "Bash",
                json!({"command": format!("cargo test -p shop -- step{i}")}),
            );
            call.started_at.clone_from(&at);
            if i % 5 == 1 {
                call.complete(Some("error[E0308]: mismatched types".into()), true, Some(timestamp(i + 1)));
            } else if i != 299 {
                call.complete(Some(format!("test result: ok. {i} passed")), false, Some(timestamp(i + 1)));
            }
            Message::new(Role::Assistant)
                .at(id, at)
                .with(Block::Thinking { text: format!("Step {i} needs a test run first.") })
                .with(Block::ToolCall(call))
                .with(Block::text(format!("Ran the tests for step {i}.")))
        };
        transcript.messages.push(message);
    }
    let card = SessionCard {
        id: "claude:long".into(),
        source: sess_sources::claude::SOURCE,
        session_id: "c-long".into(),
        title: Some("A long session: 300 messages".into()),
        cwd: transcript.cwd.clone(),
        created: Some(timestamp(0)),
        modified_ms: 1_772_400_000_000,
        message_count: 312,
        forkable: false,
        store: None,
        machine: None,
        original: None,
        restore_command: None,
        state: None,
    };
    (card, transcript, Vec::new())
}

fn branched_session(leaf: &str) -> (Transcript, Vec<TreeNode>) {
    // a ← b ← c ← d (labelled), and c ← e ← f: two branches after c.
    let entries = [
        ("a", None, "user", "Add a hostile title test"),
        ("b", Some("a"), "assistant", "Sure, writing the test."),
        ("c", Some("b"), "user", "Now make it pass"),
        ("d", Some("c"), "assistant", "Done with approach one."),
        ("e", Some("c"), "assistant", "Trying approach two instead."),
        ("f", Some("e"), "user", "Better. Ship it."),
    ];
    let mut on_branch = vec![leaf.to_owned()];
    while let Some(parent) = entries.iter().find(|e| e.0 == on_branch[on_branch.len() - 1]).and_then(|e| e.1) {
        on_branch.push(parent.to_owned());
    }
    let mut transcript = Transcript::new(sess_sources::pi::SOURCE, "p-branch");
    transcript.title = Some(HOSTILE.into());
    transcript.cwd = Some("/home/dev/sess".into());
    transcript.messages.push(
        Message::new(Role::System).with(Block::Summary { text: "Earlier: the user set up the repository.".into() }),
    );
    let mut tree = Vec::new();
    for (i, (id, parent, role, text)) in entries.iter().enumerate() {
        let on = on_branch.iter().any(|b| b == id);
        tree.push(TreeNode {
            id: (*id).into(),
            parent_id: parent.map(Into::into),
            kind: "message".into(),
            role: Some((*role).into()),
            preview: (*text).into(),
            label: (*id == "d").then(|| "approach-1".into()),
            timestamp: Some(timestamp(i)),
            on_branch: on,
        });
        if !on {
            continue;
        }
        let role = if *role == "user" { Role::User } else { Role::Assistant };
        let mut message = Message::new(role).at(Some((*id).into()), Some(timestamp(i))).with(Block::text(*text));
        if *id == "a" {
            message = message
                .with(Block::text(HOSTILE))
                .with(Block::Context { title: "AGENTS.md".into(), text: "Be careful.\n<b>not bold</b>".into() })
                .with(Block::Image(Image { media_type: Some("image/png".into()), data: Some(PIXEL.into()), url: None }))
                .with(Block::Image(Image {
                    media_type: None,
                    data: None,
                    url: Some("https://evil.example/track.png".into()),
                }));
        }
        if *id == "b" {
            message = message.with(Block::Error { text: "rate limited: retrying <in 5s>".into() });
        }
        transcript.messages.push(message);
    }
    (transcript, tree)
}

fn demo() -> Demo {
    let (transcript, tree) = branched_session("f");
    let branched = SessionCard {
        id: "pi:branched".into(),
        source: sess_sources::pi::SOURCE,
        session_id: "p-branch".into(),
        title: Some(HOSTILE.into()),
        cwd: transcript.cwd.clone(),
        created: Some(timestamp(0)),
        modified_ms: 1_772_500_000_000,
        message_count: 6,
        forkable: true,
        store: None,
        machine: None,
        original: None,
        restore_command: None,
        state: None,
    };
    let mut codex = Transcript::new(sess_sources::codex::SOURCE, "x-1");
    codex.cwd = Some("/home/dev/shop".into());
    codex.messages.push(Message::new(Role::User).at(None, Some(timestamp(3))).with(Block::text("List the files")));
    let codex_card = SessionCard {
        id: "codex:1".into(),
        source: sess_sources::codex::SOURCE,
        session_id: "x-1".into(),
        title: None,
        cwd: codex.cwd.clone(),
        created: Some(timestamp(3)),
        modified_ms: 1_772_300_000_000,
        message_count: 1,
        forkable: false,
        store: None,
        machine: None,
        original: None,
        restore_command: None,
        state: None,
    };
    Demo {
        sessions: vec![(branched, transcript, tree), long_session(), (codex_card, codex, Vec::new())],
        forks: AtomicUsize::new(0),
    }
}

fn matches(card: &SessionCard, source: Option<SourceKind>, project: Option<&str>) -> bool {
    source.is_none_or(|s| s == card.source) && project.is_none_or(|p| card.cwd.as_deref() == Some(p))
}

impl Library for Demo {
    fn projects(&self) -> Result<Vec<ProjectCard>> {
        let mut projects: Vec<ProjectCard> = Vec::new();
        for (card, _, _) in &self.sessions {
            let cwd = card.cwd.clone().unwrap_or_default();
            match projects.iter_mut().find(|p| p.cwd == cwd) {
                Some(project) => {
                    project.sessions += 1;
                    project.last_modified_ms = project.last_modified_ms.max(card.modified_ms);
                    if !project.sources.contains(&card.source) {
                        project.sources.push(card.source);
                    }
                }
                None => projects.push(ProjectCard {
                    cwd,
                    sessions: 1,
                    last_modified_ms: card.modified_ms,
                    sources: vec![card.source],
                }),
            }
        }
        projects.sort_by_key(|p| std::cmp::Reverse(p.last_modified_ms));
        Ok(projects)
    }

    fn sessions(&self, params: &SessionsParams) -> Result<SessionList> {
        let text = params.text.as_deref().map(str::to_lowercase);
        let mut cards: Vec<SessionCard> = self
            .sessions
            .iter()
            .map(|(card, _, _)| card)
            .filter(|c| matches(c, params.source, params.project.as_deref()))
            .filter(|c| {
                text.as_deref().is_none_or(|t| {
                    let haystack = format!("{} {}", c.title.as_deref().unwrap_or(""), c.cwd.as_deref().unwrap_or(""));
                    haystack.to_lowercase().contains(t)
                })
            })
            .cloned()
            .collect();
        cards.sort_by_key(|c| std::cmp::Reverse(c.modified_ms));
        let total = cards.len();
        let sessions = cards.into_iter().skip(params.offset).take(params.limit).collect();
        Ok(SessionList { sessions, total })
    }

    fn session(&self, id: &str, leaf: Option<&str>) -> Result<SessionPage> {
        let (card, transcript, tree) = self
            .sessions
            .iter()
            .find(|(card, _, _)| card.id == id)
            .ok_or_else(|| Error::NotFound { what: format!("session `{id}`") })?;
        if tree.is_empty() {
            return Ok(SessionPage {
                session: card.clone(),
                transcript: transcript.clone(),
                tree: Vec::new(),
                leaf: None,
                usage: Some(sess_usage::Report::build(demo_calls(&card.id), &demo_options(None)).totals),
                resume: None,
            });
        }
        let leaf = leaf.unwrap_or("f");
        if !tree.iter().any(|n| n.id == leaf) {
            return Err(Error::NotFound { what: format!("entry `{leaf}`") });
        }
        let (transcript, tree) = branched_session(leaf);
        Ok(SessionPage { session: card.clone(), transcript, tree, leaf: Some(leaf.into()), usage: None, resume: None })
    }

    fn search(&self, params: &SearchParams, _: &sess::Cancel) -> Result<Vec<SearchHit>> {
        let needle = params.query.to_lowercase();
        let mut hits = Vec::new();
        for (card, transcript, _) in &self.sessions {
            if !matches(card, params.source, params.project.as_deref()) {
                continue;
            }
            for message in &transcript.messages {
                for block in &message.blocks {
                    let Block::Text { text } = block else { continue };
                    let Some(at) = text.to_lowercase().find(&needle) else { continue };
                    let end = at + needle.len();
                    if !text.is_char_boundary(at) || !text.is_char_boundary(end) {
                        continue;
                    }
                    hits.push(SearchHit {
                        session: card.clone(),
                        entry_id: message.id.clone(),
                        role: Some(message.role.as_str().into()),
                        snippet: vec![
                            SnippetPart { text: text[..at].into(), hit: false },
                            SnippetPart { text: text[at..end].into(), hit: true },
                            SnippetPart { text: text[end..].into(), hit: false },
                        ],
                        matched: vec![sess::meaning::Side::Words],
                    });
                }
            }
        }
        Ok(hits.into_iter().skip(params.offset).take(params.limit).collect())
    }

    fn usage(&self, params: &UsageParams) -> Result<sess_usage::Report> {
        let rows = self
            .sessions
            .iter()
            .filter(|(card, _, _)| params.machine.is_none() && matches(card, params.source, params.project.as_deref()))
            .flat_map(|(card, _, _)| demo_calls(&card.id));
        let options = sess_usage::Options {
            since: params.since,
            until: params.until,
            zone: params.zone.clone(),
            ..demo_options(Some(params.by))
        };
        Ok(sess_usage::Report::build(rows, &options))
    }

    fn fork(&self, id: &str, entry_id: &str) -> Result<Forked> {
        let (card, _, _) = self
            .sessions
            .iter()
            .find(|(card, _, _)| card.id == id)
            .ok_or_else(|| Error::NotFound { what: format!("session `{id}`") })?;
        if !card.forkable {
            return Err(Error::Unsupported { operation: format!("forking a {} session", card.source) });
        }
        let forks = self.forks.fetch_add(1, Ordering::Relaxed) + 1;
        let session_id = format!("fork-{forks}-at-{entry_id}");
        Ok(Forked {
            path: format!("/home/dev/.pi/agent/sessions/{session_id}.jsonl"),
            resume_command: format!("pi --session {session_id}"),
            session_id,
        })
    }
}

fn main() -> sess_web::Result<()> {
    let port = std::env::args().nth(1).and_then(|p| p.parse().ok()).unwrap_or(8765);
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).map_err(sess_web::Error::Io)?;
    let config = ServeConfig::new(listener.local_addr().map_err(sess_web::Error::Io)?.port());
    #[expect(clippy::print_stdout, reason = "an example says where it serves")]
    {
        println!("http://127.0.0.1:{}/", config.port);
    }
    sess_web::serve(listener, Arc::new(demo()), config)
}
