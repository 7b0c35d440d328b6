//! JSON text known to be valid, so that it can be written into an entry
//! without being parsed again.

use std::fmt;

use serde::Deserializer as _;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// One JSON value as text, checked once when it was made.
///
/// ```
/// use sess_core::JsonText;
///
/// let mut keys = Vec::new();
/// let text = JsonText::parse_with(r#"{"role":"user","content":[{"text":"hi"}]}"#.to_owned(), |key| {
///     keys.push(key.to_owned());
/// })?;
/// assert_eq!(keys, ["role", "content"]);
/// assert_eq!(text.as_str(), r#"{"role":"user","content":[{"text":"hi"}]}"#);
/// assert!(JsonText::parse_with("{\"a\":".to_owned(), |_| {}).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct JsonText(String);

impl JsonText {
    /// Checks that `text` is one JSON value (surrounding whitespace allowed)
    /// and, when it is an object, calls `key` with each of its top-level keys,
    /// in order, decoded. One pass over the text.
    ///
    /// # Errors
    /// When `text` is not exactly one JSON value.
    pub fn parse_with(text: String, key: impl FnMut(&str)) -> Result<Self, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(&text);
        deserializer.deserialize_any(KeysVisitor(key))?;
        deserializer.end()?;
        Ok(Self(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// This object with the member `key: value` added at its end (the text
    /// before it kept as it is, whitespace after the object dropped), without
    /// checking it again: an object with one more member stays valid. `None`
    /// when this is not an object.
    ///
    /// ```
    /// use sess_core::JsonText;
    ///
    /// let message = JsonText::parse_with(r#"{"role": "user"} "#.to_owned(), |_| {})?;
    /// assert_eq!(message.with_number_field("timestamp", 17).unwrap().as_str(), r#"{"role": "user","timestamp":17}"#);
    /// let empty = JsonText::parse_with("{ }".to_owned(), |_| {})?;
    /// assert_eq!(empty.with_number_field("n", 1).unwrap().as_str(), r#"{ "n":1}"#);
    /// assert!(JsonText::parse_with("[1]".to_owned(), |_| {})?.with_number_field("n", 1).is_none());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn with_number_field(&self, key: &str, value: u64) -> Option<Self> {
        let text = self.0.trim_end_matches(crate::entry::is_json_whitespace);
        let inner = text.trim_start_matches(crate::entry::is_json_whitespace).strip_prefix('{')?.strip_suffix('}')?;
        let mut out = String::with_capacity(text.len() + key.len() + 24);
        out.push_str(&text[..text.len() - 1]);
        if !inner.trim_matches(crate::entry::is_json_whitespace).is_empty() {
            out.push(',');
        }
        crate::entry::push_json_string(&mut out, key);
        out.push(':');
        out.push_str(&value.to_string());
        out.push('}');
        Some(Self(out))
    }
}

impl From<Box<RawValue>> for JsonText {
    fn from(raw: Box<RawValue>) -> Self {
        Self(Box::<str>::from(raw).into_string())
    }
}

impl fmt::Debug for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Visits any value, reporting the keys of a top-level object.
struct KeysVisitor<F>(F);

impl<'de, F: FnMut(&str)> Visitor<'de> for KeysVisitor<F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(KeySeed(&mut self.0))? {
            let () = key;
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// Reads a key and hands it to the callback.
struct KeySeed<'f, F>(&'f mut F);

impl<'de, F: FnMut(&str)> de::DeserializeSeed<'de> for KeySeed<'_, F> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<F: FnMut(&str)> Visitor<'_> for KeySeed<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<(), E> {
        (self.0)(key);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Result<Vec<String>, serde_json::Error> {
        let mut keys = Vec::new();
        JsonText::parse_with(text.to_owned(), |k| keys.push(k.to_owned()))?;
        Ok(keys)
    }

    #[test]
    fn reports_top_level_keys_only_and_decodes_them() {
        assert_eq!(keys(r#" {"a":{"b":1},"c\u0065":"}","d":[["e"]]} "#).unwrap(), ["a", "ce", "d"]);
        assert_eq!(keys("[1,{\"x\":2}]").unwrap(), Vec::<String>::new());
        assert_eq!(keys("\"s\"").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn refuses_what_is_not_one_json_value() {
        for bad in ["{\"a\":", "{} {}", "{\"a\":tru}", "", "{\"a\":\"\\ud800\"}x"] {
            assert!(keys(bad).is_err(), "{bad}");
        }
    }
}
