//! What one model call cost, as the agent recorded it: the tokens of each
//! kind and, where the agent stored one, the cost.
//!
//! Tokens follow one rule for every agent, whatever its provider's API
//! reports: `input` is the input read at the full price (cache reads and
//! cache writes apart), `cache_read` what was read from the prompt cache,
//! `cache_creation` what was written to it, `output` everything generated
//! (reasoning included), and `reasoning` the part of `output` spent
//! thinking, where the agent says. An agent whose API counts cached input
//! inside its input (the `OpenAI` and Gemini APIs) is converted by its source.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

/// The usage of one model call (one response of the model).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// What identifies the response across the agent's files, where it has
    /// such an id (Claude Code: `message.id` and `requestId`): the same
    /// response copied into another session (a resumed or forked one)
    /// counts once, and within a file a later line with the same key holds
    /// the response's final usage and replaces the earlier ones. `None`:
    /// every record is a call of its own.
    pub key: Option<String>,
    /// When the call was made (ISO 8601, as written).
    pub timestamp: Option<String>,
    /// The model that answered, as the agent names it.
    pub model: Option<String>,
    /// Input tokens at the full price.
    pub input: u64,
    /// Generated tokens (reasoning included).
    pub output: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// The part of [`output`](Self::output) spent reasoning, where known.
    pub reasoning: u64,
    /// The cost in US dollars the agent recorded for the call, if it did.
    pub cost: Option<f64>,
    /// The token counts the agent recorded that are not counts (a negative
    /// number, a string, a fraction, a number past [`u64::MAX`]), each as
    /// `name value (read as n)`, for a report to say: empty for a call read
    /// as it was written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_counts: Vec<String>,
}

impl Call {
    /// Every token the call counted: input, output, cache writes and reads.
    pub fn total_tokens(&self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }

    /// Whether the call counted no token, recorded no cost and recorded no
    /// value that is not a count (such a call is kept, to be said).
    pub fn is_empty(&self) -> bool {
        self.total_tokens() == 0 && self.cost.is_none_or(|c| c == 0.0) && self.not_counts.is_empty()
    }
}

/// A token count from a JSON value: a non-negative integer (a fraction is
/// truncated, anything else is 0), as the agents' own tools read them.
/// The sources keep the values that were not counts in [`Call::not_counts`].
pub fn tokens(value: Option<&Value>) -> u64 {
    read_count(value).0
}

/// A token count from a JSON value, and whether the value was one: absent
/// and `null` count 0, a whole number from 0 to [`u64::MAX`] counts itself,
/// a positive fraction its whole part (not a count), anything else 0 (not a
/// count).
fn read_count(value: Option<&Value>) -> (u64, bool) {
    // 2^64, which `u64::MAX as f64` rounds to: no count reaches it.
    const PAST_U64: f64 = 18_446_744_073_709_551_616.0;
    let Some(Value::Number(n)) = value else { return (0, matches!(value, None | Some(Value::Null))) };
    if let Some(n) = n.as_u64() {
        return (n, true);
    }
    match n.as_f64() {
        Some(f) if (0.0..PAST_U64).contains(&f) => {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // Checked in range.
            let whole = f as u64;
            #[allow(clippy::float_cmp, clippy::cast_precision_loss)] // Exact: whether `f` is whole.
            let is_whole = whole as f64 == f;
            (whole, is_whole)
        }
        _ => (0, false),
    }
}

/// Reads the token counts of one record and keeps, in the words of
/// [`Call::not_counts`], the values that were not counts: the one way every
/// source reads a count, so that every agent's odd values are said.
#[derive(Debug, Default)]
pub(crate) struct Counter(RefCell<Vec<String>>);

/// The longest value a description quotes, in characters.
const QUOTED: usize = 40;

impl Counter {
    /// The count `value`, recorded under `name`, by the rule of [`tokens`].
    pub(crate) fn count(&self, name: &str, value: Option<&Value>) -> u64 {
        let (n, counted) = read_count(value);
        if !counted && let Some(value) = value {
            let mut text = value.to_string();
            if let Some((cut, _)) = text.char_indices().nth(QUOTED) {
                text.truncate(cut);
                text.push('…');
            }
            self.0.borrow_mut().push(format!("{name} {text} (read as {n})"));
        }
        n
    }

    /// What was not a count so far, taken.
    pub(crate) fn take(&self) -> Vec<String> {
        self.0.take()
    }
}

/// The calls of a file as they are read: a call whose key was seen before
/// replaces the earlier one in its place (see [`Call::key`]); calls that
/// count no token and record no cost are left out.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    calls: Vec<Call>,
    /// Where each keyed call is in `calls`.
    at: HashMap<String, usize>,
}

impl Calls {
    /// Takes `call`.
    pub(crate) fn push(&mut self, call: Call) {
        if call.is_empty() {
            return;
        }
        if let Some(&i) = call.key.as_ref().and_then(|key| self.at.get(key)) {
            self.calls[i] = call;
            return;
        }
        if let Some(key) = &call.key {
            self.at.insert(key.clone(), self.calls.len());
        }
        self.calls.push(call);
    }

    /// Takes `call`, if there is one.
    pub(crate) fn push_opt(&mut self, call: Option<Call>) {
        if let Some(call) = call {
            self.push(call);
        }
    }

    /// The calls, in the order they were first seen.
    pub(crate) fn finish(self) -> Vec<Call> {
        self.calls
    }
}

/// `output` and `reasoning` by the rule of [`Call`] (reasoning inside
/// output), for an agent whose records count thinking either inside the
/// generated tokens (`OpenAI`'s `completion_tokens`) or apart from them
/// (Gemini's `candidatesTokenCount` beside `thoughtsTokenCount`). The
/// recorded `total` says which, where it adds up: `counted_input` plus
/// `output` (inside) or plus `output` and `reasoning` (apart); otherwise
/// `apart` (the agent's own rule) decides.
pub(crate) fn with_reasoning(output: u64, reasoning: u64, counted_input: u64, total: u64, apart: bool) -> (u64, u64) {
    let inside = counted_input.saturating_add(output);
    let apart = if reasoning == 0 {
        false
    } else if total == inside.saturating_add(reasoning) {
        true
    } else if total == inside {
        false
    } else {
        apart
    };
    if apart { (output.saturating_add(reasoning), reasoning) } else { (output, reasoning.min(output)) }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn token_counts_are_lenient() {
        assert_eq!(tokens(Some(&json!(12))), 12);
        assert_eq!(tokens(Some(&json!(12.9))), 12);
        assert_eq!(tokens(Some(&json!(-3))), 0);
        assert_eq!(tokens(Some(&json!("12"))), 0);
        assert_eq!(tokens(Some(&json!(null))), 0);
        assert_eq!(tokens(None), 0);
    }

    /// Issue 26, item 7: a token count that is not one was read as 0 and
    /// nothing said so.
    #[test]
    fn the_counter_names_every_value_that_is_not_a_count() {
        let counter = Counter::default();
        let usage = json!({"a": 12, "b": -5, "c": "12", "d": 2.5, "e": 1e30, "f": null, "g": 7.0, "h": u64::MAX});
        let counts: Vec<u64> = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
            .iter()
            .map(|key| counter.count(key, usage.get(key)))
            .collect();
        assert_eq!(counts, [12, 0, 0, 2, 0, 0, 7, u64::MAX, 0]);
        assert_eq!(
            counter.take(),
            ["b -5 (read as 0)", "c \"12\" (read as 0)", "d 2.5 (read as 2)", "e 1e+30 (read as 0)"]
        );
        assert!(counter.take().is_empty());
        let long = json!("x".repeat(100));
        counter.count("t", Some(&long));
        assert_eq!(counter.take(), [format!("t \"{}… (read as 0)", "x".repeat(39))]);
    }

    #[test]
    fn a_later_call_with_the_same_key_replaces_the_earlier_and_empty_calls_are_left_out() {
        let call = |key: Option<&str>, output| Call { key: key.map(str::to_owned), output, ..Call::default() };
        let mut calls = Calls::default();
        calls.push(call(Some("a"), 1));
        calls.push(call(None, 2));
        calls.push(call(Some("a"), 3));
        calls.push(call(None, 0));
        calls.push(Call { cost: Some(0.5), ..Call::default() });
        let outputs: Vec<u64> = calls.finish().iter().map(|c| c.output).collect();
        assert_eq!(outputs, [3, 2, 0]);
    }

    #[test]
    fn the_total_says_whether_reasoning_is_inside_the_output() {
        // 100 in, 30 out of which 10 thinking: total 130.
        assert_eq!(with_reasoning(30, 10, 100, 130, true), (30, 10));
        // 100 in, 20 out and 10 thinking apart: total 130.
        assert_eq!(with_reasoning(20, 10, 100, 130, false), (30, 10));
        // No total that adds up: the agent's rule.
        assert_eq!(with_reasoning(20, 10, 100, 0, true), (30, 10));
        assert_eq!(with_reasoning(20, 10, 100, 0, false), (20, 10));
        // Never more reasoning than output.
        assert_eq!(with_reasoning(5, 10, 100, 0, false), (5, 5));
        assert_eq!(with_reasoning(20, 0, 100, 0, true), (20, 0));
    }
}
