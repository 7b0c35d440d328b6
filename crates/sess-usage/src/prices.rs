//! What a model call costs: a dated table of prices per model, bundled
//! with `sess` and replaceable by a file of the same shape
//! (`sess usage --prices FILE`).
//!
//! A model is priced only when the table names it: exactly, or once a
//! provider's prefix (`anthropic/`) is dropped, or, for a response served in
//! fast mode (`…-fast`), as its model times the table's `fast` multiplier.
//! Anything else is unknown: its cost is never guessed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Tokens;
use crate::error::{Error, Result};

/// The table `sess` ships (US dollars per million tokens).
const BUNDLED: &str = include_str!("prices.json");

/// Tokens of one kind past which a call's tokens of that kind cost the
/// `above200k` prices.
const TIER: u64 = 200_000;

/// The highest price a table may give, in US dollars per million tokens: no
/// model costs a dollar a token, so a price past it is a typo (and one near
/// `f64::MAX` would make every sum infinite).
const MAX_PRICE: f64 = 1_000_000.0;

/// The prices of one model, in US dollars per million tokens. Input and
/// output are required; a model without a cache price has none (a call that
/// wrote to or read from the cache has no cost then, rather than a wrong one).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Price {
    /// Input at the full price.
    pub input: f64,
    /// Generated tokens.
    pub output: f64,
    /// Input written to the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// Input read from the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// The prices of a kind whose tokens in one call pass 200,000.
    #[serde(default, rename = "above200k", skip_serializing_if = "Option::is_none")]
    pub above_200k: Option<Tier>,
    /// The multiplier of a response served in fast mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast: Option<f64>,
}

/// The prices past 200,000 tokens of a kind in one call; a kind without one
/// keeps its base price.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Tier {
    /// Input at the full price.
    pub input: Option<f64>,
    /// Generated tokens.
    pub output: Option<f64>,
    /// Input written to the prompt cache.
    pub cache_write: Option<f64>,
    /// Input read from the prompt cache.
    pub cache_read: Option<f64>,
}

impl Price {
    /// What `tokens` cost at these prices, in US dollars; `None` when it
    /// counted tokens of a kind these prices do not price.
    pub fn cost(&self, tokens: &Tokens) -> Option<f64> {
        let tier = self.above_200k.as_ref();
        let kind = |count: u64, base: Option<f64>, above: Option<f64>| -> Option<f64> {
            if count == 0 {
                return Some(0.0);
            }
            let base = base?;
            #[allow(clippy::cast_precision_loss)] // A cost needs no more than 2^52 of precision.
            let (count_f, tier_f) = (count as f64, TIER as f64);
            Some(match above {
                Some(above) if count > TIER => tier_f * base + (count_f - tier_f) * above,
                _ => count_f * base,
            })
        };
        let dollars = kind(tokens.input, Some(self.input), tier.and_then(|t| t.input))?
            + kind(tokens.output, Some(self.output), tier.and_then(|t| t.output))?
            + kind(tokens.cache_creation, self.cache_write, tier.and_then(|t| t.cache_write))?
            + kind(tokens.cache_read, self.cache_read, tier.and_then(|t| t.cache_read))?;
        Some(dollars / 1_000_000.0)
    }

    /// Every number of the price: its prices, its tier's and its fast multiplier.
    fn numbers(&self) -> impl Iterator<Item = f64> + '_ {
        let tier = self.above_200k.iter().flat_map(|t| [t.input, t.output, t.cache_write, t.cache_read]);
        [Some(self.input), Some(self.output), self.cache_write, self.cache_read, self.fast]
            .into_iter()
            .chain(tier)
            .flatten()
    }
}

/// A price table: the day its prices were taken, and a price per model.
#[derive(Clone, Debug, Deserialize, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prices {
    /// The day the prices were taken (`YYYY-MM-DD`).
    pub date: String,
    /// What the numbers mean (free text, kept with the table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
    /// Each model's prices, by the name the agents record.
    pub models: BTreeMap<String, Price>,
}

impl Prices {
    /// The table bundled with `sess` (the tests check that it parses; were
    /// it not to, no model would be priced).
    pub fn bundled() -> Self {
        Self::from_json(BUNDLED.as_bytes()).unwrap_or_else(|_| Self {
            date: String::new(),
            about: None,
            models: BTreeMap::new(),
        })
    }

    /// A table in the bundled table's shape; an error names what is wrong
    /// (with its line and column).
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        let prices: Self = serde_json::from_slice(bytes).map_err(|err| Error::Prices(err.to_string()))?;
        for (model, price) in &prices.models {
            if price.numbers().any(|v| !(0.0..=MAX_PRICE).contains(&v)) {
                return Err(Error::Prices(format!(
                    "the prices of `{model}` must be numbers from 0 to {MAX_PRICE} (US dollars per million tokens)"
                )));
            }
        }
        Ok(prices)
    }

    /// The cost of `tokens` answered by `model`; `None` when the table has
    /// no price for it.
    pub fn cost(&self, model: &str, tokens: &Tokens) -> Option<f64> {
        if let Some(price) = self.find(model) {
            return price.cost(tokens);
        }
        let base = model.strip_suffix("-fast")?;
        let price = self.find(base)?;
        Some(price.cost(tokens)? * price.fast?)
    }

    /// Whether the table prices `model` (its input and output at least).
    pub fn knows(&self, model: &str) -> bool {
        self.cost(model, &Tokens::default()).is_some()
    }

    fn find(&self, model: &str) -> Option<&Price> {
        self.models.get(model).or_else(|| {
            // `anthropic/claude-…`, `openai/gpt-…`: the provider's name is not the model's.
            let (_, bare) = model.rsplit_once('/')?;
            self.models.get(bare)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64, output: u64, cache_creation: u64, cache_read: u64) -> Tokens {
        Tokens { input, output, cache_creation, cache_read, reasoning: 0 }
    }

    #[test]
    fn the_bundled_table_parses_and_prices_the_models_it_names() {
        let prices = Prices::bundled();
        assert!(prices.models.len() > 40, "{}", prices.models.len());
        // Sonnet 4.5: $3 input, $15 output, $3.75 cache write, $0.30 cache read (per million, below 200k).
        let cost = prices.cost("claude-sonnet-4-5", &tokens(100_000, 100_000, 100_000, 100_000)).unwrap();
        assert!((cost - 2.205).abs() < 1e-9, "{cost}");
        let cost = prices.cost("anthropic/claude-sonnet-4-5", &tokens(100_000, 0, 0, 0)).unwrap();
        assert!((cost - 0.3).abs() < 1e-12, "{cost}");
        assert_eq!(prices.cost("claude-made-up-9", &tokens(1, 1, 1, 1)), None);
        assert!(!prices.knows("claude-sonnet"), "no guess from a part of a name");
    }

    #[test]
    fn tokens_past_200k_in_one_call_cost_the_higher_price() {
        let prices = Prices::bundled();
        let price = &prices.models["claude-sonnet-4-5"];
        let above = price.above_200k.as_ref().unwrap().input.unwrap();
        let cost = prices.cost("claude-sonnet-4-5", &tokens(300_000, 0, 0, 0)).unwrap();
        let expected = (200_000.0 * price.input + 100_000.0 * above) / 1e6;
        assert!((cost - expected).abs() < 1e-12, "{cost} {expected}");
    }

    #[test]
    fn fast_mode_multiplies_only_where_the_table_says() {
        let prices = Prices::bundled();
        let fast = prices.models["claude-opus-4-6"].fast.unwrap();
        let t = tokens(1000, 1000, 0, 0);
        let base = prices.cost("claude-opus-4-6", &t).unwrap();
        assert!((prices.cost("claude-opus-4-6-fast", &t).unwrap() - base * fast).abs() < 1e-12);
        assert_eq!(prices.cost("claude-sonnet-4-5-fast", &t), None, "no fast price for it");
    }

    #[test]
    fn a_bad_table_is_refused_with_where() {
        let err = Prices::from_json(br#"{"date": "2026-01-01", "models": {"m": {"input": "3"}}}"#).unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
        let err =
            Prices::from_json(br#"{"date": "2026-01-01", "models": {"m": {"input": -1, "output": 1}}}"#).unwrap_err();
        assert!(err.to_string().contains("`m`"), "{err}");
        let err = Prices::from_json(br#"{"date": "2026-01-01", "models": {"m": {"inptu": 1}}}"#).unwrap_err();
        assert!(err.to_string().contains("inptu"), "{err}");
    }
}
