//! `sess fork SESSION --at ENTRY [--new-session] [--dir DIR]`.

use std::io::Write;

use anyhow::{Context as _, bail};

use crate::Outcome;
use crate::cli::ForkArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::stdout;

pub(crate) fn run(args: &ForkArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = sess::session::open(&args.session, store, host(), &Printed)?;
    let at = branch_point(&mut manager, &args.session, &args.at)?;
    let mut out = stdout();
    if args.new_session {
        match sess::session::branch_into_new_session(&mut manager, &args.session, at.as_deref(), args.dir.as_deref())? {
            Some(path) => writeln!(out, "{}", path.display())?,
            None => writeln!(out, "{}", manager.session_id())?,
        }
    } else {
        // The leaf after loading is the last entry, so the branch point is
        // recorded as an entry: a `branch_summary` under ENTRY with no summary,
        // which adds nothing to the context. The next append continues from it.
        let id = manager
            .branch_with_summary(at.as_deref(), "", None, None)
            .with_context(|| format!("cannot fork `{}` at `{}`", args.session, args.at))?;
        manager.close()?;
        writeln!(out, "{id}")?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// The entry `at` names (`None`: before the first entry), from an id or `turn:N`.
fn branch_point(manager: &mut sess_store::SessionManager, session: &str, at: &str) -> anyhow::Result<Option<String>> {
    if let Some(turn) = at.strip_prefix("turn:") {
        let turn: usize = turn.parse().with_context(|| format!("`{at}`: the turn is not a number"))?;
        manager.branch_at_turn(turn).with_context(|| format!("cannot fork `{session}` at {at}"))?;
        return Ok(manager.leaf_id().map(ToString::to_string));
    }
    if manager.entry(at).is_none() {
        bail!("`{session}` has no entry `{at}`");
    }
    Ok(Some(at.to_owned()))
}
