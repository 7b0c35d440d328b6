//! pi-mono's `buildSessionContext` over sess's entries, as JSON text: what
//! `sm.buildSessionContext()` returns before JavaScript has parsed the
//! entries, so a session opens without making an object of each entry. It
//! gives what `index.js`'s `buildSessionContext` gives over the parsed
//! entries (the differential tests hold both to pi-mono's): the messages of
//! the path from the root to the leaf, stored messages spliced in as written;
//! the newest compaction's summary in place of what it compacted; custom
//! messages and branch summaries as pi makes them; the thinking level and the
//! model of the last change (or assistant message) on the path.

use std::fmt::Write as _;

use sess_core::{Entry, EntryIndex, EntryKind, RawJson};

/// `{"messages":[…],"thinkingLevel":…,"model":…,"entryIds":[…]}` at the
/// entry `leaf` (the last entry when it is unknown; an empty context for
/// `None`). `entryIds` holds, for each message, the id of the `message` entry
/// it is the message of, or `null` for one made here (a summary, a custom
/// message): what JavaScript needs to hand out the entries' own objects, as pi
/// does.
pub(crate) fn build(entries: &[Entry], index: &EntryIndex, leaf: Option<&str>) -> String {
    const EMPTY: &str = r#"{"messages":[],"thinkingLevel":"off","model":null,"entryIds":[]}"#;
    let Some(leaf) = leaf else { return EMPTY.to_owned() };
    let Some(position) = index.position(leaf).or(entries.len().checked_sub(1)) else { return EMPTY.to_owned() };
    let path: Vec<&Entry> = index.path(entries, position).entries.iter().map(|&at| &entries[at]).collect();
    let mut out = String::from(r#"{"messages":["#);
    let mut ids = String::from(r#","entryIds":["#);
    let mut push = |out: &mut String, message: &str, entry: Option<&Entry>| {
        if ids.len() > r#","entryIds":["#.len() {
            out.push(',');
            ids.push(',');
        }
        out.push_str(message);
        match entry {
            Some(entry) => ids.push_str(&serde_json::Value::from(entry.id().as_str()).to_string()),
            None => ids.push_str("null"),
        }
    };
    let compaction = path.iter().rposition(|e| matches!(e.kind(), EntryKind::Compaction(_)));
    let emitted: Box<dyn Iterator<Item = &&Entry>> = match compaction {
        None => Box::new(path.iter()),
        Some(at) => {
            let EntryKind::Compaction(c) = path[at].kind() else { unreachable!("a compaction") };
            let summary = [("role", "\"compactionSummary\"".to_owned()), ("summary", raw(c.summary.as_ref()))];
            let tokens = ("tokensBefore", raw(c.tokens_before.as_ref()));
            push(&mut out, &object(&[&summary[..], &[tokens, ("timestamp", millis(path[at]))]].concat()), None);
            let kept = c.first_kept_entry_id.as_ref().map(|id| id.as_str());
            let from = path[..at].iter().position(|e| Some(e.id().as_str()) == kept).unwrap_or(at);
            Box::new(path[from..at].iter().chain(&path[at + 1..]))
        }
    };
    for entry in emitted {
        if let Some(message) = message_of(entry) {
            let stored = matches!(entry.kind(), EntryKind::Message(_));
            push(&mut out, &message, stored.then_some(*entry));
        }
    }
    out.push_str(r#"],"thinkingLevel":"#);
    let level = path.iter().rev().find_map(|e| match e.kind() {
        EntryKind::ThinkingLevelChange(change) => Some(raw(change.thinking_level.as_ref())),
        _ => None,
    });
    out.push_str(level.as_deref().unwrap_or(r#""off""#));
    out.push_str(r#","model":"#);
    out.push_str(&model(&path).unwrap_or_else(|| "null".to_owned()));
    out.push_str(&ids);
    out.push_str("]}");
    out
}

/// What an entry puts in the context: a stored message as written, a custom
/// message or a branch summary as pi makes them; `None` for the others.
fn message_of(entry: &Entry) -> Option<String> {
    match entry.kind() {
        EntryKind::Message(m) => Some(m.message.as_ref().map_or_else(|| "null".to_owned(), |m| m.as_str().to_owned())),
        EntryKind::CustomMessage(m) => Some(object(&[
            ("role", "\"custom\"".to_owned()),
            ("customType", raw(m.custom_type.as_ref())),
            ("content", raw(m.content.as_ref())),
            ("display", raw(m.display.as_ref())),
            ("details", raw(m.details.as_ref())),
            ("timestamp", millis(entry)),
        ])),
        EntryKind::BranchSummary(b) if b.summary.as_ref().is_some_and(|s| sess_core::json_is_truthy(s.as_str())) => {
            Some(object(&[
                ("role", "\"branchSummary\"".to_owned()),
                ("summary", raw(b.summary.as_ref())),
                ("fromId", raw(b.from_id.as_ref())),
                ("timestamp", millis(entry)),
            ]))
        }
        _ => None,
    }
}

/// The model of the last model change or assistant message on `path`:
/// `{"provider":…,"modelId":…}`.
fn model(path: &[&Entry]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Assistant<'a> {
        #[serde(borrow)]
        provider: Option<&'a serde_json::value::RawValue>,
        #[serde(borrow)]
        model: Option<&'a serde_json::value::RawValue>,
    }
    let text = |value: Option<&String>| value.map(|v| serde_json::Value::from(v.as_str()).to_string());
    path.iter().rev().find_map(|entry| match entry.kind() {
        EntryKind::ModelChange(change) => Some(object(
            &[("provider", text(change.provider.as_ref())), ("modelId", text(change.model_id.as_ref()))]
                .map(|(k, v)| (k, v.unwrap_or_default())),
        )),
        EntryKind::Message(m) if entry.is_message_from("assistant") => {
            let message = m.message.as_ref()?;
            let found: Assistant<'_> = serde_json::from_str(message.as_str()).ok()?;
            let field = |v: Option<&serde_json::value::RawValue>| v.map(|v| v.get().to_owned()).unwrap_or_default();
            Some(object(&[("provider", field(found.provider)), ("modelId", field(found.model))]))
        }
        _ => None,
    })
}

/// A JSON object of `fields` in order, those with no value (undefined in
/// JavaScript) left out.
fn object(fields: &[(&str, String)]) -> String {
    let mut out = String::from("{");
    for (key, value) in fields.iter().filter(|(_, v)| !v.is_empty()) {
        if out.len() > 1 {
            out.push(',');
        }
        let _ = write!(out, "\"{key}\":{value}");
    }
    out.push('}');
    out
}

/// A field's JSON, empty when missing.
fn raw(value: Option<&RawJson>) -> String {
    value.map(|v| v.as_str().to_owned()).unwrap_or_default()
}

/// The entry's time in ms, as `new Date(timestamp).getTime()` gives it (`null`
/// for NaN, as JSON has it).
fn millis(entry: &Entry) -> String {
    entry.timestamp().and_then(sess_core::parse_iso_millis).map_or_else(|| "null".to_owned(), |ms| ms.to_string())
}
