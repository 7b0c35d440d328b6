//! Deterministic workloads for benchmarks: the same seed gives the same bytes.
//!
//! - [`pi_session`] / [`PiSessionSpec`]: one pi-mono (v3) session of about a given
//!   size, with what long agent sessions hold: user and assistant turns with
//!   thinking and tool calls, tool results with big outputs (10–200 KB),
//!   inline base64 images, model and thinking-level changes, branches (the
//!   leaf moved back, with and without a `branch_summary`), compactions with a
//!   `firstKeptEntryId`, labels, custom entries and `session_info` names.
//! - [`session_tree`]: many sessions in pi-mono's layout,
//!   `<sessions>/--<encoded cwd>--/<timestamp>_<id>.jsonl`, mostly small, a few
//!   of several megabytes.
//! - [`claude_transcripts`]: Claude Code transcripts,
//!   `<config>/projects/<slug>/<uuid>.jsonl`.
//! - [`append_messages`]: agent messages, one JSON object a line, for
//!   `sess append` and the peer's `appendMessage` loop.
//!
//! Randomness comes from [`Rng`] (splitmix64), so nothing depends on the
//! platform, the clock or a crate's version.
//!
//! ```
//! use sess_testkit::workload;
//!
//! let text = workload::pi_session(200_000, 7);
//! assert_eq!(text, workload::pi_session(200_000, 7));
//! let outcome = sess_core::read(text.as_bytes());
//! assert!(outcome.issues.is_empty());
//! assert!(outcome.file.entries().len() > 10);
//! ```

mod claude;
mod pi;
mod text;
mod tree;

use std::io;
use std::path::Path;

pub use claude::claude_transcripts;
pub use pi::{PiSession, PiSessionSpec, SessionStats, append_messages, pi_session};
pub use tree::{TreeStats, session_tree};

/// A small, fast, seedable generator (splitmix64). Not for cryptography.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator that starts from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // The modulo bias is far below anything a benchmark input cares about.
        #[allow(clippy::cast_possible_truncation, reason = "the result is below n, a usize")]
        let value = (self.next_u64() % n as u64) as usize;
        value
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high.saturating_sub(low) + 1)
    }

    /// True with probability `percent / 100` (`percent` may have decimals).
    pub fn percent(&mut self, percent: f64) -> bool {
        (self.next_u64() % 1_000_000) as f64 / 10_000.0 < percent
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A generator for item `n` of a family, independent of how much of this
    /// one was used.
    pub fn fork(seed: u64, n: u64) -> Self {
        let mut mixer = Self::new(seed ^ n.wrapping_mul(0xD1B5_4A32_D192_ED03));
        Self::new(mixer.next_u64())
    }
}

/// Writes a generated benchmark input.
///
/// Not through `storage::write_atomic`: these files are regenerated from their
/// seed at will, and an fsync per file would dominate writing a tree of 10,000.
#[allow(clippy::disallowed_methods, reason = "regenerable benchmark input; durability is not wanted here")]
pub fn write_input(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, bytes)
}

/// A JSON object with these keys in this order.
fn fields<const N: usize>(pairs: [(&str, serde_json::Value); N]) -> serde_json::Map<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

#[cfg(test)]
mod tests;
