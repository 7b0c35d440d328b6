//! Replaying a session file's records into what a transcript shows.
//!
//! The CLI's own loader keeps one list of messages: a record with a known id
//! replaces that message, `$rewindTo` cuts the list, `$set.messages` replaces
//! it. A transcript shows more: everything that was said, in the order it
//! was said, with notices where the conversation changed. So the replay keeps
//! two lists: `shown`, which only grows (a record with a known id replaces
//! its message in place), and `live`, the CLI's list, to tell what a rewind
//! or a replacement took away:
//!
//! - `$rewindTo`: what it cuts stays shown, followed by a notice;
//! - `$set.messages` holding a `<state_snapshot>`: a compression. The
//!   snapshot is shown as a summary; the model's acknowledgement the CLI
//!   writes after it, and the kept history restated under new ids, are not
//!   shown again;
//! - any other `$set.messages` that leaves out shown messages of the live
//!   list: the CLI took a turn back out of the conversation (its request
//!   failed or was cancelled), noted after it; the first one after a
//!   metadata line is a fresh chat's start (a resume starts one before it
//!   loads the session) and takes nothing back;
//! - a message restated under a new id (a compression restates the history
//!   it keeps) is recognised by what it says
//!   ([`signature`](super::parts::signature)) among the live messages the
//!   replacement does not keep by their own ids, and not shown twice.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};
use sess_core::LineIssue;

use super::parts::{is_displayable, kind, signature, snapshot, text_field, visible_text};
use super::record::{Record, Records};

/// Something the transcript shows, in order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Shown {
    /// A message, as its latest record has it.
    Message(Value),
    /// A compression's summary, with the id and time of its message.
    Summary { id: Option<String>, timestamp: Option<String>, text: String },
    /// A change of the conversation the records only imply.
    Notice(String),
}

/// A replayed session file.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// The first metadata record's fields (a resume writes the metadata again
    /// with a later `startTime`; the first one is when the session started).
    pub meta: Map<String, Value>,
    /// The title: the last `summary` set.
    pub summary: Option<String>,
    /// The folders `$set.directories` or the metadata named last.
    pub directories: Vec<String>,
    pub shown: Vec<Shown>,
    pub issues: Vec<LineIssue>,
}

impl Session {
    /// A metadata string field.
    pub(crate) fn meta(&self, key: &str) -> Option<&str> {
        self.meta.get(key).and_then(Value::as_str)
    }
}

/// Replays `records`.
pub(crate) fn replay(records: Records) -> Session {
    let mut replay = Replay::default();
    replay.session.issues = records.issues;
    for (_, record) in records.records {
        let after_meta = std::mem::take(&mut replay.after_meta);
        match record {
            Record::Rewind(id) => replay.rewind(&id),
            Record::Message(message) => replay.message(message),
            Record::Set(set) => replay.set(set, after_meta),
            Record::Meta(meta) => replay.meta(meta),
        }
    }
    replay.session
}

#[derive(Default)]
struct Replay {
    session: Session,
    /// Where each message id is in `shown` (restated ids included).
    index: HashMap<String, usize>,
    /// The CLI's list of messages, by id, and the same ids as a set.
    live: Vec<String>,
    in_live: HashSet<String>,
    /// New ids of restated messages → the id they restate.
    alias: HashMap<String, String>,
    /// Whether the last record was metadata.
    after_meta: bool,
}

impl Replay {
    fn resolve<'a>(&'a self, id: &'a str) -> &'a str {
        self.alias.get(id).map_or(id, String::as_str)
    }

    /// A message record: shown (in place of the message with its id, if
    /// any), and in the live list.
    fn message(&mut self, message: Value) {
        let id = self.show(message);
        if self.in_live.insert(id.clone()) {
            self.live.push(id);
        }
    }

    /// Shows `message` in place of the one with its id, or after the rest;
    /// returns its id (the one it restates, for a restated id).
    fn show(&mut self, message: Value) -> String {
        let id = self.resolve(text_field(&message, "id").unwrap_or_default()).to_owned();
        if let Some(&at) = self.index.get(&id) {
            if let Shown::Message(old) = &mut self.session.shown[at] {
                *old = message;
            }
        } else {
            self.index.insert(id.clone(), self.session.shown.len());
            self.session.shown.push(Shown::Message(message));
        }
        id
    }

    fn rewind(&mut self, id: &str) {
        let id = self.resolve(id).to_owned();
        // The CLI's loader empties the list when the id is not in it.
        let at = self.live.iter().position(|live| *live == id).unwrap_or(0);
        let cut = self.live.split_off(at);
        for id in &cut {
            self.in_live.remove(id);
        }
        if !cut.iter().any(|id| self.displayable(id)) {
            return;
        }
        let target = self.shown_message(&id).filter(|m| kind(m) == "user").map(visible_text);
        let notice = match target.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            Some(prompt) => format!("Rewound to before “{}”", first_line(prompt)),
            None => "Rewound the conversation".to_owned(),
        };
        self.session.shown.push(Shown::Notice(notice));
    }

    fn set(&mut self, mut set: Map<String, Value>, after_meta: bool) {
        if let Some(Value::Array(messages)) = set.remove("messages") {
            self.replace(messages, after_meta);
        }
        self.metadata(&set);
    }

    fn meta(&mut self, meta: Map<String, Value>) {
        self.metadata(&meta);
        if self.session.meta.is_empty() {
            self.session.meta = meta;
        }
        self.after_meta = true;
    }

    fn metadata(&mut self, fields: &Map<String, Value>) {
        if let Some(Value::String(summary)) = fields.get("summary") {
            self.session.summary = Some(summary.clone());
        }
        if let Some(Value::Array(dirs)) = fields.get("directories") {
            self.session.directories = dirs.iter().filter_map(Value::as_str).map(ToOwned::to_owned).collect();
        }
    }

    /// `$set.messages`: the conversation is now `messages`.
    fn replace(&mut self, messages: Vec<Value>, fresh_start: bool) {
        let before = std::mem::take(&mut self.live);
        self.in_live.clear();
        // Messages the list keeps by their own ids cannot be restated by others.
        let kept_by_id: HashSet<String> = messages
            .iter()
            .filter_map(|m| text_field(m, "id"))
            .map(|id| self.resolve(id).to_owned())
            .filter(|id| self.index.contains_key(id))
            .collect();
        let mut restatable = None;
        let mut compressed = false;
        let mut acknowledgement_due = false;
        for message in messages {
            let Some(raw_id) = text_field(&message, "id") else { continue };
            let id = self.resolve(raw_id).to_owned();
            let id = if self.index.contains_key(&id) {
                acknowledgement_due = false;
                id
            } else if let Some(text) = snapshot(&message) {
                self.index.insert(id.clone(), self.session.shown.len());
                let timestamp = text_field(&message, "timestamp").map(ToOwned::to_owned);
                self.session.shown.push(Shown::Summary { id: Some(id.clone()), timestamp, text });
                (compressed, acknowledgement_due) = (true, true);
                id
            } else if acknowledgement_due && kind(&message) == "gemini" {
                // The CLI's "Got it" after the snapshot: part of the summary.
                let summary = self.live.last().and_then(|last| self.index.get(last)).copied();
                self.index.insert(id.clone(), summary.unwrap_or_default());
                acknowledgement_due = false;
                id
            } else {
                acknowledgement_due = false;
                let pool = restatable.get_or_insert_with(|| self.by_signature(&before, &kept_by_id));
                match pool.get_mut(&signature(&message)).and_then(VecDeque::pop_front) {
                    Some(old) => {
                        self.alias.insert(id, old.clone());
                        old
                    }
                    None => self.show(message),
                }
            };
            if self.in_live.insert(id.clone()) {
                self.live.push(id);
            }
        }
        let dropped = before.iter().any(|id| !self.in_live.contains(id) && self.displayable(id));
        if dropped && !compressed && !fresh_start {
            let notice = "Gemini CLI took this turn back out of the conversation (its request failed or was cancelled)";
            self.session.shown.push(Shown::Notice(notice.to_owned()));
        }
    }

    /// The messages of `before` that a replacement may restate under new ids
    /// (those it does not keep by their own), by what they say, in order.
    fn by_signature(&self, before: &[String], kept: &HashSet<String>) -> HashMap<String, VecDeque<String>> {
        let mut pool: HashMap<String, VecDeque<String>> = HashMap::new();
        for id in before.iter().filter(|id| !kept.contains(*id)) {
            if let Some(message) = self.shown_message(id) {
                pool.entry(signature(message)).or_default().push_back(id.clone());
            }
        }
        pool
    }

    fn shown_message(&self, id: &str) -> Option<&Value> {
        match self.session.shown.get(*self.index.get(id)?)? {
            Shown::Message(message) => Some(message),
            _ => None,
        }
    }

    fn displayable(&self, id: &str) -> bool {
        self.shown_message(id).is_some_and(is_displayable)
    }
}

/// The first line of `text`, cut to 80 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}
