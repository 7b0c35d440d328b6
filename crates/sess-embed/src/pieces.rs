//! Documents as their pieces' vectors, the form a store keeps them in: each
//! document cut in pieces ([`chunks`]), each piece embedded and quantized, the
//! int8 vectors one after another in one byte string ([`embed_documents`]);
//! compared with a query by its nearest piece ([`nearest_piece`]).

use std::num::NonZeroUsize;

use crate::chunk::{CHUNK_CHARS, chunks};
use crate::error::Result;
use crate::model::Model;
use crate::quantize::{quantize, similarity_stored};

/// The vectors of each of `texts`, in order: its pieces' int8 vectors one
/// after another (each `i8`'s bits as a byte), and how many there are; none
/// for a text no word of which is the model's. The texts are shared among
/// the machine's cores.
///
/// # Errors
///
/// [`Error::Io`](crate::Error::Io) when the model's table cannot be read.
pub fn embed_documents<T: AsRef<str> + Sync>(model: &Model, texts: &[T]) -> Result<Vec<(Vec<u8>, usize)>> {
    let one = |text: &T| -> Result<(Vec<u8>, usize)> {
        let (mut vectors, mut count) = (Vec::new(), 0);
        for piece in chunks(text.as_ref(), CHUNK_CHARS) {
            if let Some(vector) = model.embed(piece)? {
                vectors.extend(quantize(&vector).into_iter().map(i8::cast_unsigned));
                count += 1;
            }
        }
        Ok((vectors, count))
    };
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    if threads < 2 || texts.len() < 2 {
        return texts.iter().map(one).collect();
    }
    let share = texts.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = texts
            .chunks(share)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Result<Vec<_>>>()))
            .collect();
        let mut all = Vec::with_capacity(texts.len());
        for worker in workers {
            all.extend(worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?);
        }
        Ok(all)
    })
}

/// The similarity of `query` and the nearest of the int8 vectors stored one
/// after another in `stored` (as [`embed_documents`] gives them); `f32::MIN`
/// when there are none.
pub fn nearest_piece(query: &[i8], stored: &[u8]) -> f32 {
    stored.chunks_exact(query.len().max(1)).map(|piece| similarity_stored(query, piece)).fold(f32::MIN, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_piece_counts() {
        let query = [127_i8, 0];
        let stored: Vec<u8> = [[0_i8, 127], [127, 0]].concat().into_iter().map(i8::cast_unsigned).collect();
        assert!((nearest_piece(&query, &stored) - 1.0).abs() < 0.01);
        assert!((nearest_piece(&query, &stored[..2])).abs() < 0.01);
        assert!(nearest_piece(&query, &[]).total_cmp(&f32::MIN).is_eq());
    }
}
