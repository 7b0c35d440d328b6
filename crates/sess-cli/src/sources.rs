//! Every agent's sessions on this machine: listing them, and loading one as a
//! transcript, as the library reads them ([`sess::load`]) in this process's
//! environment, its warnings printed.

use sess_sources::{Listing, Scope, SourceKind, Transcript};

pub(crate) use sess::load::Read;

use crate::env::{environment, sources_env};
use crate::output::{warn, warn_skipped};
use crate::resolve::Located;

/// The session `arg` names, read whole: in the archive `store` holds, in the
/// store `store` names, or a file or id of any agent; at `leaf` for a
/// pi-family one (not an archived one). Warns about the lines it had to skip.
pub(crate) fn read(arg: &str, leaf: Option<&str>, store: Option<&str>) -> anyhow::Result<Read> {
    let environment = environment();
    let place = sess::load::Place { env: sources_env(), environment: &environment };
    Ok(sess::load::read(arg, leaf, store, &place, &mut |names| warn_skipped(names), &mut |line| {
        warn(format_args!("{line}"));
    })?)
}

/// The sessions of one agent on this machine, within `scope`.
pub(crate) fn list(kind: SourceKind, scope: Scope<'_>) -> Listing {
    kind.source().list(sources_env(), scope)
}

/// The transcript of a located session, at `leaf` for a pi-family one.
pub(crate) fn transcript(found: &Located, leaf: Option<&str>) -> anyhow::Result<Transcript> {
    Ok(sess::load::transcript(found, leaf, &environment(), &mut |line| warn(format_args!("{line}")))?)
}
