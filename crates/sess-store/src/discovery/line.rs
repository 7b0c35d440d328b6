//! One pass over a session line that keeps only what discovery reads.
//!
//! The listing reads every line of every session, so this parser borrows: each
//! value it keeps is a slice of the line (`&RawValue`), and everything else is
//! skipped without allocating. The `message` object is parsed in the same pass
//! (role, content, timestamp); its `content` stays a slice and is only decoded
//! by callers that need the text (user and assistant messages), so tool results
//! and other large bodies are scanned once and never copied. Repeated keys keep
//! their last value, as `JSON.parse` does.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The fields of an entry or header line that discovery reads.
#[derive(Default)]
pub(super) struct Line<'a> {
    pub(super) kind: Option<&'a RawValue>,
    pub(super) id: Option<&'a RawValue>,
    pub(super) timestamp: Option<&'a RawValue>,
    pub(super) cwd: Option<&'a RawValue>,
    pub(super) title: Option<&'a RawValue>,
    pub(super) parent_session: Option<&'a RawValue>,
    pub(super) name: Option<&'a RawValue>,
    /// `None` without a `message` key or when it is not an object.
    pub(super) message: Option<Message<'a>>,
}

/// The fields of a `message` object that discovery reads.
#[derive(Default)]
pub(super) struct Message<'a> {
    pub(super) role: Option<&'a RawValue>,
    pub(super) content: Option<&'a RawValue>,
    pub(super) timestamp: Option<&'a RawValue>,
}

/// What one line holds.
pub(super) enum Parsed<'a> {
    /// A JSON object.
    Object(Line<'a>),
    /// Valid JSON that is not an object (`1`, `"x"`, `[…]`, `null`).
    Other,
    /// Not JSON: the peers skip such a line.
    Invalid,
}

impl Line<'_> {
    /// Whether the line's `type` is the string `kind`.
    pub(super) fn is(&self, kind: &str) -> bool {
        string(self.kind).as_deref() == Some(kind)
    }

    /// Whether this is a session header: `type` `"session"` and a string `id`
    /// (the test every peer applies to the first value of a file).
    pub(super) fn is_header(&self) -> bool {
        self.is("session") && string(self.id).is_some()
    }
}

/// Parses one line (without its newline; surrounding JSON whitespace is fine).
pub(super) fn parse(text: &str) -> Parsed<'_> {
    let mut de = serde_json::Deserializer::from_str(text);
    match de::Deserializer::deserialize_any(&mut de, LineVisitor) {
        Ok(Some(line)) if de.end().is_ok() => Parsed::Object(line),
        Ok(None) if de.end().is_ok() => Parsed::Other,
        _ => Parsed::Invalid,
    }
}

/// The value of a JSON string, borrowed when it has no escapes.
pub(super) fn string(raw: Option<&RawValue>) -> Option<Cow<'_, str>> {
    let text = raw?.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(text).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// [`string`], but a lone UTF-16 surrogate (a name cut inside an emoji, as
/// `JSON.stringify` writes it) is read as U+FFFD, as the agents show it.
pub(super) fn lossy_string(raw: Option<&RawValue>) -> Option<Cow<'_, str>> {
    match string(raw) {
        Some(text) => Some(text),
        None if raw?.get().starts_with('"') => {
            serde_json::from_str::<String>(&sess_core::replace_lone_surrogate_escapes(raw?.get())).ok().map(Cow::Owned)
        }
        None => None,
    }
}

/// The value of a JSON number.
pub(super) fn number(raw: Option<&RawValue>) -> Option<f64> {
    let text = raw?.get();
    matches!(text.as_bytes().first(), Some(b'-' | b'0'..=b'9')).then(|| text.parse().ok()).flatten()
}

/// JavaScript truthiness of a value: `null`, `false`, `0` and `""` are falsy.
pub(super) fn truthy(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|raw| sess_core::json_is_truthy(raw.get()))
}

/// The text of message content as pi-mono's `extractTextContent` builds it: a
/// string as it is, or the `text` of every `"type":"text"` block joined with
/// `" "`. `None` for any other shape (pi-mono throws on those and drops the
/// whole session; discovery only ignores the message's text).
pub(super) fn joined_text(content: Option<&RawValue>) -> Option<String> {
    let content = content?;
    if content.get().starts_with('"') {
        return string(Some(content)).map(Cow::into_owned);
    }
    let blocks = blocks(content)?;
    let mut text = String::new();
    for (index, block) in blocks.iter().filter(|b| string(b.kind).as_deref() == Some("text")).enumerate() {
        if index > 0 {
            text.push(' ');
        }
        // `Array.join` renders a missing text as "".
        if let Some(part) = string(block.text) {
            text.push_str(&part);
        }
    }
    Some(text)
}

/// The first prompt text as xcsh's `extractFirstUserPrompt` reads it: a string
/// content, or the first block (of any type) with a string `text`.
pub(super) fn first_text(content: Option<&RawValue>) -> Option<String> {
    let content = content?;
    if content.get().starts_with('"') {
        return string(Some(content)).map(Cow::into_owned);
    }
    blocks(content)?.iter().find_map(|block| string(block.text)).map(Cow::into_owned)
}

/// A content block: its `type` and `text`.
struct Block<'a> {
    kind: Option<&'a RawValue>,
    text: Option<&'a RawValue>,
}

/// The object blocks of an array (other elements are left out); `None` when
/// `content` is not an array.
fn blocks(content: &RawValue) -> Option<Vec<Block<'_>>> {
    if !content.get().starts_with('[') {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(content.get());
    de::Deserializer::deserialize_seq(&mut de, BlocksVisitor).ok()
}

/// Every visit of a value that is not an object, answered with `None`.
macro_rules! not_an_object {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    };
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Option<Line<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut line = Line::default();
        while let Some(key) = map.next_key_seed(KeySeed(line_key))? {
            let slot = match key {
                Some(LineKey::Message) => {
                    line.message = map.next_value_seed(MessageSeed)?;
                    continue;
                }
                Some(LineKey::Type) => &mut line.kind,
                Some(LineKey::Id) => &mut line.id,
                Some(LineKey::Timestamp) => &mut line.timestamp,
                Some(LineKey::Cwd) => &mut line.cwd,
                Some(LineKey::Title) => &mut line.title,
                Some(LineKey::ParentSession) => &mut line.parent_session,
                Some(LineKey::Name) => &mut line.name,
                None => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(Some(line))
    }
}

#[derive(Clone, Copy)]
enum LineKey {
    Type,
    Id,
    Timestamp,
    Cwd,
    Title,
    ParentSession,
    Name,
    Message,
}

fn line_key(key: &str) -> Option<LineKey> {
    Some(match key {
        "type" => LineKey::Type,
        "id" => LineKey::Id,
        "timestamp" => LineKey::Timestamp,
        "cwd" => LineKey::Cwd,
        "title" => LineKey::Title,
        "parentSession" => LineKey::ParentSession,
        "name" => LineKey::Name,
        "message" => LineKey::Message,
        _ => return None,
    })
}

struct MessageSeed;

impl<'de> DeserializeSeed<'de> for MessageSeed {
    type Value = Option<Message<'de>>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MessageSeed {
    type Value = Option<Message<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut message = Message::default();
        while let Some(key) = map.next_key_seed(KeySeed(message_key))? {
            let slot = match key {
                Some(MessageKey::Role) => &mut message.role,
                Some(MessageKey::Content) => &mut message.content,
                Some(MessageKey::Timestamp) => &mut message.timestamp,
                None => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(Some(message))
    }
}

#[derive(Clone, Copy)]
enum MessageKey {
    Role,
    Content,
    Timestamp,
}

fn message_key(key: &str) -> Option<MessageKey> {
    Some(match key {
        "role" => MessageKey::Role,
        "content" => MessageKey::Content,
        "timestamp" => MessageKey::Timestamp,
        _ => return None,
    })
}

struct BlocksVisitor;

impl<'de> Visitor<'de> for BlocksVisitor {
    type Value = Vec<Block<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element_seed(BlockSeed)? {
            blocks.extend(block);
        }
        Ok(blocks)
    }
}

struct BlockSeed;

impl<'de> DeserializeSeed<'de> for BlockSeed {
    type Value = Option<Block<'de>>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BlockSeed {
    type Value = Option<Block<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    not_an_object!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut block = Block { kind: None, text: None };
        while let Some(key) = map.next_key_seed(KeySeed(block_key))? {
            match key {
                Some(BlockKey::Type) => block.kind = Some(map.next_value()?),
                Some(BlockKey::Text) => block.text = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(block))
    }
}

#[derive(Clone, Copy)]
enum BlockKey {
    Type,
    Text,
}

fn block_key(key: &str) -> Option<BlockKey> {
    match key {
        "type" => Some(BlockKey::Type),
        "text" => Some(BlockKey::Text),
        _ => None,
    }
}

/// Reads an object key and maps it without allocating (unless it has escapes).
struct KeySeed<K>(fn(&str) -> Option<K>);

impl<'de, K> DeserializeSeed<'de> for KeySeed<K> {
    type Value = Option<K>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<K> Visitor<'_> for KeySeed<K> {
    type Value = Option<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok((self.0)(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    fn object(text: &str) -> Line<'_> {
        match parse(text) {
            Parsed::Object(line) => line,
            Parsed::Other | Parsed::Invalid => panic!("not an object: {text}"),
        }
    }

    #[rstest]
    #[case::object(r#"{"type":"x"}"#, "object")]
    #[case::with_whitespace(" {\"type\":\"x\"}\r", "object")]
    #[case::number("1", "other")]
    #[case::array("[1,{\"a\":2}]", "other")]
    #[case::null("null", "other")]
    #[case::string("\"x\"", "other")]
    #[case::garbage("nope", "invalid")]
    #[case::truncated(r#"{"type":"mess"#, "invalid")]
    #[case::truncated_array("[1, nope", "invalid")]
    #[case::two_values(r#"{"a":1} {"b":2}"#, "invalid")]
    fn classifies_lines(#[case] text: &str, #[case] expected: &str) {
        let got = match parse(text) {
            Parsed::Object(_) => "object",
            Parsed::Other => "other",
            Parsed::Invalid => "invalid",
        };
        assert_eq!(got, expected);
    }

    #[test]
    fn picks_fields_and_the_message() {
        let line = object(
            r#"{"type":"message","id":"a","extra":{"id":"no"},"message":{"role":"user","content":"hi","timestamp":5,"usage":{}},"timestamp":"t"}"#,
        );
        assert!(line.is("message"));
        assert_eq!(string(line.id).as_deref(), Some("a"));
        assert_eq!(string(line.timestamp).as_deref(), Some("t"));
        let message = line.message.unwrap();
        assert_eq!(string(message.role).as_deref(), Some("user"));
        assert_eq!(message.content.unwrap().get(), "\"hi\"");
        assert_eq!(number(message.timestamp), Some(5.0));
    }

    #[test]
    fn repeated_keys_keep_the_last_value() {
        let line = object(r#"{"type":"a","type":"session","id":1,"id":"x"}"#);
        assert!(line.is_header());
    }

    #[rstest]
    #[case::not_a_string(r#"{"type":"session","id":5}"#, false)]
    #[case::no_id(r#"{"type":"session"}"#, false)]
    #[case::other_type(r#"{"type":"message","id":"a"}"#, false)]
    #[case::escaped_key(r#"{"typ\u0065":"session","id":"a"}"#, true)]
    #[case::header(r#"{"type":"session","id":""}"#, true)]
    fn recognises_headers(#[case] text: &str, #[case] header: bool) {
        assert_eq!(object(text).is_header(), header);
    }

    #[test]
    fn a_message_that_is_not_an_object_is_absent() {
        assert!(object(r#"{"type":"message","message":[1,2]}"#).message.is_none());
        assert!(object(r#"{"type":"message","message":{"role":"user"},"message":null}"#).message.is_none());
        assert!(object(r#"{"type":"message"}"#).message.is_none());
    }

    #[rstest]
    #[case::plain_string(r#""hi""#, Some("hi"))]
    #[case::escaped_string(r#""a\nb \u00e9""#, Some("a\nb é"))]
    #[case::text_blocks(
        r#"[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"b"}]"#,
        Some("a b")
    )]
    #[case::missing_text(r#"[{"type":"text","text":"a"},{"type":"text"}]"#, Some("a "))]
    #[case::no_text_blocks(r#"[{"type":"toolCall","name":"x"}]"#, Some(""))]
    #[case::non_object_blocks(r#"[1,"x",{"type":"text","text":"a"}]"#, Some("a"))]
    #[case::null("null", None)]
    #[case::object(r#"{"text":"x"}"#, None)]
    fn joins_text_like_pi_mono(#[case] content: &str, #[case] expected: Option<&str>) {
        let raw: &RawValue = serde_json::from_str(content).unwrap();
        assert_eq!(joined_text(Some(raw)).as_deref(), expected);
    }

    #[rstest]
    #[case::string(r#""hi""#, Some("hi"))]
    #[case::first_block_with_text(
        r#"[{"type":"image"},{"type":"other","text":"x"},{"type":"text","text":"y"}]"#,
        Some("x")
    )]
    #[case::non_string_text(r#"[{"type":"text","text":5}]"#, None)]
    #[case::number("5", None)]
    fn reads_first_text_like_xcsh(#[case] content: &str, #[case] expected: Option<&str>) {
        let raw: &RawValue = serde_json::from_str(content).unwrap();
        assert_eq!(first_text(Some(raw)).as_deref(), expected);
    }

    #[rstest]
    #[case::null("null", false)]
    #[case::zero("0", false)]
    #[case::empty_string("\"\"", false)]
    #[case::string("\"t\"", true)]
    #[case::number("2", true)]
    #[case::object("{}", true)]
    fn truthiness(#[case] text: &str, #[case] expected: bool) {
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        assert_eq!(truthy(Some(raw)), expected);
    }
}
