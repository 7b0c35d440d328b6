//! What one model call cost, as the agent recorded it: the tokens of each
//! kind and, where the agent stored one, the cost.
//!
//! Tokens follow one rule for every agent, whatever its provider's API
//! reports: `input` is the input read at the full price (cache reads and
//! cache writes apart), `cache_read` what was read from the prompt cache,
//! `cache_creation` what was written to it, `output` everything generated
//! (reasoning included), and `reasoning` the part of `output` spent
//! thinking, where the agent says. An agent whose API counts cached input
//! inside its input (`OpenAI`'s, Gemini's) is converted by its source.

use serde::Serialize;

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
}

impl Call {
    /// Every token the call counted: input, output, cache writes and reads.
    pub fn total_tokens(&self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }

    /// Whether the call counted no token and recorded no cost.
    pub fn is_empty(&self) -> bool {
        self.total_tokens() == 0 && self.cost.is_none_or(|c| c == 0.0)
    }
}

/// A token count from a JSON value: a non-negative integer (a float is
/// truncated, anything else is 0), as the agents' own tools read them.
pub fn tokens(value: Option<&serde_json::Value>) -> u64 {
    match value {
        Some(serde_json::Value::Number(n)) => n.as_u64().or_else(|| {
            n.as_f64().filter(|f| f.is_finite() && *f > 0.0).map(|f| {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // Checked positive and finite.
                let t = f as u64;
                t
            })
        }),
        _ => None,
    }
    .unwrap_or(0)
}
