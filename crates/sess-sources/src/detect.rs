//! Which agent wrote a session file, from its name and first lines.

use std::path::Path;

use serde::Deserialize;

use crate::jsonl::JsonLines;
use crate::transcript::SourceKind;

/// The zstd frame magic number: Codex compresses old rollouts.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// How many lines to look at before giving up.
const LINES_LOOKED_AT: usize = 32;

/// The fields that tell the agents apart.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    uuid: Option<serde::de::IgnoredAny>,
    leaf_uuid: Option<serde::de::IgnoredAny>,
}

/// The agent that wrote the file at `path`, whose first bytes are `head` (a few
/// KiB are enough; a cut last line is fine).
///
/// A pi-family file starts with a `session` header (oh-my-pi puts a `title`
/// line first); a Codex rollout is named `rollout-*` or holds
/// `session_meta`/`response_item`/`event_msg`/`turn_context` lines, and may be
/// zstd-compressed; a Claude Code transcript has lines with a `uuid` or a
/// `leafUuid`. `None` when the lines say none of this.
pub fn detect(path: &Path, head: &[u8]) -> Option<SourceKind> {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    if name.starts_with("rollout-") || head.starts_with(&ZSTD_MAGIC) {
        return Some(SourceKind::Codex);
    }
    for line in JsonLines::new(head).take(LINES_LOOKED_AT) {
        let Ok(probe) = line.parse::<Probe<'_>>() else { continue };
        match probe.kind.as_deref() {
            Some("session") => return Some(SourceKind::Pi),
            Some("title") => {}
            Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted") => {
                return Some(SourceKind::Codex);
            }
            _ if probe.uuid.is_some() || probe.leaf_uuid.is_some() => return Some(SourceKind::Claude),
            _ => {}
        }
    }
    None
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
    fn compressed_or_unknown() {
        assert_eq!(detect(Path::new("x.jsonl.zst"), &[0x28, 0xB5, 0x2F, 0xFD, 0]), Some(SourceKind::Codex));
        assert_eq!(detect(Path::new("notes.jsonl"), b"{\"a\":1}\nnot json\n"), None);
        assert_eq!(detect(Path::new("empty.jsonl"), b""), None);
    }
}
