//! Serde field readers that never fail a line: a value of an unexpected JSON
//! type reads as absent, so one odd field costs that field, not the line.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor, value::MapAccessDeserializer};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A string field; any other JSON value (`null` included) reads as absent.
pub(crate) fn string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    from_str(deserializer, |text| Some(text.to_owned()))
}

/// A field read by `read` when it is a string, `T::default()` otherwise; the
/// string is borrowed from the input when it can be, and other values are
/// skipped without being built.
pub(crate) fn from_str<'de, D, T, F>(deserializer: D, read: F) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default,
    F: FnOnce(&str) -> T,
{
    deserializer.deserialize_any(StrVisitor { read, value: PhantomData })
}

/// Reads a string with a function; skips anything else.
struct StrVisitor<F, T> {
    read: F,
    value: PhantomData<T>,
}

impl<'de, T: Default, F: FnOnce(&str) -> T> Visitor<'de> for StrVisitor<F, T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E>(self, text: &str) -> Result<T, E> {
        Ok((self.read)(text))
    }

    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_none<E>(self) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }
}

/// An object field read as `T` (whose own fields should be lenient); any
/// other JSON value reads as absent, skipped without being built.
pub(crate) fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    /// Reads a map as `T`; skips anything else.
    struct ObjectVisitor<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
        type Value = Option<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map)).map(Some)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }

        fn visit_str<E>(self, _: &str) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_bool<E>(self, _: bool) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_i64<E>(self, _: i64) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_u64<E>(self, _: u64) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_f64<E>(self, _: f64) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_unit<E>(self) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_none<E>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(ObjectVisitor(PhantomData))
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

    #[derive(Deserialize, Debug, PartialEq, Default)]
    struct Inner {
        #[serde(default, deserialize_with = "super::string")]
        a: Option<String>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Fields {
        #[serde(default, deserialize_with = "super::object")]
        inner: Option<Inner>,
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
            read(r#"{"name":null,"count":"7","tags":["a",null,3,"b"],"flag":"yes","inner":[1,{"a":2}]}"#),
            Fields { inner: None, name: None, count: 0, tags: vec!["a".into(), "b".into()], flag: true }
        );
        assert_eq!(
            read(r#"{"name":"n","count":7,"tags":{},"flag":0,"inner":{"a":"x\"y","b":[{}]}}"#),
            Fields {
                inner: Some(Inner { a: Some("x\"y".into()) }),
                name: Some("n".into()),
                count: 7,
                tags: vec![],
                flag: false
            }
        );
    }
}
