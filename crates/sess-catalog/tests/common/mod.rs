//! What the catalog's tests share: a scratch folder with a catalog and the
//! session files written into it, and pi sessions made of a few messages.
#![allow(dead_code, reason = "each test file uses part of it")]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use sess_catalog::{Catalog, Hit, SearchParams, SourceFile};
use sess_sources::SourceKind;
use tempfile::TempDir;

pub(crate) const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");

pub(crate) struct Setup {
    pub(crate) dir: TempDir,
    pub(crate) catalog: Catalog,
    pub(crate) files: Vec<SourceFile>,
}

impl Setup {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let catalog = Catalog::open(dir.path().join("cache/catalog.sqlite")).unwrap();
        Self { dir, catalog, files: Vec::new() }
    }

    /// Adds a file with `text` as `name`.
    pub(crate) fn add(&mut self, source: SourceKind, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        fs::write(&path, text).unwrap();
        self.files.push(SourceFile::new(source, path.clone()));
        path
    }

    pub(crate) fn copy(&mut self, source: SourceKind, fixture: &str, name: &str) -> PathBuf {
        let text = fs::read_to_string(Path::new(FIXTURES).join(fixture)).unwrap();
        self.add(source, name, &text)
    }

    pub(crate) fn refresh(&mut self) -> sess_catalog::RefreshReport {
        self.catalog.refresh(&self.files, &mut |_| {}).unwrap()
    }

    pub(crate) fn search(&self, query: &str) -> Vec<Hit> {
        self.catalog.search(&SearchParams::new(query)).unwrap()
    }

    pub(crate) fn ids(&self, query: &str) -> Vec<String> {
        self.search(query).into_iter().map(|h| h.session.id).collect()
    }
}

/// A pi session in `cwd` with `messages`, `(role, text)` each.
pub(crate) fn pi_session(id: &str, cwd: &str, messages: &[(&str, &str)]) -> String {
    let mut out =
        format!(r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}}"#)
            + "\n";
    let mut parent = "null".to_owned();
    for (i, (role, text)) in messages.iter().enumerate() {
        let entry = format!("e{i}");
        writeln!(
            out,
            r#"{{"type":"message","id":"{entry}","parentId":{parent},"timestamp":"2026-01-01T00:00:0{i}.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"timestamp":1}}}}"#
        )
        .unwrap();
        parent = format!("\"{entry}\"");
    }
    out
}
