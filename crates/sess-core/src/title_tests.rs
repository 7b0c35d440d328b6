use pretty_assertions::assert_eq;
use rstest::rstest;

use super::*;
use crate::read;

const BUN: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-bun.jsonl");
const AUTO: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/auto-title.jsonl");
const RENAMED: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/renamed.jsonl");
const BRANCHED: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/createBranchedSession.jsonl");
const FORKED: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/forkFrom.jsonl");
const NO_SLOT: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/no-slot.jsonl");
const NO_SLOT_RENAMED: &str = include_str!("../../../fixtures/pi-family/oh-my-pi-18.2.3-titles/no-slot-renamed.jsonl");

fn first_line(text: &str) -> &str {
    &text[..=text.find('\n').unwrap()]
}

const FIXED: &str = "Fix the parser: \"last line\" été";

// Every slot oh-my-pi wrote is read, and written again byte for byte.
#[rstest]
#[case::empty(BUN, "", None)]
#[case::auto(AUTO, "Parser drops last line", Some(TitleSource::Auto))]
#[case::renamed_in_place(RENAMED, FIXED, Some(TitleSource::User))]
#[case::branched(BRANCHED, FIXED, Some(TitleSource::User))]
#[case::forked(FORKED, FIXED, Some(TitleSource::User))]
#[case::rewritten(NO_SLOT_RENAMED, "Renamed without a slot", Some(TitleSource::User))]
fn the_slots_oh_my_pi_wrote_round_trip(#[case] file: &str, #[case] title: &str, #[case] source: Option<TitleSource>) {
    let line = first_line(file);
    assert_eq!(line.len(), TITLE_SLOT_BYTES);
    let slot = TitleSlot::parse(line.trim_end()).unwrap();
    assert_eq!((slot.title.as_str(), slot.source), (title, source));
    assert_eq!(slot.to_line().unwrap(), line);
}

#[rstest]
#[case::version_two(r#"{"type":"title","v":2,"title":"t","updatedAt":"u","pad":""}"#)]
#[case::version_as_text(r#"{"type":"title","v":"1","title":"t","updatedAt":"u","pad":""}"#)]
#[case::no_version(r#"{"type":"title","title":"t","updatedAt":"u","pad":""}"#)]
#[case::other_type(r#"{"type":"session","v":1,"title":"t","updatedAt":"u","pad":""}"#)]
#[case::title_not_text(r#"{"type":"title","v":1,"title":5,"updatedAt":"u","pad":""}"#)]
#[case::no_title(r#"{"type":"title","v":1,"updatedAt":"u","pad":""}"#)]
#[case::no_updated_at(r#"{"type":"title","v":1,"title":"t","pad":""}"#)]
#[case::no_pad(r#"{"type":"title","v":1,"title":"t","updatedAt":"u"}"#)]
#[case::pad_not_text(r#"{"type":"title","v":1,"title":"t","updatedAt":"u","pad":0}"#)]
#[case::null_source(r#"{"type":"title","v":1,"title":"t","source":null,"updatedAt":"u","pad":""}"#)]
#[case::other_source(r#"{"type":"title","v":1,"title":"t","source":"agent","updatedAt":"u","pad":""}"#)]
#[case::not_an_object(r#"["title"]"#)]
#[case::torn(r#"{"type":"title","v":1,"title":"t","updatedAt":"u","pa"#)]
#[case::first_byte_overwritten(r#"#"type":"title","v":1,"title":"t","updatedAt":"u","pad":""}"#)]
fn only_a_valid_slot_is_read(#[case] line: &str) {
    assert_eq!(TitleSlot::parse(line), None);
}

#[test]
fn a_slot_is_read_as_javascript_reads_it() {
    // `v` is any number equal to 1, the last of two keys wins, and a lone
    // surrogate (a title cut inside an emoji) is read as U+FFFD.
    let slot =
        TitleSlot::parse(r#" {"type":"title","v":1.0,"title":"a","title":"b\ud83d","updatedAt":"u","pad":"x"} "#);
    assert_eq!(slot, Some(TitleSlot { title: "b\u{fffd}".into(), source: None, updated_at: "u".into() }));
}

#[rstest]
#[case::ascii("a".repeat(300))]
#[case::two_bytes("é".repeat(300))]
#[case::four_bytes("🦀".repeat(100))]
#[case::escaped("\"\\\n\u{1}".repeat(100))]
#[case::mixed("x🦀\u{1f}é\"".repeat(60))]
fn a_long_title_is_cut_at_a_character_and_the_line_keeps_its_width(#[case] title: String) {
    for source in [None, Some(TitleSource::Auto), Some(TitleSource::User)] {
        let slot = TitleSlot { title: title.clone(), source, updated_at: "2026-12-02T01:02:27.956Z".into() };
        let line = slot.to_line().unwrap();
        assert_eq!(line.len(), TITLE_SLOT_BYTES);
        assert!(line.ends_with("\"}\n"));
        let read = TitleSlot::parse(&line).unwrap();
        assert!(title.starts_with(&read.title), "{read:?}");
        assert_eq!((read.source, read.updated_at.as_str()), (source, "2026-12-02T01:02:27.956Z"));
        // Not one more character would fit.
        let next = title[read.title.len()..].chars().next().unwrap();
        let longer = TitleSlot { title: format!("{}{next}", read.title), ..slot.clone() };
        assert!(longer.line(&longer.title, 0).len() > TITLE_SLOT_BYTES);
    }
}

#[test]
fn a_slot_that_cannot_fit_is_not_made() {
    let slot = TitleSlot { title: "t".into(), source: None, updated_at: "9".repeat(200) };
    assert_eq!(slot.to_line(), None);
    let fits = TitleSlot { updated_at: "9".repeat(195), ..slot };
    assert_eq!(fits.to_line().map(|l| l.len()), Some(TITLE_SLOT_BYTES));
}

fn names(text: &str) -> SessionNames {
    let outcome = read(text.as_bytes());
    outcome.file.names()
}

#[test]
fn the_real_files_are_named_as_oh_my_pi_names_them() {
    assert_eq!(names(BUN).name(), None, "an empty slot and no title");
    assert_eq!(names(AUTO).name(), Some("Parser drops last line"));
    assert_eq!(names(AUTO).title_source(None), Some(TitleSource::Auto));
    // The header has no title: the slot written in place names the session.
    assert_eq!(names(RENAMED).name(), Some(FIXED));
    assert_eq!(names(RENAMED).title_source(None), Some(TitleSource::User));
    assert_eq!(names(BRANCHED).name(), Some(FIXED));
    assert_eq!(names(FORKED).name(), Some(FIXED));
    assert_eq!(names(NO_SLOT_RENAMED).name(), Some("Renamed without a slot"));
    // Without a slot, the newest title_change (oh-my-pi itself shows the
    // header's title, which this file does not have).
    assert_eq!(names(NO_SLOT).slot(), None);
    assert_eq!(names(NO_SLOT).name(), Some(FIXED));
    assert_eq!(names(NO_SLOT).title_without_changes(), None);
    assert_eq!(names(RENAMED).title_without_changes(), Some(FIXED));
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","title":"Header","titleSource":"auto"}"#;

fn session(first: Option<&str>, header: &str, entries: &[&str]) -> String {
    first.into_iter().chain([header]).chain(entries.iter().copied()).flat_map(|l| [l, "\n"]).collect()
}

fn slot(title: &str) -> String {
    TitleSlot { title: title.into(), source: Some(TitleSource::User), updated_at: "u".into() }.to_line().unwrap()
}

const CHANGE: &str =
    r#"{"type":"title_change","id":"c","parentId":null,"timestamp":"t","title":"Changed","source":"user"}"#;
const OLDER_CHANGE: &str =
    r#"{"type":"title_change","id":"b","parentId":null,"timestamp":"t","title":"Older","source":"auto"}"#;
const BLANK_CHANGE: &str = r#"{"type":"title_change","id":"d","parentId":"c","timestamp":"t","title":"  "}"#;
const INFO: &str = r#"{"type":"session_info","id":"i","parentId":null,"timestamp":"t","name":" Info "}"#;
const INFO_CLEARED: &str = r#"{"type":"session_info","id":"j","parentId":"i","timestamp":"t"}"#;
const UNTITLED: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p"}"#;

#[rstest]
#[case::slot_over_everything(Some(slot("Slot")), HEADER, &[OLDER_CHANGE, CHANGE, INFO], Some("Slot"))]
#[case::empty_slot_clears(Some(slot("")), HEADER, &[CHANGE], None)]
#[case::blank_slot_clears(Some(slot("   ")), HEADER, &[CHANGE], None)]
#[case::empty_slot_leaves_session_info(Some(slot("")), HEADER, &[INFO], Some("Info"))]
#[case::torn_slot_gives_the_newest_change(
    Some(format!("#{}", &slot("Slot")[1..])), HEADER, &[OLDER_CHANGE, CHANGE, BLANK_CHANGE], Some("Changed")
)]
#[case::newest_change_over_header(None, HEADER, &[OLDER_CHANGE, CHANGE], Some("Changed"))]
#[case::header(None, HEADER, &[INFO], Some("Header"))]
#[case::session_info(None, UNTITLED, &[INFO], Some("Info"))]
#[case::session_info_cleared(None, UNTITLED, &[INFO, INFO_CLEARED], None)]
#[case::nothing(None, UNTITLED, &[], None)]
fn the_name_is_the_slot_then_the_newest_title_change_then_the_header_then_session_info(
    #[case] first: Option<String>,
    #[case] header: &str,
    #[case] entries: &[&str],
    #[case] expected: Option<&str>,
) {
    let text = session(first.as_deref().map(str::trim_end), header, entries);
    assert_eq!(names(&text).name(), expected);
}

#[test]
fn the_title_source_is_the_slots_when_there_is_one() {
    let with_slot = session(Some(slot("Slot").trim_end()), HEADER, &[]);
    assert_eq!(names(&with_slot).title_source(Some("auto")), Some(TitleSource::User));
    let sourceless = TitleSlot { title: "S".into(), source: None, updated_at: "u".into() }.to_line().unwrap();
    let without_source = session(Some(sourceless.trim_end()), HEADER, &[]);
    assert_eq!(names(&without_source).title_source(Some("auto")), None);
    assert_eq!(names(HEADER).title_source(Some("auto")), Some(TitleSource::Auto));
    assert_eq!(names(HEADER).title_source(Some("nobody")), None);
}

// pi writes a name cut inside an emoji with a lone surrogate escape, and
// shows it with U+FFFD: so does sess, wherever the name is.
#[rstest]
#[case::session_info(
    UNTITLED,
    r#"{"type":"session_info","id":"i","parentId":null,"timestamp":"t","name":"emoji \ud83c\udf89\ud83d"}"#
)]
#[case::title_change(
    UNTITLED,
    r#"{"type":"title_change","id":"c","parentId":null,"timestamp":"t","title":"emoji \ud83c\udf89\ud83d"}"#
)]
#[case::header(
    r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p","title":"emoji \ud83c\udf89\ud83d"}"#,
    INFO_CLEARED
)]
fn a_name_cut_inside_an_emoji_is_read_with_a_replacement_character(#[case] header: &str, #[case] entry: &str) {
    assert_eq!(names(&session(None, header, &[entry])).name(), Some("emoji 🎉\u{fffd}"));
}
