//! What embedding messages did (search by meaning), as `sess index` and
//! `sess archive --model` report it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use sess_catalog::EmbedReport;

/// What embedding the messages did.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Embedded {
    model: PathBuf,
    documents: usize,
    vectors: usize,
    text_bytes: usize,
    /// Whether the vectors of another model were dropped first.
    dropped: bool,
    millis: u128,
}

impl Embedded {
    /// What `report` says of the model in `dir`, which began at `started`.
    pub(crate) fn new(dir: &Path, report: &EmbedReport, started: Instant) -> Self {
        Self {
            model: dir.to_owned(),
            documents: report.documents,
            vectors: report.vectors,
            text_bytes: report.bytes,
            dropped: report.dropped,
            millis: started.elapsed().as_millis(),
        }
    }

    /// Its line of a verb's report.
    pub(crate) fn print(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            out,
            "{} messages embedded ({} vectors, {} KiB of text) with `{}` in {} ms{}",
            self.documents,
            self.vectors,
            self.text_bytes / 1024,
            self.model.display(),
            self.millis,
            if self.dropped { "; the vectors of another model were dropped first" } else { "" }
        )
    }
}
