//! The Cline CLI's sessions: `<sessions>/<id>/<id>.messages.json` (the
//! conversation: the session's main file) beside `<id>.json` (the session's
//! manifest: cwd, prompt, title, model, times, status, usage) and, once the
//! conversation was compacted, `<id>.compaction.json`.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sess_core::{IssueKind, LineIssue};

use super::convert;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::index::Indexed;
use crate::jsonl::read_file;
use crate::listing::{FoundFiles, Listing, Scope, SessionInfo, active_ms, modified_ms, note_nowhere, transcript_info};
use crate::transcript::{Transcript, finish_pending};
use crate::usage::{Call, Calls, Counter};

/// The end of a conversation file's name: `<id>.messages.json`.
pub(crate) const MESSAGES: &str = ".messages.json";
/// The end of a compaction file's name: `<id>.compaction.json`.
pub(crate) const COMPACTION: &str = ".compaction.json";

/// The CLI's folder of sessions in `env`: `$CLINE_SESSION_DATA_DIR`, else
/// `sessions` in `$CLINE_DATA_DIR`, else `data/sessions` in `$CLINE_DIR` or
/// `~/.cline` (the CLI's own order).
pub(crate) fn sessions_dir(env: &Env) -> PathBuf {
    env.path("CLINE_SESSION_DATA_DIR").unwrap_or_else(|| data_dir(env).join("sessions"))
}

/// The CLI's data folder in `env`: `$CLINE_DATA_DIR`, else `data` in
/// `$CLINE_DIR` or `~/.cline`.
pub(crate) fn data_dir(env: &Env) -> PathBuf {
    env.path("CLINE_DATA_DIR").unwrap_or_else(|| env.path_or_home("CLINE_DIR", ".cline").join("data"))
}

/// The conversation files of the sessions in `dir` (`<id>/<id>.messages.json`),
/// as `(id, path)` in path order, found from names alone.
pub(crate) fn find(dir: &Path) -> FoundFiles {
    let mut found = FoundFiles::default();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for entry in entries.flatten() {
        let Some(id) = entry.file_name().to_str().map(str::to_owned) else { continue };
        if id.starts_with('.') || note_nowhere(&entry, &mut found.skipped) {
            continue;
        }
        let file = entry.path().join(format!("{id}{MESSAGES}"));
        match std::fs::metadata(&file) {
            Ok(meta) if meta.is_file() => found.files.push((id, file)),
            Ok(meta) => found.skipped.push((file, sess_core::FileKind::of(meta.file_type()))),
            Err(_) if std::fs::symlink_metadata(&file).is_ok() => found.files.push((id, file)),
            Err(_) => {}
        }
    }
    found.files.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// The sessions in `dir` within `scope`, subagents' left out (they are
/// shown under the call that started them).
pub(crate) fn list(dir: &Path, scope: Scope<'_>) -> Listing {
    let mut listing = Listing::default();
    let found = find(dir);
    for (path, kind) in found.skipped {
        listing.problems.push(Error::NotASessionFile { path, kind });
    }
    for (_, path) in found.files {
        let bytes = match read_file(&path) {
            Ok(bytes) => bytes,
            Err(err) => {
                listing.problems.push(err);
                continue;
            }
        };
        let session = read(&path, &bytes);
        if session.subagent {
            continue;
        }
        if let Scope::Project(dir) = scope
            && session.transcript.cwd.as_deref().is_none_or(|cwd| Path::new(cwd) != dir)
        {
            continue;
        }
        listing.sessions.push(session.info(&path));
    }
    listing
}

/// The session whose conversation file is `path`, as a whole transcript.
pub(crate) fn load(path: &Path) -> Result<Transcript> {
    Ok(read(path, &read_file(path)?).transcript)
}

/// What the catalog keeps of the session whose conversation file is `path`,
/// read whole from `path` (the catalog's `bytes` are its complete lines, and
/// the CLI may write its JSON without a last newline); `bytes` only when it
/// cannot be read.
pub(crate) fn index(path: &Path, bytes: &[u8]) -> std::result::Result<Indexed, String> {
    let whole = read_file(path).ok();
    let bytes = whole.as_deref().unwrap_or(bytes);
    if !matches!(serde_json::from_slice::<Value>(bytes), Ok(Value::Object(ref doc)) if doc.get("messages").is_some_and(Value::is_array))
    {
        return Err("not a Cline CLI session: no `messages` array".to_owned());
    }
    let session = read(path, bytes);
    let transcript = session.transcript;
    let title = transcript.title.clone().or_else(|| transcript.first_prompt().map(ToOwned::to_owned));
    Ok(Indexed {
        session_id: transcript.id,
        title_explicit: session.title_explicit,
        title,
        cwd: transcript.cwd,
        created: session.created,
        message_count: transcript.messages.len(),
        messages: transcript.messages,
        usage: session.calls,
        listed: None,
    })
}

/// The other files of the session whose conversation file is `path`: its
/// manifest and its compaction file.
pub(crate) fn companions(path: &Path) -> Vec<PathBuf> {
    let Some(stem) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(MESSAGES)) else {
        return Vec::new();
    };
    let files = vec![path.with_file_name(format!("{stem}.json")), path.with_file_name(format!("{stem}{COMPACTION}"))];
    crate::companions::finish(path, files)
}

/// Whether the file named in `head` is a CLI conversation: its name, and
/// its `sessionId` near the start.
pub(crate) fn is_conversation(head: &crate::detect::Head<'_>) -> bool {
    head.name.ends_with(MESSAGES) && memchr::memmem::find(head.bytes, br#""sessionId""#).is_some()
}

/// A session read.
struct Session {
    transcript: Transcript,
    created: Option<String>,
    title_explicit: bool,
    subagent: bool,
    calls: Vec<Call>,
}

impl Session {
    fn info(self, path: &Path) -> SessionInfo {
        let file_ms = std::fs::metadata(path).map_or(0, |m| modified_ms(&m));
        let modified = active_ms(&self.transcript, self.created.as_deref()).unwrap_or(file_ms);
        transcript_info(super::SOURCE, &self.transcript, path, self.created, modified)
    }
}

/// The session whose conversation `bytes` is at `path`, with its manifest.
fn read(path: &Path, bytes: &[u8]) -> Session {
    let stem = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(MESSAGES)).unwrap_or_default();
    let mut transcript = Transcript::new(super::SOURCE, stem);
    let doc = match serde_json::from_slice::<Value>(bytes) {
        Ok(doc @ Value::Object(_)) => doc,
        Ok(_) => {
            transcript.issues.push(LineIssue { line: 1, kind: IssueKind::NotAnObject });
            Value::Null
        }
        Err(err) => {
            transcript.issues.push(LineIssue { line: 1, kind: IssueKind::InvalidJson(err.to_string()) });
            Value::Null
        }
    };
    if transcript.id.is_empty()
        && let Some(id) = doc.get("sessionId").and_then(Value::as_str)
    {
        id.clone_into(&mut transcript.id);
    }
    let manifest = read_file(&path.with_file_name(format!("{stem}.json")))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .unwrap_or(Value::Null);
    let text = |value: &Value, key: &str| {
        value.pointer(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned)
    };
    let records = doc.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut messages = convert::messages(records, &|_| None);
    if let Some((after, summary)) = compaction(&path.with_file_name(format!("{stem}{COMPACTION}")), records) {
        let at = messages.iter().position(|(record, _)| *record > after).unwrap_or(messages.len());
        messages.insert(at, (after, summary));
    }
    transcript.messages = messages.into_iter().map(|(_, m)| m).collect();
    finish_pending(&mut transcript.messages);
    transcript.cwd = text(&manifest, "/cwd").or_else(|| text(&manifest, "/workspace_root"));
    let prompt = text(&manifest, "/prompt");
    transcript.title = text(&manifest, "/metadata/title");
    let title_explicit = transcript.title.is_some() && transcript.title != prompt;
    let created =
        text(&manifest, "/started_at").or_else(|| transcript.messages.iter().find_map(|m| m.timestamp.clone()));
    let subagent = manifest.get("is_subagent").and_then(Value::as_bool).unwrap_or(false)
        || text(&manifest, "/parent_session_id").is_some();
    let model = text(&manifest, "/model");
    let calls = calls(records, model.as_deref());
    Session { transcript, created, title_explicit, subagent, calls }
}

/// The compaction the file at `path` records (`<id>.compaction.json`: the
/// conversation as the model sees it since, its first message the summary,
/// `metadata.kind` `compaction_summary`), as a summary to show after the
/// record of `records` it was made at (`source_last_message_key`
/// `id:<message id>`, else the `source_message_count`th); `None` when there
/// is none.
fn compaction(path: &Path, records: &[Value]) -> Option<(usize, crate::transcript::Message)> {
    let doc: Value = serde_json::from_slice(&read_file(path).ok()?).ok()?;
    let first = doc.get("messages")?.as_array()?.first()?;
    let metadata = first.get("metadata")?;
    if metadata.get("kind").and_then(Value::as_str) != Some("compaction_summary") {
        return None;
    }
    let summary = metadata.get("summary").and_then(Value::as_str).unwrap_or_default().to_owned();
    let key = doc.get("source_last_message_key").and_then(Value::as_str).and_then(|k| k.strip_prefix("id:"));
    let after = key
        .and_then(|key| records.iter().position(|r| r.get("id").and_then(Value::as_str) == Some(key)))
        .or_else(|| {
            let count = doc.get("source_message_count").and_then(Value::as_u64)?;
            usize::try_from(count).ok()?.checked_sub(1)
        })
        .unwrap_or(records.len().saturating_sub(1));
    let timestamp = metadata.get("generatedAt").and_then(Value::as_i64).map(sess_core::format_iso_millis);
    let message = crate::transcript::Message::new(crate::transcript::Role::System)
        .at(None, timestamp)
        .with(crate::transcript::Block::Summary { text: summary });
    Some((after, message))
}

/// The model calls the assistant messages of `records` record in `metrics`
/// (`inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`,
/// `cost`), each keyed by its message's id, with its `modelInfo.id` (else the
/// session's `model`).
fn calls(records: &[Value], model: Option<&str>) -> Vec<Call> {
    let mut calls = Calls::default();
    for record in records {
        let Some(metrics) = record.get("metrics").filter(|m| m.is_object()) else { continue };
        let counter = Counter::default();
        calls.push(Call {
            key: record.get("id").and_then(Value::as_str).map(str::to_owned),
            timestamp: record.get("ts").and_then(Value::as_i64).map(sess_core::format_iso_millis),
            model: record.pointer("/modelInfo/id").and_then(Value::as_str).or(model).map(str::to_owned),
            input: counter.count("inputTokens", metrics.get("inputTokens")),
            output: counter.count("outputTokens", metrics.get("outputTokens")),
            cache_creation: counter.count("cacheWriteTokens", metrics.get("cacheWriteTokens")),
            cache_read: counter.count("cacheReadTokens", metrics.get("cacheReadTokens")),
            reasoning: 0,
            cost: metrics.get("cost").and_then(Value::as_f64),
            not_counts: counter.take(),
        });
    }
    calls.finish()
}
