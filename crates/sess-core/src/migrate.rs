//! Format migrations v1 → v2 → v3, exactly as the pi family performs them.
//!
//! - v1 → v2: every non-header entry gets a new id and the previous entry as its
//!   parent (a linear chain in file order). pi mints random ids; here the id is
//!   derived from the entry's line number and bytes ([`line_id`]), so every read of
//!   the file shows the same ids and `sess migrate` writes those. An id already in
//!   the file, or minted for an earlier line, is never reused; a compaction's `firstKeptEntryIndex`
//!   (an index into the parsed lines, header at 0) becomes `firstKeptEntryId`.
//!   Keys that were not there before are appended at the end of the object, as
//!   JavaScript does.
//! - v2 → v3: a `message` whose role is `hookMessage` becomes role `custom`.
//!
//! The header's `version` is set to the new version after each step.

use serde_json::{Map, Value};

use crate::header::{CURRENT_VERSION, Version};
use std::collections::HashSet;

use crate::id::{EntryId, line_id};

/// What a migration did.
#[derive(Clone, Debug, PartialEq)]
pub struct Migration {
    /// The version the file had.
    pub from: Version,
    /// Which of the values were changed (parallel to the input).
    pub changed: Vec<bool>,
}

/// The version of a parsed file: its first `"type":"session"` object's `version`,
/// or 1 when there is none.
pub fn version_of(values: &[Value]) -> Version {
    let header = values.iter().find(|v| is_type(v, "session"));
    let raw = header.and_then(|h| h.get("version")).map(Value::to_string);
    crate::header::Version::from_json_text(raw.as_deref())
}

/// Where a parsed value came from: its line number in the file (1-based) and the
/// line's text. A migration derives the ids it mints from them.
#[derive(Clone, Copy, Debug)]
pub struct Origin<'a> {
    /// The line number.
    pub line: usize,
    /// The line's text.
    pub text: &'a str,
}

/// Migrates the parsed values of a file (header included, in file order) to the
/// current version in place. `origins` is parallel to `values`. Returns `None`
/// when the file is already current.
pub fn migrate_values(values: &mut [Value], origins: &[Origin<'_>]) -> Option<Migration> {
    let from = version_of(values);
    if !from.needs_migration() {
        return None;
    }
    let mut changed = vec![false; values.len()];
    if from.0 < 2.0 {
        v1_to_v2(values, &mut changed, origins);
    }
    v2_to_v3(values, &mut changed);
    Some(Migration { from, changed })
}

/// The id for the value at `index`: [`line_id`] of its line, tried again with the
/// next attempt while `taken` holds it. Past 1000 attempts (never met: that many
/// 32-bit ids would all have to be taken) a numeric suffix makes it free.
fn minted_id(origin: Option<&Origin<'_>>, index: usize, taken: &HashSet<String>) -> EntryId {
    let (line, text) = origin.map_or((index, ""), |o| (o.line, o.text));
    for attempt in 0..1000 {
        let id = line_id(line, text, attempt);
        if !taken.contains(id.as_str()) {
            return id;
        }
    }
    let base = line_id(line, text, 1000);
    // Of `taken.len() + 1` distinct candidates at least one is free.
    (1..=taken.len() + 1)
        .map(|n| EntryId::new(format!("{base}-{n}")))
        .find(|id| !taken.contains(id.as_str()))
        .unwrap_or(base)
}

fn v1_to_v2(values: &mut [Value], changed: &mut [bool], origins: &[Origin<'_>]) {
    // Ids the file already has (overwritten below, but a forward
    // `firstKeptEntryIndex` may still name one) and those minted so far.
    let mut taken: HashSet<String> =
        values.iter().filter_map(|v| v.get("id").and_then(Value::as_str)).map(str::to_owned).collect();
    let mut previous: Option<EntryId> = None;
    for index in 0..values.len() {
        let Some(object) = values[index].as_object_mut() else {
            continue;
        };
        changed[index] = true;
        if is_object_type(object, "session") {
            object.insert("version".into(), 2.into());
            continue;
        }
        let id = minted_id(origins.get(index), index, &taken);
        taken.insert(id.as_str().to_owned());
        object.insert("id".into(), id.as_str().into());
        object.insert("parentId".into(), previous.as_ref().map_or(Value::Null, |p| p.as_str().into()));
        previous = Some(id);

        let kept_index = if is_object_type(object, "compaction") {
            object.get("firstKeptEntryIndex").and_then(Value::as_f64)
        } else {
            None
        };
        let Some(kept_index) = kept_index else {
            continue;
        };
        // `entries[i]` in JavaScript: only a whole, in-range index finds an element.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let target = (kept_index >= 0.0 && kept_index.fract() == 0.0)
            .then(|| values.get(kept_index as usize))
            .flatten()
            .filter(|t| !is_type(t, "session"))
            .map(|t| t.get("id").cloned());
        let Some(object) = values[index].as_object_mut() else {
            continue;
        };
        match target {
            Some(Some(id)) => {
                object.insert("firstKeptEntryId".into(), id);
            }
            // The target has no id yet: JavaScript assigns `undefined`, which
            // JSON.stringify leaves out.
            Some(None) => {
                object.shift_remove("firstKeptEntryId");
            }
            None => {}
        }
        object.shift_remove("firstKeptEntryIndex");
    }
}

fn v2_to_v3(values: &mut [Value], changed: &mut [bool]) {
    for (index, value) in values.iter_mut().enumerate() {
        let Some(object) = value.as_object_mut() else {
            continue;
        };
        if is_object_type(object, "session") {
            object.insert("version".into(), CURRENT_VERSION.into());
            changed[index] = true;
            continue;
        }
        if !is_object_type(object, "message") {
            continue;
        }
        let Some(message) = object.get_mut("message").and_then(Value::as_object_mut) else {
            continue;
        };
        if message.get("role").and_then(Value::as_str) == Some("hookMessage") {
            message.insert("role".into(), "custom".into());
            changed[index] = true;
        }
    }
}

fn is_type(value: &Value, ty: &str) -> bool {
    value.as_object().is_some_and(|o| is_object_type(o, ty))
}

fn is_object_type(object: &Map<String, Value>, ty: &str) -> bool {
    object.get("type").and_then(Value::as_str) == Some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// The values as lines 1, 2, … of a file.
    fn texts(values: &[Value]) -> Vec<String> {
        values.iter().map(|v| serde_json::to_string(v).unwrap()).collect()
    }

    fn migrate(values: &mut [Value]) -> Option<Migration> {
        let texts = texts(values);
        let origins: Vec<Origin<'_>> =
            texts.iter().enumerate().map(|(index, text)| Origin { line: index + 1, text }).collect();
        migrate_values(values, &origins)
    }

    /// The migrated lines, with the ids minted for lines 2, 3, … written `n0`,
    /// `n1`, … (which ids they are is [`minted_ids_come_from_each_line`]'s test).
    fn run(mut values: Vec<Value>) -> (Vec<String>, Option<Migration>) {
        let before = texts(&values);
        let migration = migrate(&mut values);
        let mut lines = texts(&values);
        if migration.as_ref().is_some_and(|m| m.from.0 < 2.0) {
            for (n, (index, text)) in before.iter().enumerate().skip(1).enumerate() {
                let minted = line_id(index + 1, text, 0);
                for line in &mut lines {
                    *line = line.replace(&format!("\"{minted}\""), &format!("\"n{n}\""));
                }
            }
        }
        (lines, migration)
    }

    #[test]
    fn minted_ids_come_from_each_line_and_are_never_taken_ones() {
        let second = json!({"type":"message","timestamp":"t1","message":{"role":"user","content":"hi"}});
        let second_id = line_id(2, &serde_json::to_string(&second).unwrap(), 0);
        assert_eq!(second_id.as_str().len(), 8);
        assert!(second_id.as_str().bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        let header = json!({"type":"session","id":"s","timestamp":"t0"});
        let plain = vec![header.clone(), second.clone()];
        let (mut once, mut twice) = (plain.clone(), plain);
        migrate(&mut once);
        migrate(&mut twice);
        assert_eq!(once, twice, "the same file, the same ids");
        assert_eq!(once[1]["id"], second_id.as_str());

        // A later line already holds the id line 2 would get: line 2 takes its next attempt.
        let third = json!({"type":"message","id":second_id.as_str(),"message":{"role":"user","content":"yo"}});
        let mut values = vec![header, second.clone(), third.clone()];
        migrate(&mut values);
        let texts = [second, third].map(|v| serde_json::to_string(&v).unwrap());
        assert_eq!(values[1]["id"], line_id(2, &texts[0], 1).as_str());
        assert_eq!(values[2]["id"], line_id(3, &texts[1], 0).as_str());
        assert_ne!(values[1]["id"], values[2]["id"]);
    }

    #[test]
    fn v1_gets_a_linear_chain_with_new_keys_appended() {
        let (lines, migration) = run(vec![
            json!({"type":"session","id":"s","timestamp":"t0"}),
            json!({"type":"message","timestamp":"t1","message":{"role":"user","content":"hi"}}),
            json!({"type":"message","timestamp":"t2","message":{"role":"hookMessage","content":"x"}}),
        ]);
        assert_eq!(migration.unwrap().from, Version(1.0));
        assert_eq!(
            lines,
            vec![
                r#"{"type":"session","id":"s","timestamp":"t0","version":3}"#,
                r#"{"type":"message","timestamp":"t1","message":{"role":"user","content":"hi"},"id":"n0","parentId":null}"#,
                r#"{"type":"message","timestamp":"t2","message":{"role":"custom","content":"x"},"id":"n1","parentId":"n0"}"#,
            ]
        );
    }

    #[test]
    fn existing_ids_are_overwritten_in_place() {
        let (lines, _) = run(vec![
            json!({"type":"session","id":"s","version":1}),
            json!({"type":"message","id":"old","parentId":"zzz","message":{}}),
        ]);
        assert_eq!(lines[0], r#"{"type":"session","id":"s","version":3}"#);
        assert_eq!(lines[1], r#"{"type":"message","id":"n0","parentId":null,"message":{}}"#);
    }

    #[test]
    fn first_kept_index_counts_the_header_as_zero() {
        let (lines, _) = run(vec![
            json!({"type":"session","id":"s"}),
            json!({"type":"message","message":{}}),
            json!({"type":"message","message":{}}),
            json!({"type":"compaction","summary":"s","firstKeptEntryIndex":2,"tokensBefore":1}),
            json!({"type":"compaction","summary":"s","firstKeptEntryIndex":0}),
            json!({"type":"compaction","summary":"s","firstKeptEntryIndex":9}),
            json!({"type":"compaction","summary":"s","firstKeptEntryIndex":7}),
            json!({"type":"message","message":{}}),
            json!({"type":"message","id":"legacy","message":{}}),
        ]);
        assert_eq!(
            lines[3],
            r#"{"type":"compaction","summary":"s","tokensBefore":1,"id":"n2","parentId":"n1","firstKeptEntryId":"n1"}"#
        );
        // The header is never a target; the index is dropped anyway.
        assert_eq!(lines[4], r#"{"type":"compaction","summary":"s","id":"n3","parentId":"n2"}"#);
        // Out of range: dropped.
        assert_eq!(lines[5], r#"{"type":"compaction","summary":"s","id":"n4","parentId":"n3"}"#);
        // A forward index sees the target's id before migration reaches it.
        assert_eq!(lines[6], r#"{"type":"compaction","summary":"s","id":"n5","parentId":"n4"}"#);
    }

    #[test]
    fn v2_only_renames_hook_messages() {
        let (lines, migration) = run(vec![
            json!({"type":"session","version":2,"id":"s"}),
            json!({"type":"message","id":"a","parentId":null,"message":{"role":"hookMessage"}}),
            json!({"type":"message","id":"b","parentId":"a","message":{"role":"user"}}),
        ]);
        assert_eq!(migration.unwrap().changed, vec![true, true, false]);
        assert_eq!(lines[1], r#"{"type":"message","id":"a","parentId":null,"message":{"role":"custom"}}"#);
    }

    #[test]
    fn current_files_are_left_alone() {
        let (_, migration) = run(vec![json!({"type":"session","version":3,"id":"s"})]);
        assert_eq!(migration, None);
    }
}
