use super::*;
use pretty_assertions::assert_eq;
use rstest::rstest;

const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn entry(id: &str, parent: Option<&str>) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"hi"}}}}"#
    )
}

fn read_text(text: &str) -> ReadOutcome {
    read(text.as_bytes())
}

fn ids(outcome: &ReadOutcome) -> Vec<&str> {
    outcome.file.entries().iter().map(|e| e.id().as_str()).collect()
}

fn issues(outcome: &ReadOutcome) -> Vec<(usize, IssueKind)> {
    outcome
        .issues
        .iter()
        .map(|i| {
            let kind = match &i.kind {
                IssueKind::InvalidJson(_) => IssueKind::InvalidJson(String::new()),
                other => other.clone(),
            };
            (i.line, kind)
        })
        .collect()
}

#[test]
fn reads_a_clean_file() {
    let text = format!("{HEADER}\n{}\n{}\n", entry("a", None), entry("b", Some("a")));
    let outcome = read_text(&text);
    assert_eq!(outcome.file.header().unwrap().id(), "s1");
    assert_eq!(ids(&outcome), ["a", "b"]);
    assert_eq!(outcome.file.entry_lines(), [2, 3]);
    assert!(outcome.issues.is_empty());
    assert_eq!(outcome.file.to_jsonl(), text);
}

#[rstest]
#[case::blank_lines(format!("{HEADER}\n\n   \n{}\n\n", entry("a", None)), vec!["a"], vec![])]
#[case::crlf(format!("{HEADER}\r\n{}\r\n{}\r\n", entry("a", None), entry("b", Some("a"))), vec!["a", "b"], vec![])]
#[case::bom(format!("\u{feff}{HEADER}\n{}\n", entry("a", None)), vec!["a"], vec![])]
#[case::bom_and_crlf(format!("\u{feff}{HEADER}\r\n{}\r\n", entry("a", None)), vec!["a"], vec![])]
#[case::truncated_last_line(
    format!("{HEADER}\n{}\n{{\"type\":\"message\",\"id\":\"b\",\"mess", entry("a", None)),
    vec!["a"],
    vec![(3, IssueKind::TruncatedLastLine)]
)]
#[case::unterminated_but_complete_last_line(
    format!("{HEADER}\n{}", entry("a", None)),
    vec!["a"],
    vec![]
)]
#[case::bad_middle_line(
    format!("{HEADER}\n{}\n{{oops\n{}\n", entry("a", None), entry("b", Some("a"))),
    vec!["a", "b"],
    vec![(3, IssueKind::InvalidJson(String::new()))]
)]
#[case::open_value_cannot_swallow_the_next_line(
    format!("{HEADER}\n{{\"b\":\n{}\n{}\n", entry("a", None), entry("b", Some("a"))),
    vec!["a", "b"],
    vec![(2, IssueKind::InvalidJson(String::new()))]
)]
#[case::two_values_on_one_line(
    format!("{HEADER}\n{} {}\n{}\n", entry("a", None), entry("x", None), entry("b", Some("a"))),
    vec!["b"],
    vec![(2, IssueKind::InvalidJson(String::new()))]
)]
#[case::scalars(
    format!("{HEADER}\n1\n\"x\"\nnull\n[1]\n{}\n", entry("a", None)),
    vec!["a"],
    vec![(2, IssueKind::NotAnObject), (3, IssueKind::NotAnObject), (4, IssueKind::NotAnObject), (5, IssueKind::NotAnObject)]
)]
#[case::nul_line(format!("{HEADER}\n\0\n{}\n", entry("a", None)), vec!["a"], vec![(2, IssueKind::InvalidJson(String::new()))])]
#[case::missing_id(
    format!("{HEADER}\n{{\"type\":\"message\",\"parentId\":null}}\n{}\n", entry("a", None)),
    vec!["a"],
    vec![(2, IssueKind::MissingId)]
)]
#[case::extra_header(format!("{HEADER}\n{HEADER}\n{}\n", entry("a", None)), vec!["a"], vec![(2, IssueKind::ExtraHeader)])]
#[case::garbage_before_header(format!("garbage\n{HEADER}\n{}\n", entry("a", None)), vec!["a"], vec![(1, IssueKind::InvalidJson(String::new()))])]
#[case::corrupt_header(
    format!("{{\"type\":\"sess\n{}\n", entry("a", None)),
    vec!["a"],
    vec![(1, IssueKind::InvalidJson(String::new())), (2, IssueKind::NotAHeader)]
)]
#[case::header_without_id(
    format!("{{\"type\":\"session\",\"version\":3}}\n{}\n", entry("a", None)),
    vec!["a"],
    vec![(1, IssueKind::NotAHeader), (1, IssueKind::MissingId)]
)]
fn lenient_reading(
    #[case] text: String,
    #[case] expected_ids: Vec<&str>,
    #[case] expected_issues: Vec<(usize, IssueKind)>,
) {
    let outcome = read_text(&text);
    assert_eq!(ids(&outcome), expected_ids);
    assert_eq!(issues(&outcome), expected_issues);
}

#[test]
fn invalid_utf8_is_replaced_and_kept() {
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend_from_slice(
        b"{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"content\":\"\xff\xfe\"}}\n",
    );
    let outcome = read(&bytes);
    assert_eq!(ids(&outcome), ["a"]);
    assert_eq!(issues(&outcome), [(2, IssueKind::InvalidUtf8)]);
    assert!(outcome.file.entries()[0].json().contains('\u{fffd}'));
}

#[test]
fn oh_my_pi_title_line_is_kept_before_the_header() {
    let title = r#"{"type":"title","v":1,"title":"","updatedAt":"2026-11-30T07:06:01.848Z","pad":"   "}"#;
    let text = format!("{title}\n{HEADER}\n{}\n", entry("a", None));
    let outcome = read_text(&text);
    assert_eq!(outcome.file.title_line(), Some(title));
    assert_eq!(outcome.file.header().unwrap().id(), "s1");
    assert!(outcome.issues.is_empty());
    assert_eq!(outcome.file.to_jsonl(), text);
}

#[test]
fn a_first_title_entry_with_an_id_is_an_entry_and_survives_a_rewrite() {
    // No header: the first line is dropped, the second is a `title` entry.
    let text = "{\"type\":\"x\"}\n{\"type\":\"title\",\"id\":\"a\"}\n";
    let outcome = read_text(text);
    assert_eq!(ids(&outcome), ["a"]);
    let again = read_text(&outcome.file.to_jsonl());
    assert_eq!(ids(&again), ["a"]);
    assert_eq!(again.file.title_line(), None);
}

#[test]
fn empty_input_has_no_header_and_no_issues() {
    let outcome = read_text("");
    assert!(outcome.file.header().is_none());
    assert!(outcome.issues.is_empty());
}

#[test]
fn legacy_files_are_migrated_on_read() {
    let text = "{\"type\":\"session\",\"id\":\"s\",\"timestamp\":\"t\"}\n\
                {\"type\":\"message\",\"timestamp\":\"t1\",\"message\":{\"role\":\"user\"}}\n\
                not json\n\
                {\"type\":\"message\",\"timestamp\":\"t2\",\"message\":{\"role\":\"hookMessage\"}}\n";
    let outcome = read_text(text);
    assert_eq!(outcome.migrated_from, Some(Version(1.0)));
    // The ids come from each entry's line number in the file and its bytes.
    let lines: Vec<&str> = text.lines().collect();
    let [first, second] = [2, 4].map(|n| crate::line_id(n, lines[n - 1], 0));
    assert_eq!(ids(&outcome), [first.as_str(), second.as_str()]);
    assert_eq!(outcome.file.entry_lines(), [2, 4]);
    assert_eq!(issues(&outcome), [(3, IssueKind::InvalidJson(String::new()))]);
    assert_eq!(outcome.file.header().unwrap().json(), r#"{"type":"session","id":"s","timestamp":"t","version":3}"#);
    assert_eq!(
        outcome.file.entries()[1].json(),
        format!(
            r#"{{"type":"message","timestamp":"t2","message":{{"role":"custom"}},"id":"{second}","parentId":"{first}"}}"#
        )
    );
    assert_eq!(ids(&read_text(text)), ids(&outcome), "every read gives the same ids");
}

#[test]
fn a_torn_tail_is_located() {
    let text = format!("{HEADER}\n{}\n{{\"type\":\"mess", entry("a", None));
    let outcome = read_text(&text);
    assert_eq!(outcome.len, text.len() as u64);
    assert_eq!(outcome.torn_tail_at, Some(text.rfind('\n').unwrap() as u64 + 1));
    let complete = format!("{HEADER}\n{}", entry("a", None));
    let outcome = read_text(&complete);
    assert!(outcome.unterminated_tail);
    assert_eq!(outcome.torn_tail_at, None);
}

#[test]
fn a_block_parsed_on_any_number_of_threads_reads_the_same() {
    // Over the size a block is split at, with lines that are skipped, blank,
    // repeated and cut spread through it.
    let mut text = format!("{HEADER}\n");
    let mut parent: Option<String> = None;
    for n in 0..12_000 {
        let id = format!("e{n}");
        match n % 997 {
            13 => text.push_str("{not json\n"),
            14 => text.push('\n'),
            15 => {
                text.push_str(&entry("e0", None));
                text.push('\n');
            }
            _ => {}
        }
        text.push_str(&entry(&id, parent.as_deref()));
        text.push('\n');
        parent = Some(id);
    }
    text.push_str("{\"type\":\"mess");
    assert!(text.len() > PARALLEL_BYTES);
    let read_on = |threads: usize| {
        let mut reader = SessionReader::new().with_parse_threads(threads);
        reader.push_block(text.as_bytes(), true);
        reader.finish()
    };
    let one = read_on(1);
    // 13 of each kind of odd line: a repeated entry is read again (the tree
    // decides which counts), a line that is no JSON is an issue.
    assert_eq!(ids(&one).len(), 12_000 + 13);
    assert_eq!(issues(&one).iter().filter(|(_, kind)| matches!(kind, IssueKind::InvalidJson(_))).count(), 13);
    assert!(one.torn_tail_at.is_some());
    for threads in [2, 3, 8] {
        let many = read_on(threads);
        assert_eq!(ids(&many), ids(&one), "{threads} threads");
        assert_eq!(issues(&many), issues(&one), "{threads} threads");
        assert_eq!((many.torn_tail_at, many.len), (one.torn_tail_at, one.len), "{threads} threads");
    }
}
