//! Format migrations v1 → v2 → v3, exactly as the pi family performs them.
//!
//! - v1 → v2: every non-header entry gets a fresh id and the previous entry as its
//!   parent (a linear chain in file order); a compaction's `firstKeptEntryIndex`
//!   (an index into the parsed lines, header at 0) becomes `firstKeptEntryId`.
//!   Keys that were not there before are appended at the end of the object, as
//!   JavaScript does.
//! - v2 → v3: a `message` whose role is `hookMessage` becomes role `custom`.
//!
//! The header's `version` is set to the new version after each step.

use serde_json::{Map, Value};

use crate::header::{CURRENT_VERSION, Version};
use crate::id::{EntryId, IdSource, fresh_id};

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

/// Migrates the parsed values of a file (header included, in file order) to the
/// current version in place. Returns `None` when the file is already current.
pub fn migrate_values(values: &mut [Value], ids: &mut dyn IdSource) -> Option<Migration> {
    let from = version_of(values);
    if !from.needs_migration() {
        return None;
    }
    let mut changed = vec![false; values.len()];
    if from.0 < 2.0 {
        v1_to_v2(values, &mut changed, ids);
    }
    v2_to_v3(values, &mut changed);
    Some(Migration { from, changed })
}

fn v1_to_v2(values: &mut [Value], changed: &mut [bool], ids: &mut dyn IdSource) {
    let mut minted: std::collections::HashSet<EntryId> = std::collections::HashSet::new();
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
        let id = fresh_id(ids, &|candidate| minted.contains(candidate));
        minted.insert(id.clone());
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
    use crate::id::SequentialIds;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn run(mut values: Vec<Value>) -> (Vec<String>, Option<Migration>) {
        let migration = migrate_values(&mut values, &mut SequentialIds::new("n"));
        (values.iter().map(|v| serde_json::to_string(v).unwrap()).collect(), migration)
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
