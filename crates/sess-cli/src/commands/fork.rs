//! `sess fork SESSION --at ENTRY [--new-session] [--dir DIR]`.

use std::io::Write;

use anyhow::{Context as _, bail};

use crate::Outcome;
use crate::cli::ForkArgs;
use crate::output::stdout;
use crate::session;

pub(crate) fn run(args: &ForkArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = session::open(&args.session, store)?;
    let at = branch_point(&mut manager, &args.session, &args.at)?;
    let mut out = stdout();
    if args.new_session {
        match branch_into_new_session(&mut manager, &args.session, at.as_deref(), args.dir.as_deref())? {
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

/// The entry a fork was asked for is not in the session.
#[derive(Debug)]
pub(crate) struct NoSuchEntry {
    session: String,
    entry: String,
}

impl std::fmt::Display for NoSuchEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` has no entry `{}`", self.session, self.entry)
    }
}

impl std::error::Error for NoSuchEntry {}

/// A session written by [`new_session`].
pub(crate) struct NewSession {
    /// Its id.
    pub(crate) id: String,
    /// Its file; `None` in a store.
    pub(crate) path: Option<std::path::PathBuf>,
}

/// Writes a new session holding the path from the root to `entry` of
/// `session` (a pi-family file, or an id in `store`), beside it: `sess fork
/// --new-session`, for the web page.
pub(crate) fn new_session(session: &str, store: Option<&str>, entry: &str) -> anyhow::Result<NewSession> {
    let mut manager = session::open(session, store)?;
    if manager.entry(entry).is_none() {
        return Err(NoSuchEntry { session: session.to_owned(), entry: entry.to_owned() }.into());
    }
    let path = branch_into_new_session(&mut manager, session, Some(entry), None)?;
    Ok(NewSession { id: manager.session_id().to_owned(), path })
}

/// The new session of `--new-session`: its file, or `None` in a store.
fn branch_into_new_session(
    manager: &mut sess_store::SessionManager,
    session: &str,
    at: Option<&str>,
    dir: Option<&std::path::Path>,
) -> anyhow::Result<Option<std::path::PathBuf>> {
    let Some(at) = at else { bail!("turn 0 of `{session}` has no entries to copy into a new session") };
    let path =
        manager.create_branched_session_in(at, dir).with_context(|| format!("cannot fork `{session}` at `{at}`"))?;
    manager.close()?;
    Ok(path)
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
