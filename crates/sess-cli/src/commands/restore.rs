//! `sess restore SESSION [--store URL] [--to DIR] [--machine NAME] [--json]`.

use std::io::Write;

use serde::Serialize;
use sess_archive::Restored;

use crate::Outcome;
use crate::cli::RestoreArgs;
use crate::output::{print_json, stdout};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Json<'a> {
    source: &'a str,
    id: &'a str,
    machine: &'a str,
    files: &'a [Restored],
}

pub(crate) fn run(args: &RestoreArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let url = store.map_or_else(crate::archive::default_url, str::to_owned);
    let mut vault = crate::archive::required(&url)?;
    let session = crate::archive::find(vault.as_mut(), &url, &args.session, args.machine.as_deref())?;
    let files = vault.files(session.key)?;
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
