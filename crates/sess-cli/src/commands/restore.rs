//! `sess restore SESSION [--store URL] [--to DIR] [--machine NAME] [--json]`.

use std::io::Write;

use serde::Serialize;
use sess_archive::{Restored, StoredFile};

use crate::Outcome;
use crate::cli::RestoreArgs;
use crate::env::host;
use crate::output::{print_json, stdout};

/// The session's files with its main file at `version` (the others at their
/// newest), from every version of every file.
fn at_version(mut every: Vec<StoredFile>, version: i64, id: &str) -> anyhow::Result<Vec<StoredFile>> {
    let Some(main) = every.first().map(|f| f.path.clone()) else { return Ok(every) };
    let kept: Vec<i64> = every.iter().filter(|f| f.path == main).map(|f| f.version).collect();
    if !kept.contains(&version) {
        let kept: Vec<String> = kept.iter().map(i64::to_string).collect();
        anyhow::bail!("session {id} has no version {version} in the archive (it keeps {})", kept.join(", "));
    }
    // Oldest first: the last of each path is its newest.
    let mut files: Vec<StoredFile> = Vec::new();
    for file in every.drain(..) {
        if file.path == main && file.version != version {
            continue;
        }
        match files.iter_mut().find(|f| f.path == file.path) {
            Some(kept) => *kept = file,
            None => files.push(file),
        }
    }
    Ok(files)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Json<'a> {
    source: &'a str,
    id: &'a str,
    machine: &'a str,
    files: &'a [Restored],
}

pub(crate) fn run(args: &RestoreArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let url = store.map_or_else(|| sess::archive::default_url(&host().data_dir), str::to_owned);
    let mut vault = sess::archive::required(&url)?;
    let session = sess::archive::find(vault.as_mut(), &url, &args.session, args.machine.as_deref())?;
    let files = match args.version {
        None => vault.files(session.key)?,
        Some(version) => at_version(vault.versions(session.key)?, version, &session.meta.session_id)?,
    };
    let restored = sess_archive::restore(&session, &files, args.to.as_deref())?;
    if args.json {
        let json =
            Json { source: &session.source, id: &session.meta.session_id, machine: &session.machine, files: &restored };
        print_json(&json, false)?;
        return Ok(Outcome::Clean);
    }
    let mut out = stdout();
    let written = restored.iter().filter(|r| !r.unchanged).count();
    writeln!(
        out,
        "restored {} session {} ({written} files written, {} already there)",
        session.source,
        session.meta.session_id,
        restored.len() - written
    )?;
    for file in &restored {
        let note = if file.unchanged { "  (already there)" } else { "" };
        writeln!(out, "  {}{note}", file.path.display())?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}
