//! The error of the export crate.

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A rule of the secret rules that does not compile or is not one.
    #[error("secret rule `{rule}`: {message}")]
    Rule {
        /// The rule's name.
        rule: String,
        /// What is wrong with it.
        message: String,
    },
}

/// A result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
