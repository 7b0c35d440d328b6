//! `sess context FILE [--leaf ID]`.

use anyhow::bail;
use sess_core::{EntryIndex, Leaf, context};

use crate::Outcome;
use crate::cli::ContextArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::{print_json, warn};
use sess::resolve::Session;

pub(crate) fn run(args: &ContextArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let session = sess::resolve::session(&args.file, store, host(), &Printed)?;
    if let Session::File(found) = &session {
        sess::resolve::pi_only("context", &args.file, found)?;
    }
    let outcome = sess::load::load_session(session, host(), &Printed)?;
    let entries = outcome.entries();
    let index = EntryIndex::new(entries);
    let leaf = match &args.leaf {
        Some(id) if !index.contains(id) => bail!("`{}` has no entry `{id}`", args.file),
        Some(id) => Leaf::Id(id),
        None => Leaf::Last,
    };
    let ctx = context::build(entries, &index, leaf);
    if let Some(at) = &ctx.cycle_at {
        warn(format_args!("`{}`: the parent chain loops at entry {at}; the context stops there", args.file));
    }
    print_json(&ctx, args.compact)?;
    // The process ends next: freeing every entry one by one would only cost time.
    std::mem::forget(outcome);
    Ok(Outcome::Clean)
}
