//! `workspace.yaml`, the file beside a session's events: its id, cwd, name
//! (the title), and whether the user gave the name.
//!
//! Copilot writes it as flat YAML, one `key: value` a line, with the values as
//! a YAML serializer writes strings: plain, `'single-quoted'` (`''` is a
//! quote), `"double-quoted"` (backslash escapes), or a block scalar (`|-`
//! and the indented lines after it) for a name of several lines. Those forms
//! are read; anything else (nested maps, anchors) is not Copilot's and reads
//! as absent.

use std::path::Path;

/// The name of the file.
pub(crate) const FILE: &str = "workspace.yaml";

/// What `sess` reads of a `workspace.yaml`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Workspace {
    /// `cwd`.
    pub cwd: Option<String>,
    /// `name`: the session's title (its first prompt until renamed).
    pub name: Option<String>,
    /// `user_named`: whether the user gave the name (`-n`, `/rename`).
    pub user_named: bool,
}

impl Workspace {
    /// The `workspace.yaml` in `dir`; empty when it is missing or unreadable.
    pub(crate) fn read_in(dir: &Path) -> Self {
        std::fs::read(dir.join(FILE)).map(|bytes| Self::parse(&String::from_utf8_lossy(&bytes))).unwrap_or_default()
    }

    /// The fields of the YAML `text`.
    pub(crate) fn parse(text: &str) -> Self {
        let mut workspace = Self::default();
        let lines: Vec<&str> = text.lines().collect();
        let mut at = 0;
        while at < lines.len() {
            let line = lines[at];
            at += 1;
            if line.starts_with([' ', '\t', '#']) {
                continue;
            }
            let Some((key, raw)) = line.split_once(':') else { continue };
            let raw = raw.trim();
            let value = if let Some(style) = raw.strip_prefix(['|', '>']) {
                let (block, used) = block_scalar(raw.starts_with('>'), style, &lines[at..]);
                at += used;
                Some(block)
            } else {
                scalar(raw)
            };
            match key.trim() {
                "cwd" => workspace.cwd = value,
                "name" => workspace.name = value.filter(|name| !name.trim().is_empty()),
                "user_named" => workspace.user_named = value.as_deref() == Some("true"),
                _ => {}
            }
        }
        workspace
    }
}

/// A one-line scalar: plain, single- or double-quoted. `None` for an empty
/// value, `~` and `null`.
fn scalar(raw: &str) -> Option<String> {
    if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return Some(inner.replace("''", "'"));
    }
    if raw.starts_with('"') {
        return double_quoted(raw);
    }
    // A comment after a plain scalar starts with ` #`.
    let plain = raw.find(" #").map_or(raw, |cut| &raw[..cut]).trim_end();
    (!matches!(plain, "" | "~" | "null")).then(|| plain.to_owned())
}

/// A double-quoted scalar, its escapes resolved; `None` when it is cut.
fn double_quoted(raw: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = raw.strip_prefix('"')?.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                'e' => out.push('\u{1b}'),
                'x' => out.push(hex_char(&mut chars, 2)?),
                'u' => out.push(hex_char(&mut chars, 4)?),
                'U' => out.push(hex_char(&mut chars, 8)?),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The character whose code is the next `digits` hex digits.
fn hex_char(chars: &mut std::str::Chars<'_>, digits: usize) -> Option<char> {
    let code: String = chars.take(digits).collect();
    u32::from_str_radix(&code, 16).ok().and_then(char::from_u32)
}

/// A block scalar (`|`, `|-`, `|+`, `>`, …) made of the indented `lines`
/// after its key; and how many lines it used. Literal blocks keep their line
/// breaks, folded ones join lines with spaces; `-` drops the final line
/// break, `+` keeps them all, neither keeps one.
fn block_scalar(folded: bool, style: &str, lines: &[&str]) -> (String, usize) {
    let used = lines.iter().take_while(|line| line.is_empty() || line.starts_with([' ', '\t'])).count();
    let body = &lines[..used];
    let indent = body.iter().find(|l| !l.trim().is_empty()).map_or(0, |l| l.len() - l.trim_start().len());
    let texts: Vec<&str> = body.iter().map(|l| l.get(indent..).unwrap_or("")).collect();
    let mut text = if folded { fold(&texts) } else { texts.join("\n") };
    let kept = text.len() - text.trim_end_matches('\n').len();
    text.truncate(text.len() - kept);
    if style.contains('+') {
        text.push_str(&"\n".repeat(kept + 1));
    } else if !style.contains('-') {
        text.push('\n');
    }
    (text, used)
}

/// The lines of a folded block: lines joined by spaces, each empty line a
/// line break.
fn fold(lines: &[&str]) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if line.is_empty() {
            out.push('\n');
        } else if i > 0 && !lines[i - 1].is_empty() {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> Option<String> {
        Workspace::parse(text).name
    }

    #[test]
    fn reads_the_fields_copilot_writes() {
        let text = "id: 06b9\ncwd: /home/dev/projects/alpha\nclient_name: github/cli\nname: Greetings and checks\nuser_named: true\nsummary_count: 1\n";
        let workspace = Workspace::parse(text);
        assert_eq!(workspace.cwd.as_deref(), Some("/home/dev/projects/alpha"));
        assert_eq!(workspace.name.as_deref(), Some("Greetings and checks"));
        assert!(workspace.user_named);
        assert!(!Workspace::parse("user_named: false\n").user_named);
    }

    #[test]
    fn reads_quoted_names() {
        // As Copilot 1.0.102 wrote them.
        assert_eq!(name("name: 'Fix: the bug #1 ''x'' é'\n").as_deref(), Some("Fix: the bug #1 'x' é"));
        assert_eq!(name("name: '- dash start: yes'\n").as_deref(), Some("- dash start: yes"));
        assert_eq!(name("name: 'true'\n").as_deref(), Some("true"));
        assert_eq!(name("name: \"tab\\there \\u00e9\\\"\"\n").as_deref(), Some("tab\there é\""));
        assert_eq!(name("name: plain # a comment\n").as_deref(), Some("plain"));
        assert_eq!(name("name: \"cut\n"), None);
        assert_eq!(name("name: ''\n"), None);
        assert_eq!(name("name:\n"), None);
    }

    #[test]
    fn reads_block_names() {
        // As Copilot 1.0.102 wrote a first prompt of several lines.
        let text =
            "name: |-\n  Line one: with colon\n  line two 'quoted' \"dq\" #hash\n\n    indented\nuser_named: false\n";
        assert_eq!(name(text).as_deref(), Some("Line one: with colon\nline two 'quoted' \"dq\" #hash\n\n  indented"));
        assert_eq!(name("name: |\n  a\n  b\n").as_deref(), Some("a\nb\n"));
        assert_eq!(name("name: |+\n  a\n\nx: 1\n").as_deref(), Some("a\n\n"));
        assert_eq!(name("name: >-\n  a\n  b\n\n  c\n").as_deref(), Some("a b\nc"));
        assert!(!Workspace::parse("name: |-\n  user_named: true\n").user_named);
    }

    #[test]
    fn a_missing_file_is_empty() {
        assert_eq!(Workspace::read_in(Path::new("/nonexistent/sess-copilot")), Workspace::default());
    }
}
