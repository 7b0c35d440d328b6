//! What to do about an error, for people: the last link of an error's chain
//! of causes, which a front-end shows as a hint rather than as a cause.

use std::fmt::Display;

/// What the person can do about the error it is the cause of.
#[derive(Debug)]
pub struct Hint(pub String);

impl Display for Hint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Hint {}
