//! Differential tests against the real agents (see `interop/README.md`).
//!
//! Sessions are generated through the peer's own `SessionManager` from a
//! random seed (printed, and set with `SESS_INTEROP_SEED` to replay), then read by
//! both sides and compared as JSON. The other way round, sessions written by
//! `sess` are opened by the peer. Where `sess` differs from a peer on purpose
//! (docs/format.md, "Where sess differs"), the test names the rule and asserts
//! the difference.
//!
//! The Claude Code, Codex and Gemini CLI tests (`interop/claude_code.rs`,
//! `interop/codex.rs`, `interop/gemini.rs`) instead run the real CLI against a
//! fake model API and check `sess list` and `sess show` against what the
//! driver reports the CLI did (`interop/<agent>/README.md`).
//!
//! The peers are installed by `interop/setup`. Without them the tests print that
//! they skipped, unless `SESS_INTEROP_REQUIRED=1` (CI), where they fail.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.
#![allow(clippy::print_stderr)] // The suite reports its seed, counts and skips.

#[path = "interop/claude_code.rs"]
mod claude_code;
#[path = "interop/codex.rs"]
mod codex;
#[path = "interop/gemini.rs"]
mod gemini;
#[path = "interop/harness.rs"]
mod harness;
#[path = "interop/oh_my_pi.rs"]
mod oh_my_pi;
#[path = "interop/pi_mono.rs"]
mod pi_mono;
