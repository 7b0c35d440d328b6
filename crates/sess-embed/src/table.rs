//! The embedding table: one row of `dims` numbers per token id, kept as the
//! file stores them (f32, or f16 at half the memory).

use std::path::Path;

use safetensors::{Dtype, SafeTensors};

use crate::error::{Error, Result};

/// The names a model's table goes by, tried first when a file holds several
/// 2-D tensors (model2vec's, `wordllama`'s).
const NAMES: [&str; 3] = ["embeddings", "embedding.weight", "embeddings.weight"];

/// The rows of an embedding table.
#[derive(Debug)]
pub(crate) struct Table {
    rows: usize,
    dims: usize,
    values: Values,
}

#[derive(Debug)]
enum Values {
    F32(Vec<f32>),
    /// IEEE half floats, as their bits.
    F16(Vec<u16>),
}

impl Table {
    /// The 2-D table of the `.safetensors` file `path`, whose bytes are
    /// `bytes`: its only 2-D tensor, or the one named as model2vec and
    /// `wordllama` name theirs.
    pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<Self> {
        let wrong = |message: String| Error::Table { path: path.to_owned(), message };
        let tensors = SafeTensors::deserialize(bytes).map_err(|err| wrong(err.to_string()))?;
        let mut tables: Vec<(String, safetensors::tensor::TensorView<'_>)> =
            tensors.tensors().into_iter().filter(|(_, view)| view.shape().len() == 2).collect();
        tables.sort_by(|a, b| a.0.cmp(&b.0));
        let at = match tables.len() {
            0 => return Err(wrong("no 2-D tensor".to_owned())),
            1 => 0,
            _ => tables.iter().position(|(name, _)| NAMES.contains(&name.as_str())).ok_or_else(|| {
                let names: Vec<&str> = tables.iter().map(|(name, _)| name.as_str()).collect();
                wrong(format!("several 2-D tensors ({}) and none named {}", names.join(", "), NAMES.join(" or ")))
            })?,
        };
        let (name, view) = &tables[at];
        let (rows, dims) = (view.shape()[0], view.shape()[1]);
        let data = view.data();
        let values = match view.dtype() {
            Dtype::F32 => {
                Values::F32(data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
            }
            Dtype::F16 => Values::F16(data.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect()),
            other => return Err(wrong(format!("`{name}` is {other:?}; f32 or f16 is read"))),
        };
        let table = Self { rows, dims, values };
        if table.len() != rows * dims || dims == 0 {
            return Err(wrong(format!("`{name}` has {} numbers for its shape [{rows}, {dims}]", table.len())));
        }
        Ok(table)
    }

    fn len(&self) -> usize {
        match &self.values {
            Values::F32(values) => values.len(),
            Values::F16(values) => values.len(),
        }
    }

    /// How many numbers a row has.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// How many rows (token ids) it has.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Adds row `id` to `sum`; `false` (and nothing added) for an id past the table.
    pub(crate) fn add_row(&self, id: usize, sum: &mut [f32]) -> bool {
        if id >= self.rows {
            return false;
        }
        let range = id * self.dims..(id + 1) * self.dims;
        match &self.values {
            Values::F32(values) => sum.iter_mut().zip(&values[range]).for_each(|(s, v)| *s += v),
            Values::F16(values) => sum.iter_mut().zip(&values[range]).for_each(|(s, v)| *s += f16_to_f32(*v)),
        }
        true
    }
}

/// An IEEE 754 half float, from its bits.
pub(crate) fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits >> 15) << 31;
    let exponent = u32::from((bits >> 10) & 0x1f);
    let mantissa = u32::from(bits & 0x3ff);
    let value = match (exponent, mantissa) {
        (0, 0) => sign,
        // Subnormal: the mantissa times 2^-24.
        (0, m) => {
            #[allow(clippy::cast_precision_loss)]
            let magnitude = m as f32 * (1.0 / 16_777_216.0);
            return if sign == 0 { magnitude } else { -magnitude };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::float_cmp)] // The conversion is exact.
    fn half_floats_convert() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
    }
}
