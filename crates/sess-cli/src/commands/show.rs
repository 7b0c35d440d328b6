//! `sess show SESSION [--all] [--json] [--leaf ID]`.

use std::io::{IsTerminal, Write};

use sess_sources::DEFAULT_MAX_MESSAGES;

use crate::Outcome;
use crate::cli::ShowArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::{print_json, stdout};
use crate::render::{Layout, render};

/// Columns when stdout is not a terminal.
const DEFAULT_WIDTH: usize = 100;

pub(crate) fn run(args: &ShowArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut transcript = sess::load::read(&args.session, args.leaf.as_deref(), store, host(), &Printed)?.transcript;
    if !args.all {
        transcript.keep_newest(DEFAULT_MAX_MESSAGES);
    }
    sess_sources::add_diffs(&mut transcript);
    if args.json {
        print_json(&transcript, false)?;
        return Ok(Outcome::Clean);
    }
    let terminal = std::io::stdout().is_terminal();
    let width = match console::Term::stdout().size_checked() {
        Some((_, cols)) if terminal => usize::from(cols),
        _ => std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(DEFAULT_WIDTH),
    };
    let colour = terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut out = stdout();
    out.write_all(render(&transcript, &Layout { width, colour }).as_bytes())?;
    out.flush()?;
    Ok(Outcome::Clean)
}
