//! Which agent wrote a session file, from its name and first lines.

use std::path::Path;

use serde::Deserialize;

use crate::jsonl::JsonLines;
use crate::transcript::SourceKind;

/// The zstd frame magic number: Codex compresses old rollouts.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// How many lines to look at before giving up.
const LINES_LOOKED_AT: usize = 32;

/// How much of a file [`detect`] is given by every caller (`sess show`, the
/// listings, the catalog), so that they agree.
pub const DETECT_BYTES: usize = 16 * 1024;

/// The line types of a Codex rollout.
const CODEX_TYPES: [&str; 5] = ["session_meta", "response_item", "event_msg", "turn_context", "compacted"];

/// Line types only Claude Code writes; `file-history-snapshot` lines carry
/// none of [`CLAUDE_KEYS`].
const CLAUDE_TYPES: [&str; 7] =
    ["user", "assistant", "system", "summary", "attachment", "file-history-snapshot", "queue-operation"];

/// Fields of Claude Code lines (pi-family entries have `id` and `parentId`).
const CLAUDE_KEYS: [&str; 4] = ["uuid", "parentUuid", "leafUuid", "sessionId"];

/// The fields that tell the agents apart.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    uuid: Option<serde::de::IgnoredAny>,
    parent_uuid: Option<serde::de::IgnoredAny>,
    leaf_uuid: Option<serde::de::IgnoredAny>,
    session_id: Option<serde::de::IgnoredAny>,
}

/// The agent that wrote the file at `path`, whose first bytes are `head`
/// ([`DETECT_BYTES`] are enough; a cut last line is fine). This is the one
/// rule: `sess show FILE`, the Claude Code listing and the catalog all use it.
///
/// - A Codex rollout is named `rollout-*`, or is zstd-compressed, or has a
///   `session_meta`/`response_item`/`event_msg`/`turn_context`/`compacted`
///   line.
/// - A pi-family file has a `session` header (oh-my-pi puts a `title` line
///   first).
/// - A Claude Code transcript has a line with a `uuid`, `parentUuid`,
///   `leafUuid` or `sessionId`, or of a type only Claude Code writes (`user`,
///   `assistant`, `summary`, `file-history-snapshot`, …).
///
/// The first line that says one of these decides; a line too long for `head`
/// is judged by its fields before the cut. `None` when no line says any.
pub fn detect(path: &Path, head: &[u8]) -> Option<SourceKind> {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    if name.starts_with("rollout-") || head.starts_with(&ZSTD_MAGIC) {
        return Some(SourceKind::Codex);
    }
    for line in JsonLines::new(head).take(LINES_LOOKED_AT) {
        let verdict = match line.parse::<Probe<'_>>() {
            Ok(probe) => {
                let claude_key = [&probe.uuid, &probe.parent_uuid, &probe.leaf_uuid, &probe.session_id]
                    .iter()
                    .any(|field| field.is_some());
                judge(probe.kind.as_deref(), claude_key)
            }
            Err(_) if !line.terminated => {
                let (kind, keys) = leading_fields(&line.text);
                judge(kind, keys.iter().any(|key| CLAUDE_KEYS.contains(key)))
            }
            Err(_) => None,
        };
        if verdict.is_some() {
            return verdict;
        }
    }
    None
}

/// What a line with this `type` (and a Claude Code field or not) says.
fn judge(kind: Option<&str>, claude_key: bool) -> Option<SourceKind> {
    match kind {
        Some("session") => Some(SourceKind::Pi),
        Some(kind) if CODEX_TYPES.contains(&kind) => Some(SourceKind::Codex),
        Some(kind) if CLAUDE_TYPES.contains(&kind) => Some(SourceKind::Claude),
        _ if claude_key => Some(SourceKind::Claude),
        _ => None,
    }
}

/// The top-level fields at the start of a JSON object cut short: its `type`
/// when that is a string, and every key before the cut.
fn leading_fields(text: &str) -> (Option<&str>, Vec<&str>) {
    let bytes = text.as_bytes();
    let skip_space = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    let (mut kind, mut keys) = (None, Vec::new());
    let mut at = skip_space(0);
    if bytes.get(at) != Some(&b'{') {
        return (kind, keys);
    }
    at += 1;
    loop {
        at = skip_space(at);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'"') => {
                let Some((key, after)) = string_at(text, at) else { break };
                at = skip_space(after);
                if bytes.get(at) != Some(&b':') {
                    break;
                }
                keys.push(key);
                at = skip_space(at + 1);
                if bytes.get(at) == Some(&b'"') {
                    let Some((value, after)) = string_at(text, at) else { break };
                    if key == "type" {
                        kind = Some(value);
                    }
                    at = after;
                } else {
                    let Some(after) = value_end(bytes, at) else { break };
                    at = after;
                }
            }
            _ => break,
        }
    }
    (kind, keys)
}

/// The contents of the JSON string that starts at `at` (escapes left as
/// written) and where it ends; `None` when the text ends first.
fn string_at(text: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    let mut end = at + 1;
    loop {
        match bytes.get(end)? {
            b'\\' => end += 2,
            b'"' => return Some((&text[at + 1..end], end + 1)),
            _ => end += 1,
        }
    }
}

/// Where the JSON value (not a string) that starts at `at` ends: at the `,`
/// or `}` after it; `None` when the text ends first.
fn value_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0_usize;
    let mut in_string = false;
    loop {
        let byte = *bytes.get(at)?;
        if in_string {
            match byte {
                b'\\' => at += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match byte {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                b',' | b'}' if depth == 0 => return Some(at),
                _ => {}
            }
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(dir: &str, name: &str) -> (std::path::PathBuf, Vec<u8>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(dir).join(name);
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    #[test]
    fn every_fixture_is_recognised() {
        for (dir, name, kind) in [
            ("pi-family", "pi-mono-0.73.1-main.jsonl", SourceKind::Pi),
            ("pi-family", "oh-my-pi-18.2.3-bun.jsonl", SourceKind::Pi),
            ("claude-code", "claude-basic-toolcall.jsonl", SourceKind::Claude),
            ("claude-code", "claude-compact-branch.jsonl", SourceKind::Claude),
            ("claude-code", "claude-1.0.98-task-sidechains.jsonl", SourceKind::Claude),
            ("codex", "codex-0.146-null-image.jsonl", SourceKind::Codex),
            ("codex", "codex-basic-rollout.jsonl", SourceKind::Codex),
            ("codex", "codex-fork-rollback-compact.jsonl", SourceKind::Codex),
        ] {
            let (path, bytes) = fixture(dir, name);
            assert_eq!(detect(&path, &bytes), Some(kind), "{name}");
            // By content alone, from the first 4 KiB.
            assert_eq!(detect(Path::new("x.jsonl"), &bytes[..bytes.len().min(4096)]), Some(kind), "{name}");
        }
    }

    #[test]
    fn claude_code_files_whose_first_lines_have_no_uuid() {
        // A file-history snapshot has no `uuid` or `sessionId`.
        let snapshot = br#"{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"2025-10-14T09:12:00.118Z"},"isSnapshotUpdate":false}"#;
        assert_eq!(detect(Path::new("x.jsonl"), snapshot), Some(SourceKind::Claude));
        // Its first line longer than the head: judged by the fields before the cut.
        let (path, bytes) = fixture("claude-code", "claude-2.0.14-snapshot-first.jsonl");
        assert!(bytes.iter().position(|&b| b == b'\n').unwrap() > DETECT_BYTES);
        assert_eq!(detect(&path, &bytes[..DETECT_BYTES]), Some(SourceKind::Claude));
        // So is a prompt longer than the head: its `sessionId` comes first.
        let prompt = format!(
            r#"{{"parentUuid":null,"isSidechain":false,"cwd":"/p","sessionId":"s","type":"user","message":{{"role":"user","content":"{}"#,
            "log line, ".repeat(2000)
        );
        assert_eq!(detect(Path::new("x.jsonl"), &prompt.as_bytes()[..DETECT_BYTES]), Some(SourceKind::Claude));
        // A cut line with none of the fields says nothing.
        let other = format!(r#"{{"a":{{"b":["}}",1]}},"c":"{}"#, "z".repeat(100));
        assert_eq!(detect(Path::new("x.jsonl"), other.as_bytes()), None);
        assert_eq!(leading_fields(r#"{"a":{"b":["}",1]},"type":"user","c"#), (Some("user"), vec!["a", "type"]));
    }

    #[test]
    fn a_codex_meta_line_longer_than_the_head_is_judged_by_its_leading_fields() {
        // Codex 0.171 writes its instructions into `session_meta`: the first line
        // of a real rollout is over 16 KiB; renamed, only its fields tell.
        let (_, bytes) = fixture(
            "codex/real-0.171.0/codex-home/sessions/2026/11/30",
            "rollout-2026-11-30T09-46-17-01a22bd9-1882-7631-acfa-f670d31a90c7.jsonl",
        );
        assert!(bytes.iter().position(|&b| b == b'\n').unwrap() > DETECT_BYTES);
        assert_eq!(detect(Path::new("renamed.jsonl"), &bytes[..DETECT_BYTES]), Some(SourceKind::Codex));
    }

    #[test]
    fn compressed_or_unknown() {
        assert_eq!(detect(Path::new("x.jsonl.zst"), &[0x28, 0xB5, 0x2F, 0xFD, 0]), Some(SourceKind::Codex));
        assert_eq!(detect(Path::new("notes.jsonl"), b"{\"a\":1}\nnot json\n"), None);
        assert_eq!(detect(Path::new("empty.jsonl"), b""), None);
    }
}
