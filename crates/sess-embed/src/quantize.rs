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
}
