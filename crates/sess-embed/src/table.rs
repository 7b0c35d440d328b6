//! The embedding table: one row of `dims` numbers per token id, f32 or f16,
//! read from a `.safetensors` file: every row into memory (to embed many
//! texts), or each row from the file when it is needed (a few queries).
//!
//! A `.safetensors` file is an 8-byte little-endian header length, a JSON
//! header naming each tensor's type, shape and byte range, and the bytes.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read as _;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// The names a model's table goes by, tried first when a file holds several
/// 2-D tensors (model2vec's, `wordllama`'s).
const NAMES: [&str; 3] = ["embeddings", "embedding.weight", "embeddings.weight"];

/// The largest header read (the format's own limit is 100 MB).
const MAX_HEADER: u64 = 100_000_000;

/// The rows of an embedding table.
#[derive(Debug)]
pub(crate) struct Table {
    rows: usize,
    dims: usize,
    /// Bytes per number: 4 (f32) or 2 (f16).
    width: usize,
    bytes: Bytes,
}

/// Where the rows' bytes are.
#[derive(Debug)]
enum Bytes {
    /// Every row, read at once.
    Memory(Vec<u8>),
    /// In the file, from this offset: read a row at a time.
    File { file: File, path: PathBuf, start: u64 },
}

/// What the header says of a tensor.
#[derive(Deserialize)]
struct Tensor {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [u64; 2],
}

impl Table {
    /// The 2-D table of the `.safetensors` file `path`: its only 2-D tensor,
    /// or the one named as model2vec and `wordllama` name theirs. With
    /// `in_memory`, every row is read now; else each when it is added.
    pub(crate) fn open(path: &Path, in_memory: bool) -> Result<Self> {
        let wrong = |message: String| Error::Table { path: path.to_owned(), message };
        let io = |source| Error::Io { path: path.to_owned(), source };
        let mut file = File::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        let mut prefix = [0_u8; 8];
        file.read_exact(&mut prefix).map_err(|_| wrong("it is shorter than a header".to_owned()))?;
        let header_len = u64::from_le_bytes(prefix);
        if header_len > MAX_HEADER || header_len + 8 > file_len {
            return Err(wrong(format!("a header of {header_len} bytes in a file of {file_len}")));
        }
        let mut header = vec![0_u8; usize::try_from(header_len).map_err(|_| wrong("a header too large".to_owned()))?];
        file.read_exact(&mut header).map_err(io)?;
        let mut tensors: BTreeMap<String, serde_json::Value> =
            serde_json::from_slice(&header).map_err(|err| wrong(format!("its header: {err}")))?;
        tensors.remove("__metadata__");
        let mut tables: Vec<(String, Tensor)> = Vec::new();
        for (name, value) in tensors {
            let tensor: Tensor = serde_json::from_value(value).map_err(|err| wrong(format!("`{name}`: {err}")))?;
            if tensor.shape.len() == 2 {
                tables.push((name, tensor));
            }
        }
        let at = match tables.len() {
            0 => return Err(wrong("no 2-D tensor".to_owned())),
            1 => 0,
            _ => tables.iter().position(|(name, _)| NAMES.contains(&name.as_str())).ok_or_else(|| {
                let names: Vec<&str> = tables.iter().map(|(name, _)| name.as_str()).collect();
                wrong(format!("several 2-D tensors ({}) and none named {}", names.join(", "), NAMES.join(" or ")))
            })?,
        };
        let (name, tensor) = &tables[at];
        let width = match tensor.dtype.as_str() {
            "F32" => 4,
            "F16" => 2,
            other => return Err(wrong(format!("`{name}` is {other}; f32 or f16 is read"))),
        };
        let (rows, dims) = (tensor.shape[0], tensor.shape[1]);
        let [from, to] = tensor.data_offsets;
        let start = 8 + header_len + from;
        let len = to.checked_sub(from).ok_or_else(|| wrong(format!("`{name}` ends before it begins")))?;
        let expected = rows.checked_mul(dims).and_then(|n| n.checked_mul(width)).map(|n| n as u64);
        if dims == 0 || expected != Some(len) || start + len > file_len {
            return Err(wrong(format!("`{name}` has {len} bytes for its shape [{rows}, {dims}]")));
        }
        let bytes = if in_memory {
            let mut bytes = vec![0_u8; usize::try_from(len).map_err(|_| wrong("a table too large".to_owned()))?];
            file.read_exact_at(&mut bytes, start).map_err(io)?;
            Bytes::Memory(bytes)
        } else {
            Bytes::File { file, path: path.to_owned(), start }
        };
        Ok(Self { rows, dims, width, bytes })
    }

    /// How many numbers a row has.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// How many rows (token ids) it has.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Adds row `id` to `sum`; `Ok(false)` (and nothing added) for an id
    /// past the table.
    pub(crate) fn add_row(&self, id: usize, sum: &mut [f32]) -> Result<bool> {
        if id >= self.rows {
            return Ok(false);
        }
        let size = self.dims * self.width;
        let mut read = Vec::new();
        let row: &[u8] = match &self.bytes {
            Bytes::Memory(bytes) => &bytes[id * size..(id + 1) * size],
            Bytes::File { file, path, start } => {
                read.resize(size, 0);
                file.read_exact_at(&mut read, start + (id * size) as u64)
                    .map_err(|source| Error::Io { path: path.clone(), source })?;
                &read
            }
        };
        if self.width == 4 {
            for (s, b) in sum.iter_mut().zip(row.chunks_exact(4)) {
                *s += f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        } else {
            for (s, b) in sum.iter_mut().zip(row.chunks_exact(2)) {
                *s += f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
            }
        }
        Ok(true)
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
