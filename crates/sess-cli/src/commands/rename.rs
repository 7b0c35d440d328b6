//! `sess rename SESSION TITLE`.

use std::io::Write;

use anyhow::{Context as _, bail};
use sess_core::EntryKind;
use sess_store::TitleSource;

use crate::Outcome;
use crate::cli::RenameArgs;
use crate::output::stdout;
use crate::session;

pub(crate) fn run(args: &RenameArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = session::open(&args.session, store)?;
    if !manager
        .set_session_name(&args.title, TitleSource::User)
        .with_context(|| format!("cannot rename `{}`", args.session))?
    {
        bail!("the title is empty once control characters are removed");
    }
    // pi-mono reads the name from `session_info` entries, not from the header.
    let pi_mono = manager.entries().iter().any(|e| matches!(e.kind(), EntryKind::SessionInfo(_)))
        || args.session.contains("/.pi/agent/");
    if pi_mono {
        let title = manager.session_name().unwrap_or_default();
        manager.append_session_info(&title)?;
    }
    manager.close()?;
    // The rewrite may have kept a copy of the original bytes: say where.
    session::report(&mut manager);
    let mut out = stdout();
    writeln!(out, "{}", manager.session_name().unwrap_or_default())?;
    out.flush()?;
    Ok(Outcome::Clean)
}
