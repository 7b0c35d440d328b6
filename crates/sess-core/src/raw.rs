//! JSON values kept as the exact text they were read from.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// Text shared by the entries read from it: a block of lines, or one line.
/// An `Arc<String>` so that text built or read into a `String` is shared as
/// it is, without a copy.
pub(crate) type Text = Arc<String>;

/// A JSON value inside an entry line, kept as its exact source text.
///
/// Entries never re-encode what they did not need to understand: a message, a
/// `details` object or an unknown field is written back byte for byte. A `RawJson`
/// shares the line it came from, so cloning it is cheap.
#[derive(Clone)]
pub struct RawJson {
    line: Text,
    start: u32,
    end: u32,
}

impl RawJson {
    /// A value that spans `range` of `line`. The caller guarantees that the range
    /// holds one complete JSON value.
    pub(crate) fn new(line: Text, range: Range<usize>) -> Self {
        // Lines are limited to u32::MAX bytes by the reader, so the casts are exact.
        let start = u32::try_from(range.start).unwrap_or(u32::MAX);
        let end = u32::try_from(range.end).unwrap_or(u32::MAX);
        Self { line, start, end }
    }

    /// A standalone value parsed from `text`.
    ///
    /// # Errors
    /// When `text` is not exactly one JSON value.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let trimmed = serde_json::from_str::<&RawValue>(text)?.get();
        let line: Text = Arc::new(trimmed.to_owned());
        let len = line.len();
        Ok(Self::new(line, 0..len))
    }

    /// The shared text and where the value is in it.
    pub(crate) fn parts(&self) -> (&Text, usize, usize) {
        (&self.line, self.start as usize, self.end as usize)
    }

    /// The whole text the value is a span of.
    pub(crate) fn base(&self) -> &str {
        &self.line
    }

    /// The exact JSON text of the value.
    pub fn as_str(&self) -> &str {
        &self.line[self.start as usize..self.end as usize]
    }

    /// `true` for the literal `null`.
    pub fn is_null(&self) -> bool {
        self.as_str() == "null"
    }

    /// JavaScript truthiness of the value, which is what the peers test with
    /// `if (entry.summary)`: `null`, `false`, `0` and `""` are falsy.
    pub fn is_truthy(&self) -> bool {
        json_is_truthy(self.as_str())
    }

    /// The value as a string, when it is a JSON string.
    pub fn as_string(&self) -> Option<String> {
        if self.as_str().starts_with('"') { serde_json::from_str(self.as_str()).ok() } else { None }
    }

    /// Decodes the value into `T`.
    ///
    /// # Errors
    /// When the value does not have the shape of `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.as_str())
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for RawJson {}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(self.as_str()).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// JavaScript truthiness of the JSON value `text`: `null`, `false`, `0` and
/// `""` are falsy, everything else is truthy.
pub fn json_is_truthy(text: &str) -> bool {
    match text.as_bytes().first() {
        Some(b'n' | b'f') | None => false,
        Some(b'"') => text.len() > 2,
        Some(b'-' | b'0'..=b'9') => text.parse::<f64>().is_ok_and(|n| n != 0.0),
        Some(_) => true,
    }
}

/// Replaces each `\uXXXX` escape of a lone UTF-16 surrogate in JSON text with
/// `\ufffd`, keeping the length. `JSON.stringify` writes lone surrogates that way
/// (a string cut in the middle of an emoji, say), and they are valid JSON, but a
/// Rust `String` cannot hold them; this makes such text decodable.
pub fn replace_lone_surrogate_escapes(text: &str) -> std::borrow::Cow<'_, str> {
    fn hex_at(bytes: &[u8], at: usize) -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        let text = std::str::from_utf8(digits).ok()?;
        u32::from_str_radix(text, 16).ok()
    }
    let bytes = text.as_bytes();
    let mut lone = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        match hex_at(bytes, i + 2) {
            Some(0xD800..=0xDBFF) => {
                let paired = bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && hex_at(bytes, i + 8).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low));
                if paired {
                    i += 12;
                } else {
                    lone.push(i);
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                lone.push(i);
                i += 6;
            }
            _ => i += 2,
        }
    }
    if lone.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_owned().into_bytes();
    for at in lone {
        out[at..at + 6].copy_from_slice(b"\\ufffd");
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    std::borrow::Cow::Owned(
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::{RawJson, replace_lone_surrogate_escapes};

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let text = r#"{"a":"x\ud835y","b":"\udc00","ok":"\ud835\udd18","esc":"\\ud835","mixed":"\ud835\u0041"}"#;
        let fixed = replace_lone_surrogate_escapes(text);
        assert_eq!(fixed.len(), text.len());
        assert_eq!(
            fixed,
            r#"{"a":"x\ufffdy","b":"\ufffd","ok":"\ud835\udd18","esc":"\\ud835","mixed":"\ufffd\u0041"}"#
        );
        let value: serde_json::Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(value["ok"], "\u{1d518}");
        assert!(matches!(replace_lone_surrogate_escapes("{}"), std::borrow::Cow::Borrowed(_)));
    }
    use rstest::rstest;

    #[rstest]
    #[case::null("null", false)]
    #[case::false_("false", false)]
    #[case::true_("true", true)]
    #[case::zero("0", false)]
    #[case::negative_zero("-0.0", false)]
    #[case::number("0.5", true)]
    #[case::empty_string("\"\"", false)]
    #[case::string("\"x\"", true)]
    #[case::empty_object("{}", true)]
    #[case::empty_array("[]", true)]
    fn truthiness_follows_javascript(#[case] text: &str, #[case] truthy: bool) {
        assert_eq!(RawJson::parse(text).unwrap().is_truthy(), truthy);
    }

    #[test]
    fn keeps_exact_text() {
        let raw = RawJson::parse(" {\"b\":1.0,\"a\":\"\\u00e9\"} ").unwrap();
        assert_eq!(raw.as_str(), "{\"b\":1.0,\"a\":\"\\u00e9\"}");
        assert_eq!(serde_json::to_string(&raw).unwrap(), raw.as_str());
    }
}
