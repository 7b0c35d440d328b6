//! Token counts, of one call or summed.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

/// Tokens of each kind (see `sess_sources::Call` for what each counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Input at the full price.
    pub input: u64,
    /// Generated tokens (reasoning included).
    pub output: u64,
    /// Input written to the prompt cache.
    pub cache_creation: u64,
    /// Input read from the prompt cache.
    pub cache_read: u64,
    /// The part of `output` spent reasoning, where the agent says.
    pub reasoning: u64,
}

impl Tokens {
    /// Input, output, cache writes and cache reads (at most [`u64::MAX`]).
    pub fn total(&self) -> u64 {
        self.input.saturating_add(self.output).saturating_add(self.cache_creation).saturating_add(self.cache_read)
    }

    /// Adds `other`. A count saturates at [`u64::MAX`] rather than wrap: a
    /// file can claim any number of tokens.
    pub fn add(&mut self, other: &Self) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_creation = self.cache_creation.saturating_add(other.cache_creation);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.reasoning = self.reasoning.saturating_add(other.reasoning);
    }
}

/// As the reports' JSON names them (the names ccusage's users script
/// against, plus `reasoningTokens`), with `totalTokens`.
impl Serialize for Tokens {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Tokens", 6)?;
        out.serialize_field("inputTokens", &self.input)?;
        out.serialize_field("outputTokens", &self.output)?;
        out.serialize_field("cacheCreationTokens", &self.cache_creation)?;
        out.serialize_field("cacheReadTokens", &self.cache_read)?;
        out.serialize_field("reasoningTokens", &self.reasoning)?;
        out.serialize_field("totalTokens", &self.total())?;
        out.end()
    }
}
