//! The router over a fake library, called without a socket
//! (`router(..).oneshot(request)`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use sess::meaning::{SearchMode, Side};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sess::{
    Error, ExportFormat, ExportParams, Exported, Forked, Library, MachineCard, Original, ProjectCard, Result,
    SearchHit, SearchParams, SessionCard, SessionList, SessionPage, SessionsParams, SnippetPart, TreeNode, UsageParams,
};
use sess_sources::{Block, Message, Role, Transcript};
use sess_usage::{By, Options, Prices, Report, Row, Tokens};
use sess_web::{ServeConfig, router};
use tower::ServiceExt;

const PORT: u16 = 4321;
const TOKEN: &str = "test-token";
const HOST: &str = "127.0.0.1:4321";

/// The project of seven sessions, which the fake lists a page at a time.
const MANY: &str = "/home/u/many";

/// What the fake was asked.
#[derive(Debug, PartialEq)]
enum Call {
    Sessions(SessionsParams),
    Session(String, Option<String>),
    Search(SearchParams),
    Fork(String, String),
    Export(String, ExportParams),
    Usage(UsageParams),
    Report(String),
}

#[derive(Default)]
struct Fake {
    calls: Mutex<Vec<Call>>,
}

fn card(id: &str, forkable: bool) -> SessionCard {
    SessionCard {
        id: id.into(),
        source: sess_sources::pi::SOURCE,
        session_id: format!("{id}-session"),
        title: Some("Fix the <script>alert(1)</script> bug".into()),
        cwd: Some("/home/u/proj".into()),
        created: Some("2026-01-01T00:00:00.000Z".into()),
        modified_ms: 1_767_225_600_000,
        message_count: 2,
        forkable,
        store: None,
        machine: None,
        original: None,
        restore_command: None,
        state: None,
    }
}

/// A session an archive keeps from `machine`, whose agent deleted it.
fn archived_card(id: &str, machine: &str) -> SessionCard {
    SessionCard {
        forkable: false,
        store: Some("sqlite:/home/u/.local/share/sess/archive.sqlite".into()),
        machine: Some(machine.into()),
        original: Some(Original::Deleted),
        restore_command: Some(format!("sess restore {id}-session --machine '{machine}'")),
        ..card(id, false)
    }
}

impl Library for Fake {
    fn projects(&self) -> Result<Vec<ProjectCard>> {
        Ok(vec![ProjectCard {
            cwd: "/home/u/proj".into(),
            sessions: 3,
            last_modified_ms: 1_767_225_600_000,
            sources: vec![sess_sources::pi::SOURCE, sess_sources::claude::SOURCE],
        }])
    }

    fn sessions(&self, params: &SessionsParams) -> Result<SessionList> {
        self.calls.lock().unwrap().push(Call::Sessions(params.clone()));
        if let Some(machine) = &params.machine {
            return Ok(SessionList { sessions: vec![archived_card("a7", machine)], total: 1 });
        }
        if params.project.as_deref() == Some(MANY) {
            // Seven sessions, m0 the newest.
            let sessions =
                (0..7).skip(params.offset).take(params.limit).map(|i| card(&format!("m{i}"), true)).collect();
            return Ok(SessionList { sessions, total: 7 });
        }
        Ok(SessionList { sessions: vec![card("s1", true)], total: 1 })
    }

    fn machines(&self) -> Result<Vec<MachineCard>> {
        Ok(vec![
            MachineCard { name: "laptop".into(), sessions: 3 },
            MachineCard { name: "build <box>".into(), sessions: 1 },
        ])
    }

    fn session(&self, id: &str, leaf: Option<&str>) -> Result<SessionPage> {
        self.calls.lock().unwrap().push(Call::Session(id.into(), leaf.map(Into::into)));
        if id != "s1" {
            return Err(Error::NotFound { what: format!("session `{id}`") });
        }
        if leaf == Some("nowhere") {
            return Err(Error::Invalid { reason: "`nowhere` is not an entry of this session".into() });
        }
        let mut transcript = Transcript::new(sess_sources::pi::SOURCE, "s1-session");
        transcript.messages.push(
            Message::new(Role::User)
                .at(Some("e1".into()), Some("2026-01-01T00:00:00.000Z".into()))
                .with(Block::text("hello *there* <b>")),
        );
        let node = |id: &str, parent: Option<&str>| TreeNode {
            id: id.into(),
            parent_id: parent.map(Into::into),
            kind: "message".into(),
            role: Some("user".into()),
            preview: "hello".into(),
            label: None,
            timestamp: None,
            on_branch: true,
        };
        let usage = Report::build(calls(), &options(By::Session, &Prices::bundled())).totals;
        Ok(SessionPage {
            session: card("s1", true),
            transcript,
            tree: vec![node("e1", None), node("e2", Some("e1"))],
            leaf: Some(leaf.unwrap_or("e2").into()),
            usage: Some(usage),
            resume: Some("cd /p && claude --resume s1".into()),
        })
    }

    fn search(&self, params: &SearchParams, _: &sess::Cancel) -> Result<Vec<SearchHit>> {
        self.calls.lock().unwrap().push(Call::Search(params.clone()));
        Ok(vec![SearchHit {
            session: card("s1", true),
            entry_id: Some("e1".into()),
            role: Some("user".into()),
            snippet: vec![
                SnippetPart { text: "say ".into(), hit: false },
                SnippetPart { text: "hello".into(), hit: true },
            ],
            matched: vec![Side::Words],
        }])
    }

    fn fork(&self, id: &str, entry_id: &str) -> Result<Forked> {
        self.calls.lock().unwrap().push(Call::Fork(id.into(), entry_id.into()));
        if id == "claude1" {
            return Err(Error::Unsupported { operation: "forking a Claude Code session".into() });
        }
        if id == "broken" {
            return Err(Error::Failed("cannot read `/home/u/.pi/sessions/broken.jsonl`: denied".into()));
        }
        Ok(Forked {
            session_id: "new".into(),
            path: "/home/u/.pi/sessions/new.jsonl".into(),
            resume_command: "pi --session new".into(),
        })
    }

    fn export(&self, id: &str, params: &ExportParams) -> Result<Exported> {
        self.calls.lock().unwrap().push(Call::Export(id.into(), params.clone()));
        let name = match id {
            "s1" => "s1-session",
            "odd" => "../a\"b\r\nc",
            _ => return Err(Error::NotFound { what: format!("session `{id}`") }),
        };
        let bytes = format!("{} of {id}", params.format.as_str()).into_bytes();
        Ok(Exported { name: name.into(), bytes, masked: params.redact.then_some(2) })
    }

    fn usage(&self, params: &UsageParams) -> Result<Report> {
        self.calls.lock().unwrap().push(Call::Usage(params.clone()));
        let prices = Prices::bundled();
        let options = Options { since: params.since, until: params.until, ..options(params.by, &prices) };
        Ok(Report::build(calls(), &options))
    }

    fn report(&self, error: &Error) {
        self.calls.lock().unwrap().push(Call::Report(error.to_string()));
    }
}

/// Two calls of session s1 on two days (UTC): one priced from the table, one
/// of a model it does not know.
fn calls() -> Vec<Row> {
    let row = |at_ms: i64, model: &str, input: u64, output: u64| Row {
        session: std::sync::Arc::new(sess_usage::SessionOf {
            source: "claude".into(),
            session_id: "s1-session".into(),
            path: "/home/u/.claude/projects/p/s1.jsonl".into(),
            project: Some("/home/u/proj".into()),
            title: None,
        }),
        key: Some(sess_usage::key_hash(&format!("{model}:{at_ms}"))),
        at_ms,
        model: Some(model.into()),
        tokens: Tokens { input, output, ..Tokens::default() },
        cost: None,
        not_counts: None,
    };
    vec![
        // 2026-01-01T12:00:00Z
        row(1_767_268_800_000, "claude-sonnet-4-5", 100_000, 0),
        // 2026-01-02T12:00:00Z
        row(1_767_355_200_000, "claude-made-up-9", 10, 20),
    ]
}

fn options(by: By, prices: &Prices) -> Options<'_> {
    Options { by, zone: sess_usage::TimeZone::UTC, since: None, until: None, prices }
}

struct App {
    fake: Arc<Fake>,
    router: axum::Router,
}

fn app() -> App {
    let fake = Arc::new(Fake::default());
    let config = ServeConfig { token: TOKEN.into(), ..ServeConfig::new(PORT) };
    let router = router(Arc::clone(&fake) as Arc<dyn Library>, &config);
    App { fake, router }
}

impl App {
    async fn send(&self, request: Request<Body>) -> Response<Body> {
        self.router.clone().oneshot(request).await.unwrap()
    }

    async fn get(&self, uri: &str) -> Response<Body> {
        self.send(Request::get(uri).header(header::HOST, HOST).body(Body::empty()).unwrap()).await
    }

    fn calls(&self) -> Vec<Call> {
        std::mem::take(&mut *self.fake.calls.lock().unwrap())
    }
}

async fn text(response: Response<Body>) -> String {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

async fn json_body(response: Response<Body>) -> Value {
    let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
    assert_eq!(content_type.as_ref().and_then(|v| v.to_str().ok()), Some("application/json"));
    serde_json::from_str(&text(response).await).unwrap()
}

fn fork_request(id: &str, token: Option<&str>, body: &str) -> Request<Body> {
    let mut request = Request::post(format!("/api/sessions/{id}/fork"))
        .header(header::HOST, HOST)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(token) = token {
        request = request.header("X-Sess-Token", token);
    }
    request.body(Body::from(body.to_owned())).unwrap()
}

#[tokio::test]
async fn the_page_is_served_with_the_token() {
    let app = app();
    let response = app.get("/").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "text/html; charset=utf-8");
    let page = text(response).await;
    assert!(page.contains(r#"<meta name="sess-token" content="test-token">"#), "{page}");
    assert!(page.contains(r#"<script src="/assets/app.js" type="module">"#));
    assert!(page.contains(r##"href="#/usage""##));
    assert!(page.contains(r#"href="/assets/app.css""#));
}

#[test]
fn a_fresh_config_has_a_random_token() {
    let (a, b) = (ServeConfig::new(1), ServeConfig::new(1));
    assert_eq!(a.token.len(), 32);
    assert_ne!(a.token, b.token);
    assert!(!format!("{a:?}").contains(&a.token));
}

#[tokio::test]
async fn assets_have_their_content_types() {
    let app = app();
    for (path, marker) in [("/assets/app.js", "data-testid"), ("/assets/usage.js", "createElementNS")] {
        let script = app.get(path).await;
        assert_eq!(script.status(), StatusCode::OK, "{path}");
        assert_eq!(script.headers()[header::CONTENT_TYPE], "text/javascript; charset=utf-8", "{path}");
        let script = text(script).await;
        assert!(script.contains(marker), "{path}");
        for sink in [".outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "DOMParser"] {
            assert!(!script.contains(sink), "session text must never be parsed as HTML or code: {sink} in {path}");
        }
        // The one HTML the page parses is a text block's `html`, which the server rendered with
        // sess_export::to_html (escaped, no script); nothing else reaches innerHTML.
        let sinks: Vec<&str> = script.lines().filter(|line| line.contains(".innerHTML")).map(str::trim).collect();
        let expected: &[&str] = if path == "/assets/app.js" { &["node.innerHTML = block.html;"] } else { &[] };
        assert_eq!(sinks, expected, "{path}");
    }
    let style = app.get("/assets/app.css").await;
    assert_eq!(style.status(), StatusCode::OK);
    assert_eq!(style.headers()[header::CONTENT_TYPE], "text/css; charset=utf-8");
    assert!(text(style).await.contains("prefers-color-scheme"));
    // The session view's rules, shared with exported files, come first.
    let page = text(app.get("/").await).await;
    assert!(page.find("/assets/session.css").unwrap() < page.find("/assets/app.css").unwrap());
    let session = app.get("/assets/session.css").await;
    assert_eq!(session.status(), StatusCode::OK);
    assert_eq!(session.headers()[header::CONTENT_TYPE], "text/css; charset=utf-8");
    assert_eq!(text(session).await, sess_export::SESSION_CSS);
}

#[tokio::test]
async fn security_headers_are_on_every_response() {
    let app = app();
    for uri in ["/", "/assets/app.js", "/api/projects", "/api/sessions/missing", "/nowhere"] {
        let response = app.get(uri).await;
        let headers = response.headers();
        assert_eq!(
            headers[header::CONTENT_SECURITY_POLICY],
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
            "{uri}"
        );
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff", "{uri}");
        assert_eq!(headers[header::REFERRER_POLICY], "no-referrer", "{uri}");
        assert_eq!(headers[header::CACHE_CONTROL], "no-store", "{uri}");
    }
    let refused = app.send(Request::get("/").header(header::HOST, "evil.example:4321").body(Body::empty()).unwrap());
    assert_eq!(refused.await.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
}

#[tokio::test]
async fn only_this_servers_hosts_are_answered() {
    let app = app();
    for host in ["127.0.0.1:4321", "localhost:4321", "[::1]:4321"] {
        let response = app.send(Request::get("/api/projects").header(header::HOST, host).body(Body::empty()).unwrap());
        assert_eq!(response.await.status(), StatusCode::OK, "{host}");
    }
    for host in ["evil.example:4321", "127.0.0.1:1234", "localhost", "127.0.0.1", "evil.example"] {
        let response = app.send(Request::get("/").header(header::HOST, host).body(Body::empty()).unwrap()).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{host}");
        assert!(json_body(response).await["error"].is_string());
    }
    let no_host = app.send(Request::get("/api/projects").body(Body::empty()).unwrap()).await;
    assert_eq!(no_host.status(), StatusCode::FORBIDDEN);
    let absolute = Request::get("http://evil.example:4321/api/projects").header(header::HOST, HOST);
    assert_eq!(app.send(absolute.body(Body::empty()).unwrap()).await.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.calls(), []);
}

#[tokio::test]
async fn projects() {
    let app = app();
    let response = app.get("/api/projects").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        json_body(response).await,
        json!([{"cwd": "/home/u/proj", "sessions": 3, "lastModifiedMs": 1_767_225_600_000_i64, "sources": ["pi", "claude"]}])
    );
}

fn card_json(id: &str) -> Value {
    json!({
        "id": id, "source": "pi", "sessionId": format!("{id}-session"),
        "title": "Fix the <script>alert(1)</script> bug", "cwd": "/home/u/proj",
        "created": "2026-01-01T00:00:00.000Z", "modifiedMs": 1_767_225_600_000_i64,
        "messageCount": 2, "forkable": true
    })
}

#[tokio::test]
async fn sessions_with_and_without_filters() {
    let app = app();
    let response = app.get("/api/sessions").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(json_body(response).await, json!([card_json("s1")]));
    let response = app.get("/api/sessions?source=claude&project=%2Fhome%2Fu%2Fproj&q=fix%20it&limit=7").await;
    assert_eq!(response.status(), StatusCode::OK);
    let response = app.get("/api/sessions?source=&project=&q=").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        app.calls(),
        [
            Call::Sessions(SessionsParams::default()),
            Call::Sessions(SessionsParams {
                source: Some(sess_sources::claude::SOURCE),
                project: Some("/home/u/proj".into()),
                text: Some("fix it".into()),
                machine: None,
                limit: 7,
                offset: 0,
            }),
            Call::Sessions(SessionsParams::default()),
        ]
    );
}

#[tokio::test]
async fn machines_and_the_machine_filter() {
    let app = app();
    let response = app.get("/api/machines").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        json_body(response).await,
        json!([{"name": "laptop", "sessions": 3}, {"name": "build <box>", "sessions": 1}])
    );
    let response = app.get("/api/sessions?machine=build%20%3Cbox%3E&source=pi").await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut archived = card_json("a7");
    archived["forkable"] = json!(false);
    archived["store"] = json!("sqlite:/home/u/.local/share/sess/archive.sqlite");
    archived["machine"] = json!("build <box>");
    archived["original"] = json!("deleted");
    archived["restoreCommand"] = json!("sess restore a7-session --machine 'build <box>'");
    assert_eq!(json_body(response).await, json!([archived]));
    app.get("/api/sessions?machine=").await;
    app.get("/api/search?q=hello&machine=laptop").await;
    app.get("/api/search?q=hello&machine=").await;
    assert_eq!(
        app.calls(),
        [
            Call::Sessions(SessionsParams {
                source: Some(sess_sources::pi::SOURCE),
                machine: Some("build <box>".into()),
                ..SessionsParams::default()
            }),
            Call::Sessions(SessionsParams::default()),
            Call::Search(SearchParams {
                query: "hello".into(),
                machine: Some("laptop".into()),
                ..SearchParams::default()
            }),
            Call::Search(SearchParams { query: "hello".into(), ..SearchParams::default() }),
        ]
    );
}

/// A library with no archive.
struct OneMachine;

impl Library for OneMachine {
    fn projects(&self) -> Result<Vec<ProjectCard>> {
        Ok(Vec::new())
    }
    fn sessions(&self, _: &SessionsParams) -> Result<SessionList> {
        Ok(SessionList::default())
    }
    fn session(&self, id: &str, _: Option<&str>) -> Result<SessionPage> {
        Err(Error::NotFound { what: format!("session `{id}`") })
    }
    fn search(&self, _: &SearchParams, _: &sess::Cancel) -> Result<Vec<SearchHit>> {
        Ok(Vec::new())
    }
    fn fork(&self, id: &str, _: &str) -> Result<Forked> {
        Err(Error::NotFound { what: format!("session `{id}`") })
    }
}

#[tokio::test]
async fn a_library_without_an_archive_has_no_machines() {
    let config = ServeConfig { token: TOKEN.into(), ..ServeConfig::new(PORT) };
    let router = router(Arc::new(OneMachine), &config);
    let request = Request::get("/api/machines").header(header::HOST, HOST).body(Body::empty()).unwrap();
    let response = router.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(json_body(response).await, json!([]));
}

#[tokio::test]
async fn sessions_come_a_page_at_a_time_with_their_total() {
    let app = app();
    let ids = |body: Value| -> Vec<String> {
        body.as_array().unwrap().iter().map(|card| card["id"].as_str().unwrap().to_owned()).collect()
    };
    let many = "/api/sessions?project=%2Fhome%2Fu%2Fmany";
    let mut seen = Vec::new();
    for offset in [0, 3, 6, 9] {
        let response = app.get(&format!("{many}&limit=3&offset={offset}")).await;
        assert_eq!(response.status(), StatusCode::OK);
        // Every page says how many there are in all, the one past the end too.
        assert_eq!(response.headers()["x-sess-total"], "7", "offset {offset}");
        seen.extend(ids(json_body(response).await));
    }
    assert_eq!(seen, ["m0", "m1", "m2", "m3", "m4", "m5", "m6"]);
    let response = app.get("/api/sessions").await;
    assert_eq!(response.headers()["x-sess-total"], "1");
    assert_eq!(json_body(response).await, json!([card_json("s1")]));
    let calls = app.calls();
    assert_eq!(
        calls[..2],
        [
            Call::Sessions(SessionsParams { project: Some(MANY.into()), limit: 3, ..SessionsParams::default() }),
            Call::Sessions(SessionsParams {
                project: Some(MANY.into()),
                limit: 3,
                offset: 3,
                ..SessionsParams::default()
            }),
        ]
    );
    assert_eq!(calls[4], Call::Sessions(SessionsParams::default()));
}

#[tokio::test]
async fn search_hits_come_a_page_at_a_time() {
    let app = app();
    let response = app.get("/api/search?q=hello&limit=50&offset=100").await;
    assert_eq!(response.status(), StatusCode::OK);
    app.get("/api/search?q=hello&offset=0").await;
    assert_eq!(
        app.calls(),
        [
            Call::Search(SearchParams { query: "hello".into(), limit: 50, offset: 100, ..SearchParams::default() }),
            Call::Search(SearchParams { query: "hello".into(), ..SearchParams::default() }),
        ]
    );
}

#[tokio::test]
async fn a_bad_offset_is_400_and_named() {
    let app = app();
    for route in ["/api/sessions?", "/api/search?q=hello&"] {
        for offset in ["-1", "two", "1.5", "99999999999999999999999", "0x10"] {
            let uri = format!("{route}offset={offset}");
            let response = app.get(&uri).await;
            assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{uri}");
            let error = json_body(response).await["error"].as_str().unwrap().to_owned();
            assert!(error.contains("offset"), "{uri}: {error}");
        }
    }
    assert_eq!(app.calls(), []);
}

#[tokio::test]
async fn bad_parameters_are_400() {
    let app = app();
    for uri in [
        "/api/sessions?source=nonesuch",
        "/api/search?q=x&source=PI",
        "/api/sessions?limit=lots",
        "/api/search?q=",
        "/api/search",
    ] {
        let response = app.get(uri).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{uri}");
        assert!(json_body(response).await["error"].is_string(), "{uri}");
    }
    let response = app.get("/api/sessions?source=nonesuch").await;
    let names: Vec<&str> = sess_sources::registry().map(sess_sources::SourceKind::as_str).collect();
    assert!(names.contains(&"claude") && names.contains(&"codex"), "{names:?}");
    assert_eq!(
        json_body(response).await,
        json!({"error": format!("unknown source `nonesuch`: expected one of {}", names.join(", "))})
    );
    assert_eq!(app.calls(), []);
}

#[tokio::test]
async fn one_session() {
    let app = app();
    let response = app.get("/api/sessions/s1").await;
    assert_eq!(response.status(), StatusCode::OK);
    let node = |id: &str, parent: Value| {
        json!({"id": id, "parentId": parent, "kind": "message", "role": "user", "preview": "hello",
               "label": null, "timestamp": null, "onBranch": true})
    };
    assert_eq!(
        json_body(response).await,
        json!({
            "session": card_json("s1"),
            "transcript": {
                "source": "pi", "id": "s1-session", "title": null, "cwd": null, "truncated": 0,
                "messages": [{"role": "user", "id": "e1", "timestamp": "2026-01-01T00:00:00.000Z",
                              "blocks": [{"type": "text", "text": "hello *there* <b>", "html": "<p>hello <em>there</em> &lt;b&gt;</p>\n"}]}]
            },
            "tree": [node("e1", Value::Null), node("e2", json!("e1"))],
            "leaf": "e2",
            "usage": {
                "inputTokens": 100_010, "outputTokens": 20, "cacheCreationTokens": 0, "cacheReadTokens": 0,
                "reasoningTokens": 0, "totalTokens": 100_030, "totalCost": 0.3, "costComplete": false, "calls": 2,
                "modelsUsed": ["claude-made-up-9", "claude-sonnet-4-5"],
                "modelBreakdowns": [
                    {"modelName": "claude-sonnet-4-5", "inputTokens": 100_000, "outputTokens": 0,
                     "cacheCreationTokens": 0, "cacheReadTokens": 0, "reasoningTokens": 0,
                     "totalTokens": 100_000, "cost": 0.3, "knownCost": 0.3, "calls": 1},
                    {"modelName": "claude-made-up-9", "inputTokens": 10, "outputTokens": 20,
                     "cacheCreationTokens": 0, "cacheReadTokens": 0, "reasoningTokens": 0,
                     "totalTokens": 30, "cost": null, "knownCost": 0.0, "calls": 1}
                ],
                "sourceBreakdowns": [
                    {"source": "claude", "inputTokens": 100_010, "outputTokens": 20,
                     "cacheCreationTokens": 0, "cacheReadTokens": 0, "reasoningTokens": 0,
                     "totalTokens": 100_030, "cost": null, "knownCost": 0.3, "calls": 2}
                ]
            },
            "resume": "cd /p && claude --resume s1"
        })
    );
    let at_leaf = app.get("/api/sessions/s1?leaf=e1").await;
    assert_eq!(json_body(at_leaf).await["leaf"], "e1");
    assert_eq!(app.get("/api/sessions/s1?leaf=").await.status(), StatusCode::OK);
    assert_eq!(
        app.calls(),
        [
            Call::Session("s1".into(), None),
            Call::Session("s1".into(), Some("e1".into())),
            Call::Session("s1".into(), None)
        ]
    );
}

#[tokio::test]
async fn an_export_is_a_download_with_secrets_masked_by_default() {
    let app = app();
    let response = app.get("/api/sessions/s1/export").await;
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    assert_eq!(headers[header::CONTENT_TYPE], "text/html; charset=utf-8");
    assert_eq!(headers[header::CONTENT_DISPOSITION], "attachment; filename=\"sess-s1-session.html\"");
    assert_eq!(headers["x-sess-masked"], "2");
    assert_eq!(headers[header::CACHE_CONTROL], "no-store");
    assert_eq!(text(response).await, "html of s1");

    let response = app.get("/api/sessions/s1/export?format=md&redact=0&leaf=e1").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "text/markdown; charset=utf-8");
    assert_eq!(response.headers()[header::CONTENT_DISPOSITION], "attachment; filename=\"sess-s1-session.md\"");
    assert!(response.headers().get("x-sess-masked").is_none());
    assert_eq!(text(response).await, "md of s1");

    // The file's name keeps only what a file name can safely have.
    let response = app.get("/api/sessions/odd/export?format=markdown&redact=1").await;
    assert_eq!(response.headers()[header::CONTENT_DISPOSITION], "attachment; filename=\"sess--a-b--c.md\"");
    let html = |redact| ExportParams { format: ExportFormat::Html, redact, leaf: None };
    assert_eq!(
        app.calls(),
        [
            Call::Export("s1".into(), html(true)),
            Call::Export(
                "s1".into(),
                ExportParams { format: ExportFormat::Markdown, redact: false, leaf: Some("e1".into()) }
            ),
            Call::Export("odd".into(), ExportParams { format: ExportFormat::Markdown, redact: true, leaf: None }),
        ]
    );

    for uri in ["/api/sessions/s1/export?format=pdf", "/api/sessions/s1/export?redact=maybe"] {
        let response = app.get(uri).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{uri}");
        assert!(json_body(response).await["error"].is_string());
    }
    assert_eq!(app.calls(), []);
    let response = app.get("/api/sessions/nope/export?format=md").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(json_body(response).await, json!({"error": "session `nope` not found"}));

    // A library that does not export says so.
    let config = ServeConfig { token: TOKEN.into(), ..ServeConfig::new(PORT) };
    let request = Request::get("/api/sessions/x/export").header(header::HOST, HOST).body(Body::empty()).unwrap();
    let response = router(Arc::new(OneMachine), &config).oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(json_body(response).await, json!({"error": "exporting a session is not supported"}));
}

#[tokio::test]
async fn session_ids_are_percent_decoded() {
    let app = app();
    let response = app.get("/api/sessions/a%2Fb%20c").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(app.calls(), [Call::Session("a/b c".into(), None)]);
}

#[tokio::test]
async fn an_unknown_session_is_404() {
    let app = app();
    let response = app.get("/api/sessions/nope").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(json_body(response).await, json!({"error": "session `nope` not found"}));
    let response = app.get("/api/sessions/s1?leaf=nowhere").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let response = app.get("/api/nothing-here").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(json_body(response).await["error"].is_string());
}

#[tokio::test]
async fn search() {
    let app = app();
    let response = app.get("/api/search?q=hello%20world&source=pi&project=%2Fp&limit=3&mode=semantic").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        json_body(response).await,
        json!([{
            "session": card_json("s1"), "entryId": "e1", "role": "user",
            "snippet": [{"text": "say ", "hit": false}, {"text": "hello", "hit": true}],
            "matched": ["words"]
        }])
    );
    app.get("/api/search?q=x").await;
    // A mode the server does not know is a bad request, which the library never hears of.
    let response = app.get("/api/search?q=x&mode=fuzzy").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json_body(response).await, json!({"error": "no search mode `fuzzy`: lexical, semantic or hybrid"}));
    assert_eq!(
        app.calls(),
        [
            Call::Search(SearchParams {
                query: "hello world".into(),
                source: Some(sess_sources::pi::SOURCE),
                project: Some("/p".into()),
                machine: None,
                limit: 3,
                offset: 0,
                mode: Some(SearchMode::Semantic),
            }),
            Call::Search(SearchParams { query: "x".into(), ..SearchParams::default() }),
        ]
    );
}

#[tokio::test]
async fn usage_reports_as_sess_usage_json_prints_them() {
    let app = app();
    let response = app.get("/api/usage").await;
    assert_eq!(response.status(), StatusCode::OK);
    let prices = Prices::bundled();
    let expected = Report::build(calls(), &options(By::Daily, &prices)).to_json();
    let body = json_body(response).await;
    assert_eq!(body, expected);
    assert_eq!(body["daily"].as_array().unwrap().len(), 2);
    assert_eq!(body["daily"][0]["date"], "2026-01-01");
    assert_eq!(body["daily"][0]["totalCost"], 0.3);
    assert_eq!(body["unpricedModels"], json!(["claude-made-up-9"]));

    let response = app
        .get("/api/usage?by=model&source=claude&project=%2Fhome%2Fu%2Fproj&machine=laptop&since=2026-01-02&until=20260131&tz=Europe%2FParis")
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = json_body(response).await;
    assert_eq!(body["models"].as_array().unwrap().len(), 1, "{body:#}");
    assert_eq!(body["models"][0]["modelName"], "claude-made-up-9");
    app.get("/api/usage?by=&source=&project=&machine=&since=&until=&tz=").await;
    app.get("/api/usage?by=monthly&tz=UTC").await;
    let day = |text: &str| sess_usage::parse_date(text).unwrap();
    assert_eq!(
        app.calls(),
        [
            Call::Usage(UsageParams::default()),
            Call::Usage(UsageParams {
                by: By::Model,
                source: Some(sess_sources::claude::SOURCE),
                project: Some("/home/u/proj".into()),
                machine: Some("laptop".into()),
                since: Some(day("2026-01-02")),
                until: Some(day("2026-01-31")),
                zone: sess_usage::zone(Some("Europe/Paris")).unwrap(),
            }),
            Call::Usage(UsageParams::default()),
            Call::Usage(UsageParams {
                by: By::Monthly,
                zone: sess_usage::zone(Some("UTC")).unwrap(),
                ..UsageParams::default()
            }),
        ]
    );
}

#[tokio::test]
async fn bad_usage_parameters_are_400_naming_the_parameter() {
    let app = app();
    for (uri, said) in [
        ("/api/usage?by=weekly", "unknown report `by=weekly`: expected one of daily, monthly, session, project, model"),
        ("/api/usage?since=yesterday", "`since`: not a date: `yesterday` (expected YYYY-MM-DD or YYYYMMDD)"),
        ("/api/usage?until=2026-13-01", "`until`: not a date: `2026-13-01` (expected YYYY-MM-DD or YYYYMMDD)"),
        (
            "/api/usage?since=2026-02-01&until=2026-01-01",
            "`since` 2026-02-01 is after `until` 2026-01-01: no day is counted",
        ),
        ("/api/usage?source=nonesuch", "unknown source `nonesuch`"),
        ("/api/usage?tz=Mars%2FOlympus", "`tz`: unknown time zone `Mars/Olympus`"),
    ] {
        let response = app.get(uri).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{uri}");
        let error = json_body(response).await["error"].as_str().unwrap().to_owned();
        assert!(error.starts_with(said), "{uri}: {error}");
    }
    assert_eq!(app.calls(), []);
}

#[tokio::test]
async fn a_library_that_keeps_no_calls_says_so() {
    let config = ServeConfig { token: TOKEN.into(), ..ServeConfig::new(PORT) };
    let router = router(Arc::new(OneMachine), &config);
    let request = Request::get("/api/usage").header(header::HOST, HOST).body(Body::empty()).unwrap();
    let response = router.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(json_body(response).await, json!({"error": "reporting tokens and cost is not supported"}));
}

#[tokio::test]
async fn fork_needs_the_token() {
    let app = app();
    for token in [None, Some("wrong"), Some("")] {
        let response = app.send(fork_request("s1", token, r#"{"entryId": "e1"}"#)).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{token:?}");
        assert!(json_body(response).await["error"].is_string());
    }
    assert_eq!(app.calls(), []);
    let response = app.send(fork_request("s1", Some(TOKEN), r#"{"entryId": "e1"}"#)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        json_body(response).await,
        json!({"sessionId": "new", "path": "/home/u/.pi/sessions/new.jsonl", "resumeCommand": "pi --session new"})
    );
    assert_eq!(app.calls(), [Call::Fork("s1".into(), "e1".into())]);
}

#[tokio::test]
async fn fork_errors() {
    let app = app();
    for body in ["", "{}", r#"{"entryId": ""}"#, "not json"] {
        let response = app.send(fork_request("s1", Some(TOKEN), body)).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
        assert!(json_body(response).await["error"].is_string());
    }
    let response = app.send(fork_request("claude1", Some(TOKEN), r#"{"entryId": "e1"}"#)).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(json_body(response).await, json!({"error": "forking a Claude Code session is not supported"}));
    let get = app.get("/api/sessions/s1/fork").await;
    assert_eq!(get.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(app.calls(), [Call::Fork("claude1".into(), "e1".into())]);
}

#[tokio::test]
async fn a_library_failure_is_500_without_its_details_which_go_to_report() {
    let app = app();
    let response = app.send(fork_request("broken", Some(TOKEN), r#"{"entryId": "e1"}"#)).await;
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = json_body(response).await;
    assert!(!body.to_string().contains('/'), "{body}");
    assert_eq!(body, json!({"error": "the server could not answer this request (its terminal says why)"}));
    assert_eq!(
        app.calls(),
        [
            Call::Fork("broken".into(), "e1".into()),
            Call::Report("cannot read `/home/u/.pi/sessions/broken.jsonl`: denied".into())
        ]
    );
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_and_closes_the_connection() {
    let app = app();
    // Padding inside the JSON: only the size is wrong.
    let padded = |size: usize| format!(r#"{{"entryId": "e1"{}}}"#, " ".repeat(size - 17));
    assert_eq!(padded(100).len(), 100);
    let at_limit = app.send(fork_request("s1", Some(TOKEN), &padded(sess_web::MAX_BODY_BYTES))).await;
    assert_eq!(at_limit.status(), StatusCode::OK);
    for size in [sess_web::MAX_BODY_BYTES + 1, 3 << 20] {
        for declared in [false, true] {
            let mut request = fork_request("s1", Some(TOKEN), &padded(size));
            if declared {
                request.headers_mut().insert(header::CONTENT_LENGTH, size.into());
            }
            let response = app.send(request).await;
            assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE, "{size} {declared}");
            assert_eq!(response.headers()[header::CONNECTION], "close");
            let expected = format!("the request body is larger than {} bytes", sess_web::MAX_BODY_BYTES);
            assert_eq!(json_body(response).await, json!({ "error": expected }));
        }
    }
    assert_eq!(app.calls(), [Call::Fork("s1".into(), "e1".into())]);
}

#[tokio::test]
async fn a_post_from_another_origin_is_refused() {
    let app = app();
    for origin in ["http://evil.example", "http://127.0.0.1:1234", "https://127.0.0.1:4321", "null"] {
        let mut request = fork_request("s1", Some(TOKEN), r#"{"entryId": "e1"}"#);
        request.headers_mut().insert(header::ORIGIN, origin.parse().unwrap());
        let response = app.send(request).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{origin}");
    }
    assert_eq!(app.calls(), []);
    for origin in ["http://127.0.0.1:4321", "http://localhost:4321", "http://[::1]:4321"] {
        let mut request = fork_request("s1", Some(TOKEN), r#"{"entryId": "e1"}"#);
        request.headers_mut().insert(header::ORIGIN, origin.parse().unwrap());
        assert_eq!(app.send(request).await.status(), StatusCode::OK, "{origin}");
    }
    assert_eq!(app.calls().len(), 3);
}

/// Issue 26, item 11: `limit=0` gave a page of one session; it is an empty
/// page with the total, which is what a count needs.
#[tokio::test]
async fn a_limit_of_0_is_an_empty_page_with_its_total() {
    let app = app();
    let response = app.get(&format!("/api/sessions?project={MANY}&limit=0")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["x-sess-total"], "7");
    assert_eq!(json_body(response).await, json!([]));
    let response = app.get("/api/search?q=hello&limit=0").await;
    assert_eq!(json_body(response).await, json!([]));
}

/// Issue 26, item 11: a request with a second `Host` after a good one was
/// answered.
#[tokio::test]
async fn a_request_with_two_hosts_is_refused() {
    let app = app();
    for hosts in [[HOST, "evil.example:4321"], ["evil.example:4321", HOST], [HOST, HOST]] {
        let mut request = Request::get("/api/projects");
        for host in hosts {
            request = request.header(header::HOST, host);
        }
        let response = app.send(request.body(Body::empty()).unwrap()).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{hosts:?}");
        assert!(json_body(response).await["error"].as_str().unwrap().contains("one Host"));
    }
    assert_eq!(app.calls(), []);
}

/// Issue 26, item 1: any web page could make the browser run a search here
/// (an `<img>` whose `src` is `/api/search?q=…`). A request for the API that
/// the browser says another site made (`Sec-Fetch-Site: cross-site`, or
/// `same-site`: another port of this host) is refused before a handler
/// runs; this server's own page (`same-origin`), one the user typed
/// (`none`) and a client that is no browser (no header) are answered, and
/// a link from elsewhere still opens the page.
#[tokio::test]
async fn an_api_request_another_site_made_is_refused() {
    let app = app();
    let request = |uri: &str, site: Option<&str>| {
        let mut request = Request::get(uri).header(header::HOST, HOST);
        if let Some(site) = site {
            request = request.header("sec-fetch-site", site);
        }
        request.body(Body::empty()).unwrap()
    };
    for site in ["cross-site", "same-site", "CROSS-SITE", "something-else"] {
        let response = app.send(request("/api/search?q=alpha", Some(site))).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{site}");
        assert!(response.headers().contains_key(header::CONTENT_SECURITY_POLICY), "{site}");
        assert!(text(response).await.contains("another site"), "{site}");
        let response = app.send(request("/api/sessions", Some(site))).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{site}");
    }
    assert_eq!(app.calls(), []);
    for site in [Some("same-origin"), Some("none"), None] {
        let response = app.send(request("/api/search?q=alpha", site)).await;
        assert_eq!(response.status(), StatusCode::OK, "{site:?}");
    }
    assert_eq!(app.calls().len(), 3);
    let response = app.send(request("/", Some("cross-site"))).await;
    assert_eq!(response.status(), StatusCode::OK);
}
