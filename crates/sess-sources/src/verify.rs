//! What `sess verify` reports for another agent's session file.

use sess_core::integrity::Finding;

/// The result of checking one session file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checked {
    /// How many entries the file holds: lines with a `uuid` for Claude Code,
    /// lines that parse for Codex.
    pub entries: usize,
    /// What is wrong, in line order.
    pub findings: Vec<Finding>,
}
