//! A transcript, readable on a terminal: one section per message, wrapped
//! text, tool calls collapsed to one line with their status, long thinking and
//! summaries folded, colour only when it is wanted.

use std::fmt::Write as _;

use console::{Style, measure_text_width};
use sess_sources::{Block, Image, Message, Role, ToolCall, ToolStatus, Transcript};

use crate::summary::one_line;

/// How many lines of thinking or of a summary are shown before folding.
const FOLDED_LINES: usize = 3;

/// Where the text goes and how it looks.
pub(crate) struct Layout {
    /// Columns available.
    pub(crate) width: usize,
    /// Whether to use colour.
    pub(crate) colour: bool,
}

/// Styles for each part, plain when colour is off.
struct Styles {
    title: Style,
    dim: Style,
    user: Style,
    assistant: Style,
    system: Style,
    ok: Style,
    failed: Style,
    waiting: Style,
    thinking: Style,
}

impl Styles {
    fn new(colour: bool) -> Self {
        let style = |s: Style| s.force_styling(colour);
        Self {
            title: style(Style::new().bold()),
            dim: style(Style::new().dim()),
            user: style(Style::new().cyan().bold()),
            assistant: style(Style::new().magenta().bold()),
            system: style(Style::new().yellow().bold()),
            ok: style(Style::new().green()),
            failed: style(Style::new().red()),
            waiting: style(Style::new().yellow()),
            thinking: style(Style::new().dim().italic()),
        }
    }
}

/// The whole transcript as text.
pub(crate) fn render(transcript: &Transcript, layout: &Layout) -> String {
    let styles = Styles::new(layout.colour);
    let mut out = String::new();
    let title = transcript.title.as_deref().or_else(|| transcript.first_prompt()).unwrap_or("(untitled)");
    let _ = writeln!(out, "{}", styles.title.apply_to(one_line(title, layout.width.saturating_sub(1).max(20))));
    let mut about = format!("{}  {}", transcript.source, transcript.id);
    if let Some(cwd) = &transcript.cwd {
        let _ = write!(about, "  {cwd}");
    }
    let _ = writeln!(out, "{}", styles.dim.apply_to(about));
    if transcript.truncated > 0 {
        let _ = writeln!(
            out,
            "{}",
            styles
                .dim
                .apply_to(format!("{} older messages not shown (--all shows every message)", transcript.truncated))
        );
    }
    if transcript.messages.is_empty() {
        let _ = writeln!(out, "\n{}", styles.dim.apply_to("(no messages)"));
    }
    for message in &transcript.messages {
        out.push('\n');
        message_to(&mut out, message, layout, &styles);
    }
    out
}

fn message_to(out: &mut String, message: &Message, layout: &Layout, styles: &Styles) {
    let role = match message.role {
        Role::User => &styles.user,
        Role::Assistant => &styles.assistant,
        Role::System => &styles.system,
    };
    let _ = write!(out, "{}", role.apply_to(message.role.as_str()));
    if let Some(when) = message.timestamp.as_deref().and_then(short_time) {
        let _ = write!(out, "  {}", styles.dim.apply_to(when));
    }
    out.push('\n');
    let width = layout.width.saturating_sub(INDENT.len()).max(20);
    for block in &message.blocks {
        block_to(out, block, width, styles);
    }
}

const INDENT: &str = "  ";

fn block_to(out: &mut String, block: &Block, width: usize, styles: &Styles) {
    match block {
        Block::Text { text } => lines_to(out, &wrap(text, width), None),
        Block::Thinking { text } => {
            let lines: Vec<String> = wrap(text, width.saturating_sub(2))
                .into_iter()
                .map(|l| format!("│ {l}").trim_end().to_owned())
                .collect();
            folded_to(out, &lines, Some(&styles.thinking), styles);
        }
        Block::ToolCall(call) => tool_call_to(out, call, width, styles),
        Block::Error { text } => {
            let lines = wrap(&format!("error: {text}"), width);
            lines_to(out, &lines, Some(&styles.failed));
        }
        Block::Context { title, text } => {
            let count = text.lines().count();
            let noun = if count == 1 { "line" } else { "lines" };
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(format!("[{title}: {count} {noun}]")));
        }
        Block::Summary { text } => {
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to("summary of the earlier conversation:"));
            folded_to(out, &wrap(text, width), None, styles);
        }
        Block::Image(image) => {
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(image_label(image)));
        }
        Block::Unknown { what, raw } => {
            let label = format!("[not understood: {what}, {} of JSON]", size(raw.to_string().len()));
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(label));
        }
    }
}

fn tool_call_to(out: &mut String, call: &ToolCall, width: usize, styles: &Styles) {
    let (mark, style) = match call.status {
        ToolStatus::Succeeded => ("✓", &styles.ok),
        ToolStatus::Failed => ("✗", &styles.failed),
        ToolStatus::Running => ("…", &styles.waiting),
        ToolStatus::Pending => ("?", &styles.waiting),
    };
    let head = format!("{mark} {}", call.name);
    let room = width.saturating_sub(measure_text_width(&head) + 2).max(10);
    let preview = one_line(&input_preview(&call.input), room);
    let _ = write!(out, "{INDENT}{}", style.apply_to(head));
    if !preview.is_empty() {
        let _ = write!(out, "  {preview}");
    }
    out.push('\n');
    let note = match call.status {
        ToolStatus::Failed => call.result.as_deref().map(|r| one_line(r, width.saturating_sub(4).max(10))),
        ToolStatus::Pending => Some("no result: the session ended before it came".to_owned()),
        ToolStatus::Succeeded | ToolStatus::Running => None,
    };
    if let Some(note) = note.filter(|n| !n.is_empty()) {
        let _ = writeln!(out, "{INDENT}  {}", styles.dim.apply_to(note));
    }
    if !call.subagent.is_empty() {
        let _ = writeln!(out, "{INDENT}  {}", styles.dim.apply_to(subagent_label(&call.subagent)));
    }
}

/// One line for the folded conversation of a subagent.
fn subagent_label(turns: &[Message]) -> String {
    let calls = turns.iter().flat_map(|m| &m.blocks).filter(|b| matches!(b, Block::ToolCall(_))).count();
    let plural = |n: usize, noun: &str| format!("{n} {noun}{}", if n == 1 { "" } else { "s" });
    format!("subagent: {}, {} (--json shows them)", plural(turns.len(), "message"), plural(calls, "tool call"))
}

/// The argument that says what a call does (a command, a path, a query), or
/// its input as compact JSON.
fn input_preview(input: &serde_json::Value) -> String {
    if let Some(gist) = sess_sources::input_gist(input) {
        return gist;
    }
    match input {
        serde_json::Value::Object(map) if map.is_empty() => String::new(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn image_label(image: &Image) -> String {
    let kind = image.media_type.as_deref().unwrap_or("image");
    match (&image.data, &image.url) {
        (Some(data), _) => format!("[image {kind}, {}]", size(data.len() / 4 * 3)),
        (None, Some(url)) => format!("[image {kind}: {}]", one_line(url, 60)),
        (None, None) => format!("[image {kind}]"),
    }
}

fn size(bytes: usize) -> String {
    if bytes < 1024 { format!("{bytes} B") } else { format!("{:.1} KiB", bytes as f64 / 1024.0) }
}

/// `2026-08-21 14:00` from an ISO 8601 timestamp.
fn short_time(iso: &str) -> Option<String> {
    let (date, time) = iso.split_once('T')?;
    Some(format!("{date} {}", time.get(..5)?))
}

fn lines_to(out: &mut String, lines: &[String], style: Option<&Style>) {
    for line in lines {
        match style {
            _ if line.is_empty() => out.push('\n'),
            Some(style) => {
                let _ = writeln!(out, "{INDENT}{}", style.apply_to(line));
            }
            None => {
                let _ = writeln!(out, "{INDENT}{line}");
            }
        }
    }
}

fn folded_to(out: &mut String, lines: &[String], style: Option<&Style>, styles: &Styles) {
    let shown = if lines.len() > FOLDED_LINES + 1 { FOLDED_LINES } else { lines.len() };
    lines_to(out, &lines[..shown], style);
    if lines.len() > shown {
        let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(format!("… {} more lines", lines.len() - shown)));
    }
}

/// `text` broken into lines of at most `width` columns: at spaces where it
/// can, inside a word where a word is wider than the line. Line breaks in the
/// text are kept; trailing blank lines are dropped.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for source in text.trim_end().lines() {
        let source = source.trim_end();
        if measure_text_width(source) <= width {
            lines.push(source.to_owned());
            continue;
        }
        let mut line = String::new();
        let mut used = 0;
        for word in source.split(' ') {
            let word_width = measure_text_width(word);
            if used > 0 && used + 1 + word_width <= width {
                line.push(' ');
                line.push_str(word);
                used += 1 + word_width;
                continue;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
            }
            used = 0;
            for c in word.chars() {
                let w = measure_text_width(c.encode_utf8(&mut [0; 4]));
                if used + w > width && used > 0 {
                    lines.push(std::mem::take(&mut line));
                    used = 0;
                }
                line.push(c);
                used += w;
            }
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wraps_at_spaces_and_inside_long_words() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb\n\n", 10), ["a", "", "b"]);
        // Wide characters take two columns.
        assert_eq!(wrap("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
    }

    #[test]
    fn shows_roles_statuses_and_folds() {
        let mut ok = ToolCall::running("1", "Bash", json!({"command": "ls -la"}));
        ok.complete(Some("a\nb".into()), false, None);
        let mut failed = ToolCall::running("2", "Read", json!({"file_path": "/nope"}));
        failed.complete(Some("ENOENT: no such file".into()), true, None);
        let mut pending = ToolCall::running("3", "Edit", json!({}));
        pending.status = ToolStatus::Pending;
        let mut task = ToolCall::running("4", "Task", json!({"prompt": "count files"}));
        task.complete(Some("3 files".into()), false, None);
        task.subagent = vec![
            Message::new(Role::User).with(Block::text("count files")),
            Message::new(Role::Assistant).with(Block::ToolCall(ToolCall::running("5", "Bash", json!({})))),
        ];
        let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "abc");
        transcript.title = Some("Fix it".into());
        transcript.truncated = 2;
        transcript.messages.push(
            Message::new(Role::User)
                .at(None, Some("2026-08-21T14:00:00.500Z".into()))
                .with(Block::text("why?"))
                .with(Block::Context { title: "Restored context".into(), text: "x\ny".into() }),
        );
        transcript.messages.push(
            Message::new(Role::Assistant)
                .with(Block::Thinking { text: "1\n2\n3\n4\n5".into() })
                .with(Block::ToolCall(ok))
                .with(Block::ToolCall(failed))
                .with(Block::ToolCall(pending))
                .with(Block::ToolCall(task))
                .with(Block::Unknown { what: "input_image".into(), raw: json!({"image_url": null}) })
                .with(Block::Error { text: "API Error: 529".into() }),
        );
        let text = render(&transcript, &Layout { width: 80, colour: false });
        assert_eq!(
            text,
            "Fix it\nclaude  abc\n2 older messages not shown (--all shows every message)\n\n\
             user  2026-08-21 14:00\n  why?\n  [Restored context: 2 lines]\n\n\
             assistant\n  │ 1\n  │ 2\n  │ 3\n  … 2 more lines\n  ✓ Bash  ls -la\n  ✗ Read  /nope\n    ENOENT: no such file\n\
             \x20 ? Edit\n    no result: the session ended before it came\n\
             \x20 ✓ Task  count files\n    subagent: 2 messages, 1 tool call (--json shows them)\n\
             \x20 [not understood: input_image, 18 B of JSON]\n  error: API Error: 529\n"
        );
        assert!(!text.contains('\u{1b}'));
        let coloured = render(&transcript, &Layout { width: 80, colour: true });
        assert!(coloured.contains('\u{1b}'));
    }
}
