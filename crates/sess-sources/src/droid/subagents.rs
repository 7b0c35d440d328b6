//! A subagent's session folded under the `Task` call that started it.
//!
//! Droid runs a subagent as a session of its own, in a file beside its
//! caller's, whose first line names the calling session and call
//! (`callingSessionId`, `callingToolUseId`).

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};

use crate::transcript::{Block, Message};

/// How much of a file is read for its first line.
const HEAD_LIMIT: u64 = 1 << 20;

/// The subagents' session files of the session file at `path`: the files
/// beside it whose first line names its session as their caller, with the
/// call that started each.
pub(super) fn files(path: &Path, session: &str) -> Vec<(String, PathBuf)> {
    let Some(dir) = path.parent() else { return Vec::new() };
    let mut found = Vec::new();
    for file in crate::companions::files_in(dir, |name| Path::new(name).extension().is_some_and(|e| e == "jsonl")) {
        if file == path {
            continue;
        }
        let Ok(handle) = crate::jsonl::open_regular(&file) else { continue };
        let mut head = Vec::new();
        if BufReader::new(handle.take(HEAD_LIMIT)).read_until(b'\n', &mut head).is_err() {
            continue;
        }
        if let Some(calling) = super::parse::parse(&head, "", 0, false).calling
            && calling.session == session
        {
            found.push((calling.call, file));
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// Puts the transcript of each subagent of the session file at `path` under
/// its call in `messages` (a subagent's file that cannot be read, or whose
/// call is not there, is left out).
pub(super) fn attach(path: &Path, messages: &mut [Message]) {
    let has_task = messages.iter().flat_map(|m| &m.blocks).any(|b| matches!(b, Block::ToolCall(c) if c.name == "Task"));
    if !has_task {
        return;
    }
    let session = super::session_id(path);
    for (call_id, file) in files(path, &session) {
        let Ok(child) = super::load(&file) else { continue };
        for block in messages.iter_mut().flat_map(|m| &mut m.blocks) {
            if let Block::ToolCall(call) = block
                && call.id == call_id
            {
                call.subagent.clone_from(&child.messages);
            }
        }
    }
}
