//! Text that looks like what agents write: prose, code, tool output, base64.

use std::fmt::Write as _;

use super::Rng;

const WORDS: &[&str] = &[
    "the",
    "session",
    "file",
    "entry",
    "function",
    "returns",
    "error",
    "value",
    "test",
    "build",
    "and",
    "of",
    "to",
    "in",
    "is",
    "we",
    "should",
    "check",
    "whether",
    "parser",
    "line",
    "context",
    "model",
    "tool",
    "result",
    "call",
    "read",
    "write",
    "update",
    "config",
    "path",
    "struct",
    "impl",
    "let",
    "match",
    "Option",
    "Result",
    "String",
    "vector",
    "index",
    "branch",
    "leaf",
    "compaction",
    "summary",
    "label",
    "cursor",
    "segment",
    "lock",
    "append",
    "because",
    "then",
    "after",
    "before",
    "fails",
    "passes",
    "works",
    "seems",
    "maybe",
    "likely",
    "now",
    "again",
    "naïve",
    "café",
    "—",
    "«quoted»",
    "日本語",
    "테스트",
    "🎉",
    "über",
    "état",
];

const CODE: &[&str] = &[
    "fn main() {",
    "    let value = parse(&input)?;",
    "    if value.is_empty() { return Ok(()); }",
    "}",
    "import { readFileSync } from \"node:fs\";",
    "const lines = text.split(\"\\n\");",
    "\tfor (const line of lines) {",
    "\t\tif (!line.trim()) continue;",
    "    assert_eq!(got, \"expected\");",
    "#[derive(Debug, Clone)]",
    "pub struct Entry { id: String, parent: Option<String> }",
    "SELECT id, seq FROM entries WHERE segment_id = $1;",
    "error[E0502]: cannot borrow `x` as mutable because it is also borrowed as immutable",
    "warning: unused variable: `y`",
    "test tree::tests::branches ... ok",
    "    Finished `release` profile [optimized] target(s) in 41.2s",
];

const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Prose of about `len` bytes: words, punctuation, the odd newline.
pub(super) fn prose(rng: &mut Rng, len: usize) -> String {
    let mut out = String::with_capacity(len + 16);
    while out.len() < len {
        if !out.is_empty() {
            out.push_str(match rng.below(40) {
                0 => ".\n\n",
                1..=3 => ", ",
                4 => ". ",
                _ => " ",
            });
        }
        let word: &&str = rng.pick(WORDS);
        out.push_str(word);
    }
    out
}

/// Tool output of about `len` bytes: file listings, code, compiler messages.
pub(super) fn tool_output(rng: &mut Rng, len: usize) -> String {
    let mut out = String::with_capacity(len + 96);
    let mut line = 1;
    while out.len() < len {
        if rng.below(3) == 0 {
            let file = rng.below(400);
            // Writing to a String cannot fail.
            let _ = write!(out, "src/module_{file}.rs:{line}: ");
            out.push_str(&prose(rng, 40));
        } else {
            let code: &&str = rng.pick(CODE);
            out.push_str(code);
        }
        out.push('\n');
        line += 1;
    }
    out
}

/// Base64 of `bytes` random bytes (`4 * ceil(bytes / 3)` characters, no padding
/// needed because the length is a multiple of 4 and the content is random).
pub(super) fn base64(rng: &mut Rng, bytes: usize) -> String {
    let chars = bytes.div_ceil(3) * 4;
    let mut out = String::with_capacity(chars);
    while out.len() < chars {
        let mut bits = rng.next_u64();
        for _ in 0..10 {
            if out.len() == chars {
                break;
            }
            #[allow(clippy::cast_possible_truncation, reason = "masked to 6 bits")]
            out.push(char::from(BASE64[(bits & 63) as usize]));
            bits >>= 6;
        }
    }
    out
}

/// `n` random lowercase hex digits.
pub(super) fn hex(rng: &mut Rng, n: usize) -> String {
    let mut out = String::with_capacity(n);
    while out.len() < n {
        let bits = rng.next_u64();
        let chunk = format!("{bits:016x}");
        out.push_str(&chunk[..(n - out.len()).min(16)]);
    }
    out
}

/// A UUID with version 7 shape whose time part is `ms` (as pi-mono 0.73.1's
/// session ids).
pub(super) fn uuid_v7(rng: &mut Rng, ms: i64) -> String {
    let ms = ms.max(0).cast_unsigned();
    let random = rng.next_u64();
    format!(
        "{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}",
        ms >> 16,
        ms & 0xffff,
        random & 0xfff,
        0x8000 | ((random >> 12) & 0x3fff),
        (random >> 16) & 0xffff_ffff_ffff
    )
}

/// A random version 4 UUID (Claude Code's ids).
pub(super) fn uuid_v4(rng: &mut Rng) -> String {
    let (a, b) = (rng.next_u64(), rng.next_u64());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b & 0x3fff),
        (b >> 16) & 0xffff_ffff_ffff
    )
}
