//! One pass over an entry line that picks out the fields sess understands.
//!
//! Every value is captured as a borrowed slice of the line (`&RawValue`), so the
//! line is scanned once and nothing is copied. Keys repeat the way `JSON.parse`
//! treats them: the last one wins.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

macro_rules! fields {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// The keys sess reads from entries and headers.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Field { $($variant),* }

        impl Field {
            const COUNT: usize = [$($name),*].len();

            fn from_key(key: &str) -> Option<Self> {
                match key {
                    $($name => Some(Self::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

fields! {
    Type => "type",
    Id => "id",
    ParentId => "parentId",
    Timestamp => "timestamp",
    Message => "message",
    ThinkingLevel => "thinkingLevel",
    Model => "model",
    Role => "role",
    Provider => "provider",
    ModelId => "modelId",
    Summary => "summary",
    ShortSummary => "shortSummary",
    FirstKeptEntryId => "firstKeptEntryId",
    TokensBefore => "tokensBefore",
    Details => "details",
    PreserveData => "preserveData",
    FromId => "fromId",
    CustomType => "customType",
    Data => "data",
    Content => "content",
    Display => "display",
    Attribution => "attribution",
    TargetId => "targetId",
    Label => "label",
    InjectedRules => "injectedRules",
    Mode => "mode",
    Name => "name",
    ContextName => "contextName",
    Tenant => "tenant",
    ServiceTier => "serviceTier",
    SelectedToolNames => "selectedToolNames",
    Version => "version",
    Cwd => "cwd",
    Title => "title",
    ParentSession => "parentSession",
    Replacement => "replacement",
    SystemMessage => "systemMessage",
    TokensAfter => "tokensAfter",
    Method => "method",
    Warning => "warning",
    ProviderReplayThroughEntryId => "providerReplayThroughEntryId",
    CompactionThreshold => "compactionThreshold",
}

/// The known fields of one JSON object line, each as a slice of the line.
pub(crate) struct Envelope<'a> {
    values: [Option<&'a RawValue>; Field::COUNT],
}

impl<'a> Envelope<'a> {
    /// Parses `line` as one JSON object.
    pub(crate) fn parse(line: &'a str) -> Result<Self, EnvelopeError> {
        let mut de = serde_json::Deserializer::from_str(line);
        let envelope = match Envelope::deserialize(&mut de) {
            Ok(envelope) => envelope,
            Err(err) if err.is_data() => return Err(EnvelopeError::NotAnObject),
            Err(err) => return Err(EnvelopeError::Json(err)),
        };
        de.end().map_err(EnvelopeError::Json)?;
        Ok(envelope)
    }

    /// The raw value of `field`, if the line has it.
    pub(crate) fn get(&self, field: Field) -> Option<&'a RawValue> {
        self.values[field as usize]
    }

    /// The value of `field` when it is a JSON string: borrowed from the line
    /// unless it has escapes.
    pub(crate) fn string(&self, field: Field) -> Option<Cow<'a, str>> {
        let raw = self.get(field)?.get();
        if !raw.starts_with('"') {
            return None;
        }
        if raw.contains('\\') {
            serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
        } else {
            raw.get(1..raw.len() - 1).map(Cow::Borrowed)
        }
    }

    /// [`string`](Self::string), but a lone UTF-16 surrogate (a name cut
    /// inside an emoji, as `JSON.stringify` writes it) is read as U+FFFD, as
    /// the agents show it, instead of making the value unreadable.
    pub(crate) fn lossy_string(&self, field: Field) -> Option<Cow<'a, str>> {
        let raw = self.get(field)?.get();
        match self.string(field) {
            Some(text) => Some(text),
            None if raw.starts_with('"') => {
                serde_json::from_str::<String>(&crate::raw::replace_lone_surrogate_escapes(raw)).ok().map(Cow::Owned)
            }
            None => None,
        }
    }
}

/// Why a line is not an entry object.
#[derive(Debug)]
pub(crate) enum EnvelopeError {
    /// Not JSON, or JSON followed by more text.
    Json(serde_json::Error),
    /// Valid JSON, but not an object.
    NotAnObject,
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut values = [None; Field::COUNT];
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Some(field) => values[field as usize] = Some(map.next_value::<&RawValue>()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Envelope { values })
    }
}

/// Reads a key without allocating when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<Field>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Option<Field>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Field::from_key(key))
    }
}
