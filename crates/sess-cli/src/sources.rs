//! Every agent's sessions on this machine: listing them, and loading one as a
//! transcript (`resolve` finds one by id or path).

use std::path::PathBuf;

use anyhow::Context as _;
use sess_core::Leaf;
use sess_sources::{Listing, Scope, SourceKind, Transcript};

use crate::env::sources_env;
use crate::output::warn_issues;
use crate::resolve::{Located, agent_of, locate};

/// A session read whole for a verb that shows or writes it (`show`,
/// `export`), and the file it was read from, when it is a file.
pub(crate) struct Read {
    pub(crate) transcript: Transcript,
    pub(crate) file: Option<PathBuf>,
}

/// The session `arg` names, read whole: in the archive `store` holds, in the
/// store `store` names, or a file or id of any agent; at `leaf` for a
/// pi-family one (not an archived one). Warns about the lines it had to skip.
pub(crate) fn read(arg: &str, leaf: Option<&str>, store: Option<&str>) -> anyhow::Result<Read> {
    let archived = store.map(crate::archive::existing).transpose()?.flatten();
    if let (Some(url), Some(mut vault)) = (store, archived) {
        if leaf.is_some() {
            anyhow::bail!("--leaf does not apply to an archived session; `sess restore` writes it back");
        }
        let session = crate::archive::find(vault.as_mut(), url, arg, None)?;
        let transcript = crate::archive::load(vault.as_mut(), &session)?;
        return Ok(Read { transcript, file: None });
    }
    if let Some(url) = store {
        let loaded = crate::load::load(arg, Some(url))?;
        return Ok(Read { transcript: pi_transcript(&loaded.file, leaf, arg)?, file: None });
    }
    let mut found: Located = locate(arg)?;
    if !found.recognised {
        found.kind = agent_of(&found.path)?;
    }
    if leaf.is_some() && !found.kind.is_native() {
        anyhow::bail!("--leaf works on pi-family sessions; `{arg}` is a {} session", found.kind);
    }
    let transcript = transcript(&found, leaf)?;
    warn_issues(&found.path, &transcript.issues);
    Ok(Read { transcript, file: Some(found.path) })
}

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
