//! A call's key as the catalog keeps it: 64 bits instead of the two ids of a
//! response (`msg_…:req_…`, about 50 bytes), in the table and in its unique
//! index.

/// The 64-bit hash of a call's key (`sess_sources::Call::key`): FNV-1a, then
/// a final mix so that keys differing in their last bytes differ in every bit.
/// Two keys of one agent that hash alike would count as one response; among
/// the 2^32 keys it would take for that to be likely, no history comes near.
#[must_use]
pub fn key_hash(key: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in key.as_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // splitmix64's finaliser.
    hash ^= hash >> 30;
    hash = hash.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash ^= hash >> 27;
    hash = hash.wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^= hash >> 31;
    i64::from_ne_bytes(hash.to_ne_bytes())
}

#[cfg(test)]
mod tests {
    use super::key_hash;

    #[test]
    fn keys_hash_apart_and_alike() {
        assert_eq!(key_hash("msg_01:req_01"), key_hash("msg_01:req_01"));
        assert_ne!(key_hash("msg_01:req_01"), key_hash("msg_01:req_02"));
        assert_ne!(key_hash(""), key_hash(" "));
        let hashes: std::collections::HashSet<i64> =
            (0..100_000).map(|i| key_hash(&format!("msg_{i}:req_{i}"))).collect();
        assert_eq!(hashes.len(), 100_000);
    }
}
