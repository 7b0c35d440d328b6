//! `sess segments FILE [--json]`.

use std::io::Write;

use serde::Serialize;
use sess_core::segment::{self, Origin};

use crate::Outcome;
use crate::cli::SegmentsArgs;
use crate::env::host;
use crate::output::Printed;
use crate::output::{print_json, stdout};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SegmentJson<'a> {
    id: &'a str,
    origin: Origin,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fork_at: Option<usize>,
    entries: Vec<&'a str>,
}

pub(crate) fn run(args: &SegmentsArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let file = sess::pi::read("segments", &args.file, store, host(), &Printed)?;
    let entries = file.entries();
    let derived = segment::derive(entries);
    let rows: Vec<SegmentJson<'_>> = derived
        .segments
        .iter()
        .enumerate()
        .map(|(index, s)| SegmentJson {
            id: derived.id(entries, index).as_str(),
            origin: s.origin,
            parent: s.parent.map(|p| derived.id(entries, p).as_str()),
            fork_at: s.fork_at,
            entries: s.entries.iter().map(|&p| entries[p].id().as_str()).collect(),
        })
        .collect();
    if args.json {
        print_json(&rows, false)?;
        return Ok(Outcome::Clean);
    }
    let mut out = stdout();
    let width = rows.iter().map(|r| r.id.len()).max().unwrap_or(0);
    for row in &rows {
        let lineage = match (row.parent, row.fork_at) {
            (Some(parent), Some(at)) => format!("from {parent} at seq {at}"),
            _ => String::new(),
        };
        let count = row.entries.len();
        let noun = if count == 1 { "entry" } else { "entries" };
        let line = format!("{:<width$}  {:<7}  {count:>6} {noun:<7}  {lineage}", row.id, row.origin.as_str());
        writeln!(out, "{}", line.trim_end())?;
    }
    writeln!(out, "{} segments, {} entries", rows.len(), entries.len())?;
    out.flush()?;
    Ok(Outcome::Clean)
}
