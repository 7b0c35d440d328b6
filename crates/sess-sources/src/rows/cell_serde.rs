//! How a [`Cell`](super::Cell)'s numbers and bytes are written so that they
//! read back exactly, whatever parses the JSON.

/// An `f64` as the text of its shortest decimal that reads back as the same
/// bits (`"0.1"`, `"1e300"`, `"-0.0"`, `"inf"`, `"NaN"`). A JSON number would
/// not do: parsers round some decimals to a neighbouring bit pattern (so does
/// `serde_json` without its `float_roundtrip` feature), and JSON has no
/// infinity. A number is read too, for JSON written by hand.
pub(super) mod real {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    #[allow(clippy::trivially_copy_pass_by_ref)] // serde's `with` passes a reference.
    pub(crate) fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{value:?}"))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        deserializer.deserialize_any(Real)
    }

    struct Real;

    impl Visitor<'_> for Real {
        type Value = f64;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a floating-point number, or its decimal as text")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<f64, E> {
            text.parse().map_err(|_| E::invalid_value(de::Unexpected::Str(text), &self))
        }

        fn visit_f64<E: de::Error>(self, value: f64) -> Result<f64, E> {
            Ok(value)
        }

        // A number written by hand: as near as an f64 gets.
        fn visit_i64<E: de::Error>(self, value: i64) -> Result<f64, E> {
            Ok(value as f64)
        }

        fn visit_u64<E: de::Error>(self, value: u64) -> Result<f64, E> {
            Ok(value as f64)
        }
    }
}

/// Bytes as standard base64 (a JSON array of numbers would be four times as
/// long).
pub(super) mod bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer, de};

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD.decode(text.as_bytes()).map_err(de::Error::custom)
    }
}
