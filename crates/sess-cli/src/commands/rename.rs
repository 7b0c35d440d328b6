//! `sess rename SESSION TITLE`.

use std::io::Write;

use anyhow::{Context as _, bail};

use crate::Outcome;
use crate::cli::RenameArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::stdout;

pub(crate) fn run(args: &RenameArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = sess::session::open(&args.session, store, host(), &Printed)?;
    if !manager.rename(&args.title).with_context(|| format!("cannot rename `{}`", args.session))? {
        bail!("the title is empty once control characters are removed");
    }
    manager.close()?;
    // The rewrite may have kept a copy of the original bytes: say where.
    sess::session::tell_notices(&mut manager, &Printed);
    let mut out = stdout();
    writeln!(out, "{}", manager.session_name().unwrap_or_default())?;
    out.flush()?;
    Ok(Outcome::Clean)
}
