//! `sess handoff SESSION --to AGENT [--leaf ID] [--print] [--json]`: a
//! session continued in another agent.

use anyhow::bail;
use serde_json::json;

use crate::Outcome;
use crate::cli::HandoffArgs;
use crate::env::host;
use crate::output::{Printed, note, print_json};

pub(crate) fn run(args: &HandoffArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    if store.is_some() {
        bail!("sess handoff hands over the sessions the agents keep on this machine, not those of a store (--store)");
    }
    let found = sess::resolve::locate_agent(&args.session, host(), &Printed)?;
    if args.leaf.is_some() && !found.kind.is_native() {
        bail!("--leaf works on pi-family sessions; `{}` is a {} session", args.session, found.kind);
    }
    let transcript = sess::load::transcript(&found, args.leaf.as_deref(), host(), &Printed)?;
    let cwd = args.cwd.as_deref().map(std::path::absolute).transpose()?;
    let handed = sess::handoff::hand_off(&found, &transcript, args.to, cwd.as_deref(), host(), &Printed)?;
    let written = &handed.written;
    if args.json {
        let value = json!({
            "to": args.to, "id": written.id, "path": written.path, "cwd": handed.resume.cwd,
            "argv": handed.resume.argv, "command": handed.resume.shell(),
            "from": {"source": found.kind, "id": transcript.id, "path": found.path},
            "tokens": handed.tokens, "windowTokens": written.window_tokens, "turns": handed.turns,
            "leftOut": handed.left_out,
        });
        print_json(&value, false)?;
        return Ok(Outcome::Clean);
    }
    note(format!(
        "handed the {} session {} to {}: {} turns, about {} tokens",
        found.kind.agent_name(),
        transcript.id,
        args.to.agent_name(),
        handed.turns,
        handed.tokens
    ));
    super::resume::print_line(&written.path.display().to_string())?;
    if args.print {
        note(format!("resume it with: {}", handed.resume.shell()));
        return Ok(Outcome::Clean);
    }
    super::resume::start(&handed.resume)
}
