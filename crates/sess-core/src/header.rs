//! The session header: the first JSON line of a session file.

use std::borrow::Cow;
use std::sync::Arc;

use crate::envelope::{Envelope, Field};
use crate::raw::{RawJson, Text};

/// The session format version sess writes.
pub const CURRENT_VERSION: u32 = 3;

/// The header line (`"type":"session"`) of a session file.
#[derive(Clone, Debug)]
pub struct SessionHeader {
    json: Text,
    id: String,
    version: Version,
    timestamp: Option<String>,
    cwd: Option<String>,
    title: Option<String>,
    parent_session: Option<String>,
}

/// The `version` field as the peers compare it: `header.version ?? 1`, then
/// JavaScript's numeric coercion (`"2"` is 2, `"abc"` is `NaN`, which never
/// compares smaller, so such a file is never migrated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Version(pub f64);

impl Version {
    /// Whether a file with this version needs migrating to the current one.
    pub fn needs_migration(self) -> bool {
        self.0 < f64::from(CURRENT_VERSION)
    }

    /// Whether the version is a number (after coercion).
    pub fn is_number(self) -> bool {
        !self.0.is_nan()
    }

    /// Whether this version is newer than sess knows.
    pub fn is_newer_than_supported(self) -> bool {
        self.0 > f64::from(CURRENT_VERSION)
    }

    pub(crate) fn from_json_text(raw: Option<&str>) -> Self {
        let number = match raw {
            None | Some("null" | "true") => 1.0,
            Some("false") => 0.0,
            Some(text) if text.starts_with('"') => {
                let s: String = serde_json::from_str(text).unwrap_or_default();
                let s = s.trim();
                if s.is_empty() { 0.0 } else { s.parse().unwrap_or(f64::NAN) }
            }
            Some(text) => text.parse().unwrap_or(f64::NAN),
        };
        Self(number)
    }
}

impl SessionHeader {
    /// A current-version header, with its keys in the order the agents write them:
    /// `type`, `version`, `id`, `timestamp`, `cwd`, `parentSession`?.
    pub fn new(id: &str, timestamp: &str, cwd: &str, parent_session: Option<&str>) -> Self {
        let mut map = serde_json::Map::new();
        map.insert("type".into(), "session".into());
        map.insert("version".into(), CURRENT_VERSION.into());
        map.insert("id".into(), id.into());
        map.insert("timestamp".into(), timestamp.into());
        map.insert("cwd".into(), cwd.into());
        if let Some(parent) = parent_session {
            map.insert("parentSession".into(), parent.into());
        }
        Self {
            json: Arc::new(serde_json::Value::Object(map).to_string()),
            id: id.to_owned(),
            version: Version(f64::from(CURRENT_VERSION)),
            timestamp: Some(timestamp.to_owned()),
            cwd: Some(cwd.to_owned()),
            title: None,
            parent_session: parent_session.map(str::to_owned),
        }
    }

    /// A copy with `key` set to `value`: an existing key keeps its place, a new
    /// one goes at the end (as a JavaScript assignment does). `type` and `id`
    /// cannot be changed this way.
    #[must_use]
    pub fn with(&self, key: &str, value: serde_json::Value) -> Self {
        if key == "type" || key == "id" {
            return self.clone();
        }
        let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str::<serde_json::Value>(&self.json) else {
            return self.clone();
        };
        map.insert(key.to_owned(), value);
        Self::parse(&serde_json::Value::Object(map).to_string()).unwrap_or_else(|| self.clone())
    }

    /// Parses a header line. `None` when the text is not an object with
    /// `"type":"session"` and a string `id` (the peers' own test).
    pub fn parse(json: &str) -> Option<Self> {
        let json: Text = Arc::new(json.trim().to_owned());
        let envelope = Envelope::parse(&json).ok()?;
        Self::from_envelope(&json, &envelope)
    }

    pub(crate) fn from_envelope(json: &Text, env: &Envelope<'_>) -> Option<Self> {
        if env.string(Field::Type).as_deref() != Some("session") {
            return None;
        }
        let id = env.string(Field::Id)?.into_owned();
        let version = Version::from_json_text(env.get(Field::Version).map(serde_json::value::RawValue::get));
        Some(Self {
            json: Arc::clone(json),
            id,
            version,
            timestamp: env.string(Field::Timestamp).map(Cow::into_owned),
            cwd: env.string(Field::Cwd).map(Cow::into_owned),
            title: env.lossy_string(Field::Title).map(Cow::into_owned),
            parent_session: env.string(Field::ParentSession).map(Cow::into_owned),
        })
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The format version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The creation time as written.
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }

    /// The working directory the session was started in.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The title (xcsh, oh-my-pi); a lone surrogate is read as U+FFFD.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The opaque lineage marker: a session id or a session file path.
    pub fn parent_session(&self) -> Option<&str> {
        self.parent_session.as_deref()
    }

    /// The exact JSON text of the header.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The header as a raw JSON value.
    pub fn raw(&self) -> RawJson {
        RawJson::new(Arc::clone(&self.json), 0..self.json.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_peer_header() {
        let h = SessionHeader::parse(
            r#"{"type":"session","version":3,"id":"01a2","timestamp":"2026-11-30T07:04:55.591Z","cwd":"/home/dev/p"}"#,
        )
        .unwrap();
        assert_eq!(h.id(), "01a2");
        assert_eq!(h.version(), Version(3.0));
        assert!(!h.version().needs_migration());
        assert_eq!(h.cwd(), Some("/home/dev/p"));
    }

    #[test]
    fn new_headers_use_the_agents_key_order() {
        let h = SessionHeader::new("s1", "2026-01-01T00:00:00.000Z", "/p", Some("/old.jsonl"));
        assert_eq!(
            h.json(),
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","parentSession":"/old.jsonl"}"#
        );
        let titled = h.with("title", "T".into()).with("cwd", "/q".into());
        assert_eq!(
            titled.json(),
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/q","parentSession":"/old.jsonl","title":"T"}"#
        );
        assert_eq!(titled.title(), Some("T"));
        assert_eq!(titled.cwd(), Some("/q"));
    }

    #[test]
    fn missing_version_means_v1() {
        let h = SessionHeader::parse(r#"{"type":"session","id":"x"}"#).unwrap();
        assert!(h.version().needs_migration());
    }

    #[test]
    fn versions_coerce_like_javascript() {
        let v = |text: &str| {
            SessionHeader::parse(&format!(r#"{{"type":"session","id":"x","version":{text}}}"#)).unwrap().version()
        };
        assert_eq!(v("\"2\""), Version(2.0));
        assert!(!v("\"abc\"").needs_migration());
        assert!(!v("{}").needs_migration());
        assert!(v("null").needs_migration());
        assert!(v("4").is_newer_than_supported());
    }

    #[test]
    fn rejects_non_headers() {
        assert!(SessionHeader::parse(r#"{"type":"session","id":5}"#).is_none());
        assert!(SessionHeader::parse(r#"{"type":"message","id":"a"}"#).is_none());
        assert!(SessionHeader::parse("not json").is_none());
    }
}
