//! A session file's bytes to a transcript, plus what a listing and the
//! catalog need.

use super::conversation::build;
use super::record::Record;
use crate::index::LateResult;
use crate::jsonl::JsonLines;
use crate::transcript::{Transcript, first_prompt};

/// A parsed session file (or the lines added to one).
#[derive(Debug)]
pub(super) struct Parsed {
    /// The transcript, title and cwd filled in.
    pub(super) transcript: Transcript,
    /// The first record's timestamp.
    pub(super) created: Option<String>,
    /// The first prompt.
    pub(super) first_prompt: Option<String>,
    /// The title the records set (the last `custom_title`), without the
    /// first-prompt fallback.
    pub(super) explicit_title: Option<String>,
    /// The session this one was forked from, or whose sub-session it is.
    pub(super) parent_session: Option<String>,
    /// How many messages at the start a fork copied from its parent.
    pub(super) inherited: usize,
    /// Read as a tail: results whose call was in the earlier lines.
    pub(super) late: Vec<LateResult>,
}

/// The records of `bytes`, in file order; lines that do not parse are skipped
/// and reported.
pub(super) fn records(bytes: &[u8], issues: &mut Vec<sess_core::LineIssue>) -> Vec<(usize, Record)> {
    let mut records = Vec::new();
    for raw in JsonLines::new(bytes) {
        match raw.parse_object_mended::<Record>() {
            Ok(record) => records.push((raw.number, record)),
            Err(issue) => issues.push(issue),
        }
    }
    records
}

/// Reads every line of `bytes` as records of session `id`. With `tail`, the
/// lines follow earlier ones of the file.
pub(super) fn parse(bytes: &[u8], id: &str, tail: bool) -> Parsed {
    let mut transcript = Transcript::new(super::SOURCE, id);
    let records: Vec<Record> = records(bytes, &mut transcript.issues).into_iter().map(|(_, r)| r).collect();
    let created = records.iter().find_map(|r| r.timestamp.clone());
    transcript.cwd = records.iter().find_map(|r| r.cwd.clone());
    let explicit_title = records
        .iter()
        .rev()
        .filter(|r| r.kind() == "system" && r.subtype() == "custom_title")
        .find_map(|r| r.payload_str("customTitle").map(str::to_owned))
        .filter(|t| !t.trim().is_empty());
    let parent_session = records.iter().find_map(|r| {
        let forked = r.forked_from.as_ref().and_then(|f| f.session_id.clone());
        forked
            .or_else(|| (r.subtype() == "parent_session").then(|| r.payload_str("parentSessionId"))?.map(str::to_owned))
    });
    let built = build(&records, tail);
    transcript.messages = built.messages;
    let first_prompt = first_prompt(&transcript.messages).map(str::to_owned);
    transcript.title = explicit_title.clone().or_else(|| first_prompt.clone());
    Parsed {
        transcript,
        created,
        first_prompt,
        explicit_title,
        parent_session,
        inherited: built.inherited,
        late: built.late,
    }
}
