//! The session's title: its name, renaming (`rename`, `set_session_name`),
//! and the title a new session started from this one carries.
//!
//! A session that records its titles in a title slot and `title_change`
//! entries is renamed as oh-my-pi renames it: a `title_change` entry is
//! appended, then the slot is written again in place (a whole rewrite when
//! the file has no slot of the fixed width). A session with a header title
//! gets the new one there; [`SessionManager::rename`] gives any other one a
//! `session_info` entry, as pi-mono does.

use serde_json::{Map, Value};
use sess_core::{Entry, EntryKind, SessionHeader, SessionNames, TitleSlot, TitleSource};

use super::{NextWrite, SessionManager};
use crate::error::{Error, Result};

/// Where a new session's header takes the title it carries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// Before `parentSession` (oh-my-pi's `createBranchedSession`).
    BeforeParent,
    /// After every other key.
    Last,
}

/// The title a session started from this one carries.
pub(super) struct Carried {
    /// The name.
    name: Option<String>,
    /// The header's `titleSource`, as written.
    source: Option<Value>,
    /// Whether the source had a title slot: the new file gets one.
    slot: bool,
}

impl Carried {
    /// What a session with `names` and `header` carries.
    pub(super) fn of(names: &SessionNames, header: &SessionHeader) -> Self {
        let source = match names.slot() {
            Some(slot) => slot.source.map(|s| s.as_str().into()),
            None => header_field(header, "titleSource"),
        };
        Self { name: names.name().map(str::to_owned), source, slot: names.slot().is_some() }
    }

    /// Whether the source had a title slot.
    pub(super) fn has_slot(&self) -> bool {
        self.slot
    }
}

impl SessionManager {
    /// The titles the session records: its title slot, `title_change` and
    /// `session_info` entries, the header's `title`.
    pub fn names(&self) -> SessionNames {
        SessionNames::of(self.title_line.as_deref(), Some(&self.header), &self.entries)
    }

    /// The session's name (see [`SessionNames::name`]): its title slot's,
    /// else its newest `title_change`'s, else the header's `title`, else the
    /// newest `session_info` name.
    pub fn session_name(&self) -> Option<String> {
        self.names().name().map(str::to_owned)
    }

    /// Who set the title: the title slot's `source`, else the header's `titleSource`.
    pub fn title_source(&self) -> Option<TitleSource> {
        let header_source = header_field(&self.header, "titleSource");
        self.names().title_source(header_source.as_ref().and_then(Value::as_str))
    }

    /// Renames the session where its agent reads the name (`sess rename`),
    /// by the user; returns whether it was renamed (an empty name is not):
    ///
    /// - a session with a title slot or `title_change` entries as oh-my-pi
    ///   renames it ([`set_session_name`](Self::set_session_name));
    /// - a session whose header has a `title` gets the new one there (the file
    ///   is rewritten), and a `session_info` entry too when it has some;
    /// - any other session gets a `session_info` entry, as pi-mono renames
    ///   one: the file keeps every byte and grows by the entry.
    pub fn rename(&mut self, name: &str) -> Result<bool> {
        let cleaned = sanitize_name(name);
        if cleaned.is_empty() {
            return Ok(false);
        }
        let kinds = || self.entries.iter().map(Entry::kind);
        let records_titles = self.names().slot().is_some() || kinds().any(|k| matches!(k, EntryKind::TitleChange(_)));
        let session_info = kinds().any(|k| matches!(k, EntryKind::SessionInfo(_)));
        if records_titles || header_field(&self.header, "title").is_some() {
            let renamed = self.set_session_name(&cleaned, TitleSource::User)?;
            if renamed && session_info && !records_titles {
                self.append_session_info(&cleaned)?;
            }
            return Ok(renamed);
        }
        self.append_session_info(&cleaned)?;
        Ok(true)
    }

    /// Sets the session's title. Control characters become spaces, runs of
    /// spaces collapse, and the result is trimmed; an empty name is refused. An
    /// automatic title never replaces one the user chose. Returns whether the
    /// title changed.
    ///
    /// A session with a title slot or `title_change` entries gets a
    /// `title_change` entry (`title`, `source`, and `previousTitle`: the
    /// slot's title, else the header's, when there is one) and a new slot; its header's `title` and `titleSource` change
    /// in memory, for the next whole rewrite. When the file ends on disk with
    /// a slot of the fixed width, the entry is appended and the slot is
    /// written again in place, under the file's lock: the line is unreadable
    /// while it is written, never half old and half new, and every other byte
    /// stays. Otherwise the file is rewritten whole. Any other session's
    /// header gets the title, and an existing file is rewritten at once.
    pub fn set_session_name(&mut self, name: &str, source: TitleSource) -> Result<bool> {
        let cleaned = sanitize_name(name);
        if cleaned.is_empty() {
            return Ok(false);
        }
        if source == TitleSource::Auto && self.title_source() == Some(TitleSource::User) {
            return Ok(false);
        }
        let names = self.names();
        let with_entries =
            names.slot().is_some() || self.entries.iter().any(|e| matches!(e.kind(), EntryKind::TitleChange(_)));
        let titled = self.header.with("title", cleaned.as_str().into()).with("titleSource", source.as_str().into());
        let on_disk = self.persist && self.file.as_ref().is_some_and(|f| self.storage.exists(f));
        if !with_entries || self.stored.is_some() {
            self.header = titled;
            if on_disk && self.stored.is_none() {
                self.rewrite_entries()?;
            }
            return Ok(true);
        }
        let timestamp = self.now_iso();
        let slot = TitleSlot { title: cleaned.clone(), source: Some(source), updated_at: timestamp.clone() };
        let line = slot.to_line().ok_or_else(|| Error::InvalidEntry { reason: "the title slot is too long".into() })?;
        // The slot read from the file has the fixed width (checked again on disk).
        let in_place = on_disk
            && self.disk.next_write == NextWrite::Append
            && names.slot().is_some()
            && self.title_line.as_ref().is_some_and(|l| l.len() + 1 == line.len());
        let mut fields = vec![
            ("type", "title_change".into()),
            ("id", self.next_entry_id().as_str().into()),
            ("parentId", self.leaf.as_ref().map_or(Value::Null, |p| p.as_str().into())),
            ("timestamp", timestamp.into()),
            ("title", cleaned.into()),
            ("source", source.as_str().into()),
        ];
        // oh-my-pi's previous title: the slot's, else the header's.
        if let Some(previous) = names.title_without_changes() {
            fields.push(("previousTitle", previous.into()));
        }
        let object: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        // The entry is persisted below, with the slot.
        let outer = std::mem::replace(&mut self.batching, true);
        let pushed = self.push_line(&Value::Object(object).to_string());
        self.batching = outer;
        pushed?;
        self.header = titled;
        self.title_line = Some(line.trim_end_matches('\n').to_owned());
        if outer {
            // The batch persists the entry; the slot reaches the file with its next whole rewrite.
            return Ok(true);
        }
        let Some(path) = self.file.clone().filter(|_| on_disk) else {
            // Not written yet: the first write has the slot and the entry.
            self.persist_pending()?;
            return Ok(true);
        };
        if in_place {
            self.persist_title_in_place(&path, line.as_bytes())?;
        } else {
            self.rewrite_entries()?;
        }
        Ok(true)
    }

    /// What a session started from this one carries of its title.
    pub(super) fn carried_title(&self) -> Carried {
        Carried::of(&self.names(), &self.header)
    }

    /// Gives the new session the title `carried` from the one it started
    /// from: the header's `title` and `titleSource` (at `place`), and, when
    /// the source had a title slot, a slot of its own with the name, dated
    /// as the new header is (oh-my-pi's forks and branches).
    pub(super) fn carry_title(&mut self, carried: Carried, place: Place) {
        let mut fields = Vec::new();
        if let Some(name) = &carried.name {
            fields.push(("title", Value::from(name.as_str())));
        }
        if let Some(source) = &carried.source {
            fields.push(("titleSource", source.clone()));
        }
        self.header = with_fields(&self.header, &fields, place);
        if carried.slot {
            let slot = TitleSlot {
                title: carried.name.unwrap_or_default(),
                source: carried.source.as_ref().and_then(Value::as_str).and_then(TitleSource::parse),
                updated_at: self.header.timestamp().unwrap_or_default().to_owned(),
            };
            self.title_line = slot.to_line().map(|line| line.trim_end_matches('\n').to_owned());
        }
    }
}

/// `header` with `fields` set: a key it has keeps its place, a new one goes at
/// `place`.
fn with_fields(header: &SessionHeader, fields: &[(&str, Value)], place: Place) -> SessionHeader {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(header.json()) else { return header.clone() };
    let (mut out, mut pending) = (Map::new(), fields.to_vec());
    pending.retain(|(key, value)| {
        let known = map.contains_key(*key);
        if known {
            out.insert((*key).to_owned(), value.clone());
        }
        !known
    });
    let mut out_ordered = Map::new();
    for (key, value) in map {
        if place == Place::BeforeParent && key == "parentSession" {
            out_ordered.extend(pending.drain(..).map(|(k, v)| (k.to_owned(), v)));
        }
        let value = out.remove(&key).unwrap_or(value);
        out_ordered.insert(key, value);
    }
    out_ordered.extend(pending.into_iter().map(|(k, v)| (k.to_owned(), v)));
    SessionHeader::parse(&Value::Object(out_ordered).to_string()).unwrap_or_else(|| header.clone())
}

pub(super) fn header_field(header: &SessionHeader, key: &str) -> Option<Value> {
    serde_json::from_str::<Value>(header.json()).ok()?.get(key).cloned()
}

/// oh-my-pi's cleaning of a title: control characters (C0 and C1) become
/// spaces, runs of spaces collapse, and whitespace is trimmed from both ends
/// (as JavaScript's `trim` does, a byte order mark included).
fn sanitize_name(name: &str) -> String {
    let spaced: String = name.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let collapsed = spaced.split(' ').filter(|part| !part.is_empty()).collect::<Vec<_>>().join(" ");
    collapsed.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_cleaned_as_oh_my_pi_cleans_it() {
        assert_eq!(sanitize_name("  My\tsession\u{7}  name \u{85}"), "My session name");
        assert_eq!(sanitize_name("\u{feff}\u{a0} x \u{3000}y\u{2028}"), "x \u{3000}y");
        assert_eq!(sanitize_name("\u{a0}\u{a0}a\u{a0}\u{a0}b"), "a\u{a0}\u{a0}b");
        assert_eq!(sanitize_name(" \n\u{9f} "), "");
    }

    #[test]
    fn a_carried_title_goes_before_the_parent_or_last() {
        let header = SessionHeader::parse(
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p","parentSession":"/a.jsonl"}"#,
        )
        .unwrap();
        let fields = [("title", Value::from("T")), ("titleSource", Value::from("user"))];
        assert_eq!(
            with_fields(&header, &fields, Place::BeforeParent).json(),
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p","title":"T","titleSource":"user","parentSession":"/a.jsonl"}"#
        );
        assert_eq!(
            with_fields(&header, &fields, Place::Last).json(),
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p","parentSession":"/a.jsonl","title":"T","titleSource":"user"}"#
        );
        let titled = with_fields(&header, &fields[..1], Place::Last);
        assert_eq!(
            with_fields(&titled, &[("title", "U".into())], Place::BeforeParent).json(),
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/p","parentSession":"/a.jsonl","title":"U"}"#
        );
    }
}
