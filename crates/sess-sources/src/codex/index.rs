//! Thread names from `<codex home>/session_index.jsonl`.
//!
//! The file is append-only: `{"id","thread_name","updated_at"}` per rename.
//! Codex scans it from the end and takes the first entry for an id, so the
//! entry **last in file order** wins, whatever its `updated_at` says. Entries
//! with a blank name are ignored, as Codex's batch lookup for its listing does.
//! Lines that do not parse are skipped; a missing or unreadable file is an
//! empty index.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use crate::jsonl::JsonLines;

/// The index file under the Codex home.
pub(crate) const SESSION_INDEX_FILE: &str = "session_index.jsonl";

/// Thread names by thread id.
#[derive(Debug, Default)]
pub(crate) struct Titles(HashMap<String, String>);

#[derive(Deserialize)]
struct IndexLine {
    id: String,
    #[serde(default)]
    thread_name: Option<String>,
}

impl Titles {
    /// The index of the Codex home `codex_home`.
    pub(crate) fn read(codex_home: &Path) -> Self {
        std::fs::read(codex_home.join(SESSION_INDEX_FILE)).map(|bytes| Self::parse(&bytes)).unwrap_or_default()
    }

    /// The index in `bytes`.
    pub(crate) fn parse(bytes: &[u8]) -> Self {
        let mut names = HashMap::new();
        for line in JsonLines::new(bytes) {
            if let Ok(IndexLine { id, thread_name: Some(name) }) = line.parse::<IndexLine>()
                && !name.trim().is_empty()
            {
                names.insert(id, name.trim().to_owned());
            }
        }
        Self(names)
    }

    /// The name of thread `id`, when it has one.
    pub(crate) fn get(&self, id: &str) -> Option<&str> {
        self.0.get(id).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_entry_for_an_id_wins() {
        let fixture = include_bytes!("../../../../fixtures/codex/codex-session_index.jsonl");
        let titles = Titles::parse(fixture);
        assert_eq!(titles.get("0199c3a1-5f2e-7d40-9b1a-3c4d5e6f7a81"), Some("parsekit: day/month bug"));
        assert_eq!(titles.get("0199c4f0-11aa-7b22-8c33-d44e55f66a77"), Some("Day-first flag"));
        assert_eq!(titles.get("unknown"), None);
    }

    #[test]
    fn file_order_beats_updated_at_and_blank_names_are_ignored() {
        let bytes = br#"{"id":"a","thread_name":"newer by date","updated_at":"2026-09-01T00:00:00Z"}
not json
{"id":"a","thread_name":"appended last","updated_at":"2026-01-01T00:00:00Z"}
{"id":"b","thread_name":"named","updated_at":"2026-01-01T00:00:00Z"}
{"id":"b","thread_name":"  ","updated_at":"2026-01-02T00:00:00Z"}
{"id":"c","thread_name":"cut"#;
        let titles = Titles::parse(bytes);
        assert_eq!(titles.get("a"), Some("appended last"));
        assert_eq!(titles.get("b"), Some("named"));
        assert_eq!(titles.get("c"), None);
    }

    #[test]
    fn a_missing_index_is_empty() {
        assert_eq!(Titles::read(Path::new("/nonexistent/sess-codex-test")).get("a"), None);
    }
}
