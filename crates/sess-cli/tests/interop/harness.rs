//! Finding the peers, running their drivers, and comparing what both sides compute.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sess_core::{Entry, EntryIndex, EntryKind, Leaf, context};

#[path = "agents.rs"]
mod agents;
pub(crate) use agents::{
    Folder, Rendered, check_listed_entry, check_listed_ids, check_live, check_recorded, inherited_and_own_turns, mark,
};
#[path = "pi_family.rs"]
mod pi_family;
pub(crate) use pi_family::{Pin, at_every_version, check_reads, check_titles, pinned, rename};

/// Which agent's context shape to compare with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// pi (pi-mono 0.73 and pi 1.6 alike): `{messages, thinkingLevel, model}`.
    PiMono,
    /// oh-my-pi: xcsh's shape, `models`, rules and mode included.
    OhMyPi,
}

/// A peer agent and the script that drives it.
pub(crate) struct Peer {
    pub(crate) name: &'static str,
    program: PathBuf,
    driver: PathBuf,
}

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The peer whose driver and `node_modules` are in `dir`, or `None` after
/// printing why it is skipped (failing instead when `SESS_INTEROP_REQUIRED=1`).
pub(crate) fn peer_in(dir: &Path, name: &'static str, program: &str, driver: &str, package: &str) -> Option<Peer> {
    // A program inside the peer's packages (Bun) is named relative to its directory.
    let program = if program.contains('/') { dir.join(program).display().to_string() } else { program.to_owned() };
    let program = program.as_str();
    let missing = if Command::new(program).arg("--version").output().is_err() {
        Some(format!("`{program}` is not installed"))
    } else if !dir.join("node_modules").join(package).exists() {
        Some(format!("{package} is not installed in `{}`", dir.join("node_modules").display()))
    } else {
        None
    };
    if let Some(reason) = missing {
        return skipped(name, &reason);
    }
    Some(Peer { name, program: PathBuf::from(program), driver: dir.join(driver) })
}

/// A peer whose driver runs under `program` and drives an agent installed
/// apart from npm (`installed`, the agent's program, linked next to the
/// driver by its setup).
pub(crate) fn peer_at(dir: &Path, name: &'static str, program: &str, driver: &str, installed: &Path) -> Option<Peer> {
    if Command::new(program).arg("--version").output().is_err() {
        return skipped(name, &format!("`{program}` is not installed"));
    }
    if !installed.exists() {
        return skipped(name, &format!("`{}` is not installed", installed.display()));
    }
    Some(Peer { name, program: PathBuf::from(program), driver: dir.join(driver) })
}

/// Prints that the peer is skipped and why, and returns `None`; fails instead
/// when `SESS_INTEROP_REQUIRED=1`.
pub(crate) fn skipped<T>(name: &str, reason: &str) -> Option<T> {
    assert!(
        std::env::var("SESS_INTEROP_REQUIRED").as_deref() != Ok("1"),
        "interop {name}: {reason} (run interop/setup)"
    );
    eprintln!("interop {name}: SKIPPED: {reason} (run interop/setup)");
    None
}

impl Peer {
    /// The driver's output for `args`, or its error output when it fails.
    pub(crate) fn try_run(&self, home: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
        let output = at_home(Command::new(&self.program).arg(&self.driver).args(args), home)
            .output()
            .map_err(|err| err.to_string())?;
        if output.status.success() {
            Ok(output.stdout)
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }

    /// Runs the driver with `home` as `$HOME` (the peers keep settings, breadcrumbs
    /// and blobs there) and parses its JSON output.
    pub(crate) fn run(&self, home: &Path, args: &[&str]) -> Value {
        let output = at_home(Command::new(&self.program).arg(&self.driver).args(args), home).output().unwrap();
        assert!(output.status.success(), "{} driver failed: {}", self.name, String::from_utf8_lossy(&output.stderr));
        parse(&output.stdout)
    }

    /// `count` scenarios from `seed`, written by the peer under `dir` (also its
    /// `$HOME`): each with its session, its damaged copies and its legacy files.
    pub(crate) fn generate(&self, dir: &Path, seed: u64, count: u64) -> Value {
        self.run(dir, &["generate", &seed.to_string(), &count.to_string(), dir.to_str().unwrap()])
    }
}

/// The seed of this run: `SESS_INTEROP_SEED`, or a fresh one.
pub(crate) fn seed() -> u64 {
    std::env::var("SESS_INTEROP_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
        now.as_secs() % 1_000_000
    })
}

/// How many mismatches a failure lists: `SESS_INTEROP_MISMATCHES`, or 8.
fn shown_mismatches() -> usize {
    std::env::var("SESS_INTEROP_MISMATCHES").ok().and_then(|s| s.parse().ok()).unwrap_or(8)
}

/// How many scenarios to generate: `SESS_INTEROP_SCENARIOS`, or `default`.
pub(crate) fn scenarios(default: u64) -> u64 {
    std::env::var("SESS_INTEROP_SCENARIOS").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Every variable that moves an agent's folders (pi-family, Claude Code,
/// Codex, Qwen Code, Gemini CLI, Copilot CLI, OpenCode, Continue CLI).
const AGENT_VARIABLES: &[&str] = &[
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "QWEN_HOME",
    "QWEN_RUNTIME_DIR",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "OPENCODE_DB",
    "CONTINUE_GLOBAL_DIR",
    "SESS_PROJECT_DIRS",
];

/// `command` with `home` as `$HOME` and none of [`AGENT_VARIABLES`], so it
/// finds only that home's agent directories.
fn at_home<'a>(command: &'a mut Command, home: &Path) -> &'a mut Command {
    command.env("HOME", home);
    for name in AGENT_VARIABLES {
        command.env_remove(name);
    }
    command
}

/// Runs the `sess` binary.
pub(crate) fn sess(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sess")).args(args).output().unwrap()
}

/// The `sess` binary with `home` as `$HOME` and no agent variables (a caller
/// may set one to point an agent elsewhere).
pub(crate) fn sess_at(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sess"));
    at_home(&mut command, home);
    command
}

/// Runs `sess` with `home` as `$HOME` and no agent variables, and returns
/// its output, failing unless it succeeds.
pub(crate) fn sess_home(home: &Path, args: &[&str]) -> Vec<u8> {
    let output = sess_at(home).args(args).output().unwrap();
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// Runs `sess` with `home` as `$HOME` and parses its JSON output.
pub(crate) fn sess_json(home: &Path, args: &[&str]) -> Value {
    parse(&sess_home(home, args))
}

/// JSON from either side. Lone UTF-16 surrogates (valid JSON that `JSON.stringify`
/// writes, and that sess passes through) become U+FFFD on both sides alike.
///
/// A long chain of entries is a tree (`getTree`, `sess tree --json`) nested
/// deeper than `serde_json`'s default limit of 128: it is parsed without the
/// limit, on a thread with room for the depth.
pub(crate) fn parse(bytes: &[u8]) -> Value {
    let text = sess_core::replace_lone_surrogate_escapes(&String::from_utf8_lossy(bytes)).into_owned();
    let parse = move || {
        let mut de = serde_json::Deserializer::from_str(&text);
        de.disable_recursion_limit();
        let value = <Value as serde::Deserialize>::deserialize(&mut de).unwrap();
        de.end().unwrap();
        value
    };
    std::thread::Builder::new().stack_size(256 << 20).spawn(parse).unwrap().join().unwrap()
}

/// What went wrong, collected so one run reports every mismatch.
#[derive(Default)]
pub(crate) struct Mismatches {
    /// The seed of a run generated from one (`None` for a driver's run).
    seed: Option<u64>,
    list: Vec<String>,
    pub(crate) compared: usize,
    pub(crate) intended: usize,
}

impl Mismatches {
    pub(crate) fn new(seed: u64) -> Self {
        Self { seed: Some(seed), ..Self::default() }
    }

    /// The seed of the run (0 for a driver's run).
    pub(crate) fn seed(&self) -> u64 {
        self.seed.unwrap_or_default()
    }

    pub(crate) fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.compared += 1;
        if !ok {
            self.list.push(what());
        }
    }

    pub(crate) fn finish(self, name: &str) {
        let replay =
            self.seed.map_or_else(String::new, |seed| format!(" (seed {seed}; replay with SESS_INTEROP_SEED={seed})"));
        assert!(
            self.list.is_empty(),
            "{name}: {} of {} comparisons failed{replay}:\n{}",
            self.list.len(),
            self.compared,
            self.list.iter().take(shown_mismatches()).map(String::as_str).collect::<Vec<_>>().join("\n\n")
        );
    }
}

/// A session file read by sess.
pub(crate) struct Ours {
    pub(crate) entries: Vec<Entry>,
    pub(crate) index: EntryIndex,
}

impl Ours {
    /// Reads `path`, resolving images from the blob store in `blobs`, if any.
    pub(crate) fn read(path: &Path, blobs: Option<&Path>) -> Self {
        let outcome = sess_store::read_session_file(path).unwrap();
        let mut entries = outcome.file.into_entries();
        if let Some(dir) = blobs {
            let store = sess_store::BlobStore::new(std::sync::Arc::new(sess_store::FileStorage), dir);
            sess_store::resolve_entries(&mut entries, &store).unwrap();
        }
        let index = EntryIndex::new(&entries);
        Self { entries, index }
    }

    pub(crate) fn context(&self, leaf: Leaf<'_>) -> Value {
        parse(&serde_json::to_vec(&context::build(&self.entries, &self.index, leaf)).unwrap())
    }

    /// The path from the root to `leaf` (the last entry when `None`).
    pub(crate) fn path(&self, leaf: Option<&str>) -> Vec<&Entry> {
        let position = leaf.and_then(|id| self.index.position(id)).or(self.entries.len().checked_sub(1));
        position.map_or_else(Vec::new, |p| {
            self.index.path(&self.entries, p).entries.iter().map(|&i| &self.entries[i]).collect()
        })
    }
}

/// pi-mono's `model` against sess's `models.default`.
///
/// DESIGN.md §3: an explicit `model_change` wins over a later assistant
/// message, which only fills in a missing default. pi-mono lets the later
/// assistant override the change. Returns `Some(true)` when both agree, `Some(false)`
/// on an unintended mismatch, and `None` when they differ by that rule.
pub(crate) fn compare_model(path: &[&Entry], ours: &Value, peer: &Value) -> Option<bool> {
    let peer_model = match peer {
        Value::Object(m) => Some(format!(
            "{}/{}",
            m["provider"].as_str().unwrap_or("undefined"),
            m["modelId"].as_str().unwrap_or("undefined")
        )),
        _ => None,
    };
    let our_model = ours["models"]["default"].as_str().map(str::to_owned);
    if peer_model == our_model {
        return Some(true);
    }
    let last_change = path.iter().rposition(|e| matches!(e.kind(), EntryKind::ModelChange(_)));
    let last_assistant = path
        .iter()
        .rposition(|e| e.message().and_then(|m| m.decode::<Value>().ok()).is_some_and(|m| m["role"] == "assistant"));
    match (last_change, last_assistant) {
        (Some(change), Some(assistant)) if assistant > change => {
            let EntryKind::ModelChange(mc) = path[change].kind() else { return Some(false) };
            let expected = mc.assignment().map(|(_, model)| model);
            (our_model == expected).then_some(()).map_or(Some(false), |()| None)
        }
        _ => Some(false),
    }
}

/// `text` with the value's JSON, cut for messages.
pub(crate) fn show(value: &Value) -> String {
    let text = value.to_string();
    if text.len() > 600 {
        format!("{}…", &text[..text.char_indices().take_while(|(i, _)| *i < 600).last().map_or(0, |(i, _)| i)])
    } else {
        text
    }
}

/// Whether two message lists differ only by xcsh's `attribution` on custom
/// messages: sess rebuilds the context in xcsh's shape, which carries a
/// `custom_message`'s `attribution`; pi-mono's has no such field.
pub(crate) fn differ_only_by_attribution(ours: &Value, peer: &Value) -> bool {
    let strip = |messages: &Value| -> Value {
        let mut messages = messages.clone();
        for message in messages.as_array_mut().into_iter().flatten() {
            if message["role"] == "custom" {
                message.as_object_mut().map(|m| m.shift_remove("attribution"));
            }
        }
        messages
    };
    ours != peer && strip(ours) == *peer
}

/// Compares one file as the peer saw it (`view`) with what sess computes.
pub(crate) fn compare_view(
    dialect: Dialect,
    home: &Path,
    view: &Value,
    mismatches: &mut Mismatches,
    with_binary: bool,
) {
    let file = PathBuf::from(view["file"].as_str().unwrap());
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let seed = mismatches.seed();
    if let Some(reason) = view["refused"].as_str() {
        mismatches.check(false, || format!("seed {seed} {}: {dialect:?} refused to open it: {reason}", file.display()));
        return;
    }
    let blobs = match dialect {
        Dialect::PiMono => None,
        Dialect::OhMyPi => Some(home.join(".omp/agent/blobs")),
    };
    let ours = Ours::read(&file, blobs.as_deref());
    mismatches.check(ours.entries.len() as u64 == view["entryCount"].as_u64().unwrap(), || {
        format!("{name}: {} entries, {dialect:?} {}", ours.entries.len(), view["entryCount"])
    });
    for (leaf, theirs) in view["contexts"].as_object().unwrap() {
        let mine = ours.context(Leaf::Id(leaf));
        compare_context(dialect, &ours, Some(leaf), &mine, theirs, mismatches, || {
            format!("seed {seed} {name} leaf {leaf}")
        });
    }
    let last = ours.context(Leaf::Last);
    compare_context(dialect, &ours, None, &last, &view["last"], mismatches, || {
        format!("seed {seed} {name} last entry")
    });
    let labels: BTreeMap<String, Value> = ours
        .entries
        .iter()
        .filter_map(|e| ours.index.label(e.id().as_str()).map(|l| (e.id().to_string(), Value::from(l))))
        .collect();
    let peer_labels: BTreeMap<String, Value> = view["labels"].as_object().unwrap().clone().into_iter().collect();
    mismatches
        .check(labels == peer_labels, || format!("seed {seed} {name}: labels {labels:?}, {dialect:?} {peer_labels:?}"));
    if with_binary {
        let tree = sess_json(home, &["tree", "--json", file.to_str().unwrap()]);
        mismatches.check(tree == view["tree"], || {
            format!("seed {seed} {name}: tree\n  sess {}\n  {dialect:?} {}", show(&tree), show(&view["tree"]))
        });
        let context = sess_json(home, &["context", "--compact", file.to_str().unwrap()]);
        let same = same_messages(dialect, &context["messages"], &view["last"]["messages"]);
        mismatches.check(same != Some(false), || format!("seed {seed} {name}: `sess context` differs"));
        if let Some(leaf) = view["contexts"].as_object().unwrap().keys().nth(ours.entries.len() / 2) {
            let context = sess_json(home, &["context", "--compact", "--leaf", leaf, file.to_str().unwrap()]);
            let expected = &view["contexts"][leaf]["messages"];
            let same = same_messages(dialect, &context["messages"], expected);
            mismatches
                .check(same != Some(false), || format!("seed {seed} {name}: `sess context --leaf {leaf}` differs"));
        }
    }
}

fn compare_context(
    dialect: Dialect,
    ours: &Ours,
    leaf: Option<&str>,
    mine: &Value,
    theirs: &Value,
    mismatches: &mut Mismatches,
    at: impl Fn() -> String,
) {
    let same = same_messages(dialect, &mine["messages"], &theirs["messages"]);
    if same.is_none() {
        mismatches.intended += 1;
    }
    mismatches.check(same != Some(false), || {
        let (a, b) = (mine["messages"].as_array().unwrap(), theirs["messages"].as_array().unwrap());
        let first = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        format!(
            "{}: messages differ at {first} ({} vs {} messages): sess / {dialect:?}\n  {}",
            at(),
            a.len(),
            b.len(),
            first_difference(a.get(first).unwrap_or(&Value::Null), b.get(first).unwrap_or(&Value::Null))
        )
    });
    mismatches.check(mine["thinkingLevel"] == theirs["thinkingLevel"], || {
        format!("{}: thinkingLevel {} vs {}", at(), mine["thinkingLevel"], theirs["thinkingLevel"])
    });
    match dialect {
        Dialect::PiMono => match compare_model(&ours.path(leaf), mine, &theirs["model"]) {
            Some(agree) => {
                mismatches
                    .check(agree, || format!("{}: models {} vs pi model {}", at(), mine["models"], theirs["model"]));
            }
            None => mismatches.intended += 1,
        },
        Dialect::OhMyPi => {
            for key in ["models", "injectedTtsrRules", "mode", "modeData"] {
                mismatches.check(mine[key] == theirs[key], || {
                    format!("{}: {key} {} vs oh-my-pi {}", at(), mine[key], theirs[key])
                });
            }
        }
    }
}

/// Where two values first differ: a JSON path and both values there.
pub(crate) fn first_difference(a: &Value, b: &Value) -> String {
    fn walk(a: &Value, b: &Value, path: &mut String) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys_a: Vec<&String> = x.keys().collect();
                let keys_b: Vec<&String> = y.keys().collect();
                for key in x.keys().chain(y.keys()) {
                    let (va, vb) = (x.get(key).unwrap_or(&Value::Null), y.get(key).unwrap_or(&Value::Null));
                    if x.contains_key(key) != y.contains_key(key) {
                        return Some(format!(
                            "{path}.{key}: present {} / {} (keys {keys_a:?} / {keys_b:?})",
                            x.contains_key(key),
                            y.contains_key(key)
                        ));
                    }
                    let len = path.len();
                    path.push('.');
                    path.push_str(key);
                    if let Some(found) = walk(va, vb, path) {
                        return Some(found);
                    }
                    path.truncate(len);
                }
                (keys_a != keys_b).then(|| format!("{path}: key order {keys_a:?} / {keys_b:?}"))
            }
            (Value::Array(x), Value::Array(y)) => {
                for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                    let len = path.len();
                    path.push_str(&["[", &i.to_string(), "]"].concat());
                    if let Some(found) = walk(va, vb, path) {
                        return Some(found);
                    }
                    path.truncate(len);
                }
                (x.len() != y.len()).then(|| format!("{path}: {} / {} items", x.len(), y.len()))
            }
            _ => (a != b).then(|| format!("{path}: {} / {}", show(a), show(b))),
        }
    }
    walk(a, b, &mut String::new()).unwrap_or_else(|| "no difference".to_owned())
}

/// oh-my-pi (17.3.5 and 18.2.3 alike) repairs the context for the model
/// provider, beyond seed 000: a tool call with no result among the messages is
/// removed from its assistant message (whose thinking signatures are then
/// cleared and redacted thinking dropped; a message left empty goes), and
/// failed or aborted assistant turns are dropped with their results. sess returns the path's messages as seed 000
/// specifies. This applies oh-my-pi's repairs to sess's messages, so the rest can
/// still be compared exactly.
pub(crate) fn oh_my_pi_repairs(messages: &Value) -> Value {
    let mut messages = messages.as_array().cloned().unwrap_or_default();
    let paired: std::collections::HashSet<String> = messages
        .iter()
        .filter(|m| m["role"] == "toolResult")
        .filter_map(|m| m["toolCallId"].as_str().map(str::to_owned))
        .collect();
    let dangling =
        |block: &Value| block["type"] == "toolCall" && !block["id"].as_str().is_some_and(|id| paired.contains(id));
    let mut i = messages.len();
    while i > 0 {
        i -= 1;
        if messages[i]["role"] != "assistant" {
            continue;
        }
        let Some(content) = messages[i]["content"].as_array() else { continue };
        if !content.iter().any(&dangling) {
            continue;
        }
        let normalized: Vec<Value> = content
            .iter()
            .filter(|b| !dangling(b) && b["type"] != "redactedThinking")
            .map(|b| {
                let mut b = b.clone();
                if b["type"] == "thinking" && b.get("thinkingSignature").is_some_and(|s| !s.is_null() && s != "") {
                    b.as_object_mut().map(|o| o.shift_remove("thinkingSignature"));
                }
                b
            })
            .collect();
        if normalized.is_empty() {
            messages.remove(i);
        } else {
            messages[i]["content"] = Value::Array(normalized);
        }
    }
    let mut i = messages.len();
    while i > 0 {
        i -= 1;
        let stop = messages[i]["stopReason"].as_str();
        if messages[i]["role"] != "assistant" || !matches!(stop, Some("aborted" | "error")) {
            continue;
        }
        let dropped: Vec<Value> = messages[i]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "toolCall")
            .map(|b| b["id"].clone())
            .collect();
        messages.remove(i);
        let mut j = messages.len();
        while j > i {
            j -= 1;
            if messages[j]["role"] == "toolResult" && dropped.contains(&messages[j]["toolCallId"]) {
                messages.remove(j);
            }
        }
    }
    Value::Array(messages)
}

/// How two message lists compare: `Some(true)` equal, `None` different only
/// by a named rule (xcsh's attribution; oh-my-pi's provider repairs),
/// `Some(false)` different.
pub(crate) fn same_messages(dialect: Dialect, mine: &Value, theirs: &Value) -> Option<bool> {
    if mine == theirs {
        return Some(true);
    }
    if differ_only_by_attribution(mine, theirs) {
        return None;
    }
    if dialect == Dialect::OhMyPi && oh_my_pi_repairs(mine) == *theirs {
        return None;
    }
    Some(false)
}

pub(crate) use crate::common::copy_dir;

/// A peer's tree of a long linear session nests a level per entry.
#[test]
fn parse_takes_a_tree_nested_deeper_than_serde_jsons_default_limit() {
    let depth = 1_000;
    let text = format!("{}{}", r#"{"id":"e","children":["#.repeat(depth), "]}".repeat(depth));
    let mut value = &parse(text.as_bytes());
    let mut levels = 0;
    while let Some(child) = value["children"].get(0) {
        value = child;
        levels += 1;
    }
    assert_eq!(levels, depth - 1);
}
