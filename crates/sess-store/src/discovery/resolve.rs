//! Turning a session argument (a path, an id prefix, a file name prefix) into a
//! session file.

use std::path::{Path, PathBuf};

use super::summary::SessionSummary;
use crate::error::{Error, Result};
use crate::storage::SessionStorage;

/// Resolves `query`, as given to `--resume` or `sess show`, to a session file.
///
/// 1. When `query` names an existing file, that path wins.
/// 2. Otherwise the sessions of `search` match when, ignoring case, `query` is a
///    prefix of their id, of their file name, or of the part of the file name
///    after its last `_` (xcsh's `resolveResumableSession`). One match is the
///    answer. Among several, a session whose id equals `query` is the answer
///    when it is the only one; otherwise the result is
///    [`Error::AmbiguousSession`] with every match, in `search` order.
/// 3. No match (or an empty `query`) is [`Error::SessionNotFound`].
///
/// To prefer the current project, as xcsh does, call this with the project's
/// sessions first and, on `SessionNotFound`, again with all sessions.
pub fn resolve_session(storage: &dyn SessionStorage, query: &str, search: &[SessionSummary]) -> Result<PathBuf> {
    if !query.is_empty() && storage.stat(Path::new(query)).is_ok_and(|s| !s.is_dir) {
        return Ok(PathBuf::from(query));
    }
    let needle = query.to_lowercase();
    if needle.is_empty() {
        return Err(Error::SessionNotFound { query: query.to_owned() });
    }
    let mut matches: Vec<&SessionSummary> = Vec::new();
    for session in search.iter().filter(|s| matches_prefix(s, &needle)) {
        if !matches.iter().any(|m| m.path == session.path) {
            matches.push(session);
        }
    }
    match matches.as_slice() {
        [] => Err(Error::SessionNotFound { query: query.to_owned() }),
        [only] => Ok(only.path.clone()),
        several => {
            let mut exact = several.iter().filter(|s| s.id.to_lowercase() == needle);
            match (exact.next(), exact.next()) {
                (Some(session), None) => Ok(session.path.clone()),
                _ => Err(Error::AmbiguousSession {
                    query: query.to_owned(),
                    matches: several.iter().map(|s| s.path.clone()).collect(),
                }),
            }
        }
    }
}

fn matches_prefix(session: &SessionSummary, needle: &str) -> bool {
    if session.id.to_lowercase().starts_with(needle) {
        return true;
    }
    let Some(name) = session.path.file_name() else { return false };
    let name = name.to_string_lossy().to_lowercase();
    let after_underscore = name.rsplit('_').next().unwrap_or(&name);
    name.starts_with(needle) || after_underscore.starts_with(needle)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    use super::*;
    use crate::discovery::test_storage::{ClockStorage, Layout as _};

    fn summary(path: &str, id: &str) -> SessionSummary {
        SessionSummary {
            path: path.into(),
            id: id.into(),
            cwd: String::new(),
            title: None,
            parent_session: None,
            created: None,
            modified_ms: 0,
            message_count: 0,
            first_message: String::new(),
            all_messages_text: String::new(),
        }
    }

    fn search() -> Vec<SessionSummary> {
        vec![
            summary("/s/2026-11-30T07-04-55-591Z_01a22b45-5c27.jsonl", "01a22b45-5c27"),
            summary("/s/2026-11-30T08-00-00-000Z_01a22b99-0000.jsonl", "01a22b99-0000"),
            summary("/s/2025-01-01T00-00-00-000Z_legacy.jsonl", "LegacyId"),
            summary("/t/2024-05-05T00-00-00-000Z_abc.jsonl", "abc"),
            summary("/t/2024-05-06T00-00-00-000Z_abcd.jsonl", "abcd"),
        ]
    }

    fn resolve(query: &str) -> Result<PathBuf> {
        let storage = ClockStorage::new();
        storage.file("/real/file.jsonl", "", 1).dir("/real/dir");
        resolve_session(&storage, query, &search())
    }

    #[rstest]
    #[case::existing_path("/real/file.jsonl", "/real/file.jsonl")]
    #[case::id_prefix("01a22b45", "/s/2026-11-30T07-04-55-591Z_01a22b45-5c27.jsonl")]
    #[case::id_prefix_any_case("01A22B99", "/s/2026-11-30T08-00-00-000Z_01a22b99-0000.jsonl")]
    #[case::file_name_prefix("2025-01", "/s/2025-01-01T00-00-00-000Z_legacy.jsonl")]
    #[case::full_file_name("2025-01-01T00-00-00-000Z_legacy.jsonl", "/s/2025-01-01T00-00-00-000Z_legacy.jsonl")]
    #[case::suffix_after_underscore("leg", "/s/2025-01-01T00-00-00-000Z_legacy.jsonl")]
    #[case::id_case_insensitive("legacyid", "/s/2025-01-01T00-00-00-000Z_legacy.jsonl")]
    #[case::exact_id_among_prefixes("ABC", "/t/2024-05-05T00-00-00-000Z_abc.jsonl")]
    fn resolves(#[case] query: &str, #[case] expected: &str) {
        assert_eq!(resolve(query).unwrap(), PathBuf::from(expected));
    }

    #[rstest]
    #[case::common_prefix("01a22b", &["/s/2026-11-30T07-04-55-591Z_01a22b45-5c27.jsonl", "/s/2026-11-30T08-00-00-000Z_01a22b99-0000.jsonl"])]
    #[case::file_name_prefix("2024-05", &["/t/2024-05-05T00-00-00-000Z_abc.jsonl", "/t/2024-05-06T00-00-00-000Z_abcd.jsonl"])]
    fn ambiguous(#[case] query: &str, #[case] expected: &[&str]) {
        match resolve(query) {
            Err(Error::AmbiguousSession { query: got, matches }) => {
                assert_eq!(got, query);
                assert_eq!(matches, expected.iter().map(PathBuf::from).collect::<Vec<_>>());
            }
            other => panic!("expected an ambiguity, got {other:?}"),
        }
    }

    #[rstest]
    #[case::no_match("zzz")]
    #[case::empty("")]
    #[case::missing_path("/real/missing.jsonl")]
    #[case::a_directory("/real/dir")]
    #[case::infix("22b45")]
    fn not_found(#[case] query: &str) {
        assert!(matches!(resolve(query), Err(Error::SessionNotFound { query: ref got }) if got == query));
    }

    #[test]
    fn duplicate_entries_are_one_match() {
        let storage = ClockStorage::new();
        let twice = [summary("/s/x_abc.jsonl", "abc"), summary("/s/x_abc.jsonl", "abc")];
        assert_eq!(resolve_session(&storage, "ab", &twice).unwrap(), PathBuf::from("/s/x_abc.jsonl"));
    }

    #[test]
    fn ambiguity_message_lists_the_matches() {
        let err = resolve("01a22b").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`01a22b` matches 2 sessions: `/s/2026-11-30T07-04-55-591Z_01a22b45-5c27.jsonl`, \
             `/s/2026-11-30T08-00-00-000Z_01a22b99-0000.jsonl`"
        );
    }
}
