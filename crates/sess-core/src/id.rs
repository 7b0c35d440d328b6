//! Identifiers of entries and sessions.

use std::borrow::Borrow;
use std::fmt;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

/// The id of an entry. Any string: the peers write 8 or 16 hex digits, UUIDs or
/// nanoids, and tests use ids like `"1"`. Short ids are stored inline.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EntryId(CompactString);

impl EntryId {
    /// An id from any string.
    pub fn new(id: impl AsRef<str>) -> Self {
        Self(CompactString::new(id.as_ref()))
    }

    /// The id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for EntryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for EntryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Borrow<str> for EntryId {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for EntryId {
    fn from(id: &str) -> Self {
        Self::new(id)
    }
}

/// Mints fresh entry ids. `sess-core` reads no clock and no randomness: whoever
/// appends entries passes a source in. (A migration derives its ids from the file:
/// [`line_id`].)
pub trait IdSource {
    /// A new id candidate. Callers check it against the ids already taken and ask
    /// again on a collision.
    fn next_id(&mut self) -> EntryId;
}

/// Draws an id from `source` that `taken` does not contain. After 100 collisions
/// (a broken source) the candidate gets a numeric suffix, so this always ends.
pub fn fresh_id(source: &mut dyn IdSource, taken: &dyn Fn(&str) -> bool) -> EntryId {
    for _ in 0..100 {
        let id = source.next_id();
        if !taken(id.as_str()) {
            return id;
        }
    }
    let base = source.next_id();
    let mut n = 1u64;
    loop {
        let id = EntryId::new(format!("{base}-{n}"));
        if !taken(id.as_str()) {
            return id;
        }
        n += 1;
    }
}

/// The id a migration gives the entry of line `line` (1-based) whose text is
/// `text`: 8 lowercase hex digits, the form the agents mint, derived from the line
/// number and the line's bytes, so every read of a legacy file shows the same ids
/// and `sess migrate` writes them. `attempt` picks another id when one is taken.
///
/// The hash is FNV-1a (64 bits) over the line number, the attempt and the bytes,
/// then the `SplitMix64` finalizer; it is fixed here, not `std`'s hasher, so the
/// ids stay the same across builds and platforms.
pub fn line_id(line: usize, text: &str, attempt: u32) -> EntryId {
    const PRIME: u64 = 0x0000_0100_0000_01B3;
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    let line = u64::try_from(line).unwrap_or(u64::MAX);
    for byte in line.to_le_bytes().iter().chain(&attempt.to_le_bytes()).chain(text.as_bytes()) {
        hash = (hash ^ u64::from(*byte)).wrapping_mul(PRIME);
    }
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    hash ^= hash >> 31;
    EntryId::new(format!("{:08x}", hash >> 32))
}

/// Ids `prefix0`, `prefix1`, … for tests and deterministic tools.
#[derive(Debug, Clone)]
pub struct SequentialIds {
    prefix: String,
    next: u64,
}

impl SequentialIds {
    /// Ids that start with `prefix`.
    pub fn new(prefix: impl Into<String>) -> Self {
        Self { prefix: prefix.into(), next: 0 }
    }
}

impl IdSource for SequentialIds {
    fn next_id(&mut self) -> EntryId {
        let id = EntryId::new(format!("{}{}", self.prefix, self.next));
        self.next += 1;
        id
    }
}
