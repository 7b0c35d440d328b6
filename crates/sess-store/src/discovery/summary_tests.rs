use std::path::Path;

use pretty_assertions::assert_eq;
use rstest::rstest;

use super::*;
use crate::discovery::test_storage::{ClockStorage, Layout as _};

const PI_MONO_MAIN: &str = include_str!("../../../../fixtures/pi-family/pi-mono-0.73.1-main.jsonl");
const OH_MY_PI: &str = include_str!("../../../../fixtures/pi-family/oh-my-pi-18.2.3-bun.jsonl");

const FILE: &str = "/s/a.jsonl";
const MTIME_MS: u64 = 1_000_000;
/// `MTIME_MS` as the summary reports it.
const MTIME: i64 = 1_000_000;
const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
/// `HEADER`'s timestamp in milliseconds.
const HEADER_MS: i64 = 1_767_225_600_000;

fn summary_of(text: &str) -> Option<SessionSummary> {
    let storage = ClockStorage::new();
    storage.file(FILE, text, MTIME_MS);
    summarize(&storage, Path::new(FILE), MessageText::Collect)
}

fn lines(lines: &[&str]) -> String {
    lines.iter().flat_map(|l| [*l, "\n"]).collect()
}

fn with_header(entries: &[&str]) -> SessionSummary {
    let mut all = vec![HEADER];
    all.extend_from_slice(entries);
    summary_of(&lines(&all)).expect("a session")
}

fn user(id: &str, text: &str, ms: i64) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","timestamp":"2026-01-01T00:00:09.000Z","message":{{"role":"user","content":{},"timestamp":{ms}}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

#[test]
fn pi_mono_fixture_matches_pi_mono_list() {
    // Expected values: the LIST printed by pi-mono 0.73.1 for this file
    // (fixtures/pi-family/pi-mono-0.73.1-script-output.txt).
    let summary = summary_of(PI_MONO_MAIN).unwrap();
    assert_eq!(
        summary,
        SessionSummary {
            path: FILE.into(),
            id: "01a22b45-5c27-7725-b56f-8270ebb2b80e".into(),
            cwd: "/home/dev/demo-project".into(),
            title: Some("Demo session name".into()),
            parent_session: None,
            created: Some("2026-11-30T07:04:55.591Z".into()),
            modified_ms: parse_iso_millis("2026-11-30T07:04:55.594Z").unwrap(),
            message_count: 10,
            first_message: "hello".into(),
            all_messages_text: "hello hi there second question second answer alternative question alternative answer \
                                third question third answer after compaction post-compaction answer"
                .into(),
        }
    );
    assert!(summary.all_messages_text.starts_with("hello hi there second question second answer alternative que"));
}

#[test]
fn oh_my_pi_title_line_is_skipped() {
    let summary = summary_of(OH_MY_PI).unwrap();
    assert_eq!(summary.id, "01a22b46-5ef8-7000-9e30-b866ca7c6997");
    assert_eq!(summary.message_count, 10);
    assert_eq!(summary.first_message, "hello");
    assert_eq!(summary.title, None);
}

// oh-my-pi's own files: the title slot names the session (in `renamed.jsonl`
// the header has no title), and a file without a slot takes the newest
// `title_change` (oh-my-pi itself shows none there).
#[rstest]
#[case::auto(include_str!("../../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/auto-title.jsonl"), "Parser drops last line")]
#[case::renamed(include_str!("../../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/renamed.jsonl"), "Fix the parser: \"last line\" été")]
#[case::branched(include_str!("../../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/createBranchedSession.jsonl"), "Fix the parser: \"last line\" été")]
#[case::no_slot(include_str!("../../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/no-slot.jsonl"), "Fix the parser: \"last line\" été")]
#[case::no_slot_renamed(include_str!("../../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/no-slot-renamed.jsonl"), "Renamed without a slot")]
fn oh_my_pi_titles(#[case] text: &str, #[case] title: &str) {
    assert_eq!(summary_of(text).unwrap().title.as_deref(), Some(title));
    let from_bytes = summarize_bytes(text.as_bytes(), FILE.into(), || None).unwrap();
    assert_eq!(from_bytes.title.as_deref(), Some(title));
}

const SLOT: &str = r#"{"type":"title","v":1,"title":"Slot","source":"user","updatedAt":"u","pad":"  "}"#;
const EMPTY_SLOT: &str = r#"{"type":"title","v":1,"title":"","updatedAt":"u","pad":"  "}"#;
const TITLED: &str = r#"{"type":"session","id":"s","title":"Header"}"#;
const CHANGE: &str = r#"{"type":"title_change","id":"c","title":"Changed","source":"user"}"#;
const INFO: &str = r#"{"type":"session_info","id":"i","name":"Info"}"#;

#[rstest]
#[case::session_info(&[r#"{"type":"session","id":"s"}"#, r#"{"type":"session_info","id":"i","name":"emoji \ud83c\udf89\ud83d"}"#])]
#[case::title_change(&[r#"{"type":"session","id":"s"}"#, r#"{"type":"title_change","id":"c","title":"emoji \ud83c\udf89\ud83d"}"#])]
#[case::header(&[r#"{"type":"session","id":"s","title":"emoji \ud83c\udf89\ud83d"}"#])]
fn a_name_cut_inside_an_emoji_is_listed_with_a_replacement_character(#[case] all: &[&str]) {
    assert_eq!(summary_of(&lines(all)).unwrap().title.as_deref(), Some("emoji 🎉\u{fffd}"));
}

#[rstest]
#[case::slot(&[SLOT, TITLED, CHANGE, INFO], Some("Slot"))]
#[case::an_empty_slot_clears_the_header(&[EMPTY_SLOT, TITLED, CHANGE], None)]
#[case::an_invalid_slot_is_no_slot(&[r#"{"type":"title","v":2,"title":"Slot","updatedAt":"u","pad":""}"#, TITLED, CHANGE], Some("Changed"))]
#[case::an_overwritten_slot_is_no_slot(&[r#"#"type":"title","v":1,"title":"Slot","updatedAt":"u","pad":""}"#, TITLED, CHANGE], Some("Changed"))]
#[case::the_newest_title_change(&[TITLED, CHANGE, r#"{"type":"title_change","id":"d","title":"Newer"}"#], Some("Newer"))]
#[case::header_over_session_info(&[TITLED, INFO], Some("Header"))]
fn the_title_slot_then_the_newest_title_change_then_the_header(#[case] all: &[&str], #[case] expected: Option<&str>) {
    assert_eq!(summary_of(&lines(all)).unwrap().title.as_deref(), expected);
}

#[rstest]
#[case::empty_file("")]
#[case::blank_lines("\n \n\r\n")]
#[case::only_garbage("nope\n{\"type\":\n")]
#[case::first_value_is_an_entry(r#"{"type":"message","id":"a","message":{"role":"user","content":"x"}}"#)]
#[case::id_not_a_string(r#"{"type":"session","id":7}"#)]
#[case::first_value_not_an_object("[1]\n{\"type\":\"session\",\"id\":\"s\"}\n")]
#[case::two_title_lines("{\"type\":\"title\"}\n{\"type\":\"title\"}\n{\"type\":\"session\",\"id\":\"s\"}\n")]
fn files_without_a_header_are_skipped(#[case] text: &str) {
    assert_eq!(summary_of(text), None);
}

#[rstest]
#[case::malformed_first_line("garbage\n{\"type\":\"session\",\"id\":\"s\"}\n")]
#[case::byte_order_mark("\u{feff}{\"type\":\"session\",\"id\":\"s\"}\n")]
#[case::crlf("{\"type\":\"session\",\"id\":\"s\"}\r\n")]
#[case::no_final_newline("{\"type\":\"session\",\"id\":\"s\"}")]
#[case::title_line("{\"type\":\"title\",\"title\":\"\"}\n{\"type\":\"session\",\"id\":\"s\"}\n")]
fn headers_are_found_leniently(#[case] text: &str) {
    assert_eq!(summary_of(text).unwrap().id, "s");
}

#[test]
fn header_only_session() {
    let summary = summary_of(&lines(&[r#"{"type":"session","id":"s"}"#])).unwrap();
    assert_eq!(summary.cwd, "");
    assert_eq!(summary.created, None);
    assert_eq!(summary.message_count, 0);
    assert_eq!(summary.first_message, NO_MESSAGES);
    assert_eq!(summary.all_messages_text, "");
    assert_eq!(summary.modified_ms, MTIME, "no activity and no header time: the file's mtime");
}

#[rstest]
#[case::message_timestamp_wins(&[r#"{"type":"message","id":"a","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"x","timestamp":1767225601000}}"#], 1_767_225_601_000)]
#[case::max_over_messages(&[
    r#"{"type":"message","id":"a","message":{"role":"user","content":"x","timestamp":1767225603000}}"#,
    r#"{"type":"message","id":"b","message":{"role":"assistant","content":[],"timestamp":1767225602000}}"#,
], 1_767_225_603_000)]
#[case::entry_timestamp_without_a_message_one(&[r#"{"type":"message","id":"a","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":"x"}}"#], HEADER_MS + 5_000)]
#[case::string_message_timestamp_uses_the_entry_one(&[r#"{"type":"message","id":"a","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":"x","timestamp":"soon"}}"#], HEADER_MS + 6_000)]
#[case::fraction_is_dropped(&[r#"{"type":"message","id":"a","message":{"role":"user","content":"x","timestamp":1767225601000.9}}"#], 1_767_225_601_000)]
#[case::tool_results_do_not_count(&[r#"{"type":"message","id":"a","message":{"role":"toolResult","content":"x","timestamp":1867225601000}}"#], HEADER_MS)]
#[case::other_entries_do_not_count(&[r#"{"type":"custom","id":"a","timestamp":"2027-01-01T00:00:00.000Z"}"#], HEADER_MS)]
#[case::messages_without_content_do_not_count(&[r#"{"type":"message","id":"a","message":{"role":"user","timestamp":1867225601000}}"#], HEADER_MS)]
#[case::unparsable_entry_time_is_ignored(&[r#"{"type":"message","id":"a","timestamp":"later","message":{"role":"user","content":"x"}}"#], HEADER_MS)]
#[case::activity_before_the_epoch_falls_back(&[r#"{"type":"message","id":"a","message":{"role":"user","content":"x","timestamp":-5}}"#], HEADER_MS)]
#[case::no_messages_uses_the_header(&[], HEADER_MS)]
#[case::a_message_stamped_before_the_header_gives_the_header_time(&[r#"{"type":"message","id":"a","timestamp":"2025-12-31T23:00:00.000Z","message":{"role":"user","content":"x","timestamp":1767222000000}}"#], HEADER_MS)]
fn modified_follows_pi_mono_but_never_precedes_created(#[case] entries: &[&str], #[case] expected: i64) {
    assert_eq!(with_header(entries).modified_ms, expected);
}

#[test]
fn modified_falls_back_to_the_mtime_when_the_header_time_is_unparsable() {
    let summary = summary_of(&lines(&[r#"{"type":"session","id":"s","timestamp":"yesterday"}"#])).unwrap();
    assert_eq!(summary.modified_ms, MTIME);
    assert_eq!(summary.created.as_deref(), Some("yesterday"));
}

#[rstest]
#[case::first_user_text(&[&user("a", "", 1), r#"{"type":"message","id":"b","message":{"role":"assistant","content":"hi"}}"#, &user("c", "  second ", 2)], "  second ", "hi   second ")]
#[case::assistant_only(&[r#"{"type":"message","id":"b","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}"#], NO_MESSAGES, "hi")]
#[case::tool_results_are_not_text(&[r#"{"type":"message","id":"b","message":{"role":"toolResult","content":[{"type":"text","text":"out"}]}}"#], NO_MESSAGES, "")]
#[case::custom_messages_are_not_text(&[r#"{"type":"custom_message","id":"b","content":"x"}"#], NO_MESSAGES, "")]
#[case::blocks_joined(&[r#"{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"b"}]}}"#], "a b", "a b")]
fn message_texts(#[case] entries: &[&str], #[case] first: &str, #[case] all: &str) {
    let summary = with_header(entries);
    assert_eq!((summary.first_message.as_str(), summary.all_messages_text.as_str()), (first, all));
}

#[test]
fn every_message_entry_is_counted() {
    let summary = with_header(&[
        &user("a", "x", 1),
        r#"{"type":"message","id":"b","message":{"role":"toolResult","content":"out"}}"#,
        r#"{"type":"message","id":"c","message":null}"#,
        r#"{"type":"message","message":{"role":"custom","content":"no id"}}"#,
        r#"{"type":"label","id":"d","targetId":"a","label":"l"}"#,
        "not json",
        "[1]",
    ]);
    assert_eq!(summary.message_count, 4);
}

#[rstest]
#[case::none(&[], None)]
#[case::session_info_trimmed(&[r#"{"type":"session_info","id":"i","name":"  Name  "}"#], Some("Name"))]
#[case::the_last_one_wins(&[r#"{"type":"session_info","id":"i","name":"One"}"#, r#"{"type":"session_info","id":"j","name":"Two"}"#], Some("Two"))]
#[case::a_later_empty_name_clears(&[r#"{"type":"session_info","id":"i","name":"One"}"#, r#"{"type":"session_info","id":"j","name":"  "}"#], None)]
#[case::a_later_missing_name_clears(&[r#"{"type":"session_info","id":"i","name":"One"}"#, r#"{"type":"session_info","id":"j"}"#], None)]
fn title_from_session_info(#[case] entries: &[&str], #[case] expected: Option<&str>) {
    assert_eq!(with_header(entries).title.as_deref(), expected);
}

#[rstest]
#[case::header_title_wins(r#"{"type":"session","id":"s","title":"Header title"}"#, Some("Header title"))]
#[case::empty_header_title_is_absent(r#"{"type":"session","id":"s","title":""}"#, Some("Info"))]
#[case::non_string_header_title_is_absent(r#"{"type":"session","id":"s","title":5}"#, Some("Info"))]
fn title_from_the_header(#[case] header: &str, #[case] expected: Option<&str>) {
    let text = lines(&[header, r#"{"type":"session_info","id":"i","name":"Info"}"#]);
    assert_eq!(summary_of(&text).unwrap().title.as_deref(), expected);
}

#[test]
fn header_fields() {
    let text = lines(&[
        r#"{"type":"session","id":"s","cwd":"/w","parentSession":"/x/p.jsonl","timestamp":"2026-01-01T00:00:00Z"}"#,
    ]);
    let summary = summary_of(&text).unwrap();
    assert_eq!(summary.cwd, "/w");
    assert_eq!(summary.parent_session.as_deref(), Some("/x/p.jsonl"));
    assert_eq!(summary.created.as_deref(), Some("2026-01-01T00:00:00Z"));
}

#[test]
fn a_second_header_is_just_another_line() {
    let summary = with_header(&[r#"{"type":"session","id":"other","cwd":"/elsewhere"}"#, &user("a", "x", 1)]);
    assert_eq!((summary.id.as_str(), summary.cwd.as_str(), summary.message_count), ("s1", "/p", 1));
}

#[test]
fn unreadable_files_are_skipped() {
    assert_eq!(summarize(&ClockStorage::new(), Path::new("/missing.jsonl"), MessageText::Collect), None);
}

#[rstest]
#[case::epoch(0, 0)]
#[case::after(1_500, 1_500)]
fn system_times_become_milliseconds(#[case] ms: u64, #[case] expected: i64) {
    assert_eq!(system_time_ms(UNIX_EPOCH + std::time::Duration::from_millis(ms)), expected);
}

#[test]
fn a_tally_fed_entry_by_entry_gives_the_file_summary() {
    // The pi-mono fixture without its header, pushed one entry at a time as a
    // database backend does.
    let mut lines = PI_MONO_MAIN.lines();
    let header = lines.next().unwrap();
    let mut tally = SummaryTally::default();
    let mut all = String::new();
    for line in lines {
        if let Some(text) = tally.push(line) {
            join_text(&mut all, &text);
        }
    }
    let summary = tally.summarize(header, all, FILE.into(), || panic!("not needed")).unwrap();
    assert_eq!(summary, summary_of(PI_MONO_MAIN).unwrap());
    let mut tally = SummaryTally::default();
    assert_eq!(tally.push("not json"), None);
    assert_eq!(tally.push(&user("a", "hi", 5)), Some("hi".to_owned()));
    assert_eq!(
        tally.clone().summarize("{\"type\":\"message\",\"id\":\"x\"}", String::new(), FILE.into(), || Some(0)),
        None
    );
    let summary = tally.summarize(r#"{"type":"session","id":"s"}"#, "hi".into(), FILE.into(), || Some(MTIME)).unwrap();
    assert_eq!((summary.first_message.as_str(), summary.modified_ms, summary.message_count), ("hi", 5, 1));
}

#[test]
fn skipping_the_text_changes_only_all_messages_text() {
    let lines = lines(&[
        HEADER,
        &user("u1", "first", 1_767_225_601_000),
        r#"{"type":"message","id":"a1","timestamp":"2026-01-01T00:00:10.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer"}],"timestamp":1767225602000}}"#,
        &user("u2", "second", 1_767_225_603_000),
    ]);
    let storage = ClockStorage::new();
    storage.file(FILE, &lines, MTIME_MS);
    let full = summarize(&storage, Path::new(FILE), MessageText::Collect).unwrap();
    let lean = summarize(&storage, Path::new(FILE), MessageText::Skip).unwrap();
    assert_eq!(full.all_messages_text, "first answer second");
    assert_eq!(lean.all_messages_text, "");
    assert_eq!(SessionSummary { all_messages_text: String::new(), ..full }, lean);
}
