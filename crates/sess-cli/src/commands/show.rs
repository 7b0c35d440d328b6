//! `sess show SESSION [--all] [--json] [--leaf ID]`.

use std::io::Write;

use sess_sources::DEFAULT_MAX_MESSAGES;

use crate::Outcome;
use crate::cli::ShowArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::{print_json, stdout};
use crate::render::{Layout, render};

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
    let mut out = stdout();
    out.write_all(render(&transcript, &Layout::of_stdout()).as_bytes())?;
    out.flush()?;
    Ok(Outcome::Clean)
}
