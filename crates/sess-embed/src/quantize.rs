//! Vectors kept small: a normalized vector's components as int8, and the
//! similarity of two such vectors.

/// What a component of 1.0 becomes.
pub const SCALE: f32 = 127.0;

/// `vector` (normalized: every component in −1…1) as one signed byte per
/// component, `round(x × 127)`.
pub fn quantize(vector: &[f32]) -> Vec<i8> {
    vector
        .iter()
        .map(|x| {
            let scaled = (x * SCALE).round().clamp(-SCALE, SCALE);
            // In −127…127 after the clamp, so the cast keeps it whole.
            #[allow(clippy::cast_possible_truncation)]
            let byte = scaled as i8;
            byte
        })
        .collect()
}

/// The cosine similarity of two quantized normalized vectors, about: their
/// dot product over 127². 1 for the same direction, 0 for unrelated, −1 for
/// opposite; vectors of other lengths compare over the shorter.
pub fn similarity(a: &[i8], b: &[i8]) -> f32 {
    scaled(a.iter().zip(b).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum())
}

/// [`similarity`] of `a` and a vector stored as bytes (each an `i8`'s
/// bits, as a database keeps it), read in place.
pub fn similarity_stored(a: &[i8], stored: &[u8]) -> f32 {
    scaled(a.iter().zip(stored).map(|(x, y)| i32::from(*x) * i32::from(y.cast_signed())).sum())
}

/// Which side of `center` each component of a quantized vector is on, one
/// bit per component (set when it is above the center's), eight to a byte,
/// the first component in the lowest bit: 32 bytes for 256 components, an
/// eighth of the int8 vector. Vectors whose bits differ in few places
/// ([`hamming`]) point about the same way, which makes a cheap first pass
/// before [`similarity`]. With an empty center, the bits are the signs; with
/// the mean of the vectors compared, each bit splits them about in two,
/// which tells more when they all lean one way.
pub fn binarize(vector: &[i8], center: &[i8]) -> Vec<u8> {
    vector
        .chunks(8)
        .enumerate()
        .map(|(at, eight)| {
            eight.iter().enumerate().fold(0_u8, |byte, (bit, x)| {
                let middle = center.get(at * 8 + bit).copied().unwrap_or(0);
                byte | (u8::from(*x > middle) << bit)
            })
        })
        .collect()
}

/// How many bits of two sign codes ([`binarize`]) differ: 0 for the same
/// signs; codes of other lengths compare over the shorter.
pub fn hamming(a: &[u8], b: &[u8]) -> u32 {
    let (mut a8, mut b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let mut differ: u32 = a8
        .by_ref()
        .zip(b8.by_ref())
        .map(|(x, y)| {
            let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
            (word(x) ^ word(y)).count_ones()
        })
        .sum();
    differ += a8.remainder().iter().zip(b8.remainder()).map(|(x, y)| (x ^ y).count_ones()).sum::<u32>();
    differ
}

/// A dot product of quantized vectors as a cosine.
fn scaled(dot: i32) -> f32 {
    // At most 256 × 127² per 256 components: exact in an f32 up to 2^24.
    #[allow(clippy::cast_precision_loss)]
    let dot = dot as f32;
    dot / (SCALE * SCALE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_vectors_keep_their_cosine() {
        let a = [0.6_f32, 0.8, 0.0];
        let b = [0.8_f32, 0.6, 0.0];
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let (qa, qb) = (quantize(&a), quantize(&b));
        assert_eq!(qa, [76, 102, 0]);
        assert!((similarity(&qa, &qb) - exact).abs() < 0.01, "{} vs {exact}", similarity(&qa, &qb));
        assert!((similarity(&qa, &qa) - 1.0).abs() < 0.01);
        assert!((similarity(&qa, &quantize(&[-0.6, -0.8, 0.0])) + 1.0).abs() < 0.01);
        assert_eq!(quantize(&[2.0, -2.0]), [127, -127]);
        let stored: Vec<u8> = qb.iter().map(|x| x.cast_unsigned()).collect();
        assert!((similarity_stored(&qa, &stored) - similarity(&qa, &qb)).abs() < f32::EPSILON);
    }

    #[test]
    fn sign_codes_count_the_signs_that_differ() {
        let a: Vec<i8> = (0..20).map(|i| if i % 3 == 0 { 5 } else { -5 }).collect();
        let code = binarize(&a, &[]);
        assert_eq!(code.len(), 3);
        // Components 0, 3 and 6 of the first eight are above 0.
        assert_eq!(code[0], 0b0100_1001);
        assert_eq!(hamming(&code, &code), 0);
        let mut b = a.clone();
        b[1] = 9;
        b[19] = 9;
        b[18] = -1;
        // Components 1 and 19 turn positive, 18 negative.
        assert_eq!(hamming(&code, &binarize(&b, &[])), 3);
        let opposite: Vec<i8> = a.iter().map(|x| -x).collect();
        assert_eq!(hamming(&code, &binarize(&opposite, &[])), 20);
        // Zero is not above 0.
        assert_eq!(binarize(&[0, 1, 0], &[]), [0b010]);
        // Around a center: above it or not, a component at a time (past its end, 0).
        assert_eq!(binarize(&[10, 10, 10, -3], &[20, 5, 10]), [0b0010]);
        // Long codes are compared a word at a time, and their tails a byte at a time.
        let long: Vec<u8> = (0..37).map(|i| i * 7).collect();
        let flipped: Vec<u8> = long.iter().map(|x| !x).collect();
        assert_eq!(hamming(&long, &flipped), 37 * 8);
    }
}
