//! Every agent's sessions on this machine: listing them, and loading one as a
//! transcript (`resolve` finds one by id or path).

use anyhow::Context as _;
use sess_core::Leaf;
use sess_sources::{Listing, Scope, SourceKind, Transcript};

use crate::env::sources_env;
use crate::resolve::Located;

/// The sessions of one agent on this machine, within `scope`.
pub(crate) fn list(kind: SourceKind, scope: Scope<'_>) -> Listing {
    kind.source().list(sources_env(), scope)
}

/// The transcript of a located session, at `leaf` for a pi-family one.
pub(crate) fn transcript(found: &Located, leaf: Option<&str>) -> anyhow::Result<Transcript> {
    let path = &found.path;
    let context = || format!("cannot read `{}`", path.display());
    if found.kind.is_native() {
        let outcome = crate::load::load_path(path)?;
        return pi_transcript(&outcome.file, leaf, &path.display().to_string());
    }
    match &found.row {
        Some(id) => found.kind.source().load_row(path, id).with_context(context),
        None => found.kind.source().load(path).with_context(context),
    }
}

/// A pi-family transcript at `leaf`, which must be an entry of the session.
pub(crate) fn pi_transcript(
    file: &sess_core::SessionFile,
    leaf: Option<&str>,
    name: &str,
) -> anyhow::Result<Transcript> {
    let leaf = match leaf {
        Some(id) if !file.entries().iter().any(|e| e.id().as_str() == id) => {
            anyhow::bail!("`{name}` has no entry `{id}`")
        }
        Some(id) => Leaf::Id(id),
        None => Leaf::Last,
    };
    Ok(sess_sources::pi::transcript(file, leaf))
}
