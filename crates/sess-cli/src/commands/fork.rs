//! `sess fork SESSION --at ENTRY [--new-session] [--dir DIR]`.

use std::io::Write;

use anyhow::{Context as _, bail};

use crate::Outcome;
use crate::cli::ForkArgs;
use crate::output::stdout;
use crate::session;

pub(crate) fn run(args: &ForkArgs) -> anyhow::Result<Outcome> {
    let mut manager = session::open(&args.session)?;
    if manager.entry(&args.at).is_none() {
        bail!("`{}` has no entry `{}`", args.session, args.at);
    }
    let mut out = stdout();
    if args.new_session {
        let path = manager
            .create_branched_session_in(&args.at, args.dir.as_deref())
            .with_context(|| format!("cannot fork `{}` at `{}`", args.session, args.at))?
            .context("the session is not persisted")?;
        manager.close()?;
        writeln!(out, "{}", path.display())?;
    } else {
        // The leaf after loading a file is its last entry, so the branch point is
        // recorded as an entry: a `branch_summary` under ENTRY with no summary,
        // which adds nothing to the context. The next append continues from it.
        let id = manager
            .branch_with_summary(Some(&args.at), "", None, None)
            .with_context(|| format!("cannot fork `{}` at `{}`", args.session, args.at))?;
        manager.close()?;
        writeln!(out, "{id}")?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}
