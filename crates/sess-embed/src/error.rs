//! The error type of `sess-embed`.

use std::path::PathBuf;

/// What can go wrong loading a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file the model folder must hold is not there.
    #[error("`{}` has no {what}", dir.display())]
    Missing {
        /// The model folder.
        dir: PathBuf,
        /// What it lacks: `tokenizer.json`, a `.safetensors` file.
        what: String,
    },
    /// Reading a file failed.
    #[error("reading `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A `tokenizer.json` the tokenizer library does not take.
    #[error("`{}` is not a tokenizer this can read: {message}", path.display())]
    Tokenizer {
        /// The file.
        path: PathBuf,
        /// What the library said.
        message: String,
    },
    /// A `.safetensors` file without an embedding table this can use.
    #[error("`{}` holds no embedding table: {message}", path.display())]
    Table {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
