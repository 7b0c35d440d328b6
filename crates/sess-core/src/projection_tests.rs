use super::*;

fn with(text: &str) -> String {
    with_content(&RawJson::parse(text).unwrap()).as_str().to_owned()
}

#[test]
fn a_missing_or_null_content_is_filled_in_by_role() {
    assert_eq!(
        with(r#"{"role":"user","content":null,"timestamp":1}"#),
        r#"{"role":"user","content":[],"timestamp":1}"#
    );
    assert_eq!(with(r#"{"role":"assistant","timestamp":1}"#), r#"{"role":"assistant","timestamp":1,"content":[]}"#);
    assert_eq!(
        with(r#"{"role":"toolResult","toolCallId":"c","content":null}"#),
        r#"{"role":"toolResult","toolCallId":"c","content":[]}"#
    );
    assert_eq!(with(r#"{"role":"system","content":null}"#), r#"{"role":"system","content":""}"#);
    assert_eq!(with(r#"{ "role" : "user" }"#), r#"{ "role" : "user" ,"content":[]}"#);
}

#[test]
fn other_roles_and_present_content_are_kept_byte_for_byte() {
    for text in [
        r#"{"role":"user","content":"hi"}"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"say \"content\": null"}]}"#,
        r#"{"role":"bashExecution","command":"ls"}"#,
        r#"{"role":"custom","content":null}"#,
        r#"{"content":null}"#,
        r#"{"role":"toolResult","details":{"content":null},"content":[]}"#,
    ] {
        assert_eq!(with(text), text);
    }
}

#[test]
fn a_repeated_or_nested_key_is_decided_by_decoding_the_last_value_winning() {
    // The last `content` is null: the context gets `[]` where the key first stood.
    assert_eq!(with(r#"{"role":"user","content":"a","content":null}"#), r#"{"role":"user","content":[]}"#);
    let last_present = r#"{"role":"user","content":null,"content":"b"}"#;
    assert_eq!(with(last_present), last_present);
    // `content` only inside another value: the message has none.
    assert_eq!(
        with(r#"{"role":"user","details":{"content":1}}"#),
        r#"{"role":"user","details":{"content":1},"content":[]}"#
    );
}

#[test]
fn the_top_level_scan_skips_nested_values_and_escapes() {
    let text = r#"{"a\"role":"x","nested":{"role":"no","list":[1,{"role":"deep"}]},"n":-1.5e3,"t":true,"role":"yes"}"#;
    assert_eq!(role(text).as_deref(), Some("yes"));
    assert_eq!(role(r#"{"\u0072ole":"escaped key"}"#).as_deref(), Some("escaped key"));
    assert_eq!(role(r#"{"role":"to\u006flResult"}"#).as_deref(), Some("toolResult"));
    assert_eq!(role(r#"["role","user"]"#), None);
    assert_eq!(role(r#"{"role":5}"#), None);
}
