//! `sess context FILE [--leaf ID]`.

use anyhow::bail;

use crate::Outcome;
use crate::cli::ContextArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::{print_json, warn};

pub(crate) fn run(args: &ContextArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let file = sess::pi::read("context", &args.file, store, host(), &Printed)?;
    let Some(ctx) = sess::pi::context_at(&file, args.leaf.as_deref()) else {
        bail!("`{}` has no entry `{}`", args.file, args.leaf.as_deref().unwrap_or_default());
    };
    if let Some(at) = &ctx.cycle_at {
        warn(format_args!("`{}`: the parent chain loops at entry {at}; the context stops there", args.file));
    }
    print_json(&ctx, args.compact)?;
    // The process ends next: freeing every entry one by one would only cost time.
    std::mem::forget(file);
    Ok(Outcome::Clean)
}
