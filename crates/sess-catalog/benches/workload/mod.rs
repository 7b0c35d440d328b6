//! The workload both catalog benches share: 2,000 Claude Code transcripts of
//! DESIGN.md §7 (`sess_testkit::workload::claude_transcripts`, seed 1), written
//! once into a temporary folder.

use sess_catalog::SourceFile;
use tempfile::TempDir;

/// Transcripts in the workload.
pub(crate) const TRANSCRIPTS: usize = 2_000;

/// The written transcripts; the folder lives as long as this.
pub(crate) struct Transcripts {
    #[allow(dead_code, reason = "the build bench only keeps the folder alive through it")]
    pub(crate) dir: TempDir,
    pub(crate) files: Vec<SourceFile>,
}

/// Writes the transcripts and lists them as the catalog's input.
pub(crate) fn write() -> Transcripts {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("claude");
    sess_testkit::workload::claude_transcripts(&config, TRANSCRIPTS, 1).unwrap();
    let files: Vec<SourceFile> = sess_sources::claude::session_files(&[config])
        .into_iter()
        .map(|(_, path)| SourceFile::new(sess_sources::claude::SOURCE, path))
        .collect();
    assert_eq!(files.len(), TRANSCRIPTS);
    Transcripts { dir, files }
}
