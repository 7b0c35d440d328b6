//! Subagents: the `agent` tool runs one whose turns Qwen Code writes to a
//! transcript of its own, `subagents/<session id>/agent-<agent id>.jsonl`,
//! beside a `.meta.json` naming the call that started it (`toolUseId`). Its
//! messages are folded under that call, never the session's own.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::conversation::build;
use super::parse::records;
use super::paths::subagent_files;
use crate::jsonl::read_file;
use crate::transcript::{Block, Message, Role, first_prompt};

/// Puts the turns of each subagent of the session file at `path` under the
/// call that started it: the call its `.meta.json` names, else the first call
/// without a subagent whose `prompt` is the subagent's first prompt. A
/// subagent whose call is not in `messages` is a system message that says so,
/// holding its blocks; with `only_calls` (messages of lines added to a file,
/// whose earlier calls were read before) it is left out. Files that cannot be
/// read are left out.
pub(super) fn attach(path: &Path, session_id: &str, messages: &mut Vec<Message>, only_calls: bool) {
    for file in subagent_files(path, session_id) {
        let Ok(bytes) = read_file(&file) else { continue };
        let mut issues = Vec::new();
        let records: Vec<_> = records(&bytes, &mut issues).into_iter().map(|(_, r)| r).collect();
        let turns = build(&records, false).messages;
        let call_id = meta_call_id(&file);
        let prompt = first_prompt(&turns).map(str::to_owned);
        match find_call(messages, call_id.as_deref(), prompt.as_deref()) {
            Some(call) => call.subagent = turns,
            None if only_calls => {}
            None => {
                let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let mut notice = Message::new(Role::System)
                    .with(Block::text(format!("Subagent {name}, whose call is not in this session")));
                notice.timestamp = turns.first().and_then(|m| m.timestamp.clone());
                notice.blocks.extend(turns.into_iter().flat_map(|m| m.blocks));
                messages.push(notice);
            }
        }
    }
}

/// The `.meta.json` beside a subagent transcript.
pub(super) fn meta_file(file: &Path) -> Option<PathBuf> {
    let name = file.file_name()?.to_string_lossy();
    Some(file.with_file_name(format!("{}.meta.json", name.strip_suffix(".jsonl")?)))
}

/// The `toolUseId` of the `.meta.json` beside a subagent transcript.
fn meta_call_id(file: &Path) -> Option<String> {
    let meta = meta_file(file)?;
    let value: Value = serde_json::from_slice(&read_file(&meta).ok()?).ok()?;
    value.get("toolUseId")?.as_str().map(str::to_owned)
}

/// The call a subagent belongs to: the one with `id`, else the first call
/// without a subagent whose input `prompt` is `prompt`.
fn find_call<'a>(
    messages: &'a mut [Message],
    id: Option<&str>,
    prompt: Option<&str>,
) -> Option<&'a mut crate::transcript::ToolCall> {
    let calls = || {
        messages.iter().flat_map(|m| &m.blocks).filter_map(|b| match b {
            Block::ToolCall(call) => Some(call),
            _ => None,
        })
    };
    let by_id = id.and_then(|id| calls().position(|c| c.id == id));
    let by_prompt = || {
        let prompt = prompt?.trim();
        calls().position(|c| {
            c.subagent.is_empty() && c.input.get("prompt").and_then(Value::as_str).map(str::trim) == Some(prompt)
        })
    };
    let at = by_id.or_else(by_prompt)?;
    messages
        .iter_mut()
        .flat_map(|m| &mut m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall(call) => Some(call),
            _ => None,
        })
        .nth(at)
}
