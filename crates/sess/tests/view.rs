//! The machine's view (`sess::view`) as a program opens it: every agent's
//! sessions in a home, through the catalog, without the command line.

#![allow(clippy::unwrap_used, reason = "tests")]
#![allow(clippy::disallowed_methods, reason = "tests write the agents' files directly")]

use std::path::Path;
use std::sync::{Arc, Mutex};

use sess::meaning::{SearchMode, Side};
use sess::{Cancel, Error, ExportFormat, ExportParams, Host, SearchParams, SessionsParams, Tell, UsageParams};
use sess_sources::SourceKind;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");
const PI_ID: &str = "01a22b45-5c27-7725-b56f-8270ebb2b80e";

/// What the library told, kept.
#[derive(Default)]
struct Heard(Mutex<Vec<String>>);

impl Tell for Heard {
    fn warning(&self, line: &str) {
        self.0.lock().unwrap().push(line.to_owned());
    }
}

/// A home with a Claude Code session and a pi session, where each agent
/// keeps them.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let put = |dir: &str, name: &str, fixture: &str| {
        let dir = home.path().join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(Path::new(FIXTURES).join(fixture), dir.join(name)).unwrap();
    };
    put(
        ".claude/projects/-home-alice-src-todo-api",
        "3f2a9c4e-7b1d-4e8a-9c2f-5d6e7a8b9c01.jsonl",
        "claude-code/claude-basic-toolcall.jsonl",
    );
    put(
        ".pi/agent/sessions/--home-dev-demo-project--",
        &format!("2026-11-30T07-04-55-591Z_{PI_ID}.jsonl"),
        "pi-family/pi-mono-0.73.1-main.jsonl",
    );
    home
}

fn open(home: &Path, heard: &Arc<Heard>) -> sess::view::View {
    let tell: Arc<dyn Tell> = heard.clone();
    sess::view::open(Host::at_home(home), None, None, tell, &mut |_| {}).unwrap()
}

#[test]
fn a_program_lists_reads_searches_and_forks_every_agents_sessions() {
    let home = home();
    let heard = Arc::new(Heard::default());
    let view = open(home.path(), &heard);
    assert_eq!(view.said, "2 sessions");
    assert!(home.path().join(".local/share/sess/catalog.sqlite").is_file(), "the catalog is in the data folder");

    let list = view.library.sessions(&SessionsParams::default()).unwrap();
    assert_eq!(list.total, 2);
    let pi = list.sessions.iter().find(|c| c.source == SourceKind::native()).expect("the pi session is listed");
    let claude = list.sessions.iter().find(|c| c.source.as_str() == "claude").expect("Claude Code's is listed");
    assert_eq!(pi.session_id, PI_ID);
    assert!(pi.forkable && !claude.forkable);

    // A pi-family session comes with its entry tree and the leaf it was read at.
    let page = view.library.session(&pi.id, None).unwrap();
    assert!(!page.transcript.messages.is_empty());
    assert!(!page.tree.is_empty());
    assert!(page.leaf.is_some() && page.tree.iter().any(|n| n.on_branch), "the branch of the last entry is marked");
    let page = view.library.session(&claude.id, None).unwrap();
    assert!(!page.transcript.messages.is_empty() && page.tree.is_empty());

    let hits = view
        .library
        .search(&SearchParams { query: "hello".to_owned(), ..SearchParams::default() }, &Cancel::new())
        .unwrap();
    assert!(hits.iter().any(|h| h.session.id == pi.id), "{hits:?}");

    let report = view.library.usage(&UsageParams::default()).unwrap();
    assert!(!report.groups.is_empty(), "the sessions' calls are summed");

    let exported = view
        .library
        .export(&pi.id, &ExportParams { format: ExportFormat::Markdown, redact: true, leaf: None })
        .unwrap();
    let text = String::from_utf8(exported.bytes).unwrap();
    assert!(text.contains("post-compaction answer"), "{text}");
    assert_eq!(exported.masked, Some(0));

    // A fork is a new file beside the session, and the command that goes on with it.
    let entry = page_entry(&view, &pi.id);
    let forked = view.library.fork(&pi.id, &entry).unwrap();
    assert!(Path::new(&forked.path).is_file(), "{forked:?}");
    assert!(forked.resume_command.starts_with("cd /home/dev/demo-project && pi --session "), "{forked:?}");
    assert!(matches!(view.library.fork(&claude.id, "x"), Err(Error::Unsupported { .. })));
    assert!(matches!(view.library.fork(&pi.id, "no-such-entry"), Err(Error::NotFound { .. })));
    assert!(heard.0.lock().unwrap().is_empty(), "{:?}", heard.0.lock().unwrap());
}

/// The first entry of the session's tree.
fn page_entry(view: &sess::view::View, id: &str) -> String {
    view.library.session(id, None).unwrap().tree[0].id.clone()
}

#[test]
fn what_goes_wrong_is_an_error_of_its_kind_and_a_failure_is_told() {
    let home = home();
    let heard = Arc::new(Heard::default());
    let view = open(home.path(), &heard);
    assert!(matches!(view.library.session("999", None), Err(Error::NotFound { .. })));
    assert!(matches!(view.library.session("a1", None), Err(Error::NotFound { .. })), "no archive: not an id");
    let search = SearchParams { query: "  ".to_owned(), ..SearchParams::default() };
    assert!(matches!(view.library.search(&search, &Cancel::new()), Err(Error::Invalid { .. })));

    let failure = Error::Failed(Box::new(std::io::Error::other("the disk is gone")));
    view.library.report(&failure);
    assert_eq!(*heard.0.lock().unwrap(), ["a request failed: the disk is gone: the disk is gone"]);
}

#[test]
fn a_session_file_that_goes_away_is_gone_at_the_next_refresh() {
    let home = home();
    let heard = Arc::new(Heard::default());
    let view = open(home.path(), &heard);
    std::fs::remove_dir_all(home.path().join(".claude")).unwrap();
    // A refresh is at most every 2 s.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let list = view.library.sessions(&SessionsParams::default()).unwrap();
    assert_eq!(list.total, 1);
    assert_eq!(list.sessions[0].session_id, PI_ID);
}

/// With an embedding model, the library searches by meaning too: a query
/// in other words finds the session its words cannot, marked as found by
/// meaning; without one, a search by meaning says how to give it.
#[test]
fn a_library_with_a_model_searches_by_meaning() {
    let Some(model) = sess_testkit::embed::embed_model_dir() else { return };
    let home = home();
    let heard = Arc::new(Heard::default());
    let tell: Arc<dyn Tell> = heard.clone();
    let host = Host { model: Some(model), ..Host::at_home(home.path()) };
    let view = sess::view::open(host, None, None, tell, &mut |_| {}).unwrap();
    assert_eq!(view.library.search_modes(), [SearchMode::Hybrid, SearchMode::Semantic, SearchMode::Lexical]);
    let claude = view.library.sessions(&SessionsParams::default()).unwrap().sessions;
    let claude = claude.iter().find(|c| c.source.as_str() == "claude").unwrap();
    let query = "add a liveness probe route to the node web server";
    let search = |mode| {
        let params = SearchParams { query: query.to_owned(), mode, ..SearchParams::default() };
        view.library.search(&params, &Cancel::new())
    };
    assert!(search(Some(SearchMode::Lexical)).unwrap().is_empty(), "none of its words is in the session");
    for mode in [None, Some(SearchMode::Hybrid), Some(SearchMode::Semantic)] {
        let hits = search(mode).unwrap();
        assert_eq!(hits.first().map(|h| &h.session.id), Some(&claude.id), "{mode:?}: {hits:?}");
        assert_eq!(hits[0].matched, [Side::Meaning]);
        assert!(hits[0].snippet.iter().all(|p| !p.hit), "no word is marked");
    }
    // Words and meaning both: marked as found by both.
    let params = SearchParams { query: "health endpoint".to_owned(), ..SearchParams::default() };
    let hits = view.library.search(&params, &Cancel::new()).unwrap();
    assert_eq!(hits[0].session.id, claude.id);
    assert_eq!(hits[0].matched, [Side::Words, Side::Meaning]);

    // The same home without a model: words alone, and no meaning to ask for.
    let plain = open(home.path(), &heard);
    assert_eq!(plain.library.search_modes(), [SearchMode::Lexical]);
    let params = SearchParams { query: query.to_owned(), mode: Some(SearchMode::Semantic), ..SearchParams::default() };
    let err = plain.library.search(&params, &Cancel::new()).unwrap_err();
    assert!(matches!(err, Error::Model { .. }), "{err:?}");
    assert!(sess::chain(&err).contains("--model DIR or $SESS_EMBED_MODEL"), "{}", sess::chain(&err));
}

/// The page over an archive searches it by meaning once `sess archive
/// --model` embedded it: a query in other words finds the session; before,
/// only words are offered, and a search by meaning says how to embed it.
#[test]
fn a_library_over_an_archive_with_vectors_searches_by_meaning() {
    let Some(model_dir) = sess_testkit::embed::embed_model_dir() else { return };
    let home = home();
    let heard = Arc::new(Heard::default());
    let host = Host { model: Some(model_dir.clone()), ..Host::at_home(home.path()) };
    let url = format!("sqlite:{}", home.path().join("kept.sqlite").display());
    let mut vault = sess::archive::open(&url).unwrap();
    let machine = host.machine().unwrap();
    let kinds: Vec<SourceKind> = sess_sources::registry().collect();
    sess_archive::archive(vault.as_mut(), &host.env, &machine, &kinds, 1, &|_, _| {}).unwrap();
    let query = "add a liveness probe route to the node web server";
    let search = |view: &sess::view::View, mode| {
        let params = SearchParams { query: query.to_owned(), mode, ..SearchParams::default() };
        view.library.search(&params, &Cancel::new())
    };
    let open_archive = || {
        let tell: Arc<dyn Tell> = heard.clone();
        sess::view::open(host.clone(), Some(&url), None, tell, &mut |_| {}).unwrap()
    };

    let before = open_archive();
    assert_eq!(before.library.search_modes(), [SearchMode::Lexical]);
    let err = search(&before, Some(SearchMode::Semantic)).unwrap_err();
    assert!(matches!(err, Error::Model { .. }), "{err:?}");
    assert!(sess::chain(&err).contains("archive --model DIR"), "{}", sess::chain(&err));

    let model = sess::meaning::load_model(&model_dir).unwrap();
    sess_archive::embed(vault.as_mut(), &model, &mut |_, _| {}).unwrap();
    let after = open_archive();
    assert_eq!(after.library.search_modes(), [SearchMode::Hybrid, SearchMode::Semantic, SearchMode::Lexical]);
    assert!(search(&after, Some(SearchMode::Lexical)).unwrap().is_empty(), "none of its words is in the session");
    for mode in [None, Some(SearchMode::Hybrid), Some(SearchMode::Semantic)] {
        let hits = search(&after, mode).unwrap();
        assert_eq!(hits.first().map(|h| h.session.source.as_str()), Some("claude"), "{mode:?}: {hits:?}");
        assert_eq!(hits[0].matched, [Side::Meaning]);
    }
}
