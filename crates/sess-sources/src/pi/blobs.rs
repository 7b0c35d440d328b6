//! The blobs a pi-family session refers to: images xcsh and oh-my-pi moved
//! out of its lines into the agent's content-addressed store, named in the
//! lines as `blob:sha256:<hex>` (`sess_store`'s `blob.rs`).
//!
//! The store is `blobs/` beside the agent's `sessions/` folder (both under
//! the agent folder, or both under `$XDG_DATA_HOME/<agent>`): the nearest
//! `sessions` folder above the session file says where.

use std::path::{Path, PathBuf};

use sess_store::parse_blob_ref;

use crate::jsonl::read_file;

/// The prefix of a reference in a line.
const PREFIX: &[u8] = b"blob:sha256:";

/// The number of hex digits after it.
const HEX_DIGITS: usize = 64;

/// The blob files that the lines of the session file at `path` refer to and
/// that exist, sorted, each once; none without a blob store (pi-mono has
/// none), and then the file is not read.
pub(super) fn referenced(path: &Path) -> Vec<PathBuf> {
    let Some(store) = store_of(path).filter(|store| store.is_dir()) else { return Vec::new() };
    let Ok(bytes) = read_file(path) else { return Vec::new() };
    let files = memchr::memmem::find_iter(&bytes, PREFIX)
        .filter_map(|at| bytes.get(at..at + PREFIX.len() + HEX_DIGITS))
        .filter_map(|reference| std::str::from_utf8(reference).ok())
        .filter_map(parse_blob_ref)
        .map(|hex| store.join(hex))
        .collect();
    crate::companions::finish(path, files)
}

/// The blob store of the agent whose `sessions` folder holds `path`.
fn store_of(path: &Path) -> Option<PathBuf> {
    let sessions = path.ancestors().skip(1).find(|dir| dir.file_name().is_some_and(|n| n == "sessions"))?;
    Some(sessions.with_file_name("blobs"))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // Tests write their inputs directly.
mod tests {
    use std::fs;

    use sess_store::{blob_hash, blob_ref};

    use super::*;
    use crate::source::{Growth, Source};

    #[test]
    fn a_session_lists_the_blobs_it_refers_to_that_exist() {
        let agent = tempfile::tempdir().unwrap();
        let blobs = agent.path().join("blobs");
        fs::create_dir_all(&blobs).unwrap();
        let (a, b, missing) = (blob_hash(b"a"), blob_hash(b"b"), blob_hash(b"gone"));
        fs::write(blobs.join(&a), b"a").unwrap();
        fs::write(blobs.join(&b), b"b").unwrap();
        let folder = agent.path().join("sessions/--p--");
        fs::create_dir_all(&folder).unwrap();
        let session = folder.join("2026-12-01T10-00-00-000Z_x.jsonl");
        let lines = [
            r#"{"type":"session","version":3,"id":"x","cwd":"/p","timestamp":"2026-12-01T10:00:00.000Z"}"#.to_owned(),
            format!(r#"{{"type":"message","message":{{"content":[{{"type":"image","data":"{}"}}]}}}}"#, blob_ref(&b)),
            format!(r#"{{"data":"{}","again":"{}","gone":"{}"}}"#, blob_ref(&a), blob_ref(&b), blob_ref(&missing)),
            // Not references: too short, upper case.
            format!(r#"{{"x":"blob:sha256:{}","y":"blob:sha256:{}"}}"#, &a[..10], a.to_uppercase()),
        ];
        fs::write(&session, lines.join("\n")).unwrap();
        let mut expected = vec![blobs.join(&a), blobs.join(&b)];
        expected.sort();
        assert_eq!(super::super::Pi.companions(&session), expected);
        assert_eq!(super::super::Pi.growth(&session), Growth::Lines);
        assert_eq!(super::super::Pi.growth(&blobs.join(&a)), Growth::Whole);

        // The same lines outside any agent's `sessions` folder: no store.
        let stray = agent.path().join("elsewhere.jsonl");
        fs::write(&stray, lines.join("\n")).unwrap();
        assert!(super::super::Pi.companions(&stray).is_empty());
    }

    #[test]
    fn a_session_without_references_or_store_has_no_companions() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-family/pi-mono-0.73.1-main.jsonl");
        assert!(super::super::Pi.companions(&path).is_empty());
        assert_eq!(super::super::Pi.growth(&path), Growth::Lines);
        let agent = tempfile::tempdir().unwrap();
        fs::create_dir_all(agent.path().join("blobs")).unwrap();
        let folder = agent.path().join("sessions/--p--");
        fs::create_dir_all(&folder).unwrap();
        let session = folder.join("s.jsonl");
        fs::copy(&path, &session).unwrap();
        assert!(super::super::Pi.companions(&session).is_empty());
    }
}
