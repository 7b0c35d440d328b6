use super::*;
use crate::blob::{BlobStore, parse_blob_ref};
use crate::storage::{FileStorage, MemoryStorage, SessionStorage, write_atomic};
use pretty_assertions::assert_eq;
use rstest::rstest;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const BLOB_DIR: &str = "/agent/blobs";
/// `MAX_PERSIST_CHARS - TRUNCATION_NOTICE.len()`: the units a truncated string keeps.
const KEEP: usize = 499_953;

fn memory_blobs() -> (MemoryStorage, BlobStore) {
    let storage = MemoryStorage::new();
    let blobs = BlobStore::new(Arc::new(storage.clone()), BLOB_DIR);
    (storage, blobs)
}

fn parse_value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

/// `n` deterministic bytes.
fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| u8::try_from((i * 7 + 3) % 256).unwrap()).collect()
}

/// Canonical base64 of `n` bytes: `4 * ceil(n / 3)` characters.
fn base64_of(n: usize) -> String {
    STANDARD.encode(bytes(n))
}

fn prepared(json: &str, blobs: Option<&BlobStore>) -> Cow<'static, str> {
    Cow::Owned(prepare_for_persistence(json, blobs.map(|b| b as &dyn crate::blob::Blobs)).unwrap().into_owned())
}

fn message_with_text(text: &str) -> String {
    json!({"type": "message", "id": "a", "message": {"role": "user", "content": [{"type": "text", "text": text}]}})
        .to_string()
}

fn text_of(json: &str) -> String {
    parse_value(json)["message"]["content"][0]["text"].as_str().unwrap().to_owned()
}

fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

fn image_message(data: &str) -> String {
    json!({"type": "message", "id": "a", "message": {"role": "user", "content": [
        {"type": "text", "text": "look"},
        {"type": "image", "data": data, "mimeType": "image/png"},
    ]}})
    .to_string()
}

fn blob_path(reference: &str) -> PathBuf {
    Path::new(BLOB_DIR).join(parse_blob_ref(reference).unwrap())
}

#[test]
fn notice_length_matches_the_kept_prefix() {
    assert_eq!(TRUNCATION_NOTICE.len(), 47);
    assert_eq!(utf16_len(TRUNCATION_NOTICE), TRUNCATION_NOTICE.len());
    assert_eq!(MAX_PERSIST_CHARS - TRUNCATION_NOTICE.len(), KEEP);
}

#[rstest]
#[case::ascii_at_the_limit("a".repeat(500_000), None)]
#[case::ascii_one_over("a".repeat(500_001), Some("a".repeat(KEEP)))]
#[case::ascii_far_over("a".repeat(1_200_000), Some("a".repeat(KEEP)))]
#[case::bmp_at_the_limit("é".repeat(500_000), None)]
#[case::bmp_one_over("é".repeat(500_001), Some("é".repeat(KEEP)))]
#[case::three_byte_bmp_one_over("€".repeat(500_001), Some("€".repeat(KEEP)))]
#[case::pair_at_the_limit(format!("{}😀", "a".repeat(499_998)), None)]
#[case::pair_one_over(format!("{}😀a", "a".repeat(499_998)), Some("a".repeat(KEEP)))]
#[case::pair_straddling_the_cut(format!("{}😀{}", "a".repeat(KEEP - 1), "b".repeat(600)), Some("a".repeat(KEEP - 1)))]
#[case::pair_ending_at_the_cut(format!("{}😀{}", "a".repeat(KEEP - 2), "b".repeat(600)), Some(format!("{}😀", "a".repeat(KEEP - 2))))]
#[case::pairs_only("😀".repeat(250_001), Some("😀".repeat(KEEP / 2)))]
#[case::escapes_count_once("\n".repeat(500_001), Some("\n".repeat(KEEP)))]
fn strings_are_truncated_at_the_utf16_limit(#[case] text: String, #[case] kept: Option<String>) {
    let line = message_with_text(&text);
    let out = prepare_for_persistence(&line, None).unwrap();
    match kept {
        None => assert!(matches!(out, Cow::Borrowed(_)), "a string at the limit is kept whole"),
        Some(kept) => {
            let persisted = text_of(&out);
            assert!(utf16_len(&persisted) <= MAX_PERSIST_CHARS);
            assert!(persisted == format!("{kept}{TRUNCATION_NOTICE}"), "wrong truncation");
        }
    }
}

#[test]
fn truncation_applies_to_any_key_and_to_the_header() {
    let long = "x".repeat(500_001);
    let header = json!({"type": "session", "version": 3, "id": "s", "cwd": long}).to_string();
    let out = prepared(&header, None);
    let value = parse_value(&out);
    assert_eq!(value["cwd"].as_str().unwrap().len(), MAX_PERSIST_CHARS);
    assert!(value["cwd"].as_str().unwrap().ends_with(TRUNCATION_NOTICE));
    // Key order and the other fields are kept.
    assert!(out.starts_with(r#"{"type":"session","version":3,"id":"s","cwd":"xxx"#));
}

#[rstest]
#[case::thinking("thinkingSignature")]
#[case::thought("thoughtSignature")]
#[case::text("textSignature")]
fn oversized_signatures_are_cleared(#[case] key: &str) {
    let line = json!({"type": "message", "message": {"content": [
        {"type": "thinking", "thinking": "hm", key: "s".repeat(500_001)},
        {"type": "thinking", "thinking": "hm", key: "s".repeat(500_000)},
    ]}})
    .to_string();
    let value = parse_value(&prepared(&line, None));
    assert_eq!(value["message"]["content"][0][key], "");
    assert_eq!(value["message"]["content"][1][key].as_str().unwrap().len(), 500_000, "at the limit it is kept");
}

#[test]
fn other_signature_like_keys_are_truncated() {
    let line = json!({"signature": "s".repeat(500_001)}).to_string();
    let value = parse_value(&prepared(&line, None));
    assert!(value["signature"].as_str().unwrap().ends_with(TRUNCATION_NOTICE));
}

#[test]
fn transient_keys_are_dropped_at_any_depth_keeping_key_order() {
    let line = r#"{"type":"message","id":"a","partialJson":"{","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","partialJson":"{\"a\"","arguments":{"a":1}}],"details":{"runs":[{"jsonlEvents":[{"e":1}],"ok":true}]}}}"#;
    let out = prepare_for_persistence(line, None).unwrap();
    assert_eq!(
        out,
        r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","arguments":{"a":1}}],"details":{"runs":[{"ok":true}]}}}"#
    );
}

#[test]
fn an_escaped_transient_key_is_dropped_too() {
    let line = r#"{"type":"message","partial\u004Ason":"{","id":"a"}"#;
    assert_eq!(prepare_for_persistence(line, None).unwrap(), r#"{"type":"message","id":"a"}"#);
}

#[rstest]
#[case::truncated_content(
    json!({"path": "f", "content": format!("a\nb\n{}", "c".repeat(500_000)), "lineCount": 3}),
    Some(5)
)]
#[case::changed_deeper(json!({"content": "a\nb", "lineCount": 7, "meta": {"partialJson": "x"}}), Some(2))]
#[case::changed_sibling_key(json!({"content": "a\nb\n", "partialJson": "x", "lineCount": 1}), Some(3))]
fn line_count_is_recomputed_when_the_object_changed(#[case] file: Value, #[case] expected: Option<u64>) {
    let line = json!({"type": "message", "files": [file]}).to_string();
    let value = parse_value(&prepared(&line, None));
    let file = &value["files"][0];
    assert_eq!(file["lineCount"].as_u64(), expected);
    let content = file["content"].as_str().unwrap();
    assert_eq!(Some(content.split('\n').count() as u64), expected);
}

#[test]
fn line_count_keeps_its_position() {
    let line = r#"{"files":[{"lineCount":9,"content":"a\nb","partialJson":"x","path":"p"}]}"#;
    assert_eq!(
        prepare_for_persistence(line, None).unwrap(),
        r#"{"files":[{"lineCount":2,"content":"a\nb","path":"p"}]}"#
    );
}

#[rstest]
#[case::unchanged_object(
    r#"{"a":{"content":"a\nb","lineCount":7},"b":{"partialJson":1}}"#,
    r#"{"a":{"content":"a\nb","lineCount":7},"b":{}}"#
)]
#[case::line_count_not_a_number(
    r#"{"content":"a\nb","lineCount":"7","partialJson":1}"#,
    r#"{"content":"a\nb","lineCount":"7"}"#
)]
#[case::content_not_a_string(
    r#"{"content":["a\nb"],"lineCount":7,"partialJson":1}"#,
    r#"{"content":["a\nb"],"lineCount":7}"#
)]
fn line_count_is_left_alone_otherwise(#[case] line: &str, #[case] expected: &str) {
    assert_eq!(prepare_for_persistence(line, None).unwrap(), expected);
}

#[rstest]
#[case::plain_message(r#"{"type":"message","id":"a","message":{"role":"user","content":"hi"}}"#, true)]
#[case::image_without_blob_store(&image_message(&base64_of(2000)), false)]
#[case::image_word_in_text(r#"{"type":"message","message":{"content":"an \"image\" of image_url"}}"#, true)]
#[case::small_image(&image_message(&base64_of(765)), true)]
#[case::already_a_blob(&image_message(&format!("blob:sha256:{}", "0".repeat(64))), true)]
#[case::transient_key_name_in_text(r#"{"type":"message","message":{"content":"partialJson and jsonlEvents"}}"#, true)]
#[case::control_character_escape(r#"{"type":"message","message":{"content":"\u001b[31mred"}}"#, true)]
#[case::non_data_image_url(r#"{"type":"custom","data":{"image_url":"https://example.com/a.png"}}"#, true)]
#[case::image_url_object(r#"{"type":"custom","data":{"image_url":{"url":"data:image/png;base64,AAAA"}}}"#, true)]
#[case::image_outside_content(
    &json!({"type": "message", "message": {"files": [{"image": {"type": "image", "data": base64_of(2000)}}]}}).to_string(),
    true
)]
#[case::image_under_images(
    &json!({"type": "message", "message": {"images": [{"type": "image", "data": base64_of(2000)}]}}).to_string(),
    true
)]
fn unchanged_entries_are_borrowed(#[case] line: &str, #[case] with_blobs: bool) {
    let (storage, blobs) = memory_blobs();
    let out = prepare_for_persistence(line, with_blobs.then_some(&blobs)).unwrap();
    assert!(matches!(out, Cow::Borrowed(text) if text == line));
    assert_eq!(storage.files(), Vec::<PathBuf>::new(), "nothing stored");
}

#[test]
fn large_images_in_content_arrays_are_externalized() {
    let (storage, blobs) = memory_blobs();
    let data = base64_of(768);
    assert_eq!(data.len(), BLOB_EXTERNALIZE_THRESHOLD);
    let line = image_message(&data);
    let out = prepared(&line, Some(&blobs));
    let value = parse_value(&out);
    let block = &value["message"]["content"][1];
    let reference = block["data"].as_str().unwrap();
    assert_eq!(reference, format!("blob:sha256:{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes(768))));
    // The other keys stay, in order.
    assert_eq!(block.as_object().unwrap().keys().collect::<Vec<_>>(), ["type", "data", "mimeType"]);
    assert_eq!(block["mimeType"], "image/png");
    assert_eq!(storage.read(&blob_path(reference)).unwrap(), bytes(768));
    // The rest of the entry is as it was.
    let mut expected = parse_value(&line);
    expected["message"]["content"][1]["data"] = Value::from(reference);
    assert_eq!(value, expected);
}

#[test]
fn images_under_the_threshold_stay_inline() {
    let (storage, blobs) = memory_blobs();
    let data = base64_of(765);
    assert_eq!(data.len(), 1020);
    let line = image_message(&data);
    assert!(matches!(prepare_for_persistence(&line, Some(&blobs)).unwrap(), Cow::Borrowed(_)));
    assert!(storage.files().is_empty());
}

#[test]
fn images_in_nested_content_arrays_are_externalized() {
    let (storage, blobs) = memory_blobs();
    let line = json!({"type": "custom_message", "customType": "x", "content": [
        {"type": "image", "data": base64_of(900)},
        {"type": "toolResult", "content": [{"type": "image", "data": base64_of(1000), "mimeType": "image/jpeg"}]},
    ], "details": {"content": [[{"type": "image", "data": base64_of(1100)}]]}})
    .to_string();
    let value = parse_value(&prepared(&line, Some(&blobs)));
    for data in [
        &value["content"][0]["data"],
        &value["content"][1]["content"][0]["data"],
        &value["details"]["content"][0][0]["data"],
    ] {
        assert!(parse_blob_ref(data.as_str().unwrap()).is_some(), "{data}");
    }
    assert_eq!(storage.files().len(), 3);
}

#[test]
fn externalization_is_decided_on_the_untruncated_data() {
    let (storage, blobs) = memory_blobs();
    let data = base64_of(450_000);
    assert_eq!(data.len(), 600_000);
    let value = parse_value(&prepared(&image_message(&data), Some(&blobs)));
    let reference = value["message"]["content"][1]["data"].as_str().unwrap();
    assert_eq!(storage.read(&blob_path(reference)).unwrap(), bytes(450_000), "the whole image is stored");
}

#[rstest]
#[case::line_breaks(base64_of(1500).as_bytes().chunks(76).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join("\n"))]
#[case::missing_padding(base64_of(1501).trim_end_matches('=').to_owned())]
#[case::nonzero_trailing_bits({ let mut d = base64_of(1501); d.replace_range(d.len() - 3..d.len() - 2, "B"); d })]
#[case::url_safe_alphabet(base64::engine::general_purpose::URL_SAFE.encode(vec![0xfb_u8; 1500]))]
#[case::not_base64("!".repeat(2000))]
fn non_canonical_base64_stays_inline(#[case] data: String) {
    assert!(data.len() >= BLOB_EXTERNALIZE_THRESHOLD);
    let (storage, blobs) = memory_blobs();
    let line = image_message(&data);
    let out = prepare_for_persistence(&line, Some(&blobs)).unwrap();
    assert!(matches!(out, Cow::Borrowed(_)));
    assert!(storage.files().is_empty());
}

#[test]
fn non_canonical_oversized_image_data_is_truncated_like_any_string() {
    let (storage, blobs) = memory_blobs();
    let data = format!("{} ", base64_of(450_000));
    let value = parse_value(&prepared(&image_message(&data), Some(&blobs)));
    let persisted = value["message"]["content"][1]["data"].as_str().unwrap();
    assert!(persisted.ends_with(TRUNCATION_NOTICE));
    assert!(storage.files().is_empty());
}

#[test]
fn image_data_urls_are_externalized_without_threshold() {
    let (storage, blobs) = memory_blobs();
    let url = "data:image/png;base64,iVBORw0KGgo=";
    let line = json!({"type": "message", "message": {"content": [{"type": "image_url", "image_url": url}],
        "raw": {"deep": [{"image_url": url}]}}})
    .to_string();
    let value = parse_value(&prepared(&line, Some(&blobs)));
    let reference = value["message"]["content"][0]["image_url"].as_str().unwrap();
    assert_eq!(value["message"]["raw"]["deep"][0]["image_url"], reference);
    assert_eq!(storage.read(&blob_path(reference)).unwrap(), url.as_bytes());
    assert_eq!(storage.files().len(), 1, "the same URL is one blob");
}

#[test]
fn image_data_urls_stay_inline_without_a_blob_store() {
    let url = format!("data:image/png;base64,{}", base64_of(450_000));
    let line = json!({"image_url": url}).to_string();
    let value = parse_value(&prepared(&line, None));
    assert!(value["image_url"].as_str().unwrap().ends_with(TRUNCATION_NOTICE));
}

#[test]
fn a_blob_store_failure_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_dir = dir.path().join("blobs");
    write_atomic(&FileStorage, &not_a_dir, b"a file").unwrap();
    let blobs = BlobStore::new(Arc::new(FileStorage), &not_a_dir);
    let error = prepare_for_persistence(&image_message(&base64_of(2000)), Some(&blobs)).unwrap_err();
    assert!(matches!(error, Error::Io { .. }), "{error:?}");
}

#[test]
fn invalid_json_that_needs_parsing_is_an_error() {
    let error = prepare_for_persistence(r#"{"partialJson":"#, None).unwrap_err();
    assert!(matches!(error, Error::InvalidEntry { .. }), "{error:?}");
}

#[rstest]
#[case::message_content(image_message(&base64_of(2000)))]
#[case::custom_message_content(
    json!({"type": "custom_message", "customType": "x", "content": [
        {"type": "text", "text": "t"},
        {"type": "image", "data": base64_of(3000), "mimeType": "image/webp"},
        {"type": "image", "data": base64_of(100)},
    ], "display": true}).to_string()
)]
#[case::tool_result(
    json!({"type": "message", "message": {"role": "toolResult", "toolCallId": "t", "content": [
        {"type": "image", "mimeType": "image/png", "data": base64_of(5000)},
    ], "isError": false}}).to_string()
)]
#[case::image_urls(
    json!({"type": "message", "message": {"role": "user", "content": [
        {"type": "image_url", "image_url": "data:image/png;base64,AAAA"},
    ], "extra": {"a": [{"image_url": "data:image/gif;base64,R0lGOD=="}]}}}).to_string()
)]
#[case::both_and_unicode(
    json!({"type": "message", "message": {"content": [
        {"type": "text", "text": "é😀"},
        {"type": "image", "data": base64_of(1200)},
        {"type": "image_url", "image_url": "data:image/svg+xml;base64,PHN2Zz4="},
    ]}}).to_string()
)]
fn prepare_then_resolve_gives_back_the_entry(#[case] line: String) {
    let (_, blobs) = memory_blobs();
    let persisted = prepare_for_persistence(&line, Some(&blobs)).unwrap();
    assert!(matches!(persisted, Cow::Owned(_)), "something was externalized");
    assert!(!persisted.contains("base64,"));
    let resolved = resolve_blob_refs(&persisted, &blobs).unwrap().unwrap();
    assert_eq!(resolved.warnings, Vec::<String>::new());
    assert_eq!(parse_value(&resolved.json), parse_value(&line));
}

#[rstest]
#[case::plain(r#"{"type":"message","message":{"content":"hi"}}"#)]
#[case::reference_in_text(r#"{"type":"message","message":{"content":"see blob:sha256:abc"}}"#)]
#[case::reference_outside_resolved_places(&format!(
    r#"{{"type":"message","message":{{"content":[]}},"details":{{"content":[{{"type":"image","data":"blob:sha256:{}"}}]}}}}"#,
    "0".repeat(64)
))]
#[case::image_in_other_entry_type(&format!(
    r#"{{"type":"custom","content":[{{"type":"image","data":"blob:sha256:{}"}}]}}"#,
    "0".repeat(64)
))]
#[case::not_an_image_block(&format!(
    r#"{{"type":"message","message":{{"content":[{{"type":"text","data":"blob:sha256:{}"}}]}}}}"#,
    "0".repeat(64)
))]
fn entries_without_resolvable_references_give_none(#[case] line: &str) {
    let (_, blobs) = memory_blobs();
    assert_eq!(resolve_blob_refs(line, &blobs).unwrap(), None);
}

#[test]
fn resolve_does_not_parse_lines_without_a_reference() {
    let (_, blobs) = memory_blobs();
    assert_eq!(resolve_blob_refs("not json at all", &blobs).unwrap(), None);
}

#[test]
fn an_escaped_reference_is_resolved() {
    let (_, blobs) = memory_blobs();
    let reference = blobs.put(b"\x01\x02\x03").unwrap();
    let escaped = reference.replacen(':', "\\u003a", 1);
    let line = format!(r#"{{"type":"custom_message","content":[{{"type":"image","data":"{escaped}"}}]}}"#);
    let resolved = resolve_blob_refs(&line, &blobs).unwrap().unwrap();
    assert_eq!(resolved.json, r#"{"type":"custom_message","content":[{"type":"image","data":"AQID"}]}"#);
}

#[test]
fn missing_blobs_are_kept_and_reported() {
    let (_, blobs) = memory_blobs();
    let reference = format!("blob:sha256:{}", "ab".repeat(32));
    let line = format!(
        r#"{{"type":"message","message":{{"content":[{{"type":"image","data":"{reference}"}}]}},"x":{{"image_url":"{reference}"}}}}"#
    );
    let resolved = resolve_blob_refs(&line, &blobs).unwrap().unwrap();
    assert_eq!(resolved.json, line, "the text is untouched");
    assert_eq!(
        resolved.warnings,
        [
            format!(
                "message.content[0].data: blob `{reference}` is missing from `/agent/blobs`; the reference is kept"
            ),
            format!("x.image_url: blob `{reference}` is missing from `/agent/blobs`; the reference is kept"),
        ]
    );
}

#[test]
fn a_missing_blob_does_not_stop_the_others() {
    let (_, blobs) = memory_blobs();
    let present = blobs.put(&bytes(10)).unwrap();
    let missing = format!("blob:sha256:{}", "cd".repeat(32));
    let line = format!(
        r#"{{"type":"message","message":{{"content":[{{"type":"image","data":"{missing}"}},{{"type":"image","data":"{present}"}}]}}}}"#
    );
    let resolved = resolve_blob_refs(&line, &blobs).unwrap().unwrap();
    let value = parse_value(&resolved.json);
    assert_eq!(value["message"]["content"][0]["data"], missing.as_str());
    assert_eq!(value["message"]["content"][1]["data"], STANDARD.encode(bytes(10)));
    assert_eq!(resolved.warnings.len(), 1);
}

#[rstest]
#[case::corrupt_blob("corrupt")]
#[case::invalid_reference("invalid")]
#[case::image_url_not_utf8("not UTF-8")]
fn unresolvable_references_are_kept_and_reported(#[case] what: &str) {
    let (storage, blobs) = memory_blobs();
    let (reference, key) = match what {
        "corrupt" => {
            let reference = blobs.put(b"good").unwrap();
            write_atomic(&storage, &blob_path(&reference), b"evil").unwrap();
            (reference, "data")
        }
        "invalid" => ("blob:sha256:../../etc/passwd".to_owned(), "data"),
        _ => (blobs.put(&[0xff, 0xfe]).unwrap(), "image_url"),
    };
    let line = json!({"type": "message", "message": {"content": [{"type": "image", key: reference}]}}).to_string();
    let resolved = resolve_blob_refs(&line, &blobs).unwrap().unwrap();
    assert_eq!(resolved.json, line);
    assert_eq!(resolved.warnings.len(), 1);
    assert!(resolved.warnings[0].contains(what), "{:?}", resolved.warnings);
    assert!(resolved.warnings[0].starts_with(&format!("message.content[0].{key}: ")), "{:?}", resolved.warnings);
}

#[rstest]
#[case::control_character(r#""\u001b[0m""#, false)]
#[case::non_ascii(r#""\u00e9""#, false)]
#[case::letter(r#""\u004a""#, true)]
#[case::colon(r#""\u003A""#, true)]
#[case::escaped_backslash_then_u(r#""\\u0041""#, true)]
#[case::at_the_end(r"\u00", false)]
fn escaped_printable_ascii_is_detected(#[case] json: &str, #[case] expected: bool) {
    assert_eq!(has_escaped_printable_ascii(json.as_bytes()), expected);
}

#[test]
fn lone_surrogates_are_kept_as_they_are() {
    // Valid JSON (JSON.stringify writes it) that a Rust string cannot hold.
    let line = format!(
        r#"{{"type":"message","id":"a","message":{{"content":"{}\ud83d","partialJson":"x"}}}}"#,
        "y".repeat(600_000)
    );
    assert!(matches!(prepare_for_persistence(&line, None).unwrap(), Cow::Borrowed(_)));
}
