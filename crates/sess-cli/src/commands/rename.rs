//! `sess rename SESSION TITLE`.

use std::io::Write;

use anyhow::{Context as _, bail};
use sess_store::TitleSource;

use crate::Outcome;
use crate::cli::RenameArgs;
use crate::output::stdout;
use crate::session;

pub(crate) fn run(args: &RenameArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = session::open(&args.session, store)?;
    // A session named by `session_info` entries gets one too: the header's
    // title is not where its agent reads the name.
    let session_info = manager.names_with_session_info();
    if !manager
        .set_session_name(&args.title, TitleSource::User)
        .with_context(|| format!("cannot rename `{}`", args.session))?
    {
        bail!("the title is empty once control characters are removed");
    }
    if session_info {
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
