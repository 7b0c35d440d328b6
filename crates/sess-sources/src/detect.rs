//! Which agent wrote a session file, from its name and first lines: the one
//! rule `sess show`, the listings and the catalog share.
//!
//! The first lines are read once into a [`Head`]; every [`Source`](crate::Source)
//! says which of them it recognises, and the source that recognises the
//! earliest line wins (ties go to the source listed first in the registry,
//! the more specific before the more general).

use std::borrow::Cow;
use std::path::Path;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::jsonl::JsonLines;
use crate::source::{SourceKind, registry};

/// How many lines to look at before giving up.
const LINES_LOOKED_AT: usize = 32;

/// How much of a file [`detect`] is given by every caller (`sess show`, the
/// listings, the catalog), so that they agree.
pub const DETECT_BYTES: usize = 16 * 1024;

/// The first bytes of a file, as a source's detector sees them.
#[derive(Debug)]
pub struct Head<'a> {
    /// The file's path, for the agents whose files are told apart by the
    /// folder they are in.
    pub path: &'a Path,
    /// The file's name (the last part of its path).
    pub name: Cow<'a, str>,
    /// The first bytes, as read.
    pub bytes: &'a [u8],
    /// The first lines (at most 32), each with its top-level fields.
    pub lines: Vec<HeadLine<'a>>,
}

/// One of the first lines of a file.
#[derive(Debug)]
pub struct HeadLine<'a> {
    /// The text of the line (without its line end).
    pub text: Cow<'a, str>,
    /// Whether it is a JSON object (or one cut short by the end of the head).
    pub object: bool,
    /// Its top-level `type`, when that is a string.
    pub kind: Option<String>,
    /// Its top-level keys (of a line cut short: those before the cut).
    pub keys: Vec<String>,
}

impl HeadLine<'_> {
    /// Whether the line has this top-level key.
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// Whether its `type` is one of `kinds`.
    pub fn kind_in(&self, kinds: &[&str]) -> bool {
        self.kind.as_deref().is_some_and(|kind| kinds.contains(&kind))
    }
}

impl<'a> Head<'a> {
    /// The head of the file at `path` whose first bytes are `bytes`.
    pub fn new(path: &'a Path, bytes: &'a [u8]) -> Self {
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let lines = JsonLines::new(bytes)
            .take(LINES_LOOKED_AT)
            .map(|line| {
                let (object, kind, keys) = match top_level(&line.text) {
                    Some((kind, keys)) => (true, kind, keys),
                    None if !line.terminated => {
                        let (kind, keys) = leading_fields(&line.text);
                        let object = line.text.trim_start().starts_with('{');
                        (object, kind.map(str::to_owned), keys.into_iter().map(str::to_owned).collect())
                    }
                    None => (false, None, Vec::new()),
                };
                HeadLine { text: line.text, object, kind, keys }
            })
            .collect();
        Self { path, name, bytes, lines }
    }

    /// The position of the first line `claims` says is the agent's.
    pub fn first(&self, claims: impl Fn(&HeadLine<'_>) -> bool) -> Option<usize> {
        self.lines.iter().position(claims)
    }
}

/// The agent that wrote the file at `path`, whose first bytes are `head`
/// ([`DETECT_BYTES`] are enough; a cut last line is fine): of the sources
/// that recognise one of its first lines, the one that recognises the
/// earliest. A line too long for `head` is judged by its fields before the
/// cut. `None` when no source recognises any line.
pub fn detect(path: &Path, head: &[u8]) -> Option<SourceKind> {
    let head = Head::new(path, head);
    let mut best: Option<(usize, SourceKind)> = None;
    for kind in registry() {
        if let Some(line) = kind.source().detect(&head)
            && best.is_none_or(|(at, _)| line < at)
        {
            best = Some((line, kind));
        }
    }
    best.map(|(_, kind)| kind)
}

/// [`detect`] of a file whose bytes (or many of them) are `bytes`, from the
/// first [`DETECT_BYTES`] as every caller judges them.
pub(crate) fn detect_whole(path: &Path, bytes: &[u8]) -> Option<SourceKind> {
    detect(path, &bytes[..bytes.len().min(DETECT_BYTES)])
}

/// The `type` and the keys of a line that is a JSON object; `None` when it is
/// not one.
fn top_level(text: &str) -> Option<(Option<String>, Vec<String>)> {
    struct Fields;
    impl<'de> Visitor<'de> for Fields {
        type Value = (Option<String>, Vec<String>);
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut kind, mut keys) = (None, Vec::new());
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == "type" {
                    let value: serde_json::Value = map.next_value()?;
                    kind = value.as_str().map(str::to_owned);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
                keys.push(key.into_owned());
            }
            Ok((kind, keys))
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = (&mut de).deserialize_map(Fields).ok()?;
    de.end().ok()?;
    Some(fields)
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
            ("pi-family", "pi-mono-0.73.1-main.jsonl", crate::pi::SOURCE),
            ("pi-family", "oh-my-pi-18.2.3-bun.jsonl", crate::pi::SOURCE),
            ("claude-code", "claude-basic-toolcall.jsonl", crate::claude::SOURCE),
            ("claude-code", "claude-compact-branch.jsonl", crate::claude::SOURCE),
            ("claude-code", "claude-1.0.98-task-sidechains.jsonl", crate::claude::SOURCE),
            ("codex", "codex-0.146-null-image.jsonl", crate::codex::SOURCE),
            ("codex", "codex-basic-rollout.jsonl", crate::codex::SOURCE),
            ("codex", "codex-fork-rollback-compact.jsonl", crate::codex::SOURCE),
            (
                "gemini/real-0.61.0/home/.gemini/tmp/alpha/chats",
                "session-2026-12-01T09-18-9786d550.jsonl",
                crate::gemini::SOURCE,
            ),
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
        assert_eq!(detect(Path::new("x.jsonl"), snapshot), Some(crate::claude::SOURCE));
        // Its first line longer than the head: judged by the fields before the cut.
        let (path, bytes) = fixture("claude-code", "claude-2.0.14-snapshot-first.jsonl");
        assert!(bytes.iter().position(|&b| b == b'\n').unwrap() > DETECT_BYTES);
        assert_eq!(detect(&path, &bytes[..DETECT_BYTES]), Some(crate::claude::SOURCE));
        // So is a prompt longer than the head: its `sessionId` comes first.
        let prompt = format!(
            r#"{{"parentUuid":null,"isSidechain":false,"cwd":"/p","sessionId":"s","type":"user","message":{{"role":"user","content":"{}"#,
            "log line, ".repeat(2000)
        );
        assert_eq!(detect(Path::new("x.jsonl"), &prompt.as_bytes()[..DETECT_BYTES]), Some(crate::claude::SOURCE));
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
        assert_eq!(detect(Path::new("renamed.jsonl"), &bytes[..DETECT_BYTES]), Some(crate::codex::SOURCE));
    }

    #[test]
    fn compressed_or_unknown() {
        assert_eq!(detect(Path::new("x.jsonl.zst"), &[0x28, 0xB5, 0x2F, 0xFD, 0]), Some(crate::codex::SOURCE));
        assert_eq!(detect(Path::new("notes.jsonl"), b"{\"a\":1}\nnot json\n"), None);
        assert_eq!(detect(Path::new("empty.jsonl"), b""), None);
    }
}
