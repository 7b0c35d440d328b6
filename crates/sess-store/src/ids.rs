//! Random entry ids in the peers' form.

use sess_core::{EntryId, IdSource};

/// 8 random lowercase hex digits, the form pi-mono mints (the first 8 of a
/// random UUID).
///
/// The generator is seeded once from the OS (through a v4 UUID), then steps a
/// 64-bit `SplitMix64` state: an append does not pay a system call for its id.
/// Ids need to be unpredictable only enough not to collide; a collision with an
/// id of the session is retried by [`sess_core::fresh_id`].
#[derive(Debug, Clone)]
pub struct RandomIds {
    state: u64,
}

impl RandomIds {
    /// A generator seeded from the OS.
    pub fn new() -> Self {
        let (high, low) = uuid::Uuid::new_v4().as_u64_pair();
        Self { state: high ^ low.rotate_left(32) }
    }
}

impl Default for RandomIds {
    fn default() -> Self {
        Self::new()
    }
}

impl IdSource for RandomIds {
    fn next_id(&mut self) -> EntryId {
        // SplitMix64 (Steele, Lea and Flood 2014).
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // The high 32 bits as 8 hex digits, without a heap allocation.
        let mut hex = [0_u8; 8];
        for (place, digit) in hex.iter_mut().enumerate() {
            *digit = b"0123456789abcdef"[usize::try_from((z >> (60 - 4 * place)) & 0xF).unwrap_or(0)];
        }
        EntryId::new(std::str::from_utf8(&hex).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn ids_are_8_lowercase_hex_digits_and_spread() {
        let mut ids = RandomIds { state: 42 };
        let minted: Vec<EntryId> = (0..10_000).map(|_| ids.next_id()).collect();
        assert!(minted.iter().all(|id| id.as_str().len() == 8
            && id.as_str().bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))));
        let distinct: HashSet<&str> = minted.iter().map(EntryId::as_str).collect();
        assert_eq!(distinct.len(), minted.len());
        // Two generators seeded from the OS start apart.
        assert_ne!(RandomIds::new().next_id(), RandomIds::new().next_id());
    }
}
