//! Reports: the calls summed by day, month, session, project or model, with
//! each group's models and agents, and the totals.
//!
//! A call's cost is the one its agent recorded, else its model's price in
//! the table; a call of a model the table does not price has no cost, and
//! every sum it is part of says its cost is incomplete. A response that
//! reached the report twice (the same key, in a session and in a copy of
//! it) counts once, in the first session given.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde::Serialize;

use crate::Tokens;
use crate::prices::Prices;

/// One model call and the session it was made in: what a report is made of.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// The session, shared by its calls' rows (a history has hundreds of
    /// thousands of calls in tens of thousands of sessions).
    pub session: Arc<SessionOf>,
    /// What identifies the response across sessions: the [`key_hash`](crate::key_hash) of
    /// its key (`sess_sources::Call::key`).
    pub key: Option<i64>,
    /// When the call was made (milliseconds since the Unix epoch).
    pub at_ms: i64,
    /// The model that answered (shared by the rows of its calls).
    pub model: Option<Arc<str>>,
    /// Its tokens.
    pub tokens: Tokens,
    /// The cost its agent recorded, in US dollars.
    pub cost: Option<f64>,
    /// The token counts its agent recorded that are not counts, as
    /// `sess_sources::Call::not_counts` says them (joined by `; `): the
    /// report names the session in a warning.
    pub not_counts: Option<String>,
}

/// What a report sums by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum By {
    /// The day the call was made, in the report's time zone.
    #[default]
    Daily,
    /// The month.
    Monthly,
    /// The session.
    Session,
    /// The directory the agent worked in.
    Project,
    /// The model.
    Model,
}

impl By {
    /// Its name on the command line and in the JSON (`daily`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Daily => "daily",
            Self::Monthly => "monthly",
            Self::Session => "session",
            Self::Project => "project",
            Self::Model => "model",
        }
    }
}

/// How a report is made.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// What it sums by.
    pub by: By,
    /// The zone days and months are counted in.
    pub zone: TimeZone,
    /// The first day counted (in `zone`).
    pub since: Option<Date>,
    /// The last day counted.
    pub until: Option<Date>,
    /// The prices of calls whose agent recorded no cost.
    pub prices: &'a Prices,
}

/// Tokens and cost of a set of calls.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sum {
    /// The tokens.
    #[serde(flatten)]
    pub tokens: Tokens,
    /// The cost of the calls that have one, in US dollars.
    pub total_cost: f64,
    /// Whether every call has a cost.
    pub cost_complete: bool,
    /// How many calls.
    pub calls: u64,
    /// The models, by name.
    pub models_used: Vec<String>,
    /// Each model's part, the most costly first.
    pub model_breakdowns: Vec<Breakdown>,
    /// Each agent's part, the most costly first.
    pub source_breakdowns: Vec<Breakdown>,
}

/// One model's or one agent's part of a [`Sum`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    /// The model's name (in `modelBreakdowns`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// The agent (in `sourceBreakdowns`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its tokens.
    #[serde(flatten)]
    pub tokens: Tokens,
    /// Its cost; `null` when some of its calls have none.
    pub cost: Option<f64>,
    /// The cost of its calls that have one: all of [`cost`](Self::cost)
    /// when that is known, the part that is when it is not.
    pub known_cost: f64,
    /// How many calls.
    pub calls: u64,
}

/// One line of a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// What the line sums: a day (`2026-05-17`), a month (`2026-05`), a
    /// session's id, a directory, a model.
    #[serde(skip)]
    pub label: String,
    /// For a session: its agent, file and title.
    #[serde(skip_serializing_if = "Option::is_none", flatten)]
    pub session: Option<SessionOf>,
    /// The day of the last call (in the report's zone).
    pub last_activity: String,
    /// Its sum.
    #[serde(flatten)]
    pub sum: Sum,
}

/// What a session's line says of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionOf {
    /// The session's id.
    #[serde(skip)]
    pub session_id: String,
    /// The agent (`claude`, `codex`, …).
    pub source: String,
    /// Its file, which tells two sessions with one id apart.
    pub path: String,
    /// Its title.
    pub title: Option<String>,
    /// The directory the agent worked in.
    pub project: Option<String>,
}

/// A whole report.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// What it sums by.
    pub by: By,
    /// Its lines: days and months in order, the rest the most costly first.
    pub groups: Vec<Group>,
    /// Everything counted.
    pub totals: Sum,
    /// Models no call of which has a cost.
    pub unpriced_models: Vec<String>,
    /// The day the price table's prices were taken.
    pub prices_date: String,
    /// What the report could not count as it was written (a recorded cost
    /// that is not one, a cost too large to add, a token count that is not
    /// one, with its session), for the caller to show: not in the JSON,
    /// whose shape scripts read.
    pub warnings: Vec<String>,
}

/// A sum being made.
#[derive(Default)]
struct Acc {
    tokens: Tokens,
    cost: f64,
    complete: bool,
    calls: u64,
    /// Costs left out of `cost`: adding them would have made it infinite.
    out_of_range: u64,
    last_ms: i64,
    models: HashMap<String, Part>,
    sources: HashMap<String, Part>,
}

#[derive(Default)]
struct Part {
    tokens: Tokens,
    cost: f64,
    complete: bool,
    calls: u64,
}

/// Adds `cost` to the sum `to`, unless the sum would no longer be a number
/// (two costs of 1e308): then it is left out, and `false` says the sum is
/// not complete.
fn add_cost(to: &mut f64, cost: Option<f64>) -> bool {
    let Some(cost) = cost else { return false };
    let sum = *to + cost;
    if !sum.is_finite() {
        return false;
    }
    *to = sum;
    true
}

impl Part {
    fn add(&mut self, tokens: &Tokens, cost: Option<f64>) {
        if self.calls == 0 {
            self.complete = true;
        }
        self.tokens.add(tokens);
        self.complete &= add_cost(&mut self.cost, cost);
        self.calls = self.calls.saturating_add(1);
    }
}

impl Acc {
    fn add(&mut self, row: &Row, model: &str, cost: Option<f64>) {
        if self.calls == 0 {
            self.complete = true;
        }
        self.tokens.add(&row.tokens);
        let added = add_cost(&mut self.cost, cost);
        if cost.is_some() && !added {
            self.out_of_range += 1;
        }
        self.complete &= added;
        self.calls = self.calls.saturating_add(1);
        self.last_ms = self.last_ms.max(row.at_ms);
        entry(&mut self.models, model).add(&row.tokens, cost);
        entry(&mut self.sources, &row.session.source).add(&row.tokens, cost);
    }

    fn finish(self) -> Sum {
        let breakdowns = |parts: HashMap<String, Part>, model: bool| {
            let mut list: Vec<Breakdown> = parts
                .into_iter()
                .map(|(name, part)| Breakdown {
                    model_name: model.then(|| name.clone()),
                    source: (!model).then_some(name),
                    tokens: part.tokens,
                    cost: part.complete.then_some(dollars(part.cost)),
                    known_cost: dollars(part.cost),
                    calls: part.calls,
                })
                .collect();
            list.sort_by(|a, b| {
                b.cost.unwrap_or(-1.0).total_cmp(&a.cost.unwrap_or(-1.0)).then(b.tokens.total().cmp(&a.tokens.total()))
            });
            list
        };
        let mut models_used: Vec<String> = self.models.keys().cloned().collect();
        models_used.sort();
        Sum {
            tokens: self.tokens,
            total_cost: dollars(self.cost),
            cost_complete: self.complete || self.calls == 0,
            calls: self.calls,
            models_used,
            model_breakdowns: breakdowns(self.models, true),
            source_breakdowns: breakdowns(self.sources, false),
        }
    }
}

/// The value of `name` in `map`, made when missing (without a new `String`
/// when it is there: a report adds to the same few names a million times).
fn entry<'a, V: Default>(map: &'a mut HashMap<String, V>, name: &str) -> &'a mut V {
    if !map.contains_key(name) {
        map.insert(name.to_owned(), V::default());
    }
    match map.get_mut(name) {
        Some(value) => value,
        None => unreachable!("inserted above"),
    }
}

/// The name a call without a model is counted under.
pub const UNKNOWN_MODEL: &str = "unknown";

impl Report {
    /// Sums `rows` (a session's rows after those of sessions that began
    /// earlier, for the count-once rule) as `options` say.
    pub fn build(rows: impl IntoIterator<Item = Row>, options: &Options<'_>) -> Self {
        let mut seen: HashMap<String, HashSet<i64>> = HashMap::new();
        let mut label = String::new();
        let mut groups: HashMap<String, (Acc, Option<SessionOf>)> = HashMap::new();
        let mut totals = Acc::default();
        let mut priced: HashMap<String, bool> = HashMap::new();
        let mut not_costs = 0_u64;
        let mut not_counts = NotCounts::default();
        for row in rows {
            let date = day_of(row.at_ms, &options.zone);
            if options.since.is_some_and(|since| date < since) || options.until.is_some_and(|until| date > until) {
                continue;
            }
            if let Some(key) = row.key
                && !entry(&mut seen, &row.session.source).insert(key)
            {
                continue;
            }
            not_counts.add(&row);
            let model = row.model.as_deref().unwrap_or(UNKNOWN_MODEL);
            // A cost of 0 recorded for a call that counted tokens is the
            // agent's own "no price" (pi and OpenCode write 0 for a model
            // they cannot price): the table is asked instead.
            // A recorded cost that is not a number of 0 or more (NaN, infinite,
            // negative) is no cost either, and said.
            let valid = row.cost.filter(|cost| cost.is_finite() && *cost >= 0.0);
            if row.cost.is_some() && valid.is_none() {
                not_costs += 1;
            }
            let recorded = valid.filter(|cost| *cost > 0.0 || row.tokens.total() == 0);
            let cost = recorded.or_else(|| options.prices.cost(model, &row.tokens));
            *entry(&mut priced, model) |= cost.is_some();
            label.clear();
            // Writing to a `String` does not fail.
            let _ = match options.by {
                By::Daily => write!(label, "{date}"),
                By::Monthly => write!(label, "{:04}-{:02}", date.year(), date.month()),
                By::Session => write!(label, "{}\0{}", row.session.source, row.session.path),
                By::Project => write!(label, "{}", row.session.project.as_deref().unwrap_or_default()),
                By::Model => write!(label, "{model}"),
            };
            let (acc, session) = entry(&mut groups, &label);
            if options.by == By::Session && session.is_none() {
                *session = Some(SessionOf::clone(&row.session));
            }
            acc.add(&row, model, cost);
            totals.add(&row, model, cost);
        }
        let mut groups: Vec<Group> = groups
            .into_iter()
            .map(|(label, (acc, session))| {
                let last_activity = day_of(acc.last_ms, &options.zone).to_string();
                let label = match &session {
                    Some(_) => label.split_once('\0').map_or(label.clone(), |(_, path)| path.to_owned()),
                    None => label,
                };
                Group { label, session, last_activity, sum: acc.finish() }
            })
            .collect();
        match options.by {
            By::Daily | By::Monthly => groups.sort_by(|a, b| a.label.cmp(&b.label)),
            By::Session | By::Project | By::Model => groups.sort_by(|a, b| {
                b.sum
                    .total_cost
                    .total_cmp(&a.sum.total_cost)
                    .then(b.sum.tokens.total().cmp(&a.sum.tokens.total()))
                    .then(a.label.cmp(&b.label))
            }),
        }
        let mut unpriced_models: Vec<String> =
            priced.into_iter().filter(|(_, priced)| !priced).map(|(model, _)| model).collect();
        unpriced_models.sort();
        let mut warnings = Vec::new();
        if not_costs > 0 {
            warnings.push(format!(
                "{not_costs} call{} recorded cost that is not a number of 0 or more (NaN, infinite or negative): \
                 priced from the table instead",
                if not_costs == 1 { "'s" } else { "s'" }
            ));
        }
        if totals.out_of_range > 0 {
            warnings.push(format!(
                "{} call{} cost out of range (the sum would be infinite): left out, the cost is incomplete",
                totals.out_of_range,
                if totals.out_of_range == 1 { "'s" } else { "s'" }
            ));
        }
        not_counts.warn(&mut warnings);
        Self {
            by: options.by,
            groups,
            totals: totals.finish(),
            unpriced_models,
            prices_date: options.prices.date.clone(),
            warnings,
        }
    }

    /// The report as JSON: `{"daily" | "monthly" | "sessions" | "projects" |
    /// "models": [...], "totals", "unpricedModels", "pricesDate"}`; each line
    /// has its key (`date`, `month`, `sessionId`, `project`, `modelName`),
    /// its tokens, `totalCost`, `costComplete`, `calls`, `modelsUsed`,
    /// `modelBreakdowns` and `sourceBreakdowns`.
    pub fn to_json(&self) -> serde_json::Value {
        let (list, key) = match self.by {
            By::Daily => ("daily", "date"),
            By::Monthly => ("monthly", "month"),
            By::Session => ("sessions", "sessionId"),
            By::Project => ("projects", "project"),
            By::Model => ("models", "modelName"),
        };
        let lines: Vec<serde_json::Value> = self
            .groups
            .iter()
            .map(|group| {
                let mut value = serde_json::to_value(group).unwrap_or_default();
                if let serde_json::Value::Object(map) = &mut value {
                    let label = group.session.as_ref().map_or(&group.label, |s| &s.session_id).clone();
                    // The key first, as people read it.
                    let mut ordered = serde_json::Map::new();
                    ordered.insert(key.to_owned(), label.into());
                    ordered.append(map);
                    *map = ordered;
                }
                value
            })
            .collect();
        serde_json::json!({
            list: lines,
            "totals": self.totals,
            "unpricedModels": self.unpriced_models,
            "pricesDate": self.prices_date,
        })
    }
}

/// The sessions whose calls recorded token counts that are not counts, in
/// the order first seen.
#[derive(Default)]
struct NotCounts {
    /// By session (its agent and file): the session, how many calls, and
    /// the first few values.
    sessions: Vec<(Arc<SessionOf>, u64, Vec<String>)>,
    at: HashMap<(String, String), usize>,
}

/// The most sessions [`NotCounts`] names, and values it quotes per session.
const NAMED: usize = 20;

impl NotCounts {
    fn add(&mut self, row: &Row) {
        let Some(values) = row.not_counts.as_deref() else { return };
        let key = (row.session.source.clone(), row.session.path.clone());
        let i = *self.at.entry(key).or_insert_with(|| {
            self.sessions.push((Arc::clone(&row.session), 0, Vec::new()));
            self.sessions.len() - 1
        });
        let (_, calls, quoted) = &mut self.sessions[i];
        *calls += 1;
        for value in values.split("; ") {
            if quoted.len() < 3 && !quoted.iter().any(|q| q == value) {
                quoted.push(value.to_owned());
            }
        }
    }

    /// One warning per session (at most [`NAMED`], then how many more).
    fn warn(self, warnings: &mut Vec<String>) {
        let more = self.sessions.len().saturating_sub(NAMED);
        for (session, calls, quoted) in self.sessions.into_iter().take(NAMED) {
            warnings.push(format!(
                "the {} session `{}` (`{}`): {calls} call{} recorded a token count that is not a count ({}): \
                 the rest of the call is counted",
                session.source,
                session.session_id,
                session.path,
                if calls == 1 { "" } else { "s" },
                quoted.join(", ")
            ));
        }
        if more > 0 {
            warnings.push(format!("{more} more sessions recorded token counts that are not counts"));
        }
    }
}

/// A sum of costs to a ten-billionth of a dollar: sums of the same calls
/// added in another order print the same.
fn dollars(sum: f64) -> f64 {
    let rounded = (sum * 1e10).round() / 1e10;
    // Past 1e298 the rounding itself would be infinite; such a sum has no
    // digits to round.
    if rounded.is_finite() { rounded } else { sum }
}

/// The day `at_ms` falls on in `zone`.
pub fn day_of(at_ms: i64, zone: &TimeZone) -> Date {
    zone.to_datetime(Timestamp::from_millisecond(at_ms).unwrap_or(Timestamp::UNIX_EPOCH)).date()
}
