//! `sess show SESSION [--all] [--json] [--leaf ID]`.

use std::io::{IsTerminal, Write};

use sess_sources::DEFAULT_MAX_MESSAGES;

use crate::Outcome;
use crate::cli::ShowArgs;
use crate::output::{print_json, stdout, warn_issues};
use crate::render::{Layout, render};
use crate::resolve::{Located, agent_of, locate};
use crate::sources::{pi_transcript, transcript};

/// Columns when stdout is not a terminal.
const DEFAULT_WIDTH: usize = 100;

pub(crate) fn run(args: &ShowArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let archived = store.map(crate::archive::existing).transpose()?.flatten();
    let mut transcript = if let (Some(url), Some(mut vault)) = (store, archived) {
        if args.leaf.is_some() {
            anyhow::bail!("--leaf does not apply to an archived session; `sess restore` writes it back");
        }
        let session = crate::archive::find(vault.as_mut(), url, &args.session, None)?;
        crate::archive::load(vault.as_mut(), &session)?
    } else if let Some(url) = store {
        let loaded = crate::load::load(&args.session, Some(url))?;
        pi_transcript(&loaded.file, args.leaf.as_deref(), &args.session)?
    } else {
        let mut found: Located = locate(&args.session)?;
        if !found.recognised {
            found.kind = agent_of(&found.path)?;
        }
        if args.leaf.is_some() && !found.kind.is_native() {
            anyhow::bail!("--leaf works on pi-family sessions; `{}` is a {} session", args.session, found.kind);
        }
        let transcript = transcript(&found, args.leaf.as_deref())?;
        warn_issues(&found.path, &transcript.issues);
        transcript
    };
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
