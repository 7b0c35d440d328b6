//! `sess usage daily --json` against the daily reports of ccusage 18.0.11
//! (Claude Code) and `@ccusage/codex` 18.0.11 (Codex), run offline on the
//! prices they ship (`interop/ccusage/`).
//!
//! The Claude Code files: those a live run of the real CLI writes
//! (`interop/claude-code/driver.mjs`), those one run left in
//! `fixtures/claude-code/real-2.1.332/`, and transcripts from the bench's
//! workload generator. Per day and per model, input, cache-write, cache-read
//! and output tokens must be equal, and costs within 0.5% where both tools
//! price the model.
//!
//! ccusage counts a response (`message.id` and `requestId`) by the first line
//! it reads of it, sess by the response's last line, whose output count is
//! the final one; and ccusage counts every line of a response that has no
//! `requestId`, where sess counts the response once by its message id. Both
//! differences are checked as such on the files as they are, then sess is
//! compared with ccusage run on a copy in which every line of a response
//! carries the usage and time of its last line, and a `requestId`.
//!
//! Codex: the rollouts of `fixtures/codex/real-0.171.0/` and of a live run of
//! the Codex driver. sess's input excludes the cached input (its
//! `cacheReadTokens`), ccusage-codex's includes it (`cachedInputTokens`).
//! Codex writes a `token_count` event again, with the same running total,
//! when a turn starts or fails without a response: ccusage-codex counts it
//! again, sess does not; checked as such on the rollouts as written, then
//! compared on a copy without the repeats.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::harness::{Mismatches, copy_dir, parse, peer_in, repo, sess_at, skipped};

/// The pinned ccusage and `@ccusage/codex` (`interop/ccusage/package.json`).
const VERSION: &str = "18.0.11";

/// How far two costs may be apart, relative to the larger.
const COST_TOLERANCE: f64 = 0.005;

/// The transcripts generated, and their seed.
const GENERATED: usize = 36;
const GENERATED_SEED: u64 = 20_261_201;

/// How far apart in time the generated transcripts are moved, one from the
/// next (5 h 13 min), so that they fall on several days.
const GENERATED_SPACING_MS: i64 = (5 * 60 + 13) * 60_000;

/// ccusage's and ccusage-codex's scripts, run with the machine's Node.js.
struct Ccusage {
    claude: PathBuf,
    codex: PathBuf,
}

fn dir() -> PathBuf {
    repo().join("interop/ccusage")
}

/// The pinned peers, or `None` after saying why they are skipped.
fn ccusage() -> Option<Ccusage> {
    peer_in(&dir(), "ccusage", "node", "node_modules/ccusage/dist/index.js", "ccusage")?;
    for package in ["ccusage", "@ccusage/codex"] {
        let manifest = dir().join("node_modules").join(package).join("package.json");
        let Ok(bytes) = std::fs::read(&manifest) else {
            return skipped("ccusage", &format!("{package} is not installed in `{}`", dir().display()));
        };
        let installed = parse(&bytes)["version"].clone();
        if installed != VERSION {
            return skipped("ccusage", &format!("{package} {installed} is installed, not {VERSION}"));
        }
    }
    let modules = dir().join("node_modules");
    Some(Ccusage { claude: modules.join("ccusage/dist/index.js"), codex: modules.join("@ccusage/codex/dist/index.js") })
}

/// Runs `script` with `variable` (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`) at
/// `folder`, in an empty home and working directory (so it finds no
/// configuration of its own), and parses its JSON.
fn run_peer(script: &Path, variable: &str, folder: &Path, args: &[&str]) -> Value {
    let scratch = tempfile::tempdir().unwrap();
    let output = Command::new("node")
        .arg(script)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.path())
        .env("NO_COLOR", "1")
        .env(variable, folder)
        .current_dir(scratch.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{} {args:?}: {}\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    parse(&output.stdout)
}

/// `sess usage daily --json --source SOURCE --all-projects --timezone UTC`
/// in an empty home, with `variable` at `folder`.
fn sess_usage(source: &str, variable: &str, folder: &Path) -> Value {
    let home = tempfile::tempdir().unwrap();
    let args = ["usage", "daily", "--json", "--source", source, "--all-projects", "--timezone", "UTC"];
    let output = sess_at(home.path()).env(variable, folder).args(args).output().unwrap();
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    parse(&output.stdout)
}

/// The tokens both reports count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    input: u64,
    output: u64,
    cache_creation: u64,
    cache_read: u64,
}

impl Counts {
    /// The counts of a report's line or breakdown (ccusage's names, which sess shares).
    fn of(value: &Value) -> Self {
        let n = |key: &str| value[key].as_u64().unwrap_or_else(|| panic!("no {key} in {value}"));
        Self {
            input: n("inputTokens"),
            output: n("outputTokens"),
            cache_creation: n("cacheCreationTokens"),
            cache_read: n("cacheReadTokens"),
        }
    }

    fn add(&mut self, other: Self) {
        self.input += other.input;
        self.output += other.output;
        self.cache_creation += other.cache_creation;
        self.cache_read += other.cache_read;
    }

    fn total(self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }

    /// Every kind at least `other`'s.
    fn covers(self, other: Self) -> bool {
        self.input >= other.input
            && self.output >= other.output
            && self.cache_creation >= other.cache_creation
            && self.cache_read >= other.cache_read
    }
}

/// A model's tokens and cost on one day.
#[derive(Clone, Debug, PartialEq)]
struct ModelDay {
    counts: Counts,
    cost: Option<f64>,
}

/// A daily report: per day, its totals and its models.
type Daily = BTreeMap<String, (Counts, BTreeMap<String, ModelDay>)>;

/// A Claude Code daily report, sess's or ccusage's (one shape: `daily[]`
/// with `date`, the token counts and `modelBreakdowns[]`, whose `cost` sess
/// leaves `null` for a model it does not price).
fn claude_daily(report: &Value) -> Daily {
    days(report)
        .map(|day| {
            let models = model_breakdowns(day)
                .map(|(name, m)| (name, ModelDay { counts: Counts::of(m), cost: m["cost"].as_f64() }))
                .collect();
            (day["date"].as_str().unwrap().to_owned(), (Counts::of(day), models))
        })
        .collect()
}

/// The days of a `daily --json` report (`daily[]`).
fn days(report: &Value) -> impl Iterator<Item = &Value> {
    report["daily"].as_array().unwrap_or_else(|| panic!("no daily in {report}")).iter()
}

/// A day's models in sess's (and ccusage's Claude Code) report: each
/// `modelBreakdowns[]` item with its `modelName`.
fn model_breakdowns(day: &Value) -> impl Iterator<Item = (String, &Value)> {
    let models = day["modelBreakdowns"].as_array().unwrap_or_else(|| panic!("no modelBreakdowns in {day}"));
    models.iter().map(|m| (m["modelName"].as_str().unwrap().to_owned(), m))
}

/// Each model's tokens over every day.
fn per_model(daily: &Daily) -> BTreeMap<&str, Counts> {
    let mut models: BTreeMap<&str, Counts> = BTreeMap::new();
    for (_, by_model) in daily.values() {
        for (name, day) in by_model {
            models.entry(name.as_str()).or_default().add(day.counts);
        }
    }
    models
}

/// What one comparison covered, for its summary line.
#[derive(Default)]
struct Tally {
    days: usize,
    model_days: usize,
    models: BTreeSet<String>,
    tokens: u64,
    costs: usize,
    /// The largest relative difference of two costs compared.
    worst_cost: f64,
    /// Models only one side prices, with the side.
    priced_by_one: BTreeSet<String>,
}

impl Tally {
    fn line(&self) -> String {
        let mut line = format!(
            "{} days, {} models ({} model-days), {} tokens of 4 kinds compared, {} costs within {:.4}% of ccusage's",
            self.days,
            self.models.len(),
            self.model_days,
            self.tokens,
            self.costs,
            self.worst_cost * 100.0
        );
        if !self.priced_by_one.is_empty() {
            let _ = write!(line, "; priced by one side only: {:?}", self.priced_by_one);
        }
        line
    }
}

/// Whether two costs are within [`COST_TOLERANCE`] of each other, and how far apart.
fn close(ours: f64, theirs: f64) -> (bool, f64) {
    let larger = ours.abs().max(theirs.abs());
    if larger < 1e-12 {
        return (true, 0.0);
    }
    let off = (ours - theirs).abs() / larger;
    (off <= COST_TOLERANCE, off)
}

/// sess's daily report against ccusage's, day by day and model by model.
fn compare_claude(set: &str, ours: &Daily, theirs: &Daily, checks: &mut Mismatches, tally: &mut Tally) {
    let (our_days, their_days): (BTreeSet<&String>, BTreeSet<&String>) =
        (ours.keys().collect(), theirs.keys().collect());
    checks.check(our_days == their_days, || format!("{set}: days {our_days:?}, ccusage {their_days:?}"));
    for (date, (totals, models)) in ours {
        let Some((their_totals, their_models)) = theirs.get(date) else { continue };
        tally.days += 1;
        checks.check(totals == their_totals, || format!("{set} {date}: sess {totals:?}, ccusage {their_totals:?}"));
        let names: BTreeSet<&String> = models.keys().collect();
        let their_names: BTreeSet<&String> = their_models.keys().collect();
        checks.check(names == their_names, || format!("{set} {date}: models {names:?}, ccusage {their_names:?}"));
        for (model, day) in models {
            let Some(their) = their_models.get(model) else { continue };
            tally.model_days += 1;
            tally.models.insert(model.clone());
            tally.tokens += day.counts.total();
            checks.check(day.counts == their.counts, || {
                format!("{set} {date} {model}: sess {:?}, ccusage {:?}", day.counts, their.counts)
            });
            compare_cost(&format!("{set} {date} {model}"), model, day, their, checks, tally);
        }
    }
}

/// A model's cost on a day, where both price it: ccusage gives 0 for a model
/// it does not know (and for no tokens), sess `null`.
fn compare_cost(at: &str, model: &str, ours: &ModelDay, theirs: &ModelDay, checks: &mut Mismatches, tally: &mut Tally) {
    let their_cost = theirs.cost.unwrap_or_else(|| panic!("{at}: ccusage gave no cost"));
    let they_price = their_cost > 0.0 || theirs.counts.total() == 0;
    match (ours.cost, they_price) {
        (Some(cost), true) => {
            let (ok, off) = close(cost, their_cost);
            tally.costs += 1;
            tally.worst_cost = tally.worst_cost.max(off);
            checks.check(ok, || format!("{at}: cost {cost}, ccusage {their_cost} ({:.3}% apart)", off * 100.0));
        }
        (Some(_), false) => {
            tally.priced_by_one.insert(format!("{model} (sess)"));
        }
        (None, true) => {
            tally.priced_by_one.insert(format!("{model} (ccusage)"));
        }
        (None, false) => {}
    }
}

/// On the files as they are: with request ids, ccusage's input and cache
/// tokens equal sess's and its output (counted from a response's first
/// line) is at most sess's; without (`with_request_ids` false), ccusage
/// counts every line of a response, so each of its counts is at least sess's.
/// Per model over all days (a response is dated by its first line there,
/// by its last in sess). Returns the outputs, ccusage's and sess's.
fn check_as_written(
    set: &str,
    ours: &Daily,
    theirs: &Daily,
    with_request_ids: bool,
    checks: &mut Mismatches,
) -> (u64, u64) {
    let (ours, theirs) = (per_model(ours), per_model(theirs));
    let names: BTreeSet<&&str> = ours.keys().collect();
    let their_names: BTreeSet<&&str> = theirs.keys().collect();
    checks.check(names == their_names, || format!("{set} as written: models {names:?}, ccusage {their_names:?}"));
    let (mut our_output, mut their_output) = (0, 0);
    for (model, counts) in &ours {
        let Some(their) = theirs.get(model) else { continue };
        our_output += counts.output;
        their_output += their.output;
        let ok = if with_request_ids {
            their.output <= counts.output
                && (their.input, their.cache_creation, their.cache_read)
                    == (counts.input, counts.cache_creation, counts.cache_read)
        } else {
            their.covers(*counts)
        };
        let rule = if with_request_ids { "first lines" } else { "every line" };
        checks.check(ok, || format!("{set} as written, {model} ({rule}): sess {counts:?}, ccusage {their:?}"));
    }
    (their_output, our_output)
}

/// Compares sess and ccusage on the Claude Code files under `config` (a
/// `CLAUDE_CONFIG_DIR`), and prints what was compared. `priced`: the files
/// hold a model both price, so some cost must be compared. Returns the
/// output tokens on the files as written, ccusage's and sess's.
fn compare_claude_files(peers: &Ccusage, set: &str, config: &Path, with_request_ids: bool, priced: bool) -> (u64, u64) {
    let args = ["daily", "--offline", "--json", "--timezone", "UTC"];
    let ours = claude_daily(&sess_usage("claude", "CLAUDE_CONFIG_DIR", config));
    let as_written = claude_daily(&run_peer(&peers.claude, "CLAUDE_CONFIG_DIR", config, &args));
    let mut checks = Mismatches::default();
    let (their_output, our_output) = check_as_written(set, &ours, &as_written, with_request_ids, &mut checks);

    let copy = tempfile::tempdir().unwrap();
    copy_dir(config, copy.path());
    let rewritten = last_line_usage(copy.path());
    let normalized = claude_daily(&run_peer(&peers.claude, "CLAUDE_CONFIG_DIR", copy.path(), &args));
    let mut tally = Tally::default();
    compare_claude(set, &ours, &normalized, &mut checks, &mut tally);
    // What the copy changed is what sess reads from the last line anyway.
    let ours_on_copy = claude_daily(&sess_usage("claude", "CLAUDE_CONFIG_DIR", copy.path()));
    checks
        .check(ours_on_copy == ours, || format!("{set}: sess reads the copy differently:\n{ours_on_copy:?}\n{ours:?}"));
    checks.check(tally.model_days > 0 && tally.tokens > 0, || format!("{set}: nothing to compare"));
    checks.check(!priced || tally.costs > 0, || format!("{set}: no cost compared"));
    eprintln!(
        "interop ccusage {VERSION} claude, {set}: {}; {} lines rewritten ({} responses dated apart), output as \
         written: ccusage {their_output} / sess {our_output}",
        tally.line(),
        rewritten.lines,
        rewritten.straddling
    );
    checks.finish(&format!("ccusage claude, {set}"));
    (their_output, our_output)
}

/// The Claude Code files the live driver run writes.
#[test]
fn sess_usage_matches_ccusage_on_what_claude_code_writes() {
    let Some(peers) = ccusage() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let Some(driver) = crate::claude_code::claude_code(&root) else { return };
    let report = driver.try_run(&root, &[root.to_str().unwrap()]).unwrap_or_else(|err| panic!("driver failed: {err}"));
    let config = PathBuf::from(parse(&report)["configDir"].as_str().unwrap());
    // The CLI writes the fake API's `request-id` into every line of a response.
    let lines: Vec<Value> = jsonl_files(&config.join("projects"))
        .iter()
        .flat_map(|file| {
            std::fs::read_to_string(file).unwrap().lines().map(|l| parse(l.as_bytes())).collect::<Vec<_>>()
        })
        .filter(|line| line["type"] == "assistant" && line["message"]["usage"].is_object())
        .collect();
    let without: Vec<&Value> = lines.iter().filter(|line| !line["requestId"].is_string()).collect();
    assert!(!lines.is_empty() && without.is_empty(), "{} of {} lines have no requestId", without.len(), lines.len());
    compare_claude_files(&peers, "live", &config, true, true);
}

/// The files of one run kept as fixtures (written against a fake API that
/// sent no `request-id`).
#[test]
fn sess_usage_matches_ccusage_on_the_recorded_claude_code_files() {
    let Some(peers) = ccusage() else { return };
    let config = repo().join("fixtures/claude-code/real-2.1.332/claude-config");
    compare_claude_files(&peers, "fixtures", &config, false, false);
}

/// Transcripts of the bench's workload generator: moved apart in time so
/// that they fall on several days, each response's earlier lines with the
/// output count a stream starts with.
#[test]
fn sess_usage_matches_ccusage_on_generated_claude_code_transcripts() {
    let Some(peers) = ccusage() else { return };
    let config = tempfile::tempdir().unwrap();
    sess_testkit::workload::claude_transcripts(config.path(), GENERATED, GENERATED_SEED).unwrap();
    for (i, file) in jsonl_files(config.path()).iter().enumerate() {
        let shift = GENERATED_SPACING_MS * i64::try_from(i).unwrap();
        rewrite(file, |lines| {
            shift_times(lines, shift);
            growing_output(lines);
        });
    }
    let (theirs, ours) = compare_claude_files(&peers, "generated", config.path(), true, true);
    assert!(theirs < ours, "ccusage counted {theirs} output tokens from first lines, sess {ours} from last lines");
}

/// Every `*.jsonl` file under `dir`, in order.
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A line of a file: JSON, or text that is not (kept as it is).
enum Line {
    Json(Value),
    Text(String),
}

/// Rewrites the lines of `file` with `change`.
fn rewrite(file: &Path, change: impl FnOnce(&mut [Line])) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<Line> =
        text.lines().map(|l| serde_json::from_str(l).map_or_else(|_| Line::Text(l.to_owned()), Line::Json)).collect();
    change(&mut lines);
    let mut out = String::new();
    for line in &lines {
        match line {
            Line::Json(value) => out.push_str(&value.to_string()),
            Line::Text(text) => out.push_str(text),
        }
        out.push('\n');
    }
    std::fs::write(file, out).unwrap();
}

/// What identifies the response an assistant line with a usage belongs to,
/// as sess keys it: its message id and request id (empty where it has none).
fn response_key(line: &Line) -> Option<String> {
    let Line::Json(value) = line else { return None };
    if value["type"] != "assistant" || !value["message"]["usage"].is_object() {
        return None;
    }
    let id = value["message"]["id"].as_str()?;
    Some(format!("{id}:{}", value["requestId"].as_str().unwrap_or_default()))
}

/// The index of the last line of each response in `lines`.
fn last_lines(lines: &[Line]) -> HashMap<String, usize> {
    lines.iter().enumerate().filter_map(|(i, line)| response_key(line).map(|key| (key, i))).collect()
}

fn json_mut(line: &mut Line) -> &mut Value {
    match line {
        Line::Json(value) => value,
        Line::Text(_) => unreachable!("a keyed line is JSON"),
    }
}

/// Moves every line's `timestamp` `shift` milliseconds later.
fn shift_times(lines: &mut [Line], shift: i64) {
    for line in lines {
        let Line::Json(value) = line else { continue };
        let Some(at) = value["timestamp"].as_str().and_then(sess_core::parse_iso_millis) else { continue };
        value["timestamp"] = sess_core::format_iso_millis(at + shift).into();
    }
}

/// Gives each response's lines before its last the output count a stream
/// starts with (1 to 8 tokens, never more than the final count).
fn growing_output(lines: &mut [Line]) {
    let last = last_lines(lines);
    for i in 0..lines.len() {
        let Some(key) = response_key(&lines[i]) else { continue };
        let end = last[&key];
        if end == i {
            continue;
        }
        let final_output = json_mut(&mut lines[end])["message"]["usage"]["output_tokens"].as_u64().unwrap_or(0);
        let usage = &mut json_mut(&mut lines[i])["message"]["usage"];
        usage["output_tokens"] = (1 + final_output % 8).min(final_output).into();
    }
}

/// What [`last_line_usage`] changed.
#[derive(Default)]
struct Rewritten {
    lines: usize,
    /// Responses whose first and last lines fall on different days (UTC).
    straddling: usize,
}

/// The copy ccusage is run on: in every file under `dir`, each line of a
/// response carries the usage and the time of the response's last line,
/// and a line without a `requestId` one made from its message id (so that
/// ccusage counts the response once, by its final usage, on the day sess
/// gives it).
fn last_line_usage(dir: &Path) -> Rewritten {
    let mut rewritten = Rewritten::default();
    for file in jsonl_files(dir) {
        rewrite(&file, |lines| {
            let last = last_lines(lines);
            let mut first_day: HashMap<String, String> = HashMap::new();
            for i in 0..lines.len() {
                let Some(key) = response_key(&lines[i]) else { continue };
                let (usage, timestamp) = {
                    let end = json_mut(&mut lines[last[&key]]);
                    (end["message"]["usage"].clone(), end["timestamp"].clone())
                };
                let line = json_mut(&mut lines[i]);
                let day = line["timestamp"].as_str().unwrap_or_default().get(..10).unwrap_or_default().to_owned();
                let first = first_day.entry(key.clone()).or_insert_with(|| day.clone());
                if i == last[&key] && *first != day {
                    rewritten.straddling += 1;
                }
                if line["requestId"].is_null() {
                    line["requestId"] = format!("req_of_{}", line["message"]["id"].as_str().unwrap()).into();
                }
                if line["message"]["usage"] != usage || line["timestamp"] != timestamp {
                    line["message"]["usage"] = usage;
                    line["timestamp"] = timestamp;
                    rewritten.lines += 1;
                }
            }
        });
    }
    rewritten
}

// ---- Codex

/// ccusage-codex's date (`Nov 30, 2026`, with `--locale en-US`) as `2026-11-30`.
fn codex_date(text: &str) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let parts: Vec<&str> = text.split([' ', ',']).filter(|p| !p.is_empty()).collect();
    let [month, day, year] = parts[..] else { panic!("ccusage-codex date {text:?}") };
    let month = MONTHS.iter().position(|m| *m == month).unwrap_or_else(|| panic!("ccusage-codex date {text:?}")) + 1;
    format!("{year}-{month:02}-{day:0>2}")
}

/// Codex tokens in ccusage-codex's terms: input with its cached part, the
/// cached part, output, reasoning.
type CodexCounts = [u64; 4];

/// A Codex daily report: per day, its models' counts and the day's cost
/// (`None` where sess could not price every model).
type CodexDaily = BTreeMap<String, (BTreeMap<String, CodexCounts>, Option<f64>)>;

fn count(value: &Value, key: &str) -> u64 {
    value[key].as_u64().unwrap_or_else(|| panic!("no {key} in {value}"))
}

/// sess's report in ccusage-codex's terms: its input excludes what was read
/// from the cache (`cacheReadTokens`) and written to it (`cacheCreationTokens`,
/// Codex's `cache_write_input_tokens`), which ccusage-codex's input includes.
fn sess_codex_daily(report: &Value) -> CodexDaily {
    days(report)
        .map(|day| {
            let models = model_breakdowns(day)
                .map(|(name, m)| {
                    let cached = count(m, "cacheReadTokens");
                    let input = count(m, "inputTokens") + cached + count(m, "cacheCreationTokens");
                    (name, [input, cached, count(m, "outputTokens"), count(m, "reasoningTokens")])
                })
                .collect();
            let cost = (day["costComplete"] == true).then(|| day["totalCost"].as_f64().unwrap());
            (day["date"].as_str().unwrap().to_owned(), (models, cost))
        })
        .collect()
}

fn ccusage_codex_daily(report: &Value) -> CodexDaily {
    days(report)
        .map(|day| {
            let models = day["models"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(name, m)| {
                    let kinds = ["inputTokens", "cachedInputTokens", "outputTokens", "reasoningOutputTokens"];
                    (name.clone(), kinds.map(|kind| count(m, kind)))
                })
                .collect();
            (codex_date(day["date"].as_str().unwrap()), (models, day["costUSD"].as_f64()))
        })
        .collect()
}

/// Each model's counts over every day.
fn codex_per_model(daily: &CodexDaily) -> BTreeMap<&str, CodexCounts> {
    let mut models: BTreeMap<&str, CodexCounts> = BTreeMap::new();
    for (by_model, _) in daily.values() {
        for (name, counts) in by_model {
            let sum = models.entry(name.as_str()).or_default();
            for (s, c) in sum.iter_mut().zip(counts) {
                *s += c;
            }
        }
    }
    models
}

/// sess's report against ccusage-codex's, day by day and model by model.
fn compare_codex(set: &str, ours: &CodexDaily, theirs: &CodexDaily, checks: &mut Mismatches, tally: &mut Tally) {
    let (our_days, their_days): (BTreeSet<&String>, BTreeSet<&String>) =
        (ours.keys().collect(), theirs.keys().collect());
    checks.check(our_days == their_days, || format!("codex {set}: days {our_days:?}, ccusage-codex {their_days:?}"));
    for (date, (models, cost)) in ours {
        let Some((their_models, their_cost)) = theirs.get(date) else { continue };
        tally.days += 1;
        let names: BTreeSet<&String> = models.keys().collect();
        let their_names: BTreeSet<&String> = their_models.keys().collect();
        checks.check(names == their_names, || {
            format!("codex {set} {date}: models {names:?}, ccusage-codex {their_names:?}")
        });
        for (model, counts) in models {
            let Some(their) = their_models.get(model) else { continue };
            tally.model_days += 1;
            tally.models.insert(model.clone());
            tally.tokens += counts[0] + counts[2];
            checks.check(counts == their, || {
                format!(
                    "codex {set} {date} {model}: sess [input with cached, cached, output, reasoning] {counts:?}, \
                     ccusage-codex {their:?}"
                )
            });
        }
        // The day's cost, where sess prices every model and ccusage-codex some.
        match (cost, their_cost) {
            (Some(cost), Some(their_cost)) if *their_cost > 0.0 => {
                let (ok, off) = close(*cost, *their_cost);
                tally.costs += 1;
                tally.worst_cost = tally.worst_cost.max(off);
                checks.check(ok, || format!("codex {set} {date}: cost {cost}, ccusage-codex {their_cost}"));
            }
            (None, Some(their_cost)) if *their_cost > 0.0 => {
                tally.priced_by_one.extend(models.keys().map(|m| format!("{m} (ccusage-codex)")));
            }
            _ => {}
        }
    }
}

/// The copy ccusage-codex is run on: in every rollout under `dir`, a
/// `token_count` event whose running total is the one of the event before
/// it (Codex writes one again when a turn starts or fails without a
/// response) is left out, so ccusage-codex counts each response once, as
/// sess does. Returns how many were left out.
fn without_repeats(dir: &Path) -> usize {
    let mut dropped = 0;
    for file in jsonl_files(dir) {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut before: Option<Value> = None;
        let mut out = String::new();
        for line in text.lines() {
            let value: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            let total = &value["payload"]["info"]["total_token_usage"];
            if value["type"] == "event_msg" && value["payload"]["type"] == "token_count" && total.is_object() {
                if before.as_ref() == Some(total) {
                    dropped += 1;
                    continue;
                }
                before = Some(total.clone());
            }
            out.push_str(line);
            out.push('\n');
        }
        std::fs::write(&file, out).unwrap();
    }
    dropped
}

/// sess and ccusage-codex on the Codex home `codex_home`: on the rollouts as
/// written, ccusage-codex counts a repeated event again, so each of its
/// counts is at least sess's; on a copy without the repeats, they are equal.
/// Returns a summary.
fn compare_codex_home(peers: &Ccusage, set: &str, codex_home: &Path, checks: &mut Mismatches) -> String {
    let args = ["daily", "--offline", "--json", "--timezone", "UTC", "--locale", "en-US"];
    let ours = sess_codex_daily(&sess_usage("codex", "CODEX_HOME", codex_home));
    let as_written = ccusage_codex_daily(&run_peer(&peers.codex, "CODEX_HOME", codex_home, &args));
    let (our_models, their_models) = (codex_per_model(&ours), codex_per_model(&as_written));
    checks.check(our_models.keys().eq(their_models.keys()), || {
        format!("codex {set} as written: models {our_models:?}, ccusage-codex {their_models:?}")
    });
    for (model, counts) in &our_models {
        let their = their_models.get(model).copied().unwrap_or_default();
        checks.check(their.iter().zip(counts).all(|(t, o)| t >= o), || {
            format!("codex {set} as written, {model} (repeats counted): sess {counts:?}, ccusage-codex {their:?}")
        });
    }

    let copy = tempfile::tempdir().unwrap();
    copy_dir(codex_home, copy.path());
    let dropped = without_repeats(copy.path());
    let theirs = ccusage_codex_daily(&run_peer(&peers.codex, "CODEX_HOME", copy.path(), &args));
    let mut tally = Tally::default();
    compare_codex(set, &ours, &theirs, checks, &mut tally);
    let ours_on_copy = sess_codex_daily(&sess_usage("codex", "CODEX_HOME", copy.path()));
    checks.check(ours_on_copy == ours, || format!("codex {set}: sess reads the copy differently"));
    checks.check(tally.model_days > 0 && tally.tokens > 0, || format!("codex {set}: nothing to compare"));
    let total = |models: &BTreeMap<&str, CodexCounts>| models.values().map(|c| c[0] + c[2]).sum::<u64>();
    format!(
        "{set}: {}; {dropped} repeated events left out; input and output as written: ccusage-codex {} / sess {}",
        tally.line(),
        total(&their_models),
        total(&our_models)
    )
}

/// The recorded Codex rollouts, and those a live run of the Codex driver
/// writes (when Codex is installed).
#[test]
fn sess_usage_matches_ccusage_codex() {
    let Some(peers) = ccusage() else { return };
    let mut checks = Mismatches::default();
    let home = tempfile::tempdir().unwrap();
    let codex_home = home.path().join(".codex");
    copy_dir(&repo().join("fixtures/codex/real-0.171.0/codex-home"), &codex_home);
    let mut line = compare_codex_home(&peers, "fixtures", &codex_home, &mut checks);
    if let Some(driver) = peer_in(&repo().join("interop/codex"), "codex", "node", "driver.mjs", "@openai/codex") {
        let dir = tempfile::tempdir().unwrap();
        let scenario = driver.run(dir.path(), &[dir.path().to_str().unwrap()]);
        let codex_home = PathBuf::from(scenario["codexHome"].as_str().unwrap());
        let _ = write!(line, "; {}", compare_codex_home(&peers, "live", &codex_home, &mut checks));
    }
    eprintln!("interop ccusage-codex {VERSION}: {line}");
    checks.finish("ccusage codex");
}

#[test]
fn ccusage_codex_dates_are_read_as_days() {
    assert_eq!(codex_date("Nov 30, 2026"), "2026-11-30");
    assert_eq!(codex_date("Jan 02, 2027"), "2027-01-02");
}
