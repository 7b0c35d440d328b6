//! Differential tests against the real agents (see `interop/README.md`).
//!
//! Sessions are generated through the peer's own `SessionManager` from a
//! random seed (printed, and set with `SESS_INTEROP_SEED` to replay), then read by
//! both sides and compared as JSON. The other way round, sessions written by
//! `sess` are opened by the peer. Where `sess` differs from a peer on purpose
//! (docs/format.md, "Where sess differs"), the test names the rule and asserts
//! the difference.
//!
//! The Codex test (`interop/codex.rs`) instead runs the real Codex CLI against
//! a fake model API and checks `sess list` and `sess show` against what the
//! driver reports Codex did (`interop/codex/README.md`); so do the Claude Code,
//! OpenCode, Kilo, Copilot CLI, Qwen Code, Gemini CLI, Continue CLI, Cline CLI, Aider
//! and Factory Droid tests (`interop/claude-code/`, `interop/opencode/`, `interop/kilo/`,
//! `interop/copilot/`, `interop/qwen-code/`, `interop/gemini/`, `interop/continue/`,
//! `interop/cline/`, `interop/aider/`, `interop/droid/`).
//! The MCP test (`interop/mcp_clients.rs`) has the official MCP client SDKs
//! (TypeScript and Python) drive `sess mcp` over stdio (`interop/mcp/`). The
//! usage test (`interop/usage.rs`) compares `sess usage daily` with ccusage's
//! and ccusage-codex's daily reports on the same files (`interop/ccusage/`).
//!
//! The peers are installed by `interop/setup`. Without them the tests print that
//! they skipped, unless `SESS_INTEROP_REQUIRED=1` (CI), where they fail.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.
#![allow(clippy::print_stderr)] // The suite reports its seed, counts and skips.

#[path = "interop/aider.rs"]
mod aider;
#[path = "interop/claude_code.rs"]
mod claude_code;
#[path = "interop/cline.rs"]
mod cline;
#[path = "interop/codex.rs"]
mod codex;
mod common;
#[path = "interop/continue_cli.rs"]
mod continue_cli;
#[path = "interop/copilot.rs"]
mod copilot;
#[path = "interop/droid.rs"]
mod droid;
#[path = "interop/gemini.rs"]
mod gemini;
#[path = "interop/handoff.rs"]
mod handoff;
#[path = "interop/harness.rs"]
mod harness;
#[path = "interop/kilo.rs"]
mod kilo;
#[path = "interop/mcp_clients.rs"]
mod mcp_clients;
#[path = "interop/oh_my_pi.rs"]
mod oh_my_pi;
#[path = "interop/opencode.rs"]
mod opencode;
#[path = "interop/pi_mono.rs"]
mod pi_mono;
#[path = "interop/qwen_code.rs"]
mod qwen_code;
#[path = "interop/usage.rs"]
mod usage;
