//! What the sources share in finding a session's companions
//! ([`Source::companions`](crate::Source::companions)): the other files a
//! session is made of.

use std::fs;
use std::path::{Path, PathBuf};

/// Whether `path` is a regular file (a link followed).
pub(crate) fn is_regular(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|metadata| metadata.is_file())
}

/// The files directly in `dir` whose names `keep` accepts (none when it is
/// missing or unreadable), in no particular order.
pub(crate) fn files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    entries.flatten().filter(|entry| entry.file_name().to_str().is_some_and(&keep)).map(|entry| entry.path()).collect()
}

/// `files` as the companions of the session whose main file is `main`: the
/// regular files among them, sorted, each once, `main` left out. A link
/// among them that leads to nothing (a loop, or dangling) is kept: it is a
/// file of the session that cannot be read, which reading it reports.
pub(crate) fn finish(main: &Path, mut files: Vec<PathBuf>) -> Vec<PathBuf> {
    files.retain(|file| file != main && (is_regular(file) || crate::listing::leads_nowhere(file)));
    files.sort();
    files.dedup();
    files
}
