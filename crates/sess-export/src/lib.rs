//! Sharing a session: its transcript written as Markdown (for another agent
//! or an issue) or as one self-contained HTML file (for people), the
//! Markdown of its messages rendered as safe HTML (for the page too), and
//! the secrets in it found and masked before anything leaves.

mod error;
mod escape;
mod highlight;
mod html;
mod markdown;
mod md;
mod redact;
mod text;
mod unified;

pub use error::{Error, Result};
pub use html::{CONTENT_SECURITY_POLICY, to_html_document};
pub use markdown::to_html;
pub use md::{MarkdownOptions, to_markdown};
pub use redact::{Finding, MessageFinding, Redactor, RuleInfo};

/// The style of the session view, the page's and the exported HTML's: the
/// page serves it before its own rules, and an exported file has it inline.
pub const SESSION_CSS: &str = include_str!("../assets/session.css");
