//! Sharing a session: its transcript written as Markdown (for another agent
//! or an issue) or as one self-contained HTML file (for people), the
//! Markdown of its messages rendered as safe HTML (for the page too), and
//! the secrets in it found and masked before anything leaves.

mod error;
mod redact;

pub use error::{Error, Result};
pub use redact::{Finding, MessageFinding, Redactor, RuleInfo};
