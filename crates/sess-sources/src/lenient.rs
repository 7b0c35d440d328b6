//! Serde field readers that never fail a line: a value of an unexpected JSON
//! type reads as absent, so one odd field costs that field, not the line.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A string field; any other JSON value (`null` included) reads as absent.
pub(crate) fn string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(text) => Some(text),
        _ => None,
    })
}

/// A string field that is empty when absent or not a string.
pub(crate) fn string_or_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(string(deserializer)?.unwrap_or_default())
}

/// A flag, by JavaScript truthiness.
pub(crate) fn truthy<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(crate::jsonl::is_truthy(&Value::deserialize(deserializer)?))
}

/// A field of type `T`, absent when its value does not have that shape.
pub(crate) fn or_none<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(Value::deserialize(deserializer)?).ok())
}

/// A field of type `T`, its default when its value does not have that shape.
pub(crate) fn or_default<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned + Default>(
    deserializer: D,
) -> Result<T, D::Error> {
    Ok(or_none(deserializer)?.unwrap_or_default())
}

/// An array field whose elements of type `T` are kept and others skipped; a
/// value that is not an array reads as empty.
pub(crate) fn elements<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => items.into_iter().filter_map(|item| T::deserialize(item).ok()).collect(),
        _ => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Fields {
        #[serde(default, deserialize_with = "super::string")]
        name: Option<String>,
        #[serde(default, deserialize_with = "super::or_default")]
        count: u64,
        #[serde(default, deserialize_with = "super::elements")]
        tags: Vec<String>,
        #[serde(default, deserialize_with = "super::truthy")]
        flag: bool,
    }

    #[test]
    fn odd_values_read_as_absent() {
        let read = |text: &str| serde_json::from_str::<Fields>(text).unwrap();
        assert_eq!(
            read(r#"{"name":null,"count":"7","tags":["a",null,3,"b"],"flag":"yes"}"#),
            Fields { name: None, count: 0, tags: vec!["a".into(), "b".into()], flag: true }
        );
        assert_eq!(
            read(r#"{"name":"n","count":7,"tags":{},"flag":0}"#),
            Fields { name: Some("n".into()), count: 7, tags: vec![], flag: false }
        );
    }
}
