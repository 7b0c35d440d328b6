//! Static embeddings for search by meaning, with no model server and no
//! network: a model is a folder holding a Hugging Face `tokenizer.json` and
//! one `.safetensors` file with the vocabulary's 2-D embedding table (f32 or
//! f16), as model2vec's potion models and `wordllama` ship them. A text's
//! vector is the mean of its tokens' rows, normalized ([`Model::embed`]);
//! vectors are kept as int8 ([`quantize`]) and compared by their dot
//! product ([`similarity`]). Long texts are embedded in pieces ([`chunks`]).
//!
//! The crate reads the model folder it is given and nothing else: it never
//! downloads anything, reads no environment variable and prints nothing.

mod chunk;
mod error;
mod model;
mod pieces;
mod quantize;
mod table;

pub use chunk::{CHUNK_CHARS, chunks};
pub use error::{Error, Result};
pub use model::Model;
pub use pieces::{embed_documents, nearest_piece};
pub use quantize::{SCALE, binarize, hamming, quantize, similarity, similarity_stored};
