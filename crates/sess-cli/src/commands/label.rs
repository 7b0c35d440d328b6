//! `sess label SESSION ENTRY TEXT` and `sess label SESSION ENTRY --clear`.

use std::io::Write;

use anyhow::Context as _;

use crate::Outcome;
use crate::cli::LabelArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::stdout;

pub(crate) fn run(args: &LabelArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = sess::session::open(&args.session, store, host(), &Printed)?;
    let text = if args.clear { None } else { args.text.as_deref() };
    let id = manager
        .append_label_change(&args.entry, text)
        .with_context(|| format!("cannot label entry `{}` of `{}`", args.entry, args.session))?;
    manager.close()?;
    let mut out = stdout();
    writeln!(out, "{id}")?;
    out.flush()?;
    Ok(Outcome::Clean)
}
