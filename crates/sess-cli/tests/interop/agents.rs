//! The agents run against a fake model API (`interop/<agent>/driver.mjs`):
//! the live and recorded halves of their tests, and the checks of `sess list`
//! and `sess show` that they share. Each test keeps what it expects.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Mismatches, Peer, first_difference, parse, sess_home, sess_json};

/// The live half of an agent's test: runs `peer`'s driver (a real agent
/// against its fake model API) with `args` and a fresh folder, its `$HOME`,
/// as the last argument; the fake API must have had a script for every
/// request. Then `check` compares what `sess` makes of that home with the
/// driver's report, a line sums the run up (`agent` is the agent's name,
/// `version` the report's key for its version), and every mismatch fails.
pub(crate) fn check_live(
    peer: &Peer,
    args: &[&str],
    agent: &str,
    version: &str,
    check: impl FnOnce(&Path, &Value, &mut Mismatches),
) {
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let scenario = peer.run(dir.path(), &[args, &[dir.path().to_str().unwrap()]].concat());
    assert_eq!(scenario["unexpectedRequests"], 0, "the fake API got requests it has no script for");
    let ran = started.elapsed();
    let mut mismatches = Mismatches::default();
    check(dir.path(), &scenario, &mut mismatches);
    eprintln!(
        "interop {}: {agent} {} wrote {} sessions in {} runs ({:.1} s); {} comparisons ({:.1} s in all)",
        peer.name,
        scenario[version].as_str().unwrap_or("?"),
        scenario["sessions"].as_array().map_or(0, Vec::len),
        scenario["runs"].as_array().map_or(0, Vec::len),
        ran.as_secs_f64(),
        mismatches.compared,
        started.elapsed().as_secs_f64(),
    );
    mismatches.finish(&format!("interop {}", peer.name));
}

/// The recorded half: the files one driver run left in `fixtures`, with its
/// report (`scenario.json`), checked by `check` as [`check_live`] checks a
/// run, without Node. `lay_out` puts the files in a fresh `$HOME`; more
/// than `at_least` comparisons are made, and every mismatch fails.
pub(crate) fn check_recorded(
    fixtures: &Path,
    name: &str,
    at_least: usize,
    lay_out: impl FnOnce(&Path),
    check: impl FnOnce(&Path, &Value, &mut Mismatches),
) {
    let scenario = parse(&std::fs::read(fixtures.join("scenario.json")).unwrap());
    let dir = tempfile::tempdir().unwrap();
    lay_out(dir.path());
    let mut mismatches = Mismatches::default();
    check(dir.path(), &scenario, &mut mismatches);
    assert!(mismatches.compared > at_least, "{name}: {} comparisons", mismatches.compared);
    mismatches.finish(name);
}

/// `sess list --source SOURCE --json`: across projects, exactly the ids of
/// `sessions`; with `--cwd`, for each of the report's `projects`, exactly
/// those of the sessions there. Returns the listing across projects.
/// `maker` names the agent in messages.
pub(crate) fn check_listed_ids(
    home: &Path,
    source: &str,
    maker: &str,
    sessions: &[&Value],
    projects: &Value,
    mismatches: &mut Mismatches,
) -> Vec<Value> {
    let listed = sess_json(home, &["list", "--source", source, "--all-projects", "--json"]);
    let listed = listed.as_array().unwrap().clone();
    let mut ids: Vec<&str> = listed.iter().filter_map(|s| s["id"].as_str()).collect();
    let mut expected_ids: Vec<&str> = sessions.iter().filter_map(|s| s["id"].as_str()).collect();
    ids.sort_unstable();
    expected_ids.sort_unstable();
    mismatches.check(ids == expected_ids, || format!("listed ids {ids:?}, {maker} made {expected_ids:?}"));

    for cwd in projects.as_object().unwrap().values() {
        let cwd = cwd.as_str().unwrap();
        let in_cwd = sess_json(home, &["list", "--source", source, "--cwd", cwd, "--json"]);
        let mut ids: Vec<&str> = in_cwd.as_array().unwrap().iter().filter_map(|s| s["id"].as_str()).collect();
        let mut expected: Vec<&str> =
            sessions.iter().filter(|s| s["cwd"] == cwd).filter_map(|s| s["id"].as_str()).collect();
        ids.sort_unstable();
        expected.sort_unstable();
        mismatches.check(ids == expected, || format!("sess list --cwd {cwd}: {ids:?}, {maker} made {expected:?}"));
    }
    listed
}

/// An agent's folder, where the report says it was (maybe under another
/// home) and where it is now: paths are compared relative to it.
pub(crate) struct Folder<'a> {
    reported: &'a Path,
    now: PathBuf,
}

impl<'a> Folder<'a> {
    /// The folder the report names under `key`, now at `now`.
    pub(crate) fn new(scenario: &'a Value, key: &str, now: PathBuf) -> Self {
        Self { reported: Path::new(scenario[key].as_str().unwrap()), now }
    }

    /// `path` relative to the folder, whichever of the two it is under.
    pub(crate) fn relative(&self, path: &str) -> PathBuf {
        let path = Path::new(path);
        path.strip_prefix(self.reported).or_else(|_| path.strip_prefix(&self.now)).unwrap_or(path).to_owned()
    }

    /// A listed entry's value for `key`, its `path` made relative to the
    /// folder (for [`check_listed_entry`]).
    pub(crate) fn shown(&self, key: &str, value: &Value) -> Value {
        match key {
            "path" => serde_json::json!(self.relative(value.as_str().unwrap())),
            _ => value.clone(),
        }
    }
}

/// A reported session's turns: those it inherited (a fork's copy), then its own.
pub(crate) fn inherited_and_own_turns(session: &Value) -> Vec<&Value> {
    session["inherited"].as_array().unwrap().iter().chain(session["turns"].as_array().unwrap()).collect()
}

/// `sess list`'s entry for the session `id` in `listed`, when it is listed
/// (the ids are checked apart), against `expected()`: the entry's values of
/// the keys `expected()` has, each as `shown(key, value)` makes it (a path
/// made relative, say).
pub(crate) fn check_listed_entry(
    listed: &[Value],
    id: &str,
    expected: impl FnOnce() -> Value,
    shown: impl Fn(&str, &Value) -> Value,
    mismatches: &mut Mismatches,
) {
    let Some(item) = listed.iter().find(|s| s["id"] == id) else { return };
    let expected = expected();
    let actual: serde_json::Map<String, Value> =
        expected.as_object().unwrap().keys().map(|key| (key.clone(), shown(key, &item[key.as_str()]))).collect();
    let actual = Value::Object(actual);
    mismatches
        .check(actual == expected, || format!("sess list, session {id}: {}", first_difference(&actual, &expected)));
}

/// A tool call's mark in `sess show`: ✗ when it failed, else ✓.
pub(crate) fn mark(failed: bool) -> &'static str {
    if failed { "✗" } else { "✓" }
}

/// The text `sess show ID` prints, and what must and must not be in it.
pub(crate) struct Rendered {
    id: String,
    pub(crate) text: String,
}

impl Rendered {
    /// Runs `sess show ID` with `home` as `$HOME`.
    pub(crate) fn show(home: &Path, id: &str) -> Self {
        Self::of(id, sess_home(home, &["show", id]))
    }

    /// What `sess show ID` printed, `output`, run another way.
    pub(crate) fn of(id: &str, output: Vec<u8>) -> Self {
        Self { id: id.to_owned(), text: String::from_utf8(output).unwrap() }
    }

    /// `prompt` is shown once, as a line of its own after the title line.
    pub(crate) fn check_prompt(&self, prompt: &str, mismatches: &mut Mismatches) {
        let times = self.text.lines().skip(1).filter(|l| l.trim() == prompt).count();
        let id = &self.id;
        mismatches.check(times == 1, || format!("sess show {id}: the prompt {prompt:?} is shown {times} times"));
    }

    /// A line starts with `start`, after its indent.
    pub(crate) fn check_line(&self, start: &str, mismatches: &mut Mismatches) {
        let (id, text) = (&self.id, &self.text);
        mismatches.check(text.lines().any(|l| l.trim_start().starts_with(start)), || {
            format!("sess show {id}: no line {start:?} in\n{text}")
        });
    }

    /// An error with `wanted` in it is shown.
    pub(crate) fn check_error(&self, wanted: &str, mismatches: &mut Mismatches) {
        let (id, text) = (&self.id, &self.text);
        mismatches.check(text.contains(wanted), || format!("sess show {id}: no error {wanted:?} in\n{text}"));
    }

    /// None of `hidden` (context the agent put in the conversation) is shown.
    pub(crate) fn check_hidden(&self, hidden: &[&str], mismatches: &mut Mismatches) {
        let (id, text) = (&self.id, &self.text);
        for injected in hidden {
            mismatches.check(!text.contains(injected), || format!("sess show {id} shows {injected:?}:\n{text}"));
        }
    }
}
